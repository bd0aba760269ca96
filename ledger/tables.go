package ledger

// CallColumns and EffectColumns are the columns of the calls and effects
// tables (DESIGN §3), in canonical order.
var (
	CallColumns = []Column{
		{Name: "episode_id", Kind: KindString},
		{Name: "seq", Kind: KindInt},
		{Name: "t_s", Kind: KindFloat},
		{Name: "tool", Kind: KindString},
		{Name: "args", Kind: KindString},
		{Name: "idempotency_key", Kind: KindString},
		{Name: "outcome", Kind: KindString},
		{Name: "latency_s", Kind: KindFloat},
	}
	EffectColumns = []Column{
		{Name: "episode_id", Kind: KindString},
		{Name: "seq", Kind: KindInt},
		{Name: "service", Kind: KindString},
		{Name: "tool", Kind: KindString},
		{Name: "resource_id", Kind: KindString},
		{Name: "idempotency_key", Kind: KindString},
		{Name: "attempt", Kind: KindInt},
		{Name: "issued_at_s", Kind: KindFloat},
		{Name: "committed_at_s", Kind: KindFloat},
		{Name: "source", Kind: KindString},
		{Name: "absorbed", Kind: KindBool},
		{Name: "focal", Kind: KindBool},
	}
)

func (c *Call) ref(i int) fieldRef {
	switch i {
	case 0:
		return fieldRef{s: &c.EpisodeID}
	case 1:
		return fieldRef{i: &c.Seq}
	case 2:
		return fieldRef{f: &c.TS}
	case 3:
		return fieldRef{s: &c.Tool}
	case 4:
		return fieldRef{s: &c.Args}
	case 5:
		return fieldRef{s: &c.IdempotencyKey}
	case 6:
		return fieldRef{s: &c.Outcome}
	case 7:
		return fieldRef{f: &c.LatencyS}
	}
	panic("ledger: call column index out of range")
}

func (x *Effect) ref(i int) fieldRef {
	switch i {
	case 0:
		return fieldRef{s: &x.EpisodeID}
	case 1:
		return fieldRef{i: &x.Seq}
	case 2:
		return fieldRef{s: &x.Service}
	case 3:
		return fieldRef{s: &x.Tool}
	case 4:
		return fieldRef{s: &x.ResourceID}
	case 5:
		return fieldRef{s: &x.IdempotencyKey}
	case 6:
		return fieldRef{i: &x.Attempt}
	case 7:
		return fieldRef{f: &x.IssuedAtS}
	case 8:
		return fieldRef{f: &x.CommittedAtS}
	case 9:
		return fieldRef{s: &x.Source}
	case 10:
		return fieldRef{b: &x.Absorbed}
	case 11:
		return fieldRef{b: &x.Focal}
	}
	panic("ledger: effect column index out of range")
}
