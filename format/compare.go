package format

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/pbl-lang/pbl/grammar"
)

// diffTrees describes the first difference between two syntax trees,
// positions aside, or returns "". A negative number after an operand
// (x-1, a grammar.SumTail with a Number) equals the subtraction the
// printer writes for it (x - 1).
func diffTrees(a, b *grammar.File) string {
	return diff(reflect.ValueOf(a), reflect.ValueOf(b), "File")
}

var (
	positionType = reflect.TypeFor[lexer.Position]()
	tokenType    = reflect.TypeFor[lexer.Token]()
	sumTailType  = reflect.TypeFor[*grammar.SumTail]()
)

func diff(a, b reflect.Value, path string) string {
	if a.Type() != b.Type() {
		return fmt.Sprintf("%s: %s and %s", path, a.Type(), b.Type())
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return path + ": one is missing"
			}
			return ""
		}
		if a.Type() == sumTailType {
			a = reflect.ValueOf(subtraction(a.Interface().(*grammar.SumTail)))
			b = reflect.ValueOf(subtraction(b.Interface().(*grammar.SumTail)))
		}
		return diff(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		switch a.Type() {
		case positionType:
			return ""
		case tokenType:
			x, y := a.Interface().(lexer.Token), b.Interface().(lexer.Token)
			if x.Type != y.Type || x.Value != y.Value {
				return fmt.Sprintf("%s: %q and %q", path, x.Value, y.Value)
			}
			return ""
		}
		for i := range a.NumField() {
			if d := diff(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); d != "" {
				return d
			}
		}
	case reflect.Slice:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: %d and %d items", path, a.Len(), b.Len())
		}
		for i := range a.Len() {
			if d := diff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
	case reflect.String:
		if a.String() != b.String() {
			return fmt.Sprintf("%s: %q and %q", path, a.String(), b.String())
		}
	case reflect.Bool:
		if a.Bool() != b.Bool() {
			return fmt.Sprintf("%s: %v and %v", path, a.Bool(), b.Bool())
		}
	default:
		return fmt.Sprintf("%s: cannot compare %s", path, a.Kind())
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
