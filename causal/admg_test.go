package causal

import (
	"errors"
	"slices"
	"testing"
)

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		dir   []Edge
		bi    []Edge
		kind  error
	}{
		{"cycle", []string{"A", "B", "C"}, []Edge{{"A", "B"}, {"B", "C"}, {"C", "A"}}, nil, ErrCycle},
		{"two-cycle", []string{"A", "B"}, []Edge{{"A", "B"}, {"B", "A"}}, nil, ErrCycle},
		{"unknown", []string{"A"}, []Edge{{"A", "B"}}, nil, ErrUnknownVariable},
		{"unknown-bi", []string{"A"}, nil, []Edge{{"Q", "A"}}, ErrUnknownVariable},
		{"dup", []string{"A", "A"}, nil, nil, ErrDuplicate},
		{"empty", []string{""}, nil, nil, ErrDuplicate},
		{"self", []string{"A"}, nil, []Edge{{"A", "A"}}, ErrSelfLoop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Build(tt.names, tt.dir, tt.bi)
			if !errors.Is(err, tt.kind) {
				t.Fatalf("got %v, want kind %v", err, tt.kind)
			}
		})
	}
	_, err := Build([]string{"A", "B", "C", "D"}, []Edge{{"A", "B"}, {"B", "C"}, {"C", "D"}, {"D", "B"}}, nil)
	var ce *CycleError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v, want a *CycleError", err)
	}
	got := slices.Clone(ce.Cycle)
	slices.Sort(got)
	if !slices.Equal(got, []string{"B", "C", "D"}) {
		t.Errorf("cycle %v, want B, C, D in some rotation", ce.Cycle)
	}
}

func TestProject(t *testing.T) {
	// U -> X, U -> L -> Y, X -> M -> Y, with L latent: X <-> Y, and
	// W -> L2 -> Z gives W -> Z.
	g, err := Project([]string{"X", "M", "Y", "W", "Z"}, []string{"U", "L", "L2"}, map[string][]string{
		"X": {"U"}, "L": {"U"}, "Y": {"L", "M"}, "M": {"X"}, "L2": {"W"}, "Z": {"L2"},
	})
	if err != nil {
		t.Fatal(err)
	}
	dir, bi := edges(g)
	wantDir := []string{"M->Y", "W->Z", "X->M"}
	wantBi := []string{"X<->Y"}
	if !slices.Equal(dir, wantDir) || !slices.Equal(bi, wantBi) {
		t.Errorf("projection: %v %v, want %v %v", dir, bi, wantDir, wantBi)
	}
}

// edges lists a graph's edges as sorted strings.
func edges(g *ADMG) (dir, bi []string) {
	for i := range g.Len() {
		for _, p := range g.Parents(i).members() {
			dir = append(dir, g.Name(p)+"->"+g.Name(i))
		}
		for _, s := range g.Siblings(i).members() {
			if s > i {
				bi = append(bi, g.Name(i)+"<->"+g.Name(s))
			}
		}
	}
	slices.Sort(dir)
	slices.Sort(bi)
	return dir, bi
}
