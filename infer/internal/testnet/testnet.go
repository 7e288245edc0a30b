// Package testnet builds the small discrete Bayesian networks that the
// tests of infer and of infer/enginetest share, so that both describe a
// network the same way and neither keeps a copy of the other's builder.
package testnet

import (
	"fmt"

	"github.com/pbl-lang/pbl/ir"
)

// Build builds the network of the given cardinalities, parents and CPTs
// (rows of the parents' configurations, first parent slowest) as the model
// of file, each variable Xv at line v+1 with states s0, s1, ..., leaving
// the variables marked in unl (or none, if nil) without tables (their
// parents set). It returns the builder's error.
func Build(file string, card []int, parents [][]int, cpt [][]float64, unl []bool) (*ir.Model, error) {
	b := ir.NewBuilder(file)
	for v, c := range card {
		states := make([]string, c)
		for i := range states {
			states[i] = fmt.Sprintf("s%d", i)
		}
		b.AddVar(ir.Pos{File: file, Line: v + 1, Col: 1}, fmt.Sprintf("X%d", v), ir.Enum, states, 0)
	}
	for v := range card {
		ps := make([]ir.VarID, len(parents[v]))
		for i, p := range parents[v] {
			ps[i] = ir.VarID(p)
		}
		if unl != nil && unl[v] {
			b.SetParents(ir.VarID(v), ps)
			continue
		}
		b.SetCPT(ir.Pos{File: file, Line: v + 1, Col: 1}, ir.VarID(v), ps, cpt[v], nil)
	}
	return b.Finish()
}
