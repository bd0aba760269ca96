package design

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
)

func compileScaled(t *testing.T, kind ScaleKind, f float64) (*Scaled, *Plan) {
	t.Helper()
	s, err := Scale(Paper(), kind, f)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(s.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	return s, p
}

// cellWorlds maps every (experiment, harness, model, contract, condition,
// cue) cell to its pair keys in design order.
func cellWorlds(p *Plan) map[string][]string {
	out := map[string][]string{}
	for i := range p.Len() {
		e := p.Episode(i)
		k := strings.Join([]string{e.Experiment, e.Harness, e.Model, e.Contract, e.Condition, e.Cue}, "|")
		out[k] = append(out[k], e.PairKey())
	}
	return out
}

func TestScaleIdentity(t *testing.T) {
	base, err := Compile(Paper())
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range ScaleKinds() {
		s, p := compileScaled(t, kind, 1)
		if s.Repeats != 1 || p.Len() != base.Len() {
			t.Fatalf("%s ×1: %d repeats of %d episodes, want 1 of %d", kind, s.Repeats, p.Len(), base.Len())
		}
		for _, i := range []int{0, 777, base.Len() - 1} {
			a, b := p.Episode(i), base.Episode(i)
			if a.ID() != b.ID() {
				t.Errorf("%s ×1: episode %d is %s, want %s", kind, i, a.ID(), b.ID())
			}
		}
	}
}

func TestScaleEpisodes(t *testing.T) {
	base, _ := Compile(Paper())
	bw := cellWorlds(base)
	tests := []struct {
		f       float64
		repeats int
		share   float64 // of each cell's worlds per repeat
	}{
		{0.5, 1, 0.5}, {0.25, 1, 0.25}, {1.5, 2, 0.75}, {2, 2, 1}, {3, 3, 1},
	}
	for _, tt := range tests {
		s, p := compileScaled(t, ScaleEpisodes, tt.f)
		if s.Repeats != tt.repeats {
			t.Errorf("×%g: %d repeats, want %d", tt.f, s.Repeats, tt.repeats)
		}
		w := cellWorlds(p)
		if len(w) != len(bw) {
			t.Fatalf("×%g: %d cells, want %d", tt.f, len(w), len(bw))
		}
		// Per block cell, the kept worlds are the same for every condition,
		// contract and cue (pairs stay whole) and a subset of the base's.
		byModel := map[string][]string{}
		for k, ws := range w {
			n := len(bw[k])
			// A cell of two blocks (E5's wait-0) rounds once per block.
			if want := tt.share * float64(n); math.Abs(float64(len(ws))-want) > 1 {
				t.Errorf("×%g: cell %s keeps %d of %d worlds, want %.1f", tt.f, k, len(ws), n, want)
			}
			for _, x := range ws {
				if !slices.Contains(bw[k], x) {
					t.Fatalf("×%g: cell %s has a world %s the base lacks", tt.f, k, x)
				}
			}
			parts := strings.Split(k, "|")
			key := parts[0] + "|" + parts[1] + "|" + parts[2] + "|" + strings.Join(bw[k], ",")
			if prev, ok := byModel[key]; ok && !slices.Equal(prev, ws) {
				t.Errorf("×%g: cell %s keeps other worlds than its sibling condition", tt.f, k)
			}
			byModel[key] = ws
		}
	}
	// Nested: the worlds at ×0.25 are among those at ×0.5.
	_, a := compileScaled(t, ScaleEpisodes, 0.25)
	_, b := compileScaled(t, ScaleEpisodes, 0.5)
	wa, wb := cellWorlds(a), cellWorlds(b)
	for k, ws := range wa {
		for _, x := range ws {
			if !slices.Contains(wb[k], x) {
				t.Fatalf("cell %s: world %s at ×0.25 is not kept at ×0.5", k, x)
			}
		}
	}
}

func TestScaleInstances(t *testing.T) {
	m := Paper()
	// E2 runs instance 0 of every template: ×2 adds instance 1, ×3 also 2.
	for _, tt := range []struct {
		f    float64
		want []int
	}{{2, []int{0, 1}}, {3, []int{0, 1, 2}}, {0.5, []int{0}}} {
		s, err := Scale(&Manifest{Name: m.Name, FixedDelayS: m.FixedDelayS, ClientTimeoutS: m.ClientTimeoutS, Tail: m.Tail,
			Experiments: []Experiment{m.Experiments[2]}, Switches: m.Switches}, ScaleInstances, tt.f)
		if err != nil {
			t.Fatalf("E2 ×%g: %v", tt.f, err)
		}
		for _, b := range s.Manifest.Experiments[0].Blocks {
			for _, sel := range b.Tasks {
				if !slices.Equal(sel.Instances, tt.want) {
					t.Errorf("E2 ×%g: template %v instances %v, want %v", tt.f, sel.Templates, sel.Instances, tt.want)
				}
			}
		}
	}
	// E1 at ×1/3 runs instance 0 of every template; E1s keeps 3 of its 10.
	s, err := Scale(m, ScaleInstances, 1.0/3)
	if err != nil {
		t.Fatal(err)
	}
	for _, sel := range s.Manifest.Experiments[0].Blocks[0].Tasks {
		if !slices.Equal(sel.Instances, []int{0}) {
			t.Errorf("E1 ×1/3: %v instances %v, want [0]", sel.Templates, sel.Instances)
		}
	}
	if got := s.Manifest.Experiments[1].Blocks[0].Tasks[0].Instances; !slices.Equal(got, []int{3, 4, 5}) {
		t.Errorf("E1s ×1/3: instances %v, want [3 4 5]", got)
	}
	// E1 runs 3 instances of every template: ×2 asks for 6, more than the
	// sandbox has.
	if _, err := Scale(m, ScaleInstances, 2); err == nil || !strings.Contains(err.Error(), "the sandbox has 3") {
		t.Errorf("E1 ×2: want an error naming the sandbox's 3 instances, got %v", err)
	}
	// The scaled manifest compiles with unique episode ids.
	if _, err := Compile(s.Manifest); err != nil {
		t.Fatal(err)
	}
}

// TestScaleSeeds: f seeds are f repeats of the whole design, the same
// manifest and repeats as episodes at a whole multiplier.
func TestScaleSeeds(t *testing.T) {
	for _, f := range []float64{1, 2, 3} {
		s, err := Scale(Paper(), ScaleSeeds, f)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Scale(Paper(), ScaleEpisodes, f)
		if err != nil {
			t.Fatal(err)
		}
		if s.Repeats != int(f) || e.Repeats != s.Repeats {
			t.Errorf("×%g: %d repeats (episodes: %d), want %d", f, s.Repeats, e.Repeats, int(f))
		}
		sj, _ := json.Marshal(s.Manifest)
		ej, _ := json.Marshal(e.Manifest)
		pj, _ := json.Marshal(Paper())
		if !bytes.Equal(sj, ej) || !bytes.Equal(sj, pj) {
			t.Errorf("×%g: seeds manifest differs from the base design or from episodes'", f)
		}
	}
}

func TestScaleErrors(t *testing.T) {
	for _, tt := range []struct {
		kind ScaleKind
		f    float64
		want string
	}{
		{ScaleEpisodes, 0, "size must be a number > 0"},
		{ScaleEpisodes, -1, "size must be a number > 0"},
		{"cells", 2, `unknown kind "cells"`},
		{ScaleSeeds, 1.5, "not a whole number"},
	} {
		if _, err := Scale(Paper(), tt.kind, tt.f); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Scale(%s, %v): error %v, want %q", tt.kind, tt.f, err, tt.want)
		}
	}
	// The input manifest is left alone.
	m := Paper()
	if _, err := Scale(m, ScaleEpisodes, 0.5); err != nil {
		t.Fatal(err)
	}
	if m.Experiments[0].Blocks[0].Limit["gpt-6-sol"] != 0 {
		t.Error("Scale modified its input")
	}
}

// A scale kind round-trips through its text; an unknown one is an error
// that lists the accepted kinds.
func TestScaleKindText(t *testing.T) {
	for _, k := range ScaleKinds() {
		var got ScaleKind
		b, _ := k.MarshalText()
		if err := got.UnmarshalText(b); err != nil || got != k {
			t.Errorf("%s: read back %q, %v", k, got, err)
		}
	}
	var k ScaleKind
	if err := k.UnmarshalText([]byte("cells")); err == nil || !strings.Contains(err.Error(), `"cells": want episodes, instances or seeds`) || k.Valid() {
		t.Errorf("cells: %v, left %q", err, k)
	}
}
