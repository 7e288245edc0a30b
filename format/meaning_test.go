package format_test

import (
	"bytes"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/format"
	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/ir"
)

// sameIR compares two models field by field, unexported fields included,
// positions aside; it returns the difference or "".
func sameIR(a, b *ir.Model) string {
	return cmp.Diff(a, b,
		cmpopts.IgnoreTypes(ir.Pos{}, grammar.Position{}),
		cmpopts.EquateNaNs(),
		cmp.Exporter(func(reflect.Type) bool { return true }))
}

// messages returns the messages of err's errors, positions aside.
func messages(err error) []string {
	var list ir.ErrorList
	if l, ok := err.(ir.ErrorList); ok {
		list = l
	} else if err != nil {
		return []string{err.Error()}
	}
	var msgs []string
	for _, e := range list {
		msgs = append(msgs, position.ReplaceAllString(e.Msg, "POS"))
	}
	return msgs
}

// position matches a position in a message ("first at m.pbl:3:1").
var position = regexp.MustCompile(`\S+:\d+:\d+`)

// checkMeaning loads src as filename, and its formatted text as the same
// file; the two models must be equal, positions aside, and answer their
// queries and expectations alike (or fail to load with the same
// messages).
func checkMeaning(t *testing.T, filename string, src []byte) {
	t.Helper()
	out, err := format.Source(filename, src)
	if err != nil {
		t.Fatalf("%s: %v", filename, err)
	}
	m1, err1 := pbl.Load(filename, src)
	m2, err2 := pbl.Load(filename, out)
	if err1 != nil || err2 != nil {
		if !slices.Equal(messages(err1), messages(err2)) {
			t.Errorf("%s: loading gives\n%v\nbefore formatting and\n%v\nafter", filename, err1, err2)
		}
		return
	}
	if d := sameIR(m1, m2); d != "" {
		t.Errorf("%s: the formatted model differs (-before +after):\n%s", filename, d)
	}
	var a1, a2 bytes.Buffer
	f1 := pbl.Run(m1, &a1, pbl.RunOptions{Seed: 1})
	f2 := pbl.Run(m2, &a2, pbl.RunOptions{Seed: 1})
	if a1.String() != a2.String() {
		t.Errorf("%s: the answers differ:\n%s\nbefore formatting,\n%s\nafter", filename, a1.String(), a2.String())
	}
	if !slices.Equal(messages(f1.Err()), messages(f2.Err())) {
		t.Errorf("%s: the failures differ:\n%v\nbefore formatting,\n%v\nafter", filename, f1, f2)
	}
	if a1.Len() == 0 && len(m1.Stmts) > 0 && f1 == nil && !hasOnlyExpects(m1) {
		t.Errorf("%s: no answers to compare", filename)
	}
}

func hasOnlyExpects(m *ir.Model) bool {
	for _, s := range m.Stmts {
		if _, ok := s.(*ir.QueryStmt); ok {
			return false
		}
	}
	return true
}

// TestExamplesMeaning: every example means the same formatted.
func TestExamplesMeaning(t *testing.T) {
	for _, in := range examples(t) {
		checkMeaning(t, in.name, in.src)
	}
}

// TestGoldenMeaning: so do the golden inputs (most do not load: they
// must fail alike).
func TestGoldenMeaning(t *testing.T) {
	for _, in := range goldenInputs(t) {
		checkMeaning(t, in.name+"/in.pbl", in.src)
	}
}

// TestSameIRFails: the comparison sees a changed number, state or
// statement.
func TestSameIRFails(t *testing.T) {
	base := "var A: {x, y}\nvar B: bool\nA -> B\nP(A) = [0.3, 0.7]\nP(B | A) = { x: 0.1  y: 0.2 }\nquery P(B)\n"
	m, err := pbl.Load("m.pbl", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	for _, changed := range []string{
		strings.Replace(base, "0.3, 0.7", "0.31, 0.69", 1),
		strings.ReplaceAll(base, "B", "C"),
		strings.Replace(base, "query P(B)", "query P(A)", 1),
		strings.Replace(base, "y: 0.2", "y: 0.25", 1),
	} {
		m2, err := pbl.Load("m.pbl", []byte(changed))
		if err != nil {
			t.Fatal(err)
		}
		if sameIR(m, m2) == "" {
			t.Errorf("no difference found between\n%s\nand\n%s", base, changed)
		}
	}
	// Positions alone do not count.
	m2, err := pbl.Load("m.pbl", []byte("\n\n"+strings.ReplaceAll(base, " = ", "  =  ")))
	if err != nil {
		t.Fatal(err)
	}
	if d := sameIR(m, m2); d != "" {
		t.Errorf("moving the text changes the model:\n%s", d)
	}
}
