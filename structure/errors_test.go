package structure

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
)

// TestErrorKinds: every error of the package is matched by its kind with
// errors.Is (and its facts with errors.As), never by its text; an error
// about a data file is positioned in it; and no message names a flag of
// the command line (cmd/pbl phrases --max-parents from a MaxParentsError).
func TestErrorKinds(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	readCSV := func(text string) func() error {
		return func() error { _, err := ReadCSV(file("d.csv", text)); return err }
	}
	chain := NewDAG([]string{"a", "b", "c"})
	if err := chain.AddEdge(0, 1); err != nil {
		t.Fatal(err)
	}
	if err := chain.AddEdge(1, 2); err != nil {
		t.Fatal(err)
	}
	d := &Data{Names: []string{"a", "b", "c"}, States: [][]string{{"0", "1"}, {"0", "1"}, {"0", "1"}}, Card: []int{2, 2, 2},
		Cols: [][]int32{{0, 1, 0, 1}, {0, 1, 1, 0}, {1, 1, 0, 0}}, N: 4}
	s := NewScorer(d, BIC, DefaultESS)
	two := [][2]int{{0, 2}, {1, 2}}
	// The searches' errors, from start (nil: the empty graph) or an order.
	hillClimb := func(start *DAG, opt Options) func() error {
		return func() error { _, err := HillClimb(s, start, opt); return err }
	}
	k2Search := func(opt Options) func() error {
		return func() error { _, err := K2Search(s, opt); return err }
	}
	wide := make([]string, MaxVars+1)
	for i := range wide {
		wide[i] = "v" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
	}

	var (
		edge *EdgeError
		mp   *MaxParentsError
		un   *UnknownNameError
		pos  *ir.Error
	)
	for _, tc := range []struct {
		name string
		run  func() error
		kind error // errors.Is
		as   any   // errors.As target, checked by check
		file bool  // an *ir.Error in the data file
		line int   // its line, if > 0
		col  int   // its column, if > 0
	}{
		{name: "unknown test", run: func() error { _, err := ParseCITest("z2"); return err }, as: &un},
		{name: "unknown score", run: func() error { _, err := ParseScore("aic2"); return err }, as: &un},
		{name: "unknown start", run: func() error { _, err := ParseStart("full"); return err }, as: &un},
		{name: "edge no such variable", run: func() error { return chain.Clone().AddEdge(0, 7) }, kind: ErrNoSuchVariable, as: &edge},
		{name: "edge self-loop", run: func() error { return chain.Clone().AddEdge(1, 1) }, kind: ErrSelfLoop, as: &edge},
		{name: "edge present", run: func() error { return chain.Clone().AddEdge(0, 1) }, kind: ErrDuplicateEdge, as: &edge},
		{name: "edge cycle", run: func() error { return chain.Clone().AddEdge(2, 0) }, kind: ErrCycle, as: &edge},
		{name: "required and forbidden", run: hillClimb(nil, Options{Require: [][2]int{{0, 1}}, Forbid: [][2]int{{0, 1}}}), kind: ErrRequiredAndForbidden, as: &edge},
		{name: "required edge out of range", run: hillClimb(nil, Options{Require: [][2]int{{0, 9}}}), kind: ErrNoSuchVariable, as: &edge},
		{name: "start has forbidden edge", run: hillClimb(chain, Options{Forbid: [][2]int{{0, 1}}}), kind: ErrForbiddenEdge, as: &edge},
		{name: "required cycle", run: hillClimb(chain, Options{Require: [][2]int{{2, 0}}}), kind: ErrCycle, as: &edge},
		{name: "k2 against order", run: k2Search(Options{Order: []int{0, 1, 2}, Require: [][2]int{{2, 0}}}), kind: ErrAgainstOrder, as: &edge},
		{name: "k2 order not a permutation", run: k2Search(Options{Order: []int{0, 0, 2}}), kind: ErrInvalidArgument},
		{name: "k2 order length", run: k2Search(Options{Order: []int{0, 1}}), kind: ErrInvalidArgument},
		{name: "max parents required", run: hillClimb(nil, Options{MaxParents: 1, Require: two}), as: &mp},
		{name: "max parents start", run: hillClimb(chain, Options{MaxParents: 1, Require: [][2]int{{0, 2}}}), as: &mp},
		{name: "bootstrap count", run: func() error {
			_, err := Bootstrap(d, 0, 1, 1, nil)
			return err
		}, kind: ErrInvalidArgument},
		{name: "bootstrap resample", run: func() error {
			_, err := Bootstrap(d, 2, 1, 1, func(r *Data) (*DAG, [][2]int, error) {
				res, err := HillClimb(NewScorer(r, BIC, DefaultESS), nil, Options{MaxParents: 1, Require: two})
				if err != nil {
					return nil, nil, err
				}
				return res.DAG, nil, nil
			})
			return err
		}, as: &mp},
		{name: "pc alpha", run: func() error {
			_, err := PC(context.Background(), d.Cols, d.Card, d.Names, PCOptions{Alpha: 1.5})
			return err
		}, kind: ErrInvalidArgument},
		{name: "pc names", run: func() error {
			_, err := PC(context.Background(), d.Cols, d.Card, []string{"a", "a", "c"}, PCOptions{})
			return err
		}, kind: ErrInvalidArgument},
		{name: "pc required both ways", run: func() error {
			_, err := PC(context.Background(), d.Cols, d.Card, d.Names, PCOptions{Require: [][2]int{{0, 1}, {1, 0}}})
			return err
		}, kind: ErrCycle, as: &edge},
		{name: "pc required and forbidden", run: func() error {
			_, err := PC(context.Background(), d.Cols, d.Card, d.Names, PCOptions{Require: [][2]int{{0, 1}}, Forbid: [][2]int{{0, 1}}})
			return err
		}, kind: ErrRequiredAndForbidden, as: &edge},
		{name: "model state lists", run: func() error { _, err := chain.Model([][]string{{"0", "1"}}); return err }, kind: ErrInvalidArgument},
		{name: "reindex different variables", run: func() error { _, err := Reindex(chain, []string{"a", "b", "z"}); return err }, kind: ErrDifferentVariables},
		{name: "csv empty", run: readCSV(""), kind: ErrNoData, as: &pos, file: true},
		{name: "csv no rows", run: readCSV("a,b\n"), kind: ErrNoData, as: &pos, file: true},
		{name: "csv column all missing", run: readCSV("a,b\n0,?\n1,\n"), kind: ErrNoData, as: &pos, file: true, line: 1},
		{name: "csv header quote", run: readCSV("a,\"b\nc\n"), kind: ErrBadData, as: &pos, file: true, line: 1}, // where the quote opens (encoding/csv said line 2, where the file ends)
		{name: "csv bare quote", run: readCSV("a,b\n0,x\"y\n"), kind: ErrBadData, as: &pos, file: true, line: 2},
		{name: "csv ragged row", run: readCSV("a,b\n0,1,2\n"), kind: ErrBadData, as: &pos, file: true, line: 2},
		{name: "csv header only", run: readCSV("\uFEFF\"a\",b\r\n"), kind: ErrNoData, as: &pos, file: true},
		{name: "csv too many columns", run: readCSV(strings.Join(wide, ",") + "\n"), kind: ErrTooManyVars, as: &pos, file: true, line: 1},
		{name: "real-valued variable scored by bdeu", run: func() error {
			m := buildModel(t, "x real\n")
			d, err := FromBatch(m, &data.Batch{N: 2, Vars: []ir.VarID{0}, Cols: [][]int32{nil}, Reals: [][]float64{{1.5, 2}}})
			if err != nil {
				return err
			}
			return CheckScore(d, BDeu)
		}, kind: ErrNotDiscrete},
		{name: "real-valued variable with a missing cell", run: func() error {
			m := buildModel(t, "x real\n")
			_, err := FromBatch(m, &data.Batch{N: 2, Vars: []ir.VarID{0}, Cols: [][]int32{nil}, Reals: [][]float64{{1.5, math.NaN()}}})
			return err
		}, kind: ErrBadData},
		{name: "bge on discrete data", run: func() error {
			return CheckScore(&Data{Names: []string{"a"}, Card: []int{2}}, BGe)
		}, kind: ErrInvalidArgument},
		{name: "no column", run: func() error {
			m := buildModel(t, "x {a, b}\n")
			_, err := FromBatch(m, &data.Batch{})
			return err
		}, kind: ErrNoColumn},
		{name: "model data no column", run: func() error {
			m := buildModel(t, "x {a, b}\ny {a, b}\n")
			_, err := ReadModelData(file("m.csv", "x\na\n"), m, data.Options{})
			return err
		}, kind: ErrNoColumn},
	} {
		err := tc.run()
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if tc.kind != nil && !errors.Is(err, tc.kind) {
			t.Errorf("%s: %v (%T) is not %v", tc.name, err, err, tc.kind)
		}
		if tc.as != nil && !errors.As(err, tc.as) {
			t.Errorf("%s: %v (%T) is not a %T", tc.name, err, err, tc.as)
		}
		if strings.Contains(err.Error(), "--") {
			t.Errorf("%s: %q names a flag", tc.name, err)
		}
		if tc.file {
			var e *ir.Error
			switch {
			case !errors.As(err, &e) || !strings.HasSuffix(e.Pos.File, ".csv"):
				t.Errorf("%s: %v is not positioned in the file", tc.name, err)
			case tc.line > 0 && e.Pos.Line != tc.line:
				t.Errorf("%s: %v: line %d, want %d", tc.name, err, e.Pos.Line, tc.line)
			}
		}
	}
}

// TestErrorFacts: the typed errors carry the facts a caller needs without
// reading the message.
func TestErrorFacts(t *testing.T) {
	d := &Data{Names: []string{"a", "b", "c"}, States: [][]string{{"0", "1"}, {"0", "1"}, {"0", "1"}}, Card: []int{2, 2, 2},
		Cols: [][]int32{{0, 1, 0, 1}, {0, 1, 1, 0}, {1, 1, 0, 0}}, N: 4}
	s := NewScorer(d, BIC, DefaultESS)
	_, err := HillClimb(s, nil, Options{MaxParents: 1, Require: [][2]int{{0, 2}, {1, 2}}})
	var mp *MaxParentsError
	if !errors.As(err, &mp) || *mp != (MaxParentsError{Var: "c", Parents: 2, Limit: 1, Required: true}) {
		t.Errorf("got %#v (%v), want c with 2 required parents over a limit of 1", mp, err)
	}
	start := NewDAG(d.Names)
	for _, e := range [][2]int{{0, 2}, {1, 2}} {
		if err := start.AddEdge(e[0], e[1]); err != nil {
			t.Fatal(err)
		}
	}
	_, err = HillClimb(s, start, Options{MaxParents: 1})
	if !errors.As(err, &mp) || *mp != (MaxParentsError{Var: "c", Parents: 2, Limit: 1}) {
		t.Errorf("got %#v (%v), want c with 2 parents in the start over a limit of 1", mp, err)
	}
	g := NewDAG(d.Names)
	var edge *EdgeError
	if err := g.AddEdge(2, 2); !errors.As(err, &edge) || edge.From != 2 || edge.To != 2 || edge.Kind != ErrSelfLoop {
		t.Errorf("got %#v (%v), want a self-loop 2 -> 2", edge, err)
	}
	_, err = ParseScore("aic2")
	var un *UnknownNameError
	if !errors.As(err, &un) || un.What != "score" || un.Name != "aic2" || len(un.Want) == 0 {
		t.Errorf("got %#v (%v), want the unknown score aic2 with the names known", un, err)
	}
}

// buildModel returns a model of the variables of spec, one a line: "x
// real" or "x {a, b}", with no tables.
func buildModel(t *testing.T, spec string) *ir.Model {
	t.Helper()
	b := ir.NewBuilder("m.pbl")
	for _, line := range strings.Split(strings.TrimSpace(spec), "\n") {
		name, rest, _ := strings.Cut(line, " ")
		if rest == "real" {
			b.AddVar(ir.Pos{}, name, ir.Real, nil, 0)
			continue
		}
		states := strings.Split(strings.Trim(rest, "{}"), ", ")
		b.AddVar(ir.Pos{}, name, ir.Enum, states, 0)
	}
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return m
}
