package infer

import (
	"fmt"

	"github.com/pbl-lang/pbl/ir"
)

// Independent reports whether every variable of a is d-separated from every
// variable of b given c in the DAG m.Parents.
//
// Variables of c are removed from a and b first: a variable that is given is
// trivially independent of everything (its conditional distribution is a
// point mass). A variable left in both a and b is never d-separated from
// itself, so the answer is then false. If a or b is empty after the
// removal, the answer is true.
//
// The test is the reachability algorithm of Koller and Friedman (Algorithm
// 3.1, "Bayes ball"): mark the ancestors of c, then search the (node,
// direction) pairs that an active trail from a can reach. A trail arriving
// at Y from a child ("up") continues to Y's parents and children if Y is not
// in c; a trail arriving from a parent ("down") continues to Y's children if
// Y is not in c, and to Y's parents if Y is an ancestor of c (an activated
// v-structure). The error is for VarIDs outside the model.
func Independent(m *ir.Model, a, b, c []ir.VarID) (bool, error) {
	n := len(m.Vars)
	for _, l := range [][]ir.VarID{a, b, c} {
		for _, v := range l {
			if v < 0 || int(v) >= n {
				return false, fmt.Errorf("variable %d is not in the model", v)
			}
		}
	}
	reach := dconnected(m, a, c)
	for _, v := range b {
		if reach[v] {
			return false, nil
		}
	}
	return true, nil
}

// dconnected returns, for every variable of m, whether an active trail
// given c joins it to a variable of a (Independent's search); the
// variables of c are never reached. The VarIDs must be in the model.
func dconnected(m *ir.Model, a, c []ir.VarID) []bool {
	n := len(m.Vars)
	inC := make([]bool, n)
	for _, v := range c {
		inC[v] = true
	}
	// Ancestors of c, inclusive.
	anc := make([]bool, n)
	stack := append([]ir.VarID(nil), c...)
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if anc[v] {
			continue
		}
		anc[v] = true
		stack = append(stack, m.Parents[v]...)
	}
	children := m.Children()
	const (
		up   = 0 // arrived from a child
		down = 1 // arrived from a parent
	)
	visited := make([]bool, 2*n)
	reach := make([]bool, n)
	type item struct {
		v   ir.VarID
		dir int
	}
	var queue []item
	for _, v := range a {
		if !inC[v] {
			queue = append(queue, item{v, up})
		}
	}
	for len(queue) > 0 {
		it := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if visited[2*int(it.v)+it.dir] {
			continue
		}
		visited[2*int(it.v)+it.dir] = true
		y := it.v
		if !inC[y] {
			reach[y] = true
		}
		switch {
		case it.dir == up && !inC[y]:
			for _, p := range m.Parents[y] {
				queue = append(queue, item{p, up})
			}
			for _, ch := range children[y] {
				queue = append(queue, item{ch, down})
			}
		case it.dir == down:
			if !inC[y] {
				for _, ch := range children[y] {
					queue = append(queue, item{ch, down})
				}
			}
			if anc[y] {
				for _, p := range m.Parents[y] {
					queue = append(queue, item{p, up})
				}
			}
		}
	}
	return reach
}
