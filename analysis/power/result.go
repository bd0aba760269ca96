package power

// Label names the closed form's part as a person reads it: the part (or
// the estimand kind) with its for_each level in brackets.
func (c *Closed) Label() string { return label(c) }
