package ledger

// CallColumns and EffectColumns are the columns of the calls and effects
// tables (docs/ledger.md), in canonical order.
var (
	CallColumns = []Column{
		{Name: "episode_id", Kind: KindString,
			Domain: "string", Doc: "the episode (omit it inside a raw line: it inherits)"},
		{Name: "seq", Kind: KindInt,
			Domain: "int ≥ 0", Doc: "order of the call in the episode"},
		{Name: "t_s", Kind: KindFloat,
			Domain: "float ≥ 0", Doc: "when it was issued (simulated seconds)"},
		{Name: "tool", Kind: KindString,
			Domain: "string", Doc: "tool name"},
		{Name: "args", Kind: KindString,
			Domain: "string", Doc: "JSON text of the arguments as sent (a raw line may nest them as an object)"},
		{Name: "idempotency_key", Kind: KindString,
			Domain: "string", Doc: "the key sent, or empty"},
		{Name: "outcome", Kind: KindString,
			Domain: "enum", Doc: "`ok`, `timeout`, `http400`, `http404`, `http409`, `http412`, `http429`, `http500`, `conn_refused`; a guard's own answer, the call not forwarded: `guard_replay`, `guard_refused`, `guard_error`"},
		{Name: "latency_s", Kind: KindFloat,
			Domain: "float ≥ 0", Doc: "how long until the agent saw the outcome"},
	}
	EffectColumns = []Column{
		{Name: "episode_id", Kind: KindString,
			Domain: "string", Doc: "the episode (inherits inside a raw line)"},
		{Name: "seq", Kind: KindInt,
			Domain: "int ≥ 0", Doc: "the `seq` of the call whose request produced it (for a late or redelivered copy, the original call's)"},
		{Name: "service", Kind: KindString,
			Domain: "string", Doc: "the service it landed in"},
		{Name: "tool", Kind: KindString,
			Domain: "string", Doc: "the tool whose request produced it"},
		{Name: "resource_id", Kind: KindString,
			Domain: "string", Doc: "the resource created or changed"},
		{Name: "idempotency_key", Kind: KindString,
			Domain: "string", Doc: "the key it was committed under, or empty"},
		{Name: "attempt", Kind: KindInt,
			Domain: "int ≥ 0", Doc: "delivery attempt"},
		{Name: "issued_at_s", Kind: KindFloat,
			Domain: "float ≥ 0", Doc: "when it was requested (simulated seconds)"},
		{Name: "committed_at_s", Kind: KindFloat,
			Domain: "float ≥ 0", Doc: "when it was committed (simulated seconds)"},
		{Name: "source", Kind: KindString,
			Domain: "enum", Doc: "`agent`, `late`, `redelivery`, `partial`"},
		{Name: "absorbed", Kind: KindBool,
			Domain: "bool", Doc: "deduplicated by a key: no new effect"},
		{Name: "focal", Kind: KindBool,
			Domain: "bool", Doc: "an effect of the focal write"},
	}
)
