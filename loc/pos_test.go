package loc_test

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/pbl-lang/pbl/loc"
)

func TestPosString(t *testing.T) {
	for _, tc := range []struct {
		pos   loc.Pos
		want  string
		valid bool
	}{
		{loc.Pos{File: "a.pbl", Line: 3, Col: 7}, "a.pbl:3:7", true},
		{loc.Pos{File: "a.pbl", Line: 3}, "a.pbl:3", true},
		{loc.Pos{File: "a.pbl", Col: 7}, "a.pbl", false}, // a column without a line says nothing
		{loc.Pos{File: "a.pbl"}, "a.pbl", false},
		{loc.Pos{Line: 2, Col: 1}, "-:2:1", true},
		{loc.Pos{}, "-", false},
	} {
		if got := tc.pos.String(); got != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.pos, got, tc.want)
		}
		if got := tc.pos.IsValid(); got != tc.valid {
			t.Errorf("%#v.IsValid() = %v, want %v", tc.pos, got, tc.valid)
		}
	}
}

func TestPosBefore(t *testing.T) {
	// In order: by file, then line, then column.
	order := []loc.Pos{
		{File: "a", Line: 1, Col: 1},
		{File: "a", Line: 1, Col: 2},
		{File: "a", Line: 2, Col: 1},
		{File: "b", Line: 1, Col: 1},
	}
	for i, p := range order {
		for j, q := range order {
			if got, want := p.Before(q), i < j; got != want {
				t.Errorf("%v.Before(%v) = %v, want %v", p, q, got, want)
			}
		}
	}
}

var errKind = errors.New("a kind")

type typedKind struct{ n int }

func (e *typedKind) Error() string { return fmt.Sprint("typed ", e.n) }

func TestErrorText(t *testing.T) {
	at := loc.Pos{File: "m.pbl", Line: 4, Col: 2}
	e := loc.Errorf(at, "no %s named %q", "variable", "Rain")
	if got, want := e.Error(), `m.pbl:4:2: no variable named "Rain"`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if e.Err != nil || e.Unwrap() != nil {
		t.Errorf("Errorf's kind = %v, want nil", e.Err)
	}
	one := loc.ErrorList{e}
	for _, tc := range []struct {
		list loc.ErrorList
		want string
	}{
		{nil, "no errors"},
		{one, `m.pbl:4:2: no variable named "Rain"`},
		{loc.ErrorList{e, e}, `m.pbl:4:2: no variable named "Rain" (and 1 more error)`},
		{loc.ErrorList{e, e, e}, `m.pbl:4:2: no variable named "Rain" (and 2 more errors)`},
	} {
		if got := tc.list.Error(); got != tc.want {
			t.Errorf("%d errors: Error() = %q, want %q", len(tc.list), got, tc.want)
		}
	}
	if got, want := (loc.ErrorList{e, e}).Lines(), e.Error()+"\n"+e.Error()+"\n"; got != want {
		t.Errorf("Lines() = %q, want %q", got, want)
	}
}

// TestErrorListSort: the list sorts by position, keeps the order of
// errors at one position, drops an exact duplicate of the error before it, and Err is nil for
// an empty list.
func TestErrorListSort(t *testing.T) {
	p1 := loc.Pos{File: "f", Line: 1, Col: 1}
	p2 := loc.Pos{File: "f", Line: 2, Col: 1}
	var l loc.ErrorList
	l.Add(p2, "second")
	l.Add(p1, "b")
	l.Add(p1, "b") // a duplicate
	l.Add(p1, "a")
	l = append(l, &loc.Error{Pos: p1, Msg: "b", Err: errKind}) // same text, another kind: kept
	err := l.Err()
	var got loc.ErrorList
	if !errors.As(err, &got) {
		t.Fatalf("Err() = %T, want a loc.ErrorList", err)
	}
	want := []string{"f:1:1: b", "f:1:1: a", "f:1:1: b", "f:2:1: second"}
	if len(got) != len(want) {
		t.Fatalf("sorted list = %q, want %q", got.Lines(), want)
	}
	for i, e := range got {
		if e.Error() != want[i] {
			t.Errorf("error %d = %q, want %q", i, e.Error(), want[i])
		}
	}
	if got[2].Err != errKind {
		t.Errorf("the last error at 1:1 has kind %v, want %v", got[2].Err, errKind)
	}
	if err := (loc.ErrorList{}).Err(); err != nil {
		t.Errorf("empty list's Err() = %v, want nil", err)
	}
}

// TestErrorKinds: the kind of an error, alone or in a list, wrapped or
// not, is found by errors.Is and errors.As.
func TestErrorKinds(t *testing.T) {
	at := loc.Pos{File: "f", Line: 1, Col: 1}
	sentinel := &loc.Error{Pos: at, Msg: "m", Err: errKind}
	typed := &loc.Error{Pos: at, Msg: "m", Err: &typedKind{7}}
	for _, err := range []error{
		sentinel,
		loc.ErrorList{loc.Errorf(at, "other"), sentinel},
		fmt.Errorf("loading: %w", loc.ErrorList{sentinel}),
	} {
		if !errors.Is(err, errKind) {
			t.Errorf("errors.Is(%v, errKind) = false", err)
		}
		var e *loc.Error
		if !errors.As(err, &e) || e.Pos != at {
			t.Errorf("errors.As(%v, *loc.Error) = %v", err, e)
		}
	}
	var tk *typedKind
	if !errors.As(loc.ErrorList{typed}, &tk) || tk.n != 7 {
		t.Errorf("errors.As(list, *typedKind) = %v", tk)
	}
	if errors.Is(loc.ErrorList{loc.Errorf(at, "m")}, errKind) {
		t.Error("an error without a kind matches errKind")
	}
}

// TestLocated: an error list, a positioned error or a path error (also
// wrapped) says where it is; a bare error does not.
func TestLocated(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{loc.ErrorList{{Msg: "x"}}, true},
		{&loc.Error{Msg: "x"}, true},
		{fmt.Errorf("x: %w", &loc.Error{Msg: "x"}), true},
		{&os.PathError{Op: "open", Path: "f", Err: os.ErrNotExist}, true},
		{fmt.Errorf("reading: %w", &os.PathError{Op: "open", Path: "f", Err: os.ErrNotExist}), true},
		{errors.New("x"), false},
		{fmt.Errorf("f: %v", &loc.Error{Msg: "x"}), false},
	} {
		if got := loc.Located(tc.err); got != tc.want {
			t.Errorf("Located(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
