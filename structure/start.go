package structure

import (
	"context"
	"fmt"
	"math"
	"slices"
)

// Start is a graph hill climbing starts from.
type Start int

const (
	StartEmpty   Start = iota // the empty graph
	StartChowLiu              // the Chow–Liu tree (see [ChowLiu])
	StartPC                   // the DAGs chosen from the CPDAGs PC estimates at α = 0.01 with conditioning sets of at most 2 and of at most 3 variables (see [PC])
)

var startNames = []string{"empty", "chow-liu", "pc"}

func (s Start) String() string { return startNames[s] }

// DefaultStarts are the graphs [HillClimb] starts from when given none.
// Climbing from the empty graph often ends at a local maximum with
// v-structures formed the wrong way round (and extra edges making up for
// them); a start with the right skeleton and v-structures — PC's — avoids
// most of that, and the better of the two climbs is kept. On 5,000 to
// 50,000 rows of nine corpus networks the climb from the empty graph was
// never better than both of these, so it is left out by default.
var DefaultStarts = []Start{StartChowLiu, StartPC}

// StartNames returns the names ParseStart accepts.
func StartNames() []string { return slices.Clone(startNames) }

// ParseStart returns the start named name.
func ParseStart(name string) (Start, error) {
	for i, n := range startNames {
		if n == name {
			return Start(i), nil
		}
	}
	return 0, &UnknownNameError{What: "start", Name: name, Want: slices.Clone(startNames)}
}

// pcStartAlpha and pcStartLevels are the settings of the PC run that
// gives the start graphs: conditioning sets of up to 2 variables find
// nearly all of the skeleton at a small part of the cost of the full
// search (on 50,000 rows of hepar2, 1.7 s against 110 s), and the graph
// PC has after the tests with 3 variables is a second start, from one run.
// Neither start is always the better one: on 50,000 rows of dense random
// networks (100 variables, up to 4 parents) the climb from the level-2
// graph ended 0.14% below the true graph's score on one and the climb
// from the level-3 graph 0.24% below on another, each reaching the
// truth's score where the other did not.
const pcStartAlpha = 0.01

var pcStartLevels = []int{2, 3}

// startGraphs returns the start graphs of kind k, admitted (see [Admit]),
// without repeats.
func startGraphs(s *Scorer, k Start, opt Options) ([]*DAG, error) {
	d := s.D
	var cands []*DAG
	switch k {
	case StartEmpty:
		cands = []*DAG{NewDAG(d.Names)}
	case StartChowLiu:
		cands = []*DAG{ChowLiu(s, Options{Workers: opt.Workers}).DAG}
	case StartPC:
		if d.HasReal() {
			if !d.AllReal() {
				break // no test of mixed pairs: the other starts serve
			}
			corr, err := Correlation(d)
			if err != nil {
				return nil, err
			}
			cps, err := pcLevels(context.Background(), nil, nil, d.Names, PCOptions{Alpha: pcStartAlpha, Test: FisherZ, Corr: corr, Rows: d.N, MaxCond: pcStartLevels[len(pcStartLevels)-1], Workers: opt.Workers, Require: opt.Require, Forbid: opt.Forbid}, pcStartLevels)
			if err != nil {
				return nil, err
			}
			for _, cp := range cps[:len(pcStartLevels)] {
				cands = append(cands, cp.DAG())
			}
			break
		}
		maxCond := pcStartLevels[len(pcStartLevels)-1]
		cps, err := pcLevels(context.Background(), d.Cols, d.Card, d.Names, PCOptions{Alpha: pcStartAlpha, MaxCond: maxCond, Workers: opt.Workers, Require: opt.Require, Forbid: opt.Forbid}, pcStartLevels)
		if err != nil {
			return nil, err
		}
		for _, cp := range cps[:len(pcStartLevels)] {
			cands = append(cands, cp.DAG())
		}
	default:
		return nil, errorf(ErrInvalidArgument, "structure: unknown start %d", k)
	}
	var out []*DAG
	for _, cand := range cands {
		g, err := Admit(s, cand, opt)
		if err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(out, func(h *DAG) bool { return slices.Equal(h.Edges(), g.Edges()) }) {
			out = append(out, g)
		}
	}
	return out, nil
}

// Admit returns a graph that keeps to opt's constraints, built from
// cand: the required edges first, then cand's edges in order (by source,
// then target), each as it is if allowed, else the other way round if
// that is allowed, else left out; an edge is not allowed if forbidden or
// closing a cycle. A variable with more than MaxParents parents then
// loses, one at a time, the parent whose removal costs its family score
// least (required parents stay). It fails only if the required edges
// themselves close a cycle or exceed MaxParents.
func Admit(s *Scorer, cand *DAG, opt Options) (*DAG, error) {
	n := cand.N()
	con, err := newConstraints(n, &opt)
	if err != nil {
		return nil, err
	}
	g := NewDAG(cand.Names)
	for _, e := range opt.Require {
		if !g.HasEdge(e[0], e[1]) {
			if err := g.AddEdge(e[0], e[1]); err != nil {
				return nil, fmt.Errorf("required edges: %w", err)
			}
		}
	}
	for _, e := range cand.Edges() {
		a, b := e[0], e[1]
		if g.HasEdge(a, b) || g.HasEdge(b, a) {
			continue
		}
		if !con.forb[a*n+b] && g.AddEdge(a, b) == nil {
			continue
		}
		if !con.forb[b*n+a] {
			_ = g.AddEdge(b, a) // left out if it closes a cycle
		}
	}
	if opt.MaxParents > 0 {
		for v := range g.Parents {
			for len(g.Parents[v]) > opt.MaxParents {
				drop, cost := -1, math.Inf(1)
				full := s.Family(v, g.Parents[v])
				for k, p := range g.Parents[v] {
					if con.req[p*n+v] {
						continue
					}
					rest := slices.Delete(slices.Clone(g.Parents[v]), k, k+1)
					if c := full - s.Family(v, rest); c < cost {
						drop, cost = p, c
					}
				}
				if drop < 0 {
					return nil, &MaxParentsError{Var: g.Names[v], Parents: len(g.Parents[v]), Limit: opt.MaxParents, Required: true}
				}
				g.RemoveEdge(drop, v)
			}
		}
	}
	return g, nil
}
