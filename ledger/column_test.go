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
