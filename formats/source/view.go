package source

import (
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/ir"
)

// view is a model as the writers name its variables: by their names, or,
// for the variables of a template's family (template.go), by the
// template's names, Rain[t] and Rain[t-1].
type view struct {
	*ir.Model
	tmpl map[ir.VarID]tname // the variables named as the template's, or nil
	// slices names the slices of a template written with it by their
	// time-indexed variable, "my rain"[0], not as one quoted name, "my
	// rain[0]" (the same variable, read back); titles and edges only.
	slices map[ir.VarID]tname
	// unnamed is set when a template's name was needed where the language
	// takes a variable's name only: a compact table's link, a term of a
	// mean or a score.
	unnamed bool
}

// tname is a template's name: the time-indexed variable's name and the
// index, t or t-k.
type tname struct{ base, index string }

// name returns how a distribution's title and an edge name v.
func (m *view) name(v ir.VarID) string {
	if t, ok := m.tmpl[v]; ok {
		return ir.Quote(t.base) + "[" + t.index + "]"
	}
	if t, ok := m.slices[v]; ok {
		return ir.Quote(t.base) + "[" + t.index + "]"
	}
	return ir.Quote(m.Vars[v].Name)
}

// word returns how a compact table names v (quoted if a keyword there).
func (m *view) word(v ir.VarID) string {
	if _, ok := m.tmpl[v]; ok {
		m.unnamed = true
		return m.name(v)
	}
	return word(m.Vars[v].Name)
}

// term returns how a mean or a score names v: bare if an identifier.
func (m *view) term(v ir.VarID) string {
	if _, ok := m.tmpl[v]; ok {
		m.unnamed = true
		return m.name(v)
	}
	if name := m.Vars[v].Name; ir.IsIdent(name) {
		return name
	}
	return strconv.Quote(m.Vars[v].Name)
}

// title returns P(child | parents).
func (m *view) title(child ir.VarID, parents []ir.VarID) string {
	var s strings.Builder
	s.WriteString("P(" + m.name(child))
	for i, v := range parents {
		if i == 0 {
			s.WriteString(" | ")
		} else {
			s.WriteString(", ")
		}
		s.WriteString(m.name(v))
	}
	s.WriteString(")")
	return s.String()
}
