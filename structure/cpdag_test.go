package structure

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// dagOf builds a DAG over the names from "a>b" edges.
func dagOf(t *testing.T, names []string, edges ...string) *DAG {
	t.Helper()
	d := NewDAG(names)
	for _, e := range edges {
		from, to := d.Index(e[:1]), d.Index(e[2:])
		if err := d.AddEdge(from, to); err != nil {
			t.Fatalf("%s: %v", e, err)
		}
	}
	return d
}

func TestCPDAGOfTextbookDAGs(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e"}
	tests := []struct {
		name       string
		edges      []string
		directed   [][2]int
		undirected [][2]int
	}{
		{"empty", nil, nil, nil},
		{"chain", []string{"a>b", "b>c"}, nil, [][2]int{{0, 1}, {1, 2}}},
		{"fork", []string{"b>a", "b>c"}, nil, [][2]int{{0, 1}, {1, 2}}},
		{"collider", []string{"a>c", "b>c"}, [][2]int{{0, 2}, {1, 2}}, nil},
		{"shielded collider", []string{"a>c", "b>c", "a>b"}, nil, [][2]int{{0, 1}, {0, 2}, {1, 2}}},
		// R1: the collider's child passes its direction on.
		{"collider then chain", []string{"a>c", "b>c", "c>d", "d>e"}, [][2]int{{0, 2}, {1, 2}, {2, 3}, {3, 4}}, nil},
		// R2: a -> c -> d with a -- d gives a -> d.
		{"R2", []string{"a>c", "b>c", "c>d", "a>d"}, [][2]int{{0, 2}, {0, 3}, {1, 2}, {2, 3}}, nil},
		// R3: b -- a -- d, b -> c <- d, a -- c: a -> c.
		{"R3", []string{"a>b", "a>d", "a>c", "b>c", "d>c"}, [][2]int{{0, 2}, {1, 2}, {3, 2}}, [][2]int{{0, 1}, {0, 3}}},
	}
	for _, tc := range tests {
		c := CPDAGOf(dagOf(t, names, tc.edges...))
		if got := c.Directed(); !slices.Equal(got, tc.directed) {
			t.Errorf("%s: directed %v, want %v", tc.name, got, tc.directed)
		}
		if got := c.Undirected(); !slices.Equal(got, tc.undirected) {
			t.Errorf("%s: undirected %v, want %v", tc.name, got, tc.undirected)
		}
		if got, want := c.NumEdges(), len(tc.edges); got != want {
			t.Errorf("%s: %d edges, want %d", tc.name, got, want)
		}
	}
}

// randomDAG returns a DAG over n variables with edges i -> j (i < j in a
// random order) of probability p.
func randomDAG(rng *rand.Rand, n int, p float64) *DAG {
	names := make([]string, n)
	for i := range names {
		names[i] = string(rune('A' + i))
	}
	d := NewDAG(names)
	order := rng.Perm(n)
	for i := range n {
		for j := i + 1; j < n; j++ {
			if rng.Float64() < p {
				d.AddEdge(order[i], order[j])
			}
		}
	}
	return d
}

// TestCPDAGExtension checks, on random DAGs, that the chosen DAG of a
// CPDAG is a consistent extension with the same CPDAG, and that the CPDAG
// of any DAG equivalent by a covered-edge reversal is the same.
func TestCPDAGExtension(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range 300 {
		d := randomDAG(rng, 2+rng.IntN(8), rng.Float64())
		c := CPDAGOf(d)
		ext, ok := c.Extension()
		if !ok {
			t.Fatalf("case %d: no consistent extension of\n%s", i, c)
		}
		if !sameCPDAG(CPDAGOf(ext), c) {
			t.Fatalf("case %d: the extension's CPDAG\n%sdiffers from\n%s", i, CPDAGOf(ext), c)
		}
		if !sameCPDAG(CPDAGOf(c.DAG()), c) {
			t.Fatalf("case %d: DAG() differs from Extension()", i)
		}
		// A covered edge a -> b (pa(b) = pa(a) ∪ {a}) reversed gives an
		// equivalent DAG (Chickering 1995), so the same CPDAG.
		for _, e := range d.Edges() {
			a, b := e[0], e[1]
			if !slices.Equal(d.Parents[b], slices.Sorted(slices.Values(append(slices.Clone(d.Parents[a]), a)))) {
				continue
			}
			r := d.Clone()
			r.RemoveEdge(a, b)
			if err := r.AddEdge(b, a); err != nil {
				t.Fatalf("case %d: reversing a covered edge: %v", i, err)
			}
			if !sameCPDAG(CPDAGOf(r), c) {
				t.Fatalf("case %d: reversing the covered edge %v changed the CPDAG", i, e)
			}
			if c.IsDirected(a, b) {
				t.Fatalf("case %d: the covered edge %v is directed in the CPDAG", i, e)
			}
		}
	}
}

// TestCPDAGExtensionInconsistent checks that a PDAG with no consistent
// extension still gives a DAG with every adjacency.
func TestCPDAGExtensionInconsistent(t *testing.T) {
	c := NewCPDAG([]string{"a", "b", "c", "d"})
	// A directed cycle a -> b -> c -> a, and an undirected square edge.
	c.SetDirected(0, 1)
	c.SetDirected(1, 2)
	c.SetDirected(2, 0)
	c.SetUndirected(2, 3)
	d, ok := c.Extension()
	if ok {
		t.Errorf("a cycle reported consistent")
	}
	if d.NumEdges() != 4 || d.Order() == nil {
		t.Errorf("got %v edges %v, want 4 edges and no cycle", d.NumEdges(), d.Edges())
	}
}

func ExampleCPDAGOf() {
	// The collider a -> c <- b, then c -> d: every edge is compelled.
	d := NewDAG([]string{"a", "b", "c", "d"})
	d.AddEdge(0, 2)
	d.AddEdge(1, 2)
	d.AddEdge(2, 3)
	fmt.Print(CPDAGOf(d))
	// The chain a -> b -> c: no edge is.
	chain := NewDAG([]string{"a", "b", "c"})
	chain.AddEdge(0, 1)
	chain.AddEdge(1, 2)
	fmt.Print(CPDAGOf(chain))
	// Output:
	// a -> c
	// b -> c
	// c -> d
	// a -- b
	// b -- c
}
