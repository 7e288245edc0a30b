package infer

import (
	"fmt"

	"github.com/pbl-lang/pbl/ir"
)

// Heuristic is a greedy elimination-order heuristic for variable
// elimination.
type Heuristic int

const (
	MinFill   Heuristic = iota // fewest fill-in edges; ties by weight, then VarID
	MinWeight                  // smallest product of neighbour cardinalities; ties by VarID
)

func (h Heuristic) String() string {
	switch h {
	case MinFill:
		return "min-fill"
	case MinWeight:
		return "min-weight"
	}
	return "?"
}

// ParseHeuristic parses "min-fill" or "min-weight" (also "minfill",
// "minweight").
func ParseHeuristic(s string) (Heuristic, error) {
	switch s {
	case "min-fill", "minfill":
		return MinFill, nil
	case "min-weight", "minweight":
		return MinWeight, nil
	}
	return 0, fmt.Errorf("unknown elimination order %q (want min-fill or min-weight)", s)
}

// elimOrder returns a greedy elimination order of the variables in stages:
// every variable of stages[0] first, then those of stages[1], and so on (MAP
// sums out the non-MAP variables before maximising the MAP ones). The
// interaction graph joins every two variables that share a scope in
// scopes; variables that appear in scopes but in no stage stay in the graph
// and are never eliminated. card[v] is the cardinality of VarID v.
//
// At each step the variable with the lowest score in the current stage is
// eliminated and its neighbours are joined pairwise. The score is the number
// of fill-in edges (MinFill) or the product of the neighbours'
// cardinalities (MinWeight); ties go to the lower weight and then to the
// lower VarID, so the order is deterministic.
//
// Before each elimination visit, if not nil, is called with the variable,
// its neighbours (the scope of the table its elimination makes) and that
// table's size; elimOrder stops and returns the order so far when visit
// returns false.
func elimOrder(h Heuristic, card []int, scopes [][]ir.VarID, visit func(v ir.VarID, nb []ir.VarID, size float64) bool, stages ...[]ir.VarID) []ir.VarID {
	// Number the variables that occur: local index i <-> VarID ids[i].
	loc := map[ir.VarID]int32{}
	var ids []ir.VarID
	add := func(v ir.VarID) int32 {
		if i, ok := loc[v]; ok {
			return i
		}
		loc[v] = int32(len(ids))
		ids = append(ids, v)
		return int32(len(ids) - 1)
	}
	local := make([][]int32, len(stages))
	for k, st := range stages {
		for _, v := range st {
			local[k] = append(local[k], add(v))
		}
	}
	var edges [][2]int32
	for _, s := range scopes {
		for _, v := range s {
			add(v)
		}
		for a := range s {
			for b := a + 1; b < len(s); b++ {
				edges = append(edges, [2]int32{loc[s[a]], loc[s[b]]})
			}
		}
	}
	cards := make([]float64, len(ids))
	tie := make([]uint64, len(ids))
	for i, v := range ids {
		cards[i] = float64(card[v])
		tie[i] = uint64(v)
	}
	kind := scoreFill
	if h == MinWeight {
		kind = scoreWeight
	}
	g := newElimGraph(kind, false, cards, tie, edges)
	order := make([]ir.VarID, 0, len(ids))
	var nbv []ir.VarID
	g.run(local, func(x int32, nb []int32) bool {
		if visit != nil {
			nbv = nbv[:0]
			for _, a := range nb {
				nbv = append(nbv, ids[a])
			}
			if !visit(ids[x], nbv, g.weight[x]) {
				return false
			}
		}
		order = append(order, ids[x])
		return true
	})
	return order
}
