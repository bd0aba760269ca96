package sandbox

import (
	"slices"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/ledger"
)

// Tool indices: the hot path dispatches on these rather than on names.
const (
	tSocialPublish = iota
	tSocialListPosts
	tSocialDeletePost
	tBillingCreateCharge
	tBillingListCharges
	tBillingRefundCharge
	tTicketsCreate
	tTicketsAddComment
	tTicketsUpdateStatus
	tTicketsListRecent
	tTicketsSearch
	tMailSend
	tMailSearchSent
	tDataInsert
	tDataInsertMany
	tDataUpsert
	tDataQuery
	tDeployTrigger
	tDeployListRuns
	tDeployGetRun
	tWait
	tStateOracle
	tOutcomeOracle
	nTools
)

// Names of the tools that are not services' own.
const (
	ToolWait          = "wait"
	ToolStateOracle   = "state_oracle"
	ToolOutcomeOracle = "outcome_oracle"
)

// Documented read-path lags, in seconds (paper Table 1).
const (
	lagWeibo   = 180
	lagTickets = 120
	lagMail    = 120
	// staleHideS is how long stale_read hides the focal effect from its
	// read path: longer than any documented lag, so that a lag-respecting
	// agent is misled (docs/simulation.md, Fault modes).
	staleHideS = 600
	// keyWindowS is the dedup window of idempotency keys: it outlasts the
	// longest in-flight delay (2 h) with a margin (Proposition 2).
	keyWindowS = 3 * 3600
)

// Argument kinds for validation.
const (
	kString = iota
	kInt
	kNumber
	kObject
	kRows
)

type paramDef struct {
	name     string
	kind     int
	required bool
	enum     []string
	positive bool // integers: must be > 0
	doc      string
}

// toolDef is the sandbox's side of one tool of the catalogue: the tool's
// contract properties come from the ledger's catalogue (ledger.ToolByName,
// filled in when the package loads); the sandbox adds its arguments, its
// descriptions and how its effects are identified.
type toolDef struct {
	id     int
	name   string
	params []paramDef
	// rows: the write's effects are rows, identified by table and primary
	// key (the resource id) rather than by the call's arguments.
	rows bool

	descNative string
	descKeys   string // the text under a contract that documents keys; "" = same as native (reads)

	// From the catalogue.
	tool              ledger.Tool
	service, readBack string
	write, oracle     bool
	natural, batch    bool
	reversible        bool
	noun              string
}

var (
	platforms   = slices.Clone(ledger.PaperPlatforms)
	statusNames = []string{"new", "open", "triaged", "investigating", "mitigated", "resolved", "closed"}
)

const keyDoc = "Optional idempotency key (1–255 characters). A repeat with the same key and the same arguments returns the first result instead of acting again; the same key with other arguments is rejected; a repeat while the first request is still being processed returns 409. Keys are remembered for 3 hours."

// defs is the catalogue, indexed by tool id. Social and billing texts are
// the paper's Table 11 verbatim (native contract); the rest are written in
// the same voice.
var defs = [nTools]toolDef{
	tSocialPublish: {
		name: "social_publish",
		params: []paramDef{
			{name: "platform", kind: kString, required: true, enum: platforms, doc: "mastodon, weibo, linkedin or x"},
			{name: "text", kind: kString, required: true, doc: "the post text"},
		},
		descNative: "Publish a post to a social platform (mastodon, weibo, linkedin, x). Returns the new post_id. idempotency_key is honored by mastodon only; other platforms ignore it. On weibo, newly published posts can take up to 3 minutes to appear in social_list_posts.",
		descKeys:   "Publish a post to a social platform (mastodon, weibo, linkedin, x). Returns the new post_id. idempotency_key is honored on every platform: a repeat with the same key returns the original post instead of publishing again. On weibo, newly published posts can take up to 3 minutes to appear in social_list_posts.",
	},
	tSocialListPosts: {
		name: "social_list_posts",
		params: []paramDef{
			{name: "platform", kind: kString, required: true, enum: platforms, doc: "mastodon, weibo or linkedin"},
		},
		descNative: "List the most recent posts on a platform (newest first). Not available for x. Weibo listings are eventually consistent (new posts may take up to 3 minutes to appear).",
	},
	tSocialDeletePost: {
		name:       "social_delete_post",
		params:     []paramDef{{name: "post_id", kind: kString, required: true, doc: "the post to delete"}},
		descNative: "Delete a post by id.",
		descKeys:   "Delete a post by id. Deleting a post that is already deleted returns 404. idempotency_key is honored: a repeat with the same key returns the first result.",
	},
	tBillingCreateCharge: {
		name: "billing_create_charge",
		params: []paramDef{
			{name: "customer_id", kind: kString, required: true, doc: "the customer to charge"},
			{name: "amount_cents", kind: kInt, required: true, positive: true, doc: "amount in cents (integer > 0)"},
			{name: "description", kind: kString, required: true, doc: "shown on the customer's statement"},
		},
		descNative: "Charge a customer’s saved payment method. amount_cents is an integer number of cents. Returns the charge.",
		descKeys:   "Charge a customer’s saved payment method. amount_cents is an integer number of cents. Returns the charge. idempotency_key is honored: a repeat with the same key returns the original charge instead of charging again.",
	},
	tBillingListCharges: {
		name: "billing_list_charges",
		params: []paramDef{
			{name: "customer_id", kind: kString, doc: "the customer (omit to list all charges)"},
		},
		descNative: "List a customer’s charges (newest first), including refunded ones.",
	},
	tBillingRefundCharge: {
		name:       "billing_refund_charge",
		params:     []paramDef{{name: "charge_id", kind: kString, required: true, doc: "the charge to refund"}},
		descNative: "Fully refund a charge. Refunding an already-refunded charge returns 409.",
		descKeys:   "Fully refund a charge. Refunding an already-refunded charge returns 409. idempotency_key is honored: a repeat with the same key returns the original refund.",
	},
	tTicketsCreate: {
		name: "tickets_create",
		params: []paramDef{
			{name: "title", kind: kString, required: true, doc: "ticket title"},
			{name: "body", kind: kString, required: true, doc: "ticket description"},
		},
		descNative: "Open a new ticket. Returns the new ticket_id. Each call opens a new ticket. New tickets appear in tickets_list_recent at once and in tickets_search after up to 2 minutes.",
		descKeys:   "Open a new ticket. Returns the new ticket_id. idempotency_key is honored: a repeat with the same key returns the original ticket instead of opening another. New tickets appear in tickets_list_recent at once and in tickets_search after up to 2 minutes.",
	},
	tTicketsAddComment: {
		name: "tickets_add_comment",
		params: []paramDef{
			{name: "ticket_id", kind: kString, required: true, doc: "the ticket"},
			{name: "text", kind: kString, required: true, doc: "comment text"},
		},
		descNative: "Add a comment to a ticket. Returns the comment_id. Each call adds a new comment. Comments can be read only through tickets_search, where they may take up to 2 minutes to appear.",
		descKeys:   "Add a comment to a ticket. Returns the comment_id. idempotency_key is honored: a repeat with the same key returns the original comment instead of adding another. Comments can be read only through tickets_search, where they may take up to 2 minutes to appear.",
	},
	tTicketsUpdateStatus: {
		name: "tickets_update_status",
		params: []paramDef{
			{name: "ticket_id", kind: kString, required: true, doc: "the ticket"},
			{name: "from", kind: kString, required: true, enum: statusNames, doc: "the status the ticket must have now"},
			{name: "to", kind: kString, required: true, enum: statusNames, doc: "the new status"},
		},
		descNative: "Change a ticket's status. The change applies only if the ticket's current status equals from; otherwise it returns 412 (precondition failed) and changes nothing.",
		descKeys:   "Change a ticket's status. The change applies only if the ticket's current status equals from; otherwise it returns 412 (precondition failed) and changes nothing. idempotency_key is honored: a repeat with the same key returns the first result.",
	},
	tTicketsListRecent: {
		name:       "tickets_list_recent",
		descNative: "List the most recent tickets (newest first) with their current status. Strongly consistent; comments are not included.",
	},
	tTicketsSearch: {
		name:       "tickets_search",
		params:     []paramDef{{name: "query", kind: kString, required: true, doc: "text to look for in titles, bodies and comments"}},
		descNative: "Search tickets and their comments for a text. Eventually consistent: new tickets and comments may take up to 2 minutes to appear.",
	},
	tMailSend: {
		name: "mail_send",
		params: []paramDef{
			{name: "to", kind: kString, required: true, doc: "recipient address or list"},
			{name: "subject", kind: kString, required: true, doc: "subject line"},
			{name: "body", kind: kString, required: true, doc: "message body"},
		},
		descNative: "Send an email. Returns the message_id. Each call sends a new message, and a sent message cannot be recalled. Sent mail appears in mail_search_sent after up to 2 minutes.",
		descKeys:   "Send an email. Returns the message_id. A sent message cannot be recalled. idempotency_key is honored: a repeat with the same key returns the original message_id instead of sending again. Sent mail appears in mail_search_sent after up to 2 minutes.",
	},
	tMailSearchSent: {
		name:       "mail_search_sent",
		params:     []paramDef{{name: "query", kind: kString, required: true, doc: "text to look for in recipient, subject and body"}},
		descNative: "Search sent mail by recipient, subject or body (newest first). Eventually consistent: sent messages may take up to 2 minutes to appear.",
	},
	tDataInsert: {
		name: "data_insert", rows: true,
		params: []paramDef{
			{name: "table", kind: kString, required: true, doc: "table name"},
			{name: "row", kind: kObject, required: true, doc: "the row; its id field is the primary key"},
		},
		descNative: "Insert a row into a table. The row's id field is its primary key. Uniqueness is not enforced: inserting the same row twice stores it twice.",
		descKeys:   "Insert a row into a table. The row's id field is its primary key. Uniqueness is not enforced. idempotency_key is honored: a repeat with the same key returns the first result instead of inserting again.",
	},
	tDataInsertMany: {
		name: "data_insert_many", rows: true,
		params: []paramDef{
			{name: "table", kind: kString, required: true, doc: "table name"},
			{name: "rows", kind: kRows, required: true, doc: "the rows (1–500); each row's id field is its primary key"},
		},
		descNative: "Insert several rows into a table in one request. Not atomic: if the request fails part-way, the rows inserted before the failure stay. Uniqueness is not enforced.",
		descKeys:   "Insert several rows into a table in one request. Not atomic: if the request fails part-way, the rows inserted before the failure stay. Uniqueness is not enforced. idempotency_key is honored: a repeat with the same key inserts only the rows the first request did not, and returns the first result once complete.",
	},
	tDataUpsert: {
		name: "data_upsert", rows: true,
		params: []paramDef{
			{name: "table", kind: kString, required: true, doc: "table name"},
			{name: "key", kind: kString, required: true, doc: "primary key of the row"},
			{name: "row", kind: kObject, required: true, doc: "the row's fields"},
		},
		descNative: "Insert or replace the row whose primary key is key. Idempotent: repeating it leaves one row.",
		descKeys:   "Insert or replace the row whose primary key is key. Idempotent: repeating it leaves one row. idempotency_key is honored: a repeat with the same key returns the first result.",
	},
	tDataQuery: {
		name: "data_query",
		params: []paramDef{
			{name: "table", kind: kString, required: true, doc: "table name"},
			{name: "filter", kind: kObject, doc: "fields that must be equal (omit or {} for all rows)"},
		},
		descNative: "Return the rows of a table whose fields equal every field of filter. Strongly consistent.",
	},
	tDeployTrigger: {
		name: "deploy_trigger",
		params: []paramDef{
			{name: "service", kind: kString, required: true, doc: "service to deploy"},
			{name: "env", kind: kString, required: true, doc: "target environment"},
			{name: "ref", kind: kString, required: true, doc: "git ref to deploy"},
		},
		descNative: "Start a deployment run of a service's ref to an environment. Returns the run_id. Each call starts a new run.",
		descKeys:   "Start a deployment run of a service's ref to an environment. Returns the run_id. idempotency_key is honored: a repeat with the same key returns the original run instead of starting another.",
	},
	tDeployListRuns: {
		name:       "deploy_list_runs",
		params:     []paramDef{{name: "service", kind: kString, required: true, doc: "the service"}},
		descNative: "List a service's deployment runs (newest first) with environment, ref and status. Strongly consistent.",
	},
	tDeployGetRun: {
		name:       "deploy_get_run",
		params:     []paramDef{{name: "run_id", kind: kString, required: true, doc: "the run"}},
		descNative: "Get one deployment run by run_id. Strongly consistent.",
	},
	tWait: {
		name:       ToolWait,
		params:     []paramDef{{name: "seconds", kind: kNumber, required: true, doc: "seconds to wait (0–86400)"}},
		descNative: "Wait for the given number of seconds before continuing.",
	},
	tStateOracle: {
		name: ToolStateOracle,
		params: []paramDef{
			{name: "tool", kind: kString, required: true, doc: "a write tool"},
			{name: "args", kind: kObject, required: true, doc: "that write's arguments"},
		},
		descNative: "Report whether the effect of a write (tool and arguments) is committed now, ignoring read-path lags. Cannot see requests that are still in flight.",
	},
	tOutcomeOracle: {
		name: ToolOutcomeOracle,
		params: []paramDef{
			{name: "tool", kind: kString, required: true, doc: "a write tool"},
			{name: "args", kind: kObject, required: true, doc: "that write's arguments"},
		},
		descNative: "Report the fate of a write (tool and arguments): committed, in_flight (sent and still going to commit) or not_executed.",
	},
}

// toolIndex maps a tool's name to its id. Building it completes defs from
// the ledger's catalogue: a tool missing from either is a programming
// error, caught by every test of the package.
var toolIndex = func() map[string]int {
	m := make(map[string]int, nTools)
	for i := range defs {
		d := &defs[i]
		t, ok := ledger.ToolByName(d.name)
		if !ok {
			panic("sandbox: tool " + d.name + " is not in the ledger's catalogue")
		}
		d.id, d.tool = i, t
		d.service, d.readBack, d.noun = t.Service, t.ReadBack, t.Noun
		d.write, d.oracle = t.Write(), t.Kind == ledger.ToolOracle
		d.natural, d.batch, d.reversible = t.Natural, t.Batch, t.Reversible
		m[d.name] = i
	}
	if n := len(ledger.Tools()); n != nTools {
		panic("sandbox: the ledger's catalogue has " + strconv.Itoa(n) + " tools, the sandbox " + strconv.Itoa(nTools))
	}
	return m
}()

// contracts are the catalogue's contract variants, looked up without
// copying on the hot path.
var contracts = ledger.ContractVariants()

// contractNamed returns the contract variant named name, nil if none.
func contractNamed(name string) *ledger.Contract {
	for i := range contracts {
		if contracts[i].Name == name {
			return &contracts[i]
		}
	}
	return nil
}

func validContract(c string) bool { return contractNamed(c) != nil }

// keyHonoured reports whether the contract honours a key on a write of
// tool d with the given platform ("" when none).
func (d *toolDef) keyHonoured(contract, platform string) bool {
	c := contractNamed(contract)
	return c != nil && c.Honours(d.tool, platform)
}

// readPath returns the read-path class of a write of d (paper Table 1).
func (d *toolDef) readPath(platform string) string { return d.tool.PathOn(platform).Path }

// class returns the write class (docs/simulation.md, Contract classes) under the contract.
func (d *toolDef) class(contract, platform string) string {
	switch {
	case d.natural:
		return ledger.ClassIdempotent
	case d.keyHonoured(contract, platform):
		return ledger.ClassKeyed
	case d.batch:
		return ledger.ClassBatch
	}
	switch d.readPath(platform) {
	case ledger.ReadEventual:
		return ledger.ClassEventual
	case ledger.ReadNone:
		return ledger.ClassMissing
	}
	return ledger.ClassStrong
}

// documentedLag is the lag d's description documents on platform; with no
// platform, the worst case over the platforms (the description's own
// statement).
func (d *toolDef) documentedLag(platform string) float64 {
	if platform == "" {
		return d.tool.WorstLag()
	}
	return d.tool.PathOn(platform).LagS
}

func (d *toolDef) spec(contract string) ToolSpec {
	s := ToolSpec{
		Name:        d.name,
		Service:     d.service,
		Write:       d.write,
		Idempotent:  d.write && d.natural,
		Description: d.descNative,
		ReadBack:    d.readBack,
		contract:    contract,
	}
	c := contractNamed(contract)
	if c != nil && c.KeyedText && d.descKeys != "" {
		s.Description = d.descKeys
	}
	for _, p := range d.params {
		s.Params = append(s.Params, p.param())
	}
	if c != nil {
		s.keyPlatforms, s.KeyHonoured = c.KeyPlatforms(d.tool)
	}
	if s.KeyHonoured {
		s.Params = append(s.Params, Param{Name: "idempotency_key", Type: "string", Doc: keyDoc, MaxLength: maxKeyLen})
	}
	// For social the worst case (weibo); DocumentedLagFor is per platform.
	s.DocumentedLag = d.documentedLag("")
	return s
}

// param is the public form of a parameter, with the limits validate
// enforces on it.
func (p *paramDef) param() Param {
	q := Param{Name: p.name, Type: kindName(p.kind), Required: p.required, Doc: p.doc, Enum: p.enum}
	bound := func(v float64) *float64 { return &v }
	switch p.kind {
	case kString:
		q.MaxLength = maxString
	case kInt:
		q.Minimum, q.Maximum = bound(-maxAmount), bound(maxAmount)
		if p.positive {
			q.Minimum = bound(1)
		}
	case kNumber:
		q.Minimum, q.Maximum = bound(0), bound(maxWaitS)
	case kRows:
		q.MinItems, q.MaxItems = 1, maxRows
	}
	return q
}

func kindName(k int) string {
	switch k {
	case kInt:
		return "integer"
	case kNumber:
		return "number"
	case kObject:
		return "object"
	case kRows:
		return "array"
	}
	return "string"
}

// KeyHonouredFor reports whether the tool honours an idempotency_key for
// these arguments. Natively social_publish honours keys on mastodon only,
// so the answer depends on args["platform"].
func (s ToolSpec) KeyHonouredFor(args map[string]any) bool {
	if !s.KeyHonoured {
		return false
	}
	if len(s.keyPlatforms) == 0 {
		return true
	}
	p, _ := args["platform"].(string)
	return slices.Contains(s.keyPlatforms, p)
}

// DocumentedLagFor returns the read-path lag the description documents for
// a write or read with these arguments (weibo 180 s, other platforms 0).
func (s ToolSpec) DocumentedLagFor(args map[string]any) float64 {
	i, ok := toolIndex[s.Name]
	if !ok {
		return 0
	}
	p, _ := args["platform"].(string)
	return defs[i].tool.PathOn(p).LagS
}

// Catalogue returns every service tool (writes and reads) with its
// description under the contract, sorted by name. Oracle and wait tools
// are not part of it (see World.Tools). An unknown contract returns nil.
func Catalogue(contract string) []ToolSpec {
	if !validContract(contract) {
		return nil
	}
	out := make([]ToolSpec, 0, tWait)
	for i := 0; i < tWait; i++ {
		out = append(out, defs[i].spec(contract))
	}
	slices.SortFunc(out, byName)
	return out
}

// byName orders tool specs by name, the order of every catalogue listing.
func byName(a, b ToolSpec) int { return strings.Compare(a.Name, b.Name) }

// Lookup returns the tool named tool under the contract, including the
// oracle and wait tools.
func Lookup(contract, tool string) (ToolSpec, bool) {
	i, ok := toolIndex[tool]
	if !ok || !validContract(contract) {
		return ToolSpec{}, false
	}
	return defs[i].spec(contract), true
}
