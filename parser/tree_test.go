package parser_test

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/grammar"
)

// treeString prints a syntax tree as a compact S-expression, showing only
// non-empty fields and no positions, e.g.
// (File Stmts=((VarDecl Names=((Name Ident=Storm)) Type=(Type Bool=true)))).
func treeString(n any) string {
	var b strings.Builder
	writeTree(&b, reflect.ValueOf(n))
	return b.String()
}

var plain = regexp.MustCompile(`^[A-Za-z0-9_.+-]+$`)

var positionType = reflect.TypeOf(grammar.Position{})

func writeTree(out *strings.Builder, x reflect.Value) {
	switch x.Kind() {
	case reflect.String:
		if s := x.String(); plain.MatchString(s) {
			out.WriteString(s)
		} else {
			out.WriteString(strconv.Quote(s))
		}
	case reflect.Bool, reflect.Int:
		fmt.Fprintf(out, "%v", x.Interface())
	case reflect.Pointer, reflect.Interface:
		if x.IsNil() {
			out.WriteString("nil")
		} else {
			writeTree(out, x.Elem())
		}
	case reflect.Struct:
		fmt.Fprintf(out, "(%s", x.Type().Name())
		for i := range x.NumField() {
			f := x.Field(i)
			if f.Type() == positionType || f.IsZero() {
				continue
			}
			fmt.Fprintf(out, " %s=", x.Type().Field(i).Name)
			writeTree(out, f)
		}
		out.WriteString(")")
	case reflect.Slice:
		out.WriteString("(")
		for i := range x.Len() {
			if i > 0 {
				out.WriteString(" ")
			}
			writeTree(out, x.Index(i))
		}
		out.WriteString(")")
	default:
		fmt.Fprintf(out, "%v", x.Interface())
	}
}
