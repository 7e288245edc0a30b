package hypothesis

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// conceptModel builds a model of discrete variables and a concept space
// over them: attrs, then the target whose state positive a satisfied
// conjunction predicts.
func conceptModel(t testing.TB, vars [][]string, names []string, positive int) (*ir.Model, *ir.Space) {
	t.Helper()
	b := ir.NewBuilder("t.pbl")
	var ids []ir.VarID
	for i, st := range vars {
		id, ok := b.AddVar(ir.Pos{File: "t.pbl", Line: i + 1, Col: 1}, names[i], ir.Enum, st, 0)
		if !ok {
			t.Fatalf("AddVar %s", names[i])
		}
		ids = append(ids, id)
	}
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	s := &ir.Space{Pos: ir.Pos{File: "t.pbl", Line: 10, Col: 1}, Name: "H",
		Concept: &ir.Concept{Pos: ir.Pos{File: "t.pbl", Line: 11, Col: 3}, Attrs: ids[:len(ids)-1], Target: ids[len(ids)-1], Positive: positive}}
	return m, s
}

// enjoySport is Mitchell's Table 2.1.
func enjoySport(t testing.TB) (*ir.Model, *ir.Space, []string, [][]string) {
	m, s := conceptModel(t, [][]string{
		{"Sunny", "Cloudy", "Rainy"}, {"Warm", "Cold"}, {"Normal", "High"},
		{"Strong", "Weak"}, {"Warm", "Cool"}, {"Same", "Change"}, {"Yes", "No"},
	}, []string{"Sky", "AirTemp", "Humidity", "Wind", "Water", "Forecast", "EnjoySport"}, 0)
	header := []string{"Sky", "AirTemp", "Humidity", "Wind", "Water", "Forecast", "EnjoySport"}
	rows := [][]string{
		{"Sunny", "Warm", "Normal", "Strong", "Warm", "Same", "Yes"},
		{"Sunny", "Warm", "High", "Strong", "Warm", "Same", "Yes"},
		{"Rainy", "Cold", "High", "Strong", "Warm", "Change", "No"},
		{"Sunny", "Warm", "High", "Strong", "Cool", "Change", "Yes"},
	}
	return m, s, header, rows
}

func versionSpace(t *testing.T, m *ir.Model, s *ir.Space, header []string, rows [][]string) *VersionSpace {
	t.Helper()
	d, err := NewData(s, m, header, rows, nil)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := EvaluateConcept(context.Background(), s, m, d)
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

func format(vs *VersionSpace, hs []Conjunction) []string {
	var out []string
	for _, h := range hs {
		out = append(out, vs.Format(h))
	}
	return out
}

// bruteVersionSpace is the reference: every one of the Total hypotheses
// (the empty one, then each combination of a state or ? per attribute)
// tested against every example.
func bruteVersionSpace(vs *VersionSpace, d *Data) []string {
	na := len(vs.Attrs)
	consistent := func(h Conjunction) bool {
		for i := range d.Len() {
			x := make([]int, na)
			for k := range x {
				x[k] = int(d.Cols[k][i])
			}
			if h.Covers(x) != (int(d.Cols[na][i]) == vs.Positive) {
				return false
			}
		}
		return true
	}
	var out []string
	empty := make(Conjunction, na)
	for k := range empty {
		empty[k] = Empty
	}
	if consistent(empty) {
		out = append(out, vs.Format(empty))
	}
	var rec func(h Conjunction, k int)
	rec = func(h Conjunction, k int) {
		if k == na {
			if consistent(h) {
				out = append(out, vs.Format(h))
			}
			return
		}
		for st := range vs.Attrs[k].States {
			rec(append(h, st), k+1)
		}
		rec(append(h, Any), k+1)
	}
	rec(nil, 0)
	return out
}

func TestEnjoySport(t *testing.T) {
	m, s, header, rows := enjoySport(t)
	vs := versionSpace(t, m, s, header, rows)
	if vs.Total != 973 {
		t.Errorf("Total = %d, want 973", vs.Total)
	}
	wantVS := []string{
		"⟨Sunny, Warm, ?, Strong, ?, ?⟩",
		"⟨Sunny, Warm, ?, ?, ?, ?⟩",
		"⟨Sunny, ?, ?, Strong, ?, ?⟩",
		"⟨Sunny, ?, ?, ?, ?, ?⟩",
		"⟨?, Warm, ?, Strong, ?, ?⟩",
		"⟨?, Warm, ?, ?, ?, ?⟩",
	}
	if got := format(vs, vs.Members); !slices.Equal(got, wantVS) {
		t.Errorf("VS = %q\nwant %q", got, wantVS)
	}
	if got, want := format(vs, vs.S), []string{"⟨Sunny, Warm, ?, Strong, ?, ?⟩"}; !slices.Equal(got, want) {
		t.Errorf("S = %q, want %q", got, want)
	}
	if got, want := format(vs, vs.G), []string{"⟨Sunny, ?, ?, ?, ?, ?⟩", "⟨?, Warm, ?, ?, ?, ?⟩"}; !slices.Equal(got, want) {
		t.Errorf("G = %q, want %q", got, want)
	}
	d, _ := NewData(s, m, header, rows, nil)
	if got, want := format(vs, vs.Members), bruteVersionSpace(vs, d); !slices.Equal(got, want) {
		t.Errorf("VS = %q, brute force %q", got, want)
	}
	if got, want := vs.LogPosterior(), -1.791759469228055; !near(got, want, 1e-15) { // ln 1/6
		t.Errorf("LogPosterior = %g, want %g", got, want)
	}
	// Mitchell's new instances (§2.6.3 and §6.7): A is classified
	// positive by all six members, B by none, C by half.
	for _, tc := range []struct {
		x    []string
		want float64
	}{
		{[]string{"Sunny", "Warm", "Normal", "Strong", "Cool", "Change"}, 1},
		{[]string{"Rainy", "Cold", "Normal", "Weak", "Warm", "Same"}, 0},
		{[]string{"Sunny", "Warm", "Normal", "Weak", "Warm", "Same"}, 0.5},
		{[]string{"Sunny", "Cold", "Normal", "Strong", "Warm", "Same"}, 2.0 / 6},
	} {
		x := make([]int, len(tc.x))
		for k, st := range tc.x {
			x[k] = slices.Index(vs.Attrs[k].States, st)
		}
		if got := vs.Predict(x); !near(got, tc.want, 1e-15) {
			t.Errorf("Predict(%v) = %g, want %g", tc.x, got, tc.want)
		}
	}
	// Gibbs draws each member about equally often.
	r := rand.New(rand.NewPCG(1, 1))
	counts := map[string]int{}
	for range 6000 {
		counts[vs.Format(vs.Gibbs(r))]++
	}
	for _, h := range wantVS {
		if c := counts[h]; c < 850 || c > 1150 {
			t.Errorf("Gibbs drew %s %d times of 6000", h, c)
		}
	}
}

// TestConceptHandChecked: two binary attributes A, B; target T. Checked by
// hand: the 1 + 3·3 = 10 hypotheses are ∅, ⟨a0,b0⟩, ⟨a0,b1⟩, ⟨a0,?⟩,
// ⟨a1,b0⟩, ⟨a1,b1⟩, ⟨a1,?⟩, ⟨?,b0⟩, ⟨?,b1⟩, ⟨?,?⟩.
func TestConceptHandChecked(t *testing.T) {
	m, s := conceptModel(t, [][]string{{"a0", "a1"}, {"b0", "b1"}, {"yes", "no"}}, []string{"A", "B", "T"}, 0)
	header := []string{"T", "B", "A", "Ignored"} // another order, an extra column
	for _, tc := range []struct {
		name    string
		rows    [][]string
		vs      []string
		s, g    []string
		wantErr error
	}{{
		// ⟨a0,b0⟩ positive, ⟨a1,b0⟩ negative: VS {⟨a0,b0⟩, ⟨a0,?⟩}.
		name: "one positive one negative",
		rows: [][]string{{"yes", "b0", "a0", "x"}, {"no", "b0", "a1", "x"}},
		vs:   []string{"⟨a0, b0⟩", "⟨a0, ?⟩"},
		s:    []string{"⟨a0, b0⟩"}, g: []string{"⟨a0, ?⟩"},
	}, {
		// Negatives only, ⟨a0,b0⟩: every hypothesis not covering it: ∅,
		// ⟨a0,b1⟩, ⟨a1,b0⟩, ⟨a1,b1⟩, ⟨a1,?⟩, ⟨?,b1⟩.
		name: "negatives only",
		rows: [][]string{{"no", "b0", "a0", "x"}},
		vs:   []string{"⟨∅, ∅⟩", "⟨a0, b1⟩", "⟨a1, b0⟩", "⟨a1, b1⟩", "⟨a1, ?⟩", "⟨?, b1⟩"},
		s:    []string{"⟨∅, ∅⟩"}, g: []string{"⟨a1, ?⟩", "⟨?, b1⟩"},
	}, {
		// Positives ⟨a0,b0⟩ and ⟨a1,b1⟩: only ⟨?,?⟩ covers both.
		name: "positives only",
		rows: [][]string{{"yes", "b0", "a0", "x"}, {"yes", "b1", "a1", "x"}},
		vs:   []string{"⟨?, ?⟩"}, s: []string{"⟨?, ?⟩"}, g: []string{"⟨?, ?⟩"},
	}, {
		// No data: all 10.
		name: "no data",
		vs:   []string{"⟨∅, ∅⟩", "⟨a0, b0⟩", "⟨a0, b1⟩", "⟨a0, ?⟩", "⟨a1, b0⟩", "⟨a1, b1⟩", "⟨a1, ?⟩", "⟨?, b0⟩", "⟨?, b1⟩", "⟨?, ?⟩"},
		s:    []string{"⟨∅, ∅⟩"}, g: []string{"⟨?, ?⟩"},
	}, {
		// XOR is not a conjunction.
		name:    "empty version space",
		rows:    [][]string{{"yes", "b0", "a0", "x"}, {"yes", "b1", "a1", "x"}, {"no", "b1", "a0", "x"}},
		wantErr: ErrImpossible,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := NewData(s, m, header, tc.rows, nil)
			if err != nil {
				t.Fatal(err)
			}
			vs, err := EvaluateConcept(context.Background(), s, m, d)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if vs.Total != 10 {
				t.Errorf("Total = %d", vs.Total)
			}
			if got := format(vs, vs.Members); !slices.Equal(got, tc.vs) {
				t.Errorf("VS = %q, want %q", got, tc.vs)
			}
			if got := format(vs, vs.Members); !slices.Equal(got, bruteVersionSpace(vs, d)) {
				t.Errorf("VS = %q, brute force %q", got, bruteVersionSpace(vs, d))
			}
			if got := format(vs, vs.S); !slices.Equal(got, tc.s) {
				t.Errorf("S = %q, want %q", got, tc.s)
			}
			if got := format(vs, vs.G); !slices.Equal(got, tc.g) {
				t.Errorf("G = %q, want %q", got, tc.g)
			}
			// Every member lies between S and G.
			for _, h := range vs.Members {
				okS := slices.ContainsFunc(vs.S, func(s Conjunction) bool { return MoreGeneralOrEqual(h, s) })
				okG := slices.ContainsFunc(vs.G, func(g Conjunction) bool { return MoreGeneralOrEqual(g, h) })
				if !okS || !okG {
					t.Errorf("%s is not between S and G", vs.Format(h))
				}
			}
		})
	}
}
