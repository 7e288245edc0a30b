package infer

import (
	"fmt"

	"github.com/pbl-lang/pbl/ir"
)

// Heuristic is a greedy elimination-order heuristic for variable
// elimination. The zero value, BestOrder, runs the others and keeps the
// order whose elimination is estimated cheapest.
type Heuristic int

const (
	BestOrder       Heuristic = iota // the cheapest of min-fill, weighted-min-fill, min-weight and input by estimated cost (see vePlan.cost)
	MinFill                          // fewest fill-in edges; ties by weight, then VarID
	MinWeight                        // smallest product of neighbour cardinalities; ties by VarID
	WeightedMinFill                  // smallest Σ card(a)·card(b) over the fill-in edges (a, b); ties by weight, then VarID
	InputOrder                       // the variables in the order the model declares them (VarID): no search at all
)

// heuristics are the orders BestOrder tries, in this order (the first of
// equal cost is kept). The input order is last: the greedy heuristics
// are usually the cheaper, but on a model written along its structure —
// a grid row by row, a chain or a time series slice by slice — the
// declared order is often narrower than any greedy one (a 20×20 grid:
// width 20 in its rows' order, 27 by min-fill, whose largest table is
// 128 times larger).
var heuristics = [...]Heuristic{MinFill, WeightedMinFill, MinWeight, InputOrder}

func (h Heuristic) String() string {
	switch h {
	case BestOrder:
		return "best"
	case MinFill:
		return "min-fill"
	case MinWeight:
		return "min-weight"
	case WeightedMinFill:
		return "weighted-min-fill"
	case InputOrder:
		return "input"
	}
	return "?"
}

// ParseHeuristic parses a heuristic's name as printed by String (also
// "minfill", "minweight" and "weighted-minfill").
func ParseHeuristic(s string) (Heuristic, error) {
	switch s {
	case "best":
		return BestOrder, nil
	case "min-fill", "minfill":
		return MinFill, nil
	case "min-weight", "minweight":
		return MinWeight, nil
	case "weighted-min-fill", "weighted-minfill":
		return WeightedMinFill, nil
	case "input":
		return InputOrder, nil
	}
	return 0, fmt.Errorf("unknown elimination order %q (want best, min-fill, min-weight, weighted-min-fill or input)", s)
}

// scoreKind returns what h's greedy elimination minimises.
func (h Heuristic) scoreKind() scoreKind {
	switch h {
	case MinWeight:
		return scoreWeight
	case WeightedMinFill:
		return scoreWeightedFill
	case InputOrder:
		return scoreTie
	}
	return scoreFill
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
// of fill-in edges (MinFill), the product of the neighbours'
// cardinalities (MinWeight) or the sum of card(a)·card(b) over the fill-in
// edges (WeightedMinFill); ties go to the lower weight and then to the
// lower VarID, so the order is deterministic. BestOrder is MinFill here:
// the choice among orders is the caller's (ve.plan).
//
// Before each elimination visit, if not nil, is called with the variable,
// its neighbours (the scope of the table its elimination makes) and that
// table's size; elimOrder stops and returns the order so far when visit
// returns false.
func elimOrder(h Heuristic, card []int, scopes [][]ir.VarID, visit func(v ir.VarID, nb []ir.VarID, size float64) bool, stages ...[]ir.VarID) []ir.VarID {
	return newOrderProblem(card, scopes, stages...).order(h, visit)
}

// orderProblem is the interaction graph of some scopes with the stages of
// an elimination, built once for any number of greedy orders.
type orderProblem struct {
	ids   []ir.VarID // local index i <-> VarID ids[i]
	local [][]int32  // the stages in local indices
	base  *elimGraph // before any elimination, with every counter (weighted fill)
}

// newOrderProblem numbers the variables of stages and scopes and builds
// their interaction graph.
func newOrderProblem(card []int, scopes [][]ir.VarID, stages ...[]ir.VarID) *orderProblem {
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
	return &orderProblem{ids: ids, local: local, base: newElimGraph(scoreWeightedFill, false, cards, tie, edges)}
}

// order runs one greedy elimination with h's score (see elimOrder) on a
// copy of the graph.
func (p *orderProblem) order(h Heuristic, visit func(v ir.VarID, nb []ir.VarID, size float64) bool) []ir.VarID {
	g := p.base.clone(h.scoreKind(), p.base.tie)
	order := make([]ir.VarID, 0, len(p.ids))
	var nbv []ir.VarID
	g.run(p.local, func(x int32, nb []int32) bool {
		if visit != nil {
			nbv = nbv[:0]
			for _, a := range nb {
				nbv = append(nbv, p.ids[a])
			}
			if !visit(p.ids[x], nbv, g.weight[x]) {
				return false
			}
		}
		order = append(order, p.ids[x])
		return true
	})
	return order
}
