package ledger

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Every column's ref points at the field of its struct whose json tag is
// the column's name, in each of the three tables: the generated code
// checked against the structs, by another route.
func TestRefIsTaggedField(t *testing.T) {
	var (
		e Episode
		c Call
		x Effect
	)
	for _, tc := range []struct {
		table string
		cols  []Column
		v     reflect.Value
		ref   func(int) fieldRef
	}{
		{"episodes", EpisodeColumns, reflect.ValueOf(&e).Elem(), e.ref},
		{"calls", CallColumns, reflect.ValueOf(&c).Elem(), c.ref},
		{"effects", EffectColumns, reflect.ValueOf(&x).Elem(), x.ref},
	} {
		byTag := map[string]reflect.Value{}
		for i := range tc.v.NumField() {
			name, _, _ := strings.Cut(tc.v.Type().Field(i).Tag.Get("json"), ",")
			byTag[name] = tc.v.Field(i)
		}
		for i, col := range tc.cols {
			r := tc.ref(i)
			var p any
			switch {
			case r.s != nil:
				p = r.s
			case r.i != nil:
				p = r.i
			case r.f != nil:
				p = r.f
			case r.b != nil:
				p = r.b
			default:
				p = r.opt
			}
			f, ok := byTag[col.Name]
			if !ok || f.Addr().Interface() != p {
				t.Errorf("%s: column %d (%s): ref is not the field tagged %q", tc.table, i, col.Name, col.Name)
			}
		}
	}
}

// SetColumn undoes Column, column by column, with cost_usd both set and
// nil; Get finds schema and extra columns by name.
func TestSetColumnAndGet(t *testing.T) {
	cost := 0.25
	e := synthEpisode(5)
	e.Extra = map[string]string{"site": "eu", "empty": ""}
	for _, c := range []*float64{&cost, nil} {
		e.CostUSD = c
		var got Episode
		for i := range EpisodeColumns {
			got.SetColumn(i, e.Column(i))
		}
		got.Extra = e.Extra
		if !reflect.DeepEqual(&got, e) {
			t.Errorf("cost %v: SetColumn(Column) gives\n%+v, want\n%+v", c, got, *e)
		}
		for i, col := range EpisodeColumns {
			if v, ok := e.Get(col.Name); !ok || v != e.Column(i) {
				t.Errorf("Get(%q) = %+v, %v; want Column(%d) = %+v", col.Name, v, ok, i, e.Column(i))
			}
		}
	}
	for _, tc := range []struct {
		name string
		want Value
		ok   bool
	}{
		{"site", Value{Kind: KindString, Str: "eu"}, true},
		{"empty", Value{Kind: KindString, Null: true}, true},
		{"nothing", Value{}, false},
	} {
		if v, ok := e.Get(tc.name); v != tc.want || ok != tc.ok {
			t.Errorf("Get(%q) = %+v, %v; want %+v, %v", tc.name, v, ok, tc.want, tc.ok)
		}
	}
}

// SetColumn with a value of another kind is a programming error, which
// panics naming the column.
func TestSetColumnKindPanics(t *testing.T) {
	defer func() {
		r := recover()
		if s, _ := r.(string); !strings.Contains(s, "for int column instance") {
			t.Errorf("panic %v, want one naming the int column instance", r)
		}
	}()
	var e Episode
	e.SetColumn(colInstance, Value{Kind: KindString, Str: "2"})
}

// The paper's services are the prefixes of its tools' names (but for
// the condition-specific tools, which belong to none).
func TestPaperServices(t *testing.T) {
	for _, tool := range slices.Concat(PaperWriteTools, PaperOtherTools) {
		switch tool {
		case "state_oracle", "outcome_oracle", "wait":
			continue
		}
		if svc, _, _ := strings.Cut(tool, "_"); !slices.Contains(PaperServices, svc) {
			t.Errorf("tool %s: service %s not in PaperServices %v", tool, svc, PaperServices)
		}
	}
}

// The JSON decoder fills calls and effects by their column tables: keys
// in any order, escaped, an explicit episode_id, args nested as an
// object, and an unknown key warned about.
func TestDecodeNestedByTable(t *testing.T) {
	line := `{"episode_id":"e1",` +
		`"calls":[{"t_s":1.5,"seq":3,"args":{"to":["a"]},"too\u006c":"mail_send","outcome":"ok","idempotency_key":"k1","latency_s":0.25,"episode_id":"e0","colour":1}],` +
		`"effects":[{"focal":true,"seq":3,"service":"mail","tool":"mail_send","resource_id":"r1","idempotency_key":"k1","attempt":2,"issued_at_s":1.5,"committed_at_s":2,"source":"late","absorbed":1}],` +
		`"final_report":null}`
	var r RawEpisode
	var warns []string
	info, err := decodeLine([]byte(line), &r, &strCache{}, func(field, msg string) { warns = append(warns, field+": "+msg) })
	if err != nil {
		t.Fatal(err)
	}
	wantCall := Call{EpisodeID: "e0", Seq: 3, TS: 1.5, Tool: "mail_send", Args: `{"to":["a"]}`, IdempotencyKey: "k1", Outcome: "ok", LatencyS: 0.25}
	wantEffect := Effect{Seq: 3, Service: "mail", Tool: "mail_send", ResourceID: "r1", IdempotencyKey: "k1", Attempt: 2, IssuedAtS: 1.5, CommittedAtS: 2, Source: "late", Absorbed: true, Focal: true}
	if !info.raw || len(r.Calls) != 1 || r.Calls[0] != wantCall {
		t.Errorf("calls %+v, want [%+v]", r.Calls, wantCall)
	}
	if len(r.Effects) != 1 || r.Effects[0] != wantEffect {
		t.Errorf("effects %+v, want [%+v]", r.Effects, wantEffect)
	}
	if want := []string{"calls[0].colour: unknown field ignored"}; !slices.Equal(warns, want) {
		t.Errorf("warnings %q, want %q", warns, want)
	}
	for _, tc := range []struct{ line, want string }{
		{`{"calls":[{"seq":0,"t_s":0,"tool":"x"}]}`, "calls[0].outcome: missing"},
		{`{"effects":[{"seq":0,"service":"s","tool":"x","source":"agent"}]}`, "effects[0].committed_at_s: missing"},
		{`{"calls":[{"seq":0,"episode_id":"a","episode_id":"a"}]}`, "calls[0].episode_id: duplicate field"},
		{`{"effects":[{"attempt":"2"}]}`, "effects[0].attempt: expected a number, found a string"},
	} {
		var r RawEpisode
		_, err := decodeLine([]byte(tc.line), &r, nil, func(string, string) {})
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %s", tc.line, err, tc.want)
		}
	}
}
