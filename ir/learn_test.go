package ir_test

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/parser"
)

func lower(t *testing.T, src string) *ir.Model {
	t.Helper()
	f, err := parser.Parse("m.pbl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ir.Lower(f)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestLowerLearning: a classifier declares open variables whose states come
// from an inline table in order of first appearance; the class is the
// features' parent; a learn statement keeps its method and options; edges
// give a structure to variables without tables.
func TestLowerLearning(t *testing.T) {
	m := lower(t, `
var Wind: {weak, strong}
naive_bayes Play given Outlook, Wind
data weather = {
    Outlook, Wind, Play
    sunny, weak, no
    rain, ?, yes
    overcast, strong, yes
}
learn from weather with bayes(alpha = 0.5)
`)
	out, _ := m.Lookup("Outlook")
	play, _ := m.Lookup("Play")
	wind, _ := m.Lookup("Wind")
	if got := strings.Join(out.States, ","); got != "sunny,rain,overcast" || !out.Open {
		t.Errorf("Outlook states %q (open %v), want sunny,rain,overcast", got, out.Open)
	}
	if got := strings.Join(play.States, ","); got != "no,yes" {
		t.Errorf("Play states %q", got)
	}
	if wind.Open {
		t.Error("a declared variable is open")
	}
	if c := m.Classifier; c == nil || c.Kind != ir.NaiveBayes || c.Class != play.ID || len(c.Features) != 2 {
		t.Fatalf("classifier %+v", m.Classifier)
	}
	if ps := m.Parents[out.ID]; len(ps) != 1 || ps[0] != play.ID {
		t.Errorf("Outlook's parents %v, want [Play]", ps)
	}
	if len(m.Unlearned()) != 3 {
		t.Errorf("unlearned %v, want 3 variables", m.Unlearned())
	}
	tab := m.Tables[0]
	if len(tab.Rows) != 3 || tab.Rows[1][1] != -1 || tab.Rows[2][0] != 2 {
		t.Errorf("table rows %v", tab.Rows)
	}
	ls, ok := m.Stmts[0].(*ir.LearnStmt)
	if !ok || ls.Method != "bayes" || len(ls.Options) != 1 || ls.Options[0].Name != "alpha" || ls.Options[0].Value != 0.5 || ls.Table != tab {
		t.Errorf("learn statement %+v", m.Stmts[0])
	}

	m = lower(t, "var A, B, C: bool\nA, B -> C\nlearn from \"d.csv\"\n")
	c, _ := m.Lookup("C")
	if ps := m.Parents[c.ID]; len(ps) != 2 || m.Dist(c.ID) != nil {
		t.Errorf("C's structure: parents %v, distribution %v", ps, m.Dist(c.ID))
	}
	if ls := m.Stmts[0].(*ir.LearnStmt); ls.File != "d.csv" || ls.Method != "" {
		t.Errorf("learn statement %+v", ls)
	}
}

// TestTooManyStates: a variable listing more than MaxStates states is an
// error at its type, as a range of as many is.
func TestTooManyStates(t *testing.T) {
	var b strings.Builder
	b.WriteString("var A: {")
	for i := range ir.MaxStates + 1 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("s")
		b.WriteString(strconv.Itoa(i))
	}
	b.WriteString("}\n")
	f, err := parser.Parse("m.pbl", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = ir.Lower(f)
	var list ir.ErrorList
	if !errors.As(err, &list) || len(list) != 1 || list[0].Pos != (ir.Pos{File: "m.pbl", Line: 1, Col: 8}) {
		t.Errorf("%d states: %v, want one error at m.pbl:1:8", ir.MaxStates+1, err)
	}
}

// TestLocated: an error list, a positioned error or a path error (also
// wrapped) says where it is; a bare error does not.
func TestLocated(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{ir.ErrorList{{Msg: "x"}}, true},
		{&ir.Error{Msg: "x"}, true},
		{&os.PathError{Op: "open", Path: "f", Err: os.ErrNotExist}, true},
		{fmt.Errorf("reading: %w", &os.PathError{Op: "open", Path: "f", Err: os.ErrNotExist}), true},
		{errors.New("x"), false},
		{fmt.Errorf("f: %v", &ir.Error{Msg: "x"}), false},
	} {
		if got := ir.Located(tc.err); got != tc.want {
			t.Errorf("Located(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
