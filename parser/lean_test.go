package parser_test

import (
	"cmp"
	"reflect"
	"slices"
	"testing"

	"github.com/alecthomas/participle/v2/lexer"
	gocmp "github.com/google/go-cmp/cmp"

	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/parser"
)

// loadAll returns f with its lazy statements parsed again and put back
// among the others in source order (a new File; f is not changed), and
// how many were lazy.
func loadAll(f *grammar.File) (*grammar.File, int) {
	out := &grammar.File{Pos: f.Pos}
	if f.Lazy == nil {
		out.Stmts = f.Stmts
		return out, 0
	}
	type at struct {
		off int
		s   grammar.Stmt
	}
	var all []at
	for _, s := range f.Stmts {
		all = append(all, at{stmtPos(s).Offset, s})
	}
	for pos, s := range f.Lazy.All() {
		all = append(all, at{pos.Offset, s})
	}
	slices.SortStableFunc(all, func(a, b at) int { return cmp.Compare(a.off, b.off) })
	for _, a := range all {
		out.Stmts = append(out.Stmts, a.s)
	}
	return out, f.Lazy.Len()
}

// stmtPos returns a statement's position (its Pos field).
func stmtPos(s grammar.Stmt) lexer.Position {
	return reflect.ValueOf(s).Elem().FieldByName("Pos").Interface().(lexer.Position)
}

// checkLean fails unless ParseLean fails as Parse does, with the same
// error, or gives a tree whose every statement is lazy where it may be
// and which, loaded, is Parse's tree, positions included.
func checkLean(t *testing.T, filename, src string) {
	t.Helper()
	whole, err := parser.Parse(filename, []byte(src))
	lean, lerr := parser.ParseLean(filename, src)
	if (err == nil) != (lerr == nil) || err != nil && err.Error() != lerr.Error() {
		t.Fatalf("%q: Parse error %v, ParseLean error %v", src, err, lerr)
	}
	if err != nil {
		return
	}
	loaded, lazy := loadAll(lean)
	want := 0
	for _, s := range whole.Stmts {
		switch s.(type) {
		case *grammar.VarDecl, *grammar.Dist:
			want++
		}
	}
	if lazy != want {
		t.Fatalf("%q: %d lazy statements, want %d", src, lazy, want)
	}
	if diff := gocmp.Diff(whole, loaded, positionComparer); diff != "" {
		t.Fatalf("%q: the loaded lean tree differs (-Parse +ParseLean):\n%s", src, diff)
	}
}

// TestParseLean checks ParseLean against Parse on the examples and the
// parser's tests.
func TestParseLean(t *testing.T) {
	for _, src := range examples(t) {
		checkLean(t, "example.pbl", src)
	}
	for _, test := range fileTests {
		checkLean(t, "test.pbl", test.input)
	}
	for _, src := range differentialOnly {
		checkLean(t, "diff.pbl", src)
	}
}

// FuzzParseLean checks ParseLean against Parse on any input.
func FuzzParseLean(f *testing.F) {
	for _, src := range examples(f) {
		f.Add(src)
	}
	for _, test := range fileTests {
		f.Add(test.input)
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkLean(t, "fuzz.pbl", src)
	})
}
