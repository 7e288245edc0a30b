package serve

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// repoRoot returns the repository's root directory.
func repoRoot(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

func openSession(t testing.TB, path string) *Session {
	t.Helper()
	s, err := NewSession(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	g, err := s.Open(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !g.Loaded {
		t.Fatalf("%s did not load: %v", path, g.Diagnostics)
	}
	return s
}

// TestUpdateMatchesQuery checks every belief and P(e) against the answer
// of the query line's text, read back by pbl.ParseQuery and answered by
// brute-force enumeration (engine enum), an engine other than the one
// Update's Auto chooses.
func TestUpdateMatchesQuery(t *testing.T) {
	asia := filepath.Join(repoRoot(t), "examples", "asia.pbl")
	s := openSession(t, asia)
	m, _, _ := s.current()
	for _, ev := range [][]Finding{
		nil,
		{{Var: "asia", State: "yes"}},
		{{Var: "xray", State: "yes"}, {Var: "smoke", State: "no"}},
		{{Var: "dysp", State: "yes"}, {Var: "lung", State: "yes", Do: true}},
	} {
		b, err := s.Update(context.Background(), ev)
		if err != nil || b.Error != "" {
			t.Fatalf("%v: %v %s", ev, err, b.Error)
		}
		q, err := pbl.ParseQuery(m, b.Query)
		if err != nil {
			t.Fatalf("%s: %v", b.Query, err)
		}
		a, err := pbl.AnswerQuery(m, q, pbl.AnswerOptions{Infer: infer.Options{Engine: "enum"}})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][]float64{}
		for _, mg := range a.Marginals() {
			want[mg.Var] = mg.P
		}
		for _, bl := range b.Beliefs {
			w, ok := want[bl.Var]
			if bl.Observed != "" {
				continue // observed: one-hot, not in P(*)'s answer
			}
			if !ok || len(w) != len(bl.P) {
				t.Fatalf("%s: %s has %v, want %v", b.Query, bl.Var, bl.P, w)
			}
			for i := range w {
				if !(abs(w[i]-bl.P[i]) <= 1e-12) {
					t.Errorf("%s: P(%s=%d) = %v, want %v", b.Query, bl.Var, i, bl.P[i], w[i])
				}
			}
		}
		if len(ev) > 0 {
			q, err := pbl.ParseQuery(m, peText(b.Query))
			if err != nil {
				t.Fatalf("%s: %v", peText(b.Query), err)
			}
			a, err := pbl.AnswerQuery(m, q, pbl.AnswerOptions{Infer: infer.Options{Engine: "enum"}})
			if err != nil {
				t.Fatal(err)
			}
			if pe := a.Infer.(*infer.Evidence).P; !(abs(pe-b.PE) <= 1e-12) {
				t.Errorf("%s: P(e) = %v, want %v", b.Query, b.PE, pe)
			}
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestOpenKeepsEvidence edits the source: the findings whose variable
// and state remain are kept; a source with an error keeps the last model
// and lists the language server's diagnostic.
func TestOpenKeepsEvidence(t *testing.T) {
	asia := filepath.Join(repoRoot(t), "examples", "asia.pbl")
	s := openSession(t, asia)
	src := strings.Replace(s.Source(), "var asia, tub,", "var asia, tb,", 1)
	src = strings.ReplaceAll(src, "tub", "tb")
	keep := []Finding{{Var: "tub", State: "yes"}, {Var: "smoke", State: "no"}, {Var: "xray", State: "maybe"}}
	g, err := s.Open(context.Background(), &src, keep)
	if err != nil || !g.Loaded {
		t.Fatalf("%v %v", err, g.Diagnostics)
	}
	if len(g.Evidence) != 1 || g.Evidence[0].Var != keep[1].Var || g.Evidence[0].State != keep[1].State {
		t.Errorf("kept %v, want %v", g.Evidence, keep[1:2])
	}
	bad := src + "\nP(nosuch) = [0.5, 0.5]\n"
	g, err = s.Open(context.Background(), &bad, keep)
	if err != nil {
		t.Fatal(err)
	}
	if g.Loaded || len(g.Diagnostics) == 0 || len(g.Nodes) != 8 {
		t.Fatalf("loaded %v, diagnostics %v, %d nodes", g.Loaded, g.Diagnostics, len(g.Nodes))
	}
	lines := strings.Count(src, "\n") + 2
	if d := g.Diagnostics[0]; d.Line != lines || d.Col != 3 {
		t.Errorf("diagnostic at %d:%d (%s), want %d:3", d.Line, d.Col, d.Message, lines)
	}
}

// TestDensityCurve checks a real variable's curve, given evidence,
// against the density of the mixture computed here from the model's
// numbers: P(Normal | e) from the engine's marginal, and the normal
// densities of the model's Gaussians, by the textbook formula.
func TestDensityCurve(t *testing.T) {
	s := openSession(t, filepath.Join(repoRoot(t), "examples", "two_means.pbl"))
	m, _, _ := s.current()
	b, err := s.Update(context.Background(), nil)
	if err != nil || b.Error != "" {
		t.Fatal(err, b.Error)
	}
	n := 0
	for _, bl := range b.Beliefs {
		v, _ := m.Lookup(bl.Var)
		if v.Discrete() {
			continue
		}
		g, ok := m.Dists[v.ID].(*ir.Gaussian)
		if !ok || len(g.Parents) != 1 {
			continue
		}
		if len(bl.X) != densityPoints || len(bl.Density) != densityPoints {
			t.Fatalf("%s: %d points, want %d", bl.Var, len(bl.X), densityPoints)
		}
		var prior []float64
		for _, ob := range b.Beliefs {
			if ob.Var == m.Vars[g.Parents[0]].Name {
				prior = ob.P
			}
		}
		for i, x := range bl.X {
			want := 0.0
			for u, p := range prior {
				z := (x - g.Mean[u]) / g.SD[u]
				want += p * math.Exp(-z*z/2) / (g.SD[u] * math.Sqrt(2*math.Pi))
			}
			if !(abs(bl.Density[i]-want) <= 1e-12*math.Max(1, want)) {
				t.Errorf("%s: density at %v = %v, want %v", bl.Var, x, bl.Density[i], want)
			}
		}
		n++
	}
	if n == 0 {
		t.Fatal("two_means.pbl has no real variable with a Gaussian of one parent")
	}
}

func mustQuery(t *testing.T, m *ir.Model, text string) ir.Query {
	t.Helper()
	q, err := pbl.ParseQuery(m, text)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return q
}

// TestLikelihoodFinding: a likelihood finding's query line reads back to
// the same numbers (by enumeration), and bad likelihoods are refused.
func TestLikelihoodFinding(t *testing.T) {
	s := openSession(t, filepath.Join(repoRoot(t), "examples", "asia.pbl"))
	m, _, _ := s.current()
	for _, tc := range []struct {
		ev   []Finding
		line string
	}{
		{[]Finding{{Var: "xray", Likelihood: []float64{0.8, 0.2}}, {Var: "smoke", State: "yes"}}, "P(* | xray~[0.8, 0.2], smoke=yes)"},
		{[]Finding{{Var: "either", Likelihood: []float64{1, 0.25}}}, "P(* | either~[1, 0.25])"},
	} {
		b, err := s.Update(context.Background(), tc.ev)
		if err != nil || b.Error != "" {
			t.Fatal(err, b.Error)
		}
		if b.Query != tc.line {
			t.Errorf("query line %q, want %q", b.Query, tc.line)
		}
		a, err := pbl.AnswerQuery(m, mustQuery(t, m, b.Query), pbl.AnswerOptions{Infer: infer.Options{Engine: "enum"}})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][]float64{}
		for _, mg := range a.Marginals() {
			want[mg.Var] = mg.P
		}
		for _, bl := range b.Beliefs {
			if bl.Observed != "" {
				continue
			}
			w := want[bl.Var]
			if len(w) != len(bl.P) || len(w) == 0 {
				t.Fatalf("%s: %s: %v, want %v", b.Query, bl.Var, bl.P, w)
			}
			for i := range w {
				if !(abs(w[i]-bl.P[i]) <= 1e-12) {
					t.Errorf("%s: P(%s=%d) = %v, want %v", b.Query, bl.Var, i, bl.P[i], w[i])
				}
			}
		}
		pe, err := pbl.AnswerQuery(m, mustQuery(t, m, peText(b.Query)), pbl.AnswerOptions{Infer: infer.Options{Engine: "enum"}})
		if err != nil {
			t.Fatal(err)
		}
		if p := pe.Infer.(*infer.Evidence).P; !(abs(p-b.PE) <= 1e-12) {
			t.Errorf("%s: P(e) = %v, want %v", b.Query, b.PE, p)
		}
	}
	for _, bad := range [][]float64{{1}, {0, 0}, {-1, 1}, {4, 1}, {math.Inf(1), 1}, {math.NaN(), 1}} {
		if _, err := s.Update(context.Background(), []Finding{{Var: "xray", Likelihood: bad}}); err == nil {
			t.Errorf("likelihoods %v accepted", bad)
		}
	}
}

// TestUpdateCancelled: an answer whose request has gone (the page moved
// on) stops with the context's error rather than answering.
func TestUpdateCancelled(t *testing.T) {
	s := openSession(t, filepath.Join(repoRoot(t), "examples", "asia.pbl"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, ev := range [][]Finding{nil, {{Var: "asia", State: "yes"}}} {
		if b, err := s.Update(ctx, ev); !errors.Is(err, context.Canceled) {
			t.Errorf("evidence %v: Update of a cancelled request gave %+v, %v", ev, b, err)
		}
	}
	if mp, err := s.MPE(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("MPE of a cancelled request gave %+v, %v", mp, err)
	}
}
