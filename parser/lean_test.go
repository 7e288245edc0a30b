package parser_test

import (
	"cmp"
	"errors"
	"io"
	"iter"
	"reflect"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/parser"
)

// loadAll returns f with its lazy statements parsed again and put back
// among the others in source order (a new File; f is not changed), and
// how many were lazy.
func loadAll(f *grammar.File) (*grammar.File, int) {
	out := &grammar.File{Pos: f.Pos, Indexed: f.Indexed}
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
func stmtPos(s grammar.Stmt) grammar.Position {
	return reflect.ValueOf(s).Elem().FieldByName("Pos").Interface().(grammar.Position)
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
	from, ferr := parser.ParseLeanFrom(filename, src, strings.NewReader(src))
	if ferr == nil != (lerr == nil) || ferr != nil && ferr.Error() != lerr.Error() {
		t.Fatalf("%q: ParseLean error %v, ParseLeanFrom error %v", src, lerr, ferr)
	}
	loaded, lazy := loadAll(lean)
	loadedFrom, _ := loadAll(from)
	if err := from.Lazy.Err(); err != nil {
		t.Fatalf("%q: ParseLeanFrom's statements read again: %v", src, err)
	}
	if diff := gocmp.Diff(loaded, loadedFrom, positionComparer); diff != "" {
		t.Fatalf("%q: ParseLeanFrom's tree differs from ParseLean's (-ParseLean +ParseLeanFrom):\n%s", src, diff)
	}
	// VarDecls and Dists, which parse each statement into the memory of
	// the one before, yield the same trees, each valid in its turn.
	var decls, dists []grammar.Stmt
	for _, s := range loaded.Stmts {
		switch s.(type) {
		case *grammar.VarDecl:
			decls = append(decls, s)
		case *grammar.Dist:
			dists = append(dists, s)
		}
	}
	sameStmts(t, src, "VarDecls", "declaration", decls, lean.Lazy.VarDecls())
	sameStmts(t, src, "Dists", "distribution", dists, from.Lazy.Dists())
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

// sameStmts checks that seq, the iterator name, yields the statements
// want, of the kind what, in order, each as it is yielded: the iterators
// parse each statement into the memory of the one before.
func sameStmts[S grammar.Stmt](t *testing.T, src, name, what string, want []grammar.Stmt, seq iter.Seq[S]) {
	t.Helper()
	i := 0
	for s := range seq {
		if i >= len(want) {
			t.Fatalf("%q: %s yields more than %d %ss", src, name, len(want), what)
		}
		if diff := gocmp.Diff(want[i], grammar.Stmt(s), positionComparer); diff != "" {
			t.Fatalf("%q: %s' %s %d differs (-All +%s):\n%s", src, name, what, i, name, diff)
		}
		i++
	}
	if i != len(want) {
		t.Fatalf("%q: %s yields %d %ss, want %d", src, name, i, what, len(want))
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

// TestParseLeanFromChanged: statements that ParseLeanFrom reads again
// from a source that has changed since, or that cannot be read, stop the
// iteration with an error (not a panic, nor a tree of the new text).
func TestParseLeanFromChanged(t *testing.T) {
	// Long enough that the lazy statements are most of the source.
	src := "var A: {a, b}\nvar B: bool\nP(A) = [0.25, 0.75]\nP(B | A) = {\n  a: [0.5, 0.5]\n  b: [0.1, 0.9]\n}\n"
	for _, tc := range []struct {
		name   string
		reread string // what the reader holds
		want   error
	}{
		{"same", src, nil},
		{"a number changed", strings.Replace(src, "0.1, 0.9", "0.2, 0.8", 1), parser.ErrSourceChanged},
		{"no longer parses", strings.Replace(src, "0.1, 0.9", "0.1, 0.9]", 1), parser.ErrSourceChanged},
		{"truncated", src[:40], io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parser.ParseLeanFrom("m.pbl", src, strings.NewReader(tc.reread))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for range f.Lazy.All() {
				n++
			}
			err = f.Lazy.Err()
			if !errors.Is(err, tc.want) || (err == nil) != (tc.want == nil) {
				t.Fatalf("got error %v, want %v", err, tc.want)
			}
			if tc.want == nil && n != 4 {
				t.Errorf("got %d statements, want 4", n)
			}
			if tc.want != nil && n == 4 {
				t.Errorf("got every statement despite the error")
			}
		})
	}
}
