package paper

// Tool is one tool of the sandbox catalogue as an agent sees it.
type Tool struct {
	Name        string
	Write       bool
	Description string
}

// Table11 lists the tools and their agent-facing descriptions (native
// contract), from the catalogue the caller passes (package sandbox's, so
// the table always shows what agents saw).
func Table11(tools []Tool) *Table {
	t := &Table{
		Number:      11,
		Title:       "Tools and their agent-facing descriptions",
		Caption:     "Tools and their agent-facing descriptions (native contract).",
		LabelHeader: []string{"Tool"},
		Columns: []Column{
			{Key: "kind", Label: "Kind"},
			{Key: "description", Label: "Description shown to the agent"},
		},
	}
	for _, tl := range tools {
		kind := "read"
		if tl.Write {
			kind = "write"
		}
		k, d := textCell(kind), textCell(tl.Description)
		k.Design, d.Design = true, true
		t.Rows = append(t.Rows, Row{Key: tl.Name, Labels: []string{tl.Name}, Cells: []Cell{k, d}})
	}
	if len(tools) == 0 {
		t.warnf("no tool catalogue available")
	}
	return t
}
