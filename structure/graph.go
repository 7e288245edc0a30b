package structure

import (
	"slices"

	"github.com/pbl-lang/pbl/ir"
)

// DAG is a directed acyclic graph over named variables, indexed in the
// order of the data's columns. Parents[v] lists v's parents in ascending
// order.
type DAG struct {
	Names   []string
	Parents [][]int
}

// NewDAG returns the empty graph over the given variables.
func NewDAG(names []string) *DAG {
	return &DAG{Names: append([]string(nil), names...), Parents: make([][]int, len(names))}
}

// N returns the number of variables.
func (d *DAG) N() int { return len(d.Names) }

// Clone returns a deep copy of d.
func (d *DAG) Clone() *DAG {
	c := &DAG{Names: d.Names, Parents: make([][]int, len(d.Parents))}
	for v, ps := range d.Parents {
		c.Parents[v] = append([]int(nil), ps...)
	}
	return c
}

// Index returns the index of the named variable, or -1.
func (d *DAG) Index(name string) int {
	return slices.Index(d.Names, name)
}

// HasEdge reports whether from -> to is an edge.
func (d *DAG) HasEdge(from, to int) bool {
	_, ok := slices.BinarySearch(d.Parents[to], from)
	return ok
}

// Reaches reports whether there is a directed path from a to b (a path of
// length zero when a == b).
func (d *DAG) Reaches(a, b int) bool {
	if a == b {
		return true
	}
	// Search backwards from b through parents.
	seen := make([]bool, len(d.Names))
	stack := []int{b}
	seen[b] = true
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range d.Parents[v] {
			if p == a {
				return true
			}
			if !seen[p] {
				seen[p] = true
				stack = append(stack, p)
			}
		}
	}
	return false
}

// AddEdge adds from -> to. It refuses a self-loop, an edge already present
// and an edge that would close a cycle.
func (d *DAG) AddEdge(from, to int) error {
	n := len(d.Names)
	if from < 0 || from >= n || to < 0 || to >= n {
		return edgeErr(from, to, ErrNoSuchVariable, "edge %d -> %d: no such variable", from, to)
	}
	if from == to {
		return edgeErr(from, to, ErrSelfLoop, "edge %s -> %s: a self-loop", d.Names[from], d.Names[to])
	}
	if d.HasEdge(from, to) {
		return edgeErr(from, to, ErrDuplicateEdge, "edge %s -> %s: already present", d.Names[from], d.Names[to])
	}
	if d.Reaches(to, from) {
		return edgeErr(from, to, ErrCycle, "edge %s -> %s would close a cycle", d.Names[from], d.Names[to])
	}
	i, _ := slices.BinarySearch(d.Parents[to], from)
	d.Parents[to] = slices.Insert(d.Parents[to], i, from)
	return nil
}

// RemoveEdge removes from -> to and reports whether it was present.
func (d *DAG) RemoveEdge(from, to int) bool {
	i, ok := slices.BinarySearch(d.Parents[to], from)
	if ok {
		d.Parents[to] = slices.Delete(d.Parents[to], i, i+1)
	}
	return ok
}

// Edges returns the edges as (from, to) pairs, sorted.
func (d *DAG) Edges() [][2]int {
	var es [][2]int
	for to, ps := range d.Parents {
		for _, from := range ps {
			es = append(es, [2]int{from, to})
		}
	}
	slices.SortFunc(es, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	return es
}

// NumEdges returns the number of edges.
func (d *DAG) NumEdges() int {
	k := 0
	for _, ps := range d.Parents {
		k += len(ps)
	}
	return k
}

// Children returns each variable's children, ascending.
func (d *DAG) Children() [][]int {
	ch := make([][]int, len(d.Names))
	for to, ps := range d.Parents {
		for _, from := range ps {
			ch[from] = append(ch[from], to)
		}
	}
	for _, c := range ch {
		slices.Sort(c)
	}
	return ch
}

// Order returns a topological order of the variables (parents first; among
// the variables ready at once, the lowest index first).
func (d *DAG) Order() []int {
	n := len(d.Names)
	indeg := make([]int, n)
	for v, ps := range d.Parents {
		indeg[v] = len(ps)
	}
	ch := d.Children()
	var order []int
	done := make([]bool, n)
	for len(order) < n {
		progressed := false
		for v := 0; v < n; v++ {
			if !done[v] && indeg[v] == 0 {
				done[v] = true
				order = append(order, v)
				for _, c := range ch[v] {
					indeg[c]--
				}
				progressed = true
				break
			}
		}
		if !progressed {
			return nil // a cycle: not a DAG
		}
	}
	return order
}

// FromModel returns the graph of a Bayesian network's variables (in the
// model's order), without its numbers.
func FromModel(m *ir.Model) *DAG {
	d := NewDAG(m.Names())
	for v, ps := range m.Parents {
		for _, p := range ps {
			d.Parents[v] = append(d.Parents[v], int(p))
		}
		slices.Sort(d.Parents[v])
		d.Parents[v] = slices.Compact(d.Parents[v])
	}
	return d
}

// Model returns the graph as a model skeleton: one discrete variable per
// name with the given states (states[v] for variable v), its parents set
// and no distributions, ready for parameter learning ([ir.Model.Unlearned]).
// A variable whose states are exactly "true", "false" is declared Bool;
// one with nil states (a real-valued column of [Data]) is declared real.
func (d *DAG) Model(states [][]string) (*ir.Model, error) {
	if len(states) != len(d.Names) {
		return nil, errorf(ErrInvalidArgument, "structure: %d state lists for %d variables", len(states), len(d.Names))
	}
	b := ir.NewBuilder("")
	for v, name := range d.Names {
		if states[v] == nil {
			b.AddVar(ir.Pos{}, name, ir.Real, nil, 0)
			continue
		}
		kind := ir.Enum
		if len(states[v]) == 2 && states[v][0] == "true" && states[v][1] == "false" {
			kind = ir.Bool
		}
		b.AddVar(ir.Pos{}, name, kind, states[v], 0)
	}
	if len(b.Errs) > 0 {
		return nil, b.Errs
	}
	for v, ps := range d.Parents {
		ids := make([]ir.VarID, len(ps))
		for i, p := range ps {
			ids[i] = ir.VarID(p)
		}
		b.SetParents(ir.VarID(v), ids)
	}
	return b.Finish()
}
