package prereg

// CompareTo is the factor whose share a shapley_share part's estimate is
// compared with (its bound is that share); "" for every other part.
func (pr *PartResult) CompareTo() string {
	if pr.part == nil || pr.part.Rule == nil {
		return ""
	}
	return pr.part.Rule.CompareTo
}
