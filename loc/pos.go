package loc

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Pos is a position in a source file. Line and Col are 1-based; Col counts
// runes. A zero Line or Col means unknown.
type Pos struct {
	File      string
	Line, Col int
}

// IsValid reports whether the position names at least a line.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String renders the position as file:line:col, dropping the parts that are
// unknown.
func (p Pos) String() string {
	s := p.File
	if s == "" {
		s = "-"
	}
	if p.Line > 0 {
		s += fmt.Sprintf(":%d", p.Line)
		if p.Col > 0 {
			s += fmt.Sprintf(":%d", p.Col)
		}
	}
	return s
}

// Before reports whether p sorts before q (by file, line, then column).
func (p Pos) Before(q Pos) bool {
	if p.File != q.File {
		return p.File < q.File
	}
	if p.Line != q.Line {
		return p.Line < q.Line
	}
	return p.Col < q.Col
}

// Error is a user error at a position. Err, if not nil, is the kind of
// error (a sentinel such as ir.ErrNoDistribution or infer.ErrImpossible, or
// a typed error), so that programs can test for it with errors.Is and
// errors.As; Msg is what the user reads.
type Error struct {
	Pos Pos
	Msg string
	Err error // the kind of error, or nil
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Unwrap returns the kind of error, or nil.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error at pos.
func Errorf(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// ErrorList is a list of errors, reported together.
type ErrorList []*Error

// Add appends an error at pos.
func (l *ErrorList) Add(pos Pos, format string, args ...any) {
	*l = append(*l, Errorf(pos, format, args...))
}

// Sort sorts the list by position, keeping the order of errors at the same
// position, and removes exact duplicates.
func (l *ErrorList) Sort() {
	sort.SliceStable(*l, func(i, j int) bool { return (*l)[i].Pos.Before((*l)[j].Pos) })
	out := (*l)[:0]
	for i, e := range *l {
		if i > 0 && e.Pos == (*l)[i-1].Pos && e.Msg == (*l)[i-1].Msg && e.Err == (*l)[i-1].Err {
			continue
		}
		out = append(out, e)
	}
	*l = out
}

// Unwrap returns the errors of the list, so that errors.Is and errors.As
// look through it.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// Error reports the first error and how many more there are.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	case 2:
		return l[0].Error() + " (and 1 more error)"
	}
	return l[0].Error() + " (and " + strconv.Itoa(len(l)-1) + " more errors)"
}

// Err returns the sorted list as an error, or nil if it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	l.Sort()
	return l
}

// Lines renders one error per line.
func (l ErrorList) Lines() string {
	var b strings.Builder
	for _, e := range l {
		b.WriteString(e.Error())
		b.WriteByte('\n')
	}
	return b.String()
}

// Located reports whether err says where it is: it holds an [ErrorList],
// an [*Error] or an *os.PathError (which names its file). An error that
// is not is reported at a position its caller knows.
func Located(err error) bool {
	var list ErrorList
	var e *Error
	var pe *os.PathError
	return errors.As(err, &list) || errors.As(err, &e) || errors.As(err, &pe)
}
