package infer

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

func TestEngineRegistry(t *testing.T) {
	var names []string
	for _, e := range Engines() {
		names = append(names, e.Name())
		if e.Exact() == (approxNamed(e.Name()) != nil) {
			t.Errorf("built-in engine %s: exact %v (the approximate ones are approx.go's)", e.Name(), e.Exact())
		}
		if got, err := Lookup(e.Name()); err != nil || got != e {
			t.Errorf("Lookup(%s) = %v, %v", e.Name(), got, err)
		}
		if !strings.Contains(EngineHelp(), e.Name()+" ("+e.Doc()+")") {
			t.Errorf("EngineHelp() leaves out %s: %s", e.Name(), EngineHelp())
		}
	}
	for _, want := range []string{Enum, VE, JT, Search} {
		if !slices.Contains(names, want) {
			t.Errorf("engine %s is not registered (have %v)", want, names)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("Engines() not sorted: %v", names)
	}
	for _, tc := range []struct{ name, suggest string }{
		{"JT", "jt"},
		{"enmu", "enum"},
		{"junction", ""},
		{"", ""},
	} {
		_, err := ParseEngine(tc.name)
		var ue *UnknownEngineError
		if !errors.As(err, &ue) {
			t.Errorf("ParseEngine(%q) = %v, want an *UnknownEngineError", tc.name, err)
			continue
		}
		if ue.Suggest != tc.suggest || !slices.Equal(ue.Known, append([]string{Auto}, names...)) {
			t.Errorf("ParseEngine(%q): suggest %q, known %v", tc.name, ue.Suggest, ue.Known)
		}
		if tc.suggest != "" && !strings.Contains(err.Error(), "did you mean "+tc.suggest+"?") {
			t.Errorf("ParseEngine(%q): %v", tc.name, err)
		}
	}
}

func TestRegisterRefuses(t *testing.T) {
	for _, name := range []string{"auto", "jt", "", "Big", "a b"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", name)
				}
			}()
			Register(&builtin{name: name, kind: kindVE})
		}()
	}
}

// TestAnswerUnknownEngine: Options.Engine names an engine nobody
// registered; Answer and ExplainQuery refuse it with the typed error at
// the query, before any work.
func TestAnswerUnknownEngine(t *testing.T) {
	m := chainModel(t, false)
	q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Pos: ir.Pos{File: "q", Line: 3, Col: 1}}, Targets: ids(0), TargetStates: []int{0}}
	_, err := Answer(m, q, Options{Engine: "bp"})
	var ue *UnknownEngineError
	var pe *ir.Error
	if !errors.As(err, &ue) || !errors.As(err, &pe) || pe.Pos.Line != 3 {
		t.Errorf("Answer with engine bp: %v", err)
	}
	if _, err := ExplainQuery(m, q, Options{Engine: "bp"}); !errors.As(err, &ue) {
		t.Errorf("ExplainQuery with engine bp: %v", err)
	}
	ind := &ir.IndepQuery{A: ids(0), B: ids(3)}
	if r, err := Answer(m, ind, Options{}); err != nil || !r.(*Independence).Independent || !r.Head().Exact {
		t.Errorf("indep: %+v, %v", r, err)
	}
	for _, e := range []string{"", Auto, Enum, VE, JT, Search} {
		r, err := Answer(m, q, Options{Engine: e})
		if err != nil || !r.Head().Exact || r.Head().ErrorEstimate != nil {
			t.Errorf("engine %q: %+v, %v", e, r, err)
		}
	}
}

// TestEnginesMPE: MPE by every built-in engine name, the search's among
// them, agrees with enumeration.
func TestEnginesMPE(t *testing.T) {
	m := chainModel(t, false)
	q := &ir.MPEQuery{Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 2, State: 1}}}}
	wr, err := Answer(m, q, Options{Engine: Enum})
	if err != nil {
		t.Fatal(err)
	}
	want := wr.(*Assignment)
	for _, e := range []string{Auto, VE, JT, Search} {
		r, err := Answer(m, q, Options{Engine: e})
		if err != nil {
			t.Errorf("engine %s: %v", e, err)
			continue
		}
		if got := r.(*Assignment); !slices.Equal(got.Assignment, want.Assignment) || !equal(got.P, want.P, 1e-12) {
			t.Errorf("engine %s: %v, %v; enumeration %v, %v", e, got.Assignment, got.P, want.Assignment, want.P)
		}
	}
}
