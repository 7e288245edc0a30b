package importer

import (
	"fmt"
	"strings"

	"github.com/pbl-lang/pbl/internal/spell"
	"github.com/pbl-lang/pbl/ir"
)

// Uniform returns the uniform distribution over k states: the table a
// reader gives a variable whose own table is unusable, so that the
// variable is not also reported as having none.
func Uniform(k int) []float64 {
	u := make([]float64, k)
	for i := range u {
		u[i] = 1 / float64(k)
	}
	return u
}

// CPTTitle renders P(X | A, B): the name of a CPT in ir.Builder's
// messages, which is also how pbl source writes the head of its table.
func CPTTitle(m *ir.Model, child ir.VarID, parents []ir.VarID) string {
	var s strings.Builder
	s.WriteString("P(")
	s.WriteString(ir.Quote(m.Vars[child].Name))
	for i, v := range parents {
		if i == 0 {
			s.WriteString(" | ")
		} else {
			s.WriteString(", ")
		}
		s.WriteString(ir.Quote(m.Vars[v].Name))
	}
	s.WriteString(")")
	return s.String()
}

// Hint returns ` (did you mean "x"?)` for the candidate nearest to name,
// or "" if none is close enough.
func Hint(name string, candidates []string) string {
	if s := spell.Nearest(name, candidates); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}
