package ledger

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// Every fault mode is complete and consistent with its family: the
// paper's definitions (docs/simulation.md, Fault modes) hold of the data,
// so a new entry that contradicts them fails here.
func TestFaultCatalogue(t *testing.T) {
	seen := map[string]bool{}
	groups := map[string]int{}
	for _, m := range Faults() {
		if m.Name == "" || seen[m.Name] {
			t.Errorf("mode %q: empty or repeated name", m.Name)
		}
		seen[m.Name] = true
		fam, ok := FamilyByName(m.Family)
		if !ok {
			t.Errorf("%s: unknown family %q", m.Name, m.Family)
		}
		if !slices.ContainsFunc(FaultGroups(), func(g FaultGroup) bool { return g.Name == m.Group }) {
			t.Errorf("%s: unknown group %q", m.Name, m.Group)
		}
		groups[m.Group]++
		if !Outcomes.Has(m.Observed) {
			t.Errorf("%s: observed %q is not a call outcome", m.Name, m.Observed)
		}
		if m.Fate < FateNotExecuted || m.Fate > FateRedelivered {
			t.Errorf("%s: no fate", m.Name)
		}
		if m.Sites == 0 {
			t.Errorf("%s: injected nowhere", m.Name)
		}
		for what, s := range map[string]string{"Sees": m.Sees, "Hidden": m.Hidden, "Recovery": m.Recovery, "Label": m.Label, "Short": m.Short, "Text": m.Text} {
			if s == "" {
				t.Errorf("%s: empty %s", m.Name, what)
			}
		}
		// The families as the paper defines them.
		if (m.Family == FamilyPre) != m.NotExecuted() {
			t.Errorf("%s: family %s but fate %v", m.Name, m.Family, m.Fate)
		}
		if (m.Family == FamilyLate) != m.Late() || (m.Family == FamilyLate) != (m.Fate == FateLate) {
			t.Errorf("%s: family %s, delay %d, fate %v", m.Name, m.Family, m.Delay, m.Fate)
		}
		if (m.Family == FamilyRedelivery) != (m.Fate == FateRedelivered) {
			t.Errorf("%s: family %s but fate %v", m.Name, m.Family, m.Fate)
		}
		if fam.Committed && (m.Observed == OutcomeOK || m.NotExecuted()) {
			t.Errorf("%s: a committed fault must commit and show a failure", m.Name)
		}
		if m.Control() && (m.Observed != OutcomeOK || m.Fate != FateCommitted) {
			t.Errorf("%s: the control must succeed once", m.Name)
		}
		if m.Committed() != fam.Committed || m.ReadBack() != fam.ReadBack {
			t.Errorf("%s: Committed/ReadBack disagree with the family", m.Name)
		}
	}
	if !slices.Equal(FaultModes.Values, FaultNames(func(FaultMode) bool { return true })) {
		t.Errorf("FaultModes = %v, want the catalogue's names", FaultModes.Values)
	}
	for _, g := range FaultGroups() {
		if groups[g.Name] == 0 {
			t.Errorf("group %q has no mode", g.Name)
		}
	}
	// Table 2's groups are observation-equivalent at the response.
	for _, g := range []string{GroupTimeout, GroupHTTP500, GroupSuccess} {
		var obs []string
		for _, m := range Faults() {
			if m.Group == g && !slices.Contains(obs, m.Observed) {
				obs = append(obs, m.Observed)
			}
		}
		if len(obs) != 1 {
			t.Errorf("group %s: observed %v, want one outcome", g, obs)
		}
	}
	for _, m := range Faults() {
		if _, ok := FaultByName(m.Name); !ok {
			t.Errorf("FaultByName(%q) not found", m.Name)
		}
	}
	if _, ok := FaultByName("timeout"); ok {
		t.Error("FaultByName(timeout): found a mode that is not one")
	}
}

// The paper's fault families, as its tables use them, over the paper's
// twelve modes (a mode added later joins its family).
func TestFaultFamilies(t *testing.T) {
	paper := []string{FaultNone, FaultTimeoutPre, FaultTimeoutPost, FaultTimeoutLate, FaultTimeoutLateTail, FaultHTTP500Pre,
		FaultHTTP500Post, FaultPartialBatch, FaultRedelivery, FaultHTTP429Pre, FaultConnRefusedPre, FaultStaleRead}
	set := func(keep func(FaultMode) bool) []string {
		s := FaultNames(func(m FaultMode) bool { return keep(m) && slices.Contains(paper, m.Name) })
		slices.Sort(s)
		return s
	}
	sorted := func(s ...string) []string { slices.Sort(s); return s }
	for _, tc := range []struct {
		name string
		got  []string
		want []string
	}{
		{"committed", set(FaultMode.Committed), sorted(FaultTimeoutPost, FaultHTTP500Post, FaultPartialBatch, FaultTimeoutLate, FaultTimeoutLateTail)},
		{"late", set(FaultMode.Late), sorted(FaultTimeoutLate, FaultTimeoutLateTail)},
		{"not executed", set(FaultMode.NotExecuted), sorted(FaultTimeoutPre, FaultHTTP500Pre, FaultHTTP429Pre, FaultConnRefusedPre)},
		{"resolves", set(func(m FaultMode) bool { return m.ReadBack() == ReadBackResolves }), sorted(FaultTimeoutPost, FaultHTTP500Post, FaultPartialBatch)},
		{"cannot", set(func(m FaultMode) bool { return m.ReadBack() == ReadBackCannot }), sorted(FaultTimeoutLate, FaultTimeoutLateTail, FaultRedelivery)},
		{"batch", set(func(m FaultMode) bool { return m.Batch }), sorted(FaultPartialBatch)},
		{"CommittedFaults", sorted(CommittedFaults...), sorted(FaultNames(FaultMode.Committed)...)},
		{"LateModes", LateModes, FaultNames(FaultMode.Late)},
	} {
		if !slices.Equal(tc.got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

// Tools name their services, their read-backs and their platforms
// consistently; every contract names writes of the catalogue.
func TestToolCatalogue(t *testing.T) {
	seen := map[string]bool{}
	for _, tl := range Tools() {
		if seen[tl.Name] {
			t.Errorf("tool %s repeated", tl.Name)
		}
		seen[tl.Name] = true
		svc, known := ServiceByName(tl.Service)
		switch tl.Kind {
		case ToolRead, ToolWrite:
			if !known {
				t.Errorf("%s: unknown service %q", tl.Name, tl.Service)
			}
		case ToolOracle, ToolWait:
			if known {
				t.Errorf("%s: a condition tool in service %s", tl.Name, tl.Service)
			}
		default:
			t.Errorf("%s: no kind", tl.Name)
		}
		if tl.ReadBack != "" {
			rb, ok := ToolByName(tl.ReadBack)
			if !ok || rb.Kind != ToolRead || rb.Service != tl.Service || !tl.Write() {
				t.Errorf("%s: read-back %q is not a read of the same service", tl.Name, tl.ReadBack)
			}
		}
		if tl.Write() && tl.Noun == "" {
			t.Errorf("%s: a write without a noun", tl.Name)
		}
		for _, p := range tl.Paths {
			if p.Platform != "" && !slices.Contains(svc.Platforms, p.Platform) {
				t.Errorf("%s: path on %q, not a platform of %s", tl.Name, p.Platform, tl.Service)
			}
			if (p.Path != "") != tl.Write() || (p.Path != "" && !ReadPaths.Has(p.Path)) {
				t.Errorf("%s: path %q", tl.Name, p.Path)
			}
		}
	}
	for _, c := range ContractVariants() {
		for _, k := range c.Keys {
			tl, ok := ToolByName(k.Tool)
			if !ok || !tl.Write() {
				t.Errorf("contract %s: key on %q, not a write", c.Name, k.Tool)
				continue
			}
			svc, _ := ServiceByName(tl.Service)
			for _, p := range k.Platforms {
				if !slices.Contains(svc.Platforms, p) {
					t.Errorf("contract %s: key on %s on %q, not a platform of %s", c.Name, k.Tool, p, tl.Service)
				}
			}
		}
	}
	if !slices.Equal(Contracts.Values, []string{ContractNative, ContractKeysEverywhere}) {
		t.Errorf("Contracts = %v", Contracts.Values)
	}
}

// Read paths and documented lags per platform (paper Table 1).
func TestReadPaths(t *testing.T) {
	for _, tc := range []struct {
		tool, platform, path string
		lag                  float64
	}{
		{"social_publish", "weibo", ReadEventual, 180},
		{"social_publish", "x", ReadNone, 0},
		{"social_publish", "linkedin", ReadStrong, 0},
		{"social_publish", "", ReadStrong, 0},
		{"social_list_posts", "weibo", "", 180},
		{"social_list_posts", "mastodon", "", 0},
		{"tickets_add_comment", "", ReadEventual, 120},
		{"tickets_search", "", "", 120},
		{"mail_send", "", ReadEventual, 120},
		{"data_insert", "", ReadStrong, 0},
		{"tickets_list_recent", "", "", 0},
	} {
		tl, _ := ToolByName(tc.tool)
		if p := tl.PathOn(tc.platform); p.Path != tc.path || p.LagS != tc.lag {
			t.Errorf("%s on %q: %+v, want %s, %g s", tc.tool, tc.platform, p, tc.path, tc.lag)
		}
	}
	for tool, want := range map[string]float64{"social_publish": 180, "social_delete_post": 180, "mail_search_sent": 120, "billing_create_charge": 0} {
		if tl, _ := ToolByName(tool); tl.WorstLag() != want {
			t.Errorf("%s: worst lag %g, want %g", tool, tl.WorstLag(), want)
		}
	}
}

// Which contract honours a key where (paper Table 1; docs/simulation.md,
// Contract classes).
func TestContractKeys(t *testing.T) {
	native, _ := ContractByName(ContractNative)
	keys, _ := ContractByName(ContractKeysEverywhere)
	tool := func(n string) Tool { tl, _ := ToolByName(n); return tl }
	for _, tc := range []struct {
		c              Contract
		tool, platform string
		want           bool
	}{
		{native, "billing_create_charge", "", true},
		{native, "social_publish", "mastodon", true},
		{native, "social_publish", "weibo", false},
		{native, "mail_send", "", false},
		{native, "billing_refund_charge", "", false},
		{keys, "mail_send", "", true},
		{keys, "social_publish", "x", true},
		{keys, "billing_refund_charge", "", true},
		{keys, "billing_list_charges", "", false},
		{keys, "state_oracle", "", false},
	} {
		if got := tc.c.Honours(tool(tc.tool), tc.platform); got != tc.want {
			t.Errorf("%s honours %s on %q = %v, want %v", tc.c.Name, tc.tool, tc.platform, got, tc.want)
		}
	}
	if ps, ok := native.KeyPlatforms(tool("social_publish")); !ok || !slices.Equal(ps, []string{"mastodon"}) {
		t.Errorf("native social_publish key platforms = %v, %v", ps, ok)
	}
	if ps, ok := keys.KeyPlatforms(tool("social_publish")); !ok || ps != nil {
		t.Errorf("keys-everywhere social_publish key platforms = %v, %v", ps, ok)
	}
}

// The accessors hand out copies: a caller cannot change the catalogue.
func TestCatalogueCopies(t *testing.T) {
	s, _ := ServiceByName("social")
	s.Platforms[0] = "myspace"
	Tools()[0].Paths[0].LagS = 1e9
	ContractVariants()[0].Keys[0].Tool = "x"
	Faults()[0].Name = "x"
	if s2, _ := ServiceByName("social"); s2.Platforms[0] != "mastodon" {
		t.Error("ServiceByName shares its platforms")
	}
	if tl, _ := ToolByName(Tools()[0].Name); tl.Paths[0].LagS == 1e9 {
		t.Error("Tools shares its paths")
	}
	if c := ContractVariants()[0]; c.Keys[0].Tool == "x" {
		t.Error("ContractVariants shares its keys")
	}
	if Faults()[0].Name != FaultNone {
		t.Error("Faults shares its entries")
	}
}

var update = flag.Bool("update", false, "rewrite docs/simulation.md's fault-mode table from the catalogue")

const (
	faultDoc      = "../docs/simulation.md"
	faultDocBegin = "<!-- begin: fault catalogue (ledger.Faults; TestFaultDocs checks it, go test ./ledger -update rewrites it) -->\n"
	faultDocEnd   = "<!-- end: fault catalogue -->\n"
)

// docs/simulation.md's table of fault modes is the catalogue's, row for
// row, so that a mode added to the catalogue is documented.
func TestFaultDocs(t *testing.T) {
	var b strings.Builder
	b.WriteString("| mode | family | the agent sees | what happened | exactly-once recovery |\n|---|---|---|---|---|\n")
	for _, m := range Faults() {
		name := "`" + m.Name + "`"
		if m.Inferred {
			name += " **[I]**"
		}
		fam, _ := FamilyByName(m.Family)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", name, fam.Label, m.Sees, m.Hidden, m.Recovery)
	}
	raw, err := os.ReadFile(faultDoc)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(raw), faultDocBegin)
	old, after, ok2 := strings.Cut(rest, faultDocEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s has no %q … %q block", faultDoc, faultDocBegin, faultDocEnd)
	}
	if old == b.String() {
		return
	}
	if *update {
		if err := os.WriteFile(faultDoc, []byte(before+faultDocBegin+b.String()+faultDocEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's fault table differs from the catalogue; run go test ./ledger -run TestFaultDocs -update", faultDoc)
}
