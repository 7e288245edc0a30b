package ir

import "github.com/pbl-lang/pbl/loc"

// Positions and positioned errors live in package loc, below the
// parser (as go/token is below go/parser); ir keeps its names for them as
// aliases, so that ir and the packages after it, which name ir.Pos and
// ir.Error in many places, need not change at once. They are the same
// types, not copies: an *ir.Error is a *loc.Error, and errors.Is and
// errors.As match either name. New code, and the syntax layers (grammar,
// parser, format), which must not import ir, name them in package loc.

// Pos is [loc.Pos]: a position in a source file.
type Pos = loc.Pos

// Error is [loc.Error]: a user error at a position, whose Err is its
// kind (such as [ErrNoDistribution]).
type Error = loc.Error

// ErrorList is [loc.ErrorList]: errors reported together.
type ErrorList = loc.ErrorList

// Errorf returns an *Error at pos (see [loc.Errorf]).
func Errorf(pos Pos, format string, args ...any) *Error {
	return loc.Errorf(pos, format, args...)
}

// Located reports whether err says where it is (see [loc.Located]).
func Located(err error) bool { return loc.Located(err) }
