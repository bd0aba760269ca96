package ledger

import "slices"

// The service catalogue (docs/simulation.md, Tool catalogue; the paper's
// Tables 1 and 11): each service, each tool with its contract properties,
// and each contract variant with the writes on which it honours an
// idempotency key. The ledger validates against it (a focal write or a
// call outside it is a plausibility warning, never an error: users'
// harnesses have their own tools); the sandbox takes its tools' properties
// from it and keeps only their mechanics (arguments, descriptions,
// behaviour).

// Service is one service of the paper's sandbox.
type Service struct {
	Name string // the service column; the prefix of its tools' names
	// Platforms are the values of the platform column on its writes
	// (social only); a write of a service without platforms has none.
	Platforms []string
}

var services = [...]Service{
	{Name: "social", Platforms: []string{"mastodon", "weibo", "linkedin", "x"}},
	{Name: "billing"},
	{Name: "tickets"},
	{Name: "mail"},
	{Name: "data"},
	{Name: "deploy"},
}

// Services returns the services in the paper's order.
func Services() []Service {
	out := slices.Clone(services[:])
	for i := range out {
		out[i].Platforms = slices.Clone(out[i].Platforms)
	}
	return out
}

// ServiceByName returns the service named name.
func ServiceByName(name string) (Service, bool) {
	if s := service(name); s != nil {
		c := *s
		c.Platforms = slices.Clone(s.Platforms)
		return c, true
	}
	return Service{}, false
}

// service is the catalogue's own entry, for look-ups that must not
// allocate (validation checks every row).
func service(name string) *Service {
	for i := range services {
		if services[i].Name == name {
			return &services[i]
		}
	}
	return nil
}

// ToolKind says what a tool does.
type ToolKind uint8

// Tool kinds.
const (
	ToolRead   ToolKind = iota + 1 // reads a service
	ToolWrite                      // writes a service: it can commit an effect
	ToolOracle                     // a condition's oracle: reports a write's fate
	ToolWait                       // waits on the clock
)

// ReadPath is how a write's effect shows on its read-back, and the lag a
// tool's description documents, on one platform.
type ReadPath struct {
	Platform string  // "" for every platform the tool's list does not name
	Path     string  // Read*: the read-path class of a write ("" for a read tool)
	LagS     float64 // the read path's documented lag, in seconds
}

// Tool is one tool of the catalogue with its contract properties (Table
// 1). Whether a write honours an idempotency key depends on the contract
// (Contract.Honours).
type Tool struct {
	Name string
	// Service is the tool's service, or the pseudo-service of a condition
	// tool: "oracle" for the oracles, "clock" for wait.
	Service  string
	Kind     ToolKind
	ReadBack string // the read tool that verifies a write ("" if none)
	// Natural: naturally idempotent or conditional (a repeat with the same
	// arguments has no further effect: 404, 409, 412 or the same row).
	Natural bool
	Batch   bool // several rows in one request, not atomic
	// Reversible: the effect can be undone or superseded by a later call.
	// Following paper Table 1 and H4, only mail_send (and deleting a post,
	// never a focal write) is irreversible; a refund, a comment and a
	// deployment can be compensated (re-charge, delete, roll back).
	Reversible bool
	// Paths: per platform, how a write shows on its read-back and the lag
	// documented. Without an entry a write with a read-back is strong and
	// one without has none, with no lag.
	Paths []ReadPath
	Noun  string // a write's effect, singular ("charge")
}

// Write reports whether the tool writes a service.
func (t Tool) Write() bool { return t.Kind == ToolWrite }

// PathOn returns the tool's read path on platform ("" when the call has
// none).
func (t Tool) PathOn(platform string) ReadPath {
	def, found := ReadPath{}, false
	for _, p := range t.Paths {
		if p.Platform == platform {
			return p
		}
		if p.Platform == "" {
			def, found = p, true
		}
	}
	if !found && t.Write() {
		def.Path = ReadNone
		if t.ReadBack != "" {
			def.Path = ReadStrong
		}
	}
	def.Platform = platform
	return def
}

// WorstLag is the longest lag the tool documents on any platform.
func (t Tool) WorstLag() float64 {
	w := 0.0
	for _, p := range t.Paths {
		w = max(w, p.LagS)
	}
	return w
}

// The social read path: weibo lags, x has no listing.
var socialPaths = []ReadPath{
	{Path: ReadStrong},
	{Platform: "weibo", Path: ReadEventual, LagS: 180},
	{Platform: "x", Path: ReadNone},
}

var tools = [...]Tool{
	{Name: "social_publish", Service: "social", Kind: ToolWrite, ReadBack: "social_list_posts", Reversible: true, Paths: socialPaths, Noun: "post"},
	{Name: "social_list_posts", Service: "social", Kind: ToolRead, Paths: []ReadPath{{}, {Platform: "weibo", LagS: 180}}},
	{Name: "social_delete_post", Service: "social", Kind: ToolWrite, ReadBack: "social_list_posts", Natural: true, Paths: socialPaths, Noun: "post deletion"},
	{Name: "billing_create_charge", Service: "billing", Kind: ToolWrite, ReadBack: "billing_list_charges", Reversible: true, Noun: "charge"},
	{Name: "billing_list_charges", Service: "billing", Kind: ToolRead},
	{Name: "billing_refund_charge", Service: "billing", Kind: ToolWrite, ReadBack: "billing_list_charges", Natural: true, Reversible: true, Noun: "refund"},
	{Name: "tickets_create", Service: "tickets", Kind: ToolWrite, ReadBack: "tickets_list_recent", Reversible: true, Noun: "ticket"},
	{Name: "tickets_add_comment", Service: "tickets", Kind: ToolWrite, ReadBack: "tickets_search", Reversible: true, Paths: []ReadPath{{Path: ReadEventual, LagS: 120}}, Noun: "comment"},
	{Name: "tickets_update_status", Service: "tickets", Kind: ToolWrite, ReadBack: "tickets_list_recent", Natural: true, Reversible: true, Noun: "status update"},
	{Name: "tickets_list_recent", Service: "tickets", Kind: ToolRead},
	{Name: "tickets_search", Service: "tickets", Kind: ToolRead, Paths: []ReadPath{{LagS: 120}}},
	{Name: "mail_send", Service: "mail", Kind: ToolWrite, ReadBack: "mail_search_sent", Paths: []ReadPath{{Path: ReadEventual, LagS: 120}}, Noun: "mail"},
	{Name: "mail_search_sent", Service: "mail", Kind: ToolRead, Paths: []ReadPath{{LagS: 120}}},
	{Name: "data_insert", Service: "data", Kind: ToolWrite, ReadBack: "data_query", Reversible: true, Noun: "row"},
	{Name: "data_insert_many", Service: "data", Kind: ToolWrite, ReadBack: "data_query", Batch: true, Reversible: true, Noun: "row"},
	{Name: "data_upsert", Service: "data", Kind: ToolWrite, ReadBack: "data_query", Natural: true, Reversible: true, Noun: "row"},
	{Name: "data_query", Service: "data", Kind: ToolRead},
	{Name: "deploy_trigger", Service: "deploy", Kind: ToolWrite, ReadBack: "deploy_list_runs", Reversible: true, Noun: "deployment"},
	{Name: "deploy_list_runs", Service: "deploy", Kind: ToolRead},
	{Name: "deploy_get_run", Service: "deploy", Kind: ToolRead},
	{Name: "wait", Service: "clock", Kind: ToolWait},
	{Name: "state_oracle", Service: "oracle", Kind: ToolOracle},
	{Name: "outcome_oracle", Service: "oracle", Kind: ToolOracle},
}

// Tools returns the tool catalogue: each service's tools, then the clock's
// and the oracles'.
func Tools() []Tool {
	out := slices.Clone(tools[:])
	for i := range out {
		out[i].Paths = slices.Clone(out[i].Paths)
	}
	return out
}

// ToolByName returns the tool named name.
func ToolByName(name string) (Tool, bool) {
	if t := tool(name); t != nil {
		c := *t
		c.Paths = slices.Clone(t.Paths)
		return c, true
	}
	return Tool{}, false
}

// tool is the catalogue's own entry (see service).
func tool(name string) *Tool {
	for i := range tools {
		if tools[i].Name == name {
			return &tools[i]
		}
	}
	return nil
}

// Contracts.
const (
	ContractNative         = "native"
	ContractKeysEverywhere = "keys-everywhere"
)

// KeyRule is a write on which a contract honours an idempotency key.
type KeyRule struct {
	Tool      string
	Platforms []string // only on these platforms; every call when empty
}

// Contract is one contract variant: which writes honour an idempotency key
// and how the tools are described.
type Contract struct {
	Name  string // the contract column
	Label string // for a reader
	// EveryWrite: every write honours a key; otherwise those Keys names.
	EveryWrite bool
	Keys       []KeyRule
	// KeyedText: the tools are described with their keyed text, which
	// documents the key (a contract that adds keys says so).
	KeyedText bool
}

var contracts = [...]Contract{
	{Name: ContractNative, Label: "native", Keys: []KeyRule{
		{Tool: "social_publish", Platforms: []string{"mastodon"}},
		{Tool: "billing_create_charge"},
	}},
	{Name: ContractKeysEverywhere, Label: "keys everywhere", EveryWrite: true, KeyedText: true},
}

// ContractVariants returns the contract variants in the paper's order.
func ContractVariants() []Contract {
	out := slices.Clone(contracts[:])
	for i := range out {
		out[i].Keys = slices.Clone(out[i].Keys)
	}
	return out
}

// ContractByName returns the contract variant named name.
func ContractByName(name string) (Contract, bool) {
	for _, c := range contracts {
		if c.Name == name {
			c.Keys = slices.Clone(c.Keys)
			return c, true
		}
	}
	return Contract{}, false
}

func contractNames() []string {
	out := make([]string, len(contracts))
	for i, c := range contracts {
		out[i] = c.Name
	}
	return out
}

// KeyPlatforms reports whether the contract honours a key on some call of
// the write tool, and on which platforms (nil: on every call).
func (c Contract) KeyPlatforms(tool Tool) (platforms []string, honoured bool) {
	if !tool.Write() {
		return nil, false
	}
	if c.EveryWrite {
		return nil, true
	}
	for _, k := range c.Keys {
		if k.Tool == tool.Name {
			return k.Platforms, true
		}
	}
	return nil, false
}

// Honours reports whether the contract honours a key on a call of tool
// with the given platform ("" when none).
func (c Contract) Honours(tool Tool, platform string) bool {
	ps, ok := c.KeyPlatforms(tool)
	return ok && (len(ps) == 0 || slices.Contains(ps, platform))
}

// The paper's names, for validation's plausibility warnings and the
// decoder's interning.
var (
	// PaperWriteTools are the sandbox's write tools.
	PaperWriteTools = toolNames(func(t Tool) bool { return t.Write() })
	// PaperOtherTools are the sandbox's read tools and the
	// condition-specific tools.
	PaperOtherTools = toolNames(func(t Tool) bool { return !t.Write() })
	// PaperServices are the sandbox's services (the service column; the
	// prefix of each tool's name).
	PaperServices = serviceNames()
	// PaperPlatforms are the social platforms (the platform column of a
	// social write).
	PaperPlatforms = platformNames()
)

func toolNames(keep func(Tool) bool) []string {
	var out []string
	for _, t := range tools {
		if keep(t) {
			out = append(out, t.Name)
		}
	}
	return out
}

func serviceNames() []string {
	out := make([]string, len(services))
	for i, s := range services {
		out[i] = s.Name
	}
	return out
}

func platformNames() []string {
	var out []string
	for _, s := range services {
		out = append(out, s.Platforms...)
	}
	return out
}
