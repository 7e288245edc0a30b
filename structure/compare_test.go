package structure

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestCompareByHand(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e"}
	tests := []struct {
		name                     string
		a, b                     []string // edges of the two DAGs
		shd                      int
		missing, extra, reversed [][2]int
	}{
		{"same", []string{"a>b", "b>c"}, []string{"a>b", "b>c"}, 0, nil, nil, nil},
		// Equivalent DAGs: the same CPDAG.
		{"equivalent", []string{"a>b", "b>c"}, []string{"c>b", "b>a"}, 0, nil, nil, nil},
		{"missing", []string{"a>b", "b>c"}, []string{"a>b"}, 1, [][2]int{{1, 2}}, nil, nil},
		{"extra", []string{"a>b"}, []string{"a>b", "d>e"}, 1, nil, [][2]int{{3, 4}}, nil},
		// A chain against a collider: both edges are marked differently
		// (undirected in a, directed in b).
		{"chain vs collider", []string{"a>b", "b>c"}, []string{"a>b", "c>b"}, 2, nil, nil, [][2]int{{0, 1}, {1, 2}}},
		// a -> c <- b against c -> a <- d, b -- c: a -- c is reversed,
		// b -> c is undirected in b, and d -> a is extra.
		{"reversed collider", []string{"a>c", "b>c"}, []string{"c>a", "d>a", "b>c"}, 3, nil, [][2]int{{3, 0}}, [][2]int{{0, 2}, {1, 2}}},
		{"everything", []string{"a>c", "b>c", "c>d"}, []string{"a>b", "b>c"}, 4,
			[][2]int{{0, 2}, {2, 3}}, [][2]int{{0, 1}}, [][2]int{{1, 2}}},
	}
	for _, tc := range tests {
		a := CPDAGOf(dagOf(t, names, tc.a...))
		b := CPDAGOf(dagOf(t, names, tc.b...))
		d := Compare(a, b)
		if d.SHD != tc.shd {
			t.Errorf("%s: SHD %d, want %d", tc.name, d.SHD, tc.shd)
		}
		for _, c := range []struct {
			what      string
			got, want [][2]int
		}{{"missing", d.Missing, tc.missing}, {"extra", d.Extra, tc.extra}, {"reversed", d.Reversed, tc.reversed}} {
			if !slices.Equal(c.got, c.want) {
				t.Errorf("%s: %s %v, want %v", tc.name, c.what, c.got, c.want)
			}
		}
		if back := Compare(b, a); back.SHD != d.SHD || len(back.Missing) != len(d.Extra) {
			t.Errorf("%s: not symmetric: %+v and %+v", tc.name, d, back)
		}
	}
}

func TestReindex(t *testing.T) {
	d := dagOf(t, []string{"a", "b", "c"}, "a>b", "c>b")
	r, err := Reindex(d, []string{"c", "b", "a"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Edges(), [][2]int{{0, 1}, {2, 1}}; !slices.Equal(got, want) {
		t.Errorf("edges %v, want %v", got, want)
	}
	for _, names := range [][]string{{"a", "b"}, {"a", "b", "x"}, {"a", "b", "c", "d"}, {"a", "a", "b"}} {
		if _, err := Reindex(d, names); err == nil {
			t.Errorf("%v: no error", names)
		}
	}
}

func TestCompareDOT(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e"}
	truth := dagOf(t, names, "a b", "c b", "c d", "d e")   // a -> b <- c, c -- d -- e
	learned := dagOf(t, names, "a b", "b c", "a d", "d e") // a -- b -- c, a -- d -- e
	ca, cb := CPDAGOf(truth), CPDAGOf(learned)
	got := DOT(ca, cb, Compare(ca, cb), "t")
	want := `digraph {
  label="t";
  labelloc=t;
  node [shape=ellipse];
  "a";
  "b";
  "c";
  "d";
  "e";
  "a" -> "b" [color=blue, fontcolor=blue, label="was a -> b", dir=none];
  "a" -> "d" [color=red, dir=none];
  "b" -> "c" [color=blue, fontcolor=blue, label="was c -> b", dir=none];
  "c" -> "d" [color=gray50, style=dashed, dir=none];
  "d" -> "e" [dir=none];
}
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestCompareSkeleton(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e"}
	// a -> c <- b, c -> d against a -> b -> c: only b -- c in common.
	a := CPDAGOf(dagOf(t, names, "a>c", "b>c", "c>d"))
	b := CPDAGOf(dagOf(t, names, "a>b", "b>c"))
	p, r, f1 := Compare(a, b).Skeleton()
	if !(math.Abs(p-0.5) < 1e-12 && math.Abs(r-1.0/3) < 1e-12 && math.Abs(f1-0.4) < 1e-12) {
		t.Errorf("precision %v recall %v F1 %v, want 0.5, 1/3, 0.4", p, r, f1)
	}
	empty := CPDAGOf(NewDAG(names))
	if p, r, f1 := Compare(empty, empty).Skeleton(); p != 1 || r != 1 || f1 != 1 {
		t.Errorf("empty against empty: %v %v %v, want 1 1 1", p, r, f1)
	}
	if _, _, f1 := Compare(a, empty).Skeleton(); f1 != 0 {
		t.Errorf("against no edges: F1 %v, want 0", f1)
	}
	// Random pairs against the direct count of search_test.go.
	rng := rand.New(rand.NewPCG(4, 4))
	for range 50 {
		x, y := randomDAG(rng, 8, 0.3), randomDAG(rng, 8, 0.3)
		if x.NumEdges() == 0 || y.NumEdges() == 0 {
			continue
		}
		_, _, got := Compare(CPDAGOf(x), CPDAGOf(y)).Skeleton()
		if want := skeletonF1(x, y); !(math.Abs(got-want) < 1e-12) {
			t.Errorf("F1 %v, want %v", got, want)
		}
	}
}
