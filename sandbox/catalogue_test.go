package sandbox

import (
	"slices"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

// The tool names of docs/simulation.md, Tool catalogue (paper Table 11).
var wantTools = []string{
	"billing_create_charge", "billing_list_charges", "billing_refund_charge",
	"data_insert", "data_insert_many", "data_query", "data_upsert",
	"deploy_get_run", "deploy_list_runs", "deploy_trigger",
	"mail_search_sent", "mail_send",
	"social_delete_post", "social_list_posts", "social_publish",
	"tickets_add_comment", "tickets_create", "tickets_list_recent", "tickets_search", "tickets_update_status",
}

func TestCatalogueNames(t *testing.T) {
	for _, c := range ledger.Contracts.Values {
		var got []string
		for _, s := range Catalogue(c) {
			got = append(got, s.Name)
		}
		if !slices.Equal(got, wantTools) {
			t.Errorf("%s: tools %v, want %v", c, got, wantTools)
		}
	}
	if Catalogue("bogus") != nil {
		t.Error("unknown contract: want nil catalogue")
	}
}

// Table 11 of the paper, verbatim (native contract).
func TestTable11Verbatim(t *testing.T) {
	table11 := map[string]string{
		"social_publish":        "Publish a post to a social platform (mastodon, weibo, linkedin, x). Returns the new post_id. idempotency_key is honored by mastodon only; other platforms ignore it. On weibo, newly published posts can take up to 3 minutes to appear in social_list_posts.",
		"social_list_posts":     "List the most recent posts on a platform (newest first). Not available for x. Weibo listings are eventually consistent (new posts may take up to 3 minutes to appear).",
		"social_delete_post":    "Delete a post by id.",
		"billing_create_charge": "Charge a customer’s saved payment method. amount_cents is an integer number of cents. Returns the charge.",
		"billing_list_charges":  "List a customer’s charges (newest first), including refunded ones.",
		"billing_refund_charge": "Fully refund a charge. Refunding an already-refunded charge returns 409.",
	}
	for name, want := range table11 {
		s, ok := Lookup(ledger.ContractNative, name)
		if !ok || s.Description != want {
			t.Errorf("%s: description %q, want Table 11's %q", name, s.Description, want)
		}
	}
}

func TestContractsDiffer(t *testing.T) {
	for _, name := range wantTools {
		n, _ := Lookup(ledger.ContractNative, name)
		k, _ := Lookup(ledger.ContractKeysEverywhere, name)
		if n.Write {
			if n.Description == k.Description {
				t.Errorf("%s: same description under both contracts", name)
			}
			if !k.KeyHonoured || !strings.Contains(k.Description, "idempotency_key is honored") {
				t.Errorf("%s: keys-everywhere must document an honoured key", name)
			}
			if !slices.ContainsFunc(k.Params, func(p Param) bool { return p.Name == "idempotency_key" }) {
				t.Errorf("%s: keys-everywhere params lack idempotency_key", name)
			}
		} else if n.Description != k.Description {
			t.Errorf("%s: read descriptions should not depend on the contract", name)
		}
	}
}

func TestKeyHonouredNative(t *testing.T) {
	cases := []struct {
		tool     string
		args     map[string]any
		native   bool
		keysEvry bool
	}{
		{"social_publish", map[string]any{"platform": "mastodon"}, true, true},
		{"social_publish", map[string]any{"platform": "weibo"}, false, true},
		{"social_publish", map[string]any{"platform": "linkedin"}, false, true},
		{"social_publish", map[string]any{"platform": "x"}, false, true},
		{"billing_create_charge", nil, true, true},
		{"billing_refund_charge", nil, false, true},
		{"mail_send", nil, false, true},
		{"tickets_create", nil, false, true},
		{"data_insert_many", nil, false, true},
		{"deploy_trigger", nil, false, true},
		{"data_query", nil, false, false},
	}
	for _, c := range cases {
		n, _ := Lookup(ledger.ContractNative, c.tool)
		k, _ := Lookup(ledger.ContractKeysEverywhere, c.tool)
		if got := n.KeyHonouredFor(c.args); got != c.native {
			t.Errorf("native %s %v: KeyHonouredFor = %v, want %v", c.tool, c.args, got, c.native)
		}
		if got := k.KeyHonouredFor(c.args); got != c.keysEvry {
			t.Errorf("keys-everywhere %s %v: KeyHonouredFor = %v, want %v", c.tool, c.args, got, c.keysEvry)
		}
	}
}

// Documented lags (paper Table 1): weibo 180 s, tickets search 120 s, mail
// search_sent 120 s, everything else strong.
func TestDocumentedLags(t *testing.T) {
	cases := []struct {
		tool string
		args map[string]any
		lag  float64
		back string
	}{
		{"social_publish", map[string]any{"platform": "weibo"}, 180, "social_list_posts"},
		{"social_publish", map[string]any{"platform": "mastodon"}, 0, "social_list_posts"},
		{"tickets_add_comment", nil, 120, "tickets_search"},
		{"tickets_create", nil, 0, "tickets_list_recent"},
		{"mail_send", nil, 120, "mail_search_sent"},
		{"billing_create_charge", nil, 0, "billing_list_charges"},
		{"data_insert_many", nil, 0, "data_query"},
		{"deploy_trigger", nil, 0, "deploy_list_runs"},
	}
	for _, c := range cases {
		s, _ := Lookup(ledger.ContractNative, c.tool)
		if got := s.DocumentedLagFor(c.args); got != c.lag {
			t.Errorf("%s %v: lag %v, want %v", c.tool, c.args, got, c.lag)
		}
		if s.ReadBack != c.back {
			t.Errorf("%s: ReadBack %q, want %q", c.tool, s.ReadBack, c.back)
		}
	}
	if s, _ := Lookup(ledger.ContractNative, "mail_search_sent"); s.DocumentedLag != 120 {
		t.Errorf("mail_search_sent: DocumentedLag %v, want 120", s.DocumentedLag)
	}
}

func TestWorldToolsOracles(t *testing.T) {
	task, _ := NewTask("T01", 0)
	w, err := NewWorld(Spec{Task: task, Oracles: []string{ToolOutcomeOracle}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range w.Tools() {
		names = append(names, s.Name)
	}
	if !slices.Contains(names, "wait") || !slices.Contains(names, "outcome_oracle") || slices.Contains(names, "state_oracle") {
		t.Errorf("tools %v: want wait and outcome_oracle, not state_oracle", names)
	}
	if o := w.Call("state_oracle", map[string]any{"tool": "social_publish", "args": map[string]any{}}); o.Outcome != ledger.OutcomeHTTP400 {
		t.Errorf("state_oracle not exposed: outcome %s, want http400", o.Outcome)
	}
}
