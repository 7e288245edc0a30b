package infer

import (
	"fmt"
	"strings"

	"github.com/pbl-lang/pbl/ir"
)

// varList names up to ten variables of m, for error messages.
func varList(m *ir.Model, vs []ir.VarID) string {
	var b strings.Builder
	for i, v := range vs {
		if i == 10 {
			fmt.Fprintf(&b, " and %d more", len(vs)-10)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(ir.Quote(m.Vars[v].Name))
	}
	return b.String()
}
