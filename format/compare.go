package format

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/pbl-lang/pbl/grammar"
)

// diffTrees describes the first difference between two syntax trees,
// positions aside, or returns "". A negative number after an operand
// (x-1, a grammar.SumTail with a Number) equals the subtraction the
// printer writes for it (x - 1).
func diffTrees(a, b *grammar.File) string {
	if d := diff(reflect.ValueOf(a), reflect.ValueOf(b)); d != "" {
		return "File" + d
	}
	return ""
}

// diff compares a and b; a difference is described from the node where it
// is, and each caller on the way up prefixes its field or index: paths are
// only built for a difference.
func diff(a, b reflect.Value) string {
	if a.Type() != b.Type() {
		return fmt.Sprintf(": %s and %s", a.Type(), b.Type())
	}
	switch a.Kind() {
	case reflect.Func:
		// A hook such as a lazy statement's parser: the full trees that
		// Source compares have none.
		if !a.IsNil() || !b.IsNil() {
			return ": a function (a tree that is not whole)"
		}
		return ""
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return ": one is missing"
			}
			return ""
		}
		if a.Type() == reflect.TypeFor[*grammar.SumTail]() {
			a = reflect.ValueOf(subtraction(a.Interface().(*grammar.SumTail)))
			b = reflect.ValueOf(subtraction(b.Interface().(*grammar.SumTail)))
		}
		return diff(a.Elem(), b.Elem())
	case reflect.Struct:
		if a.Type() == reflect.TypeFor[grammar.Position]() {
			return ""
		}
		for i := range a.NumField() {
			if d := diff(a.Field(i), b.Field(i)); d != "" {
				return "." + a.Type().Field(i).Name + d
			}
		}
	case reflect.Slice:
		if a.Len() != b.Len() {
			return fmt.Sprintf(": %d and %d items", a.Len(), b.Len())
		}
		for i := range a.Len() {
			if d := diff(a.Index(i), b.Index(i)); d != "" {
				return fmt.Sprintf("[%d]%s", i, d)
			}
		}
	case reflect.String:
		if a.String() != b.String() {
			return fmt.Sprintf(": %q and %q", a.String(), b.String())
		}
	case reflect.Bool:
		if a.Bool() != b.Bool() {
			return fmt.Sprintf(": %v and %v", a.Bool(), b.Bool())
		}
	default:
		return fmt.Sprintf(": cannot compare %s", a.Kind())
	}
	return ""
}

// subtraction returns t in the form `- PRODUCT` if it is a negative
// number after an operand.
func subtraction(t *grammar.SumTail) *grammar.SumTail {
	if t.Number == nil || !strings.HasPrefix(*t.Number, "-") {
		return t
	}
	n := strings.TrimPrefix(*t.Number, "-")
	return &grammar.SumTail{Op: "-", Right: &grammar.Product{
		Left: &grammar.Unary{Power: &grammar.Power{Base: &grammar.Primary{Number: &n}, Exp: t.Exp}},
		Tail: t.Mul,
	}}
}
