package formattest

import "github.com/pbl-lang/pbl/ir"

// Names returns the names of the variables ids of m, in order.
func Names(m *ir.Model, ids []ir.VarID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = m.Vars[id].Name
	}
	return out
}
