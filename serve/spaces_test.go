package serve

import (
	"context"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSpaceCoin checks a grid space's box against the posterior by hand:
// a coin's bias p on 0, 0.05, …, 1 with a uniform prior and the tosses
// 1, 1, 0, 1 has P(p | D) ∝ p^3 (1 − p). The box lists the top spaceTop,
// counts the rest (19 − 10) with their mass, and marks p = 0.75 as MAP.
func TestSpaceCoin(t *testing.T) {
	s := openSession(t, filepath.Join(repoRoot(t), "serve", "testdata", "coin.pbl"))
	g, err := s.Open(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Spaces) != 1 {
		t.Fatalf("%d space boxes, want 1: %+v", len(g.Spaces), g.Spaces)
	}
	b := g.Spaces[0]
	if b.Name != "H" || b.Data != "D" || b.Kind != "grid" || b.Error != "" {
		t.Fatalf("the box is %+v", b)
	}
	// The posterior by hand, keyed by the label "p=…".
	want := map[string]float64{}
	z := 0.0
	for i := 0; i <= 20; i++ {
		p, _ := strconv.ParseFloat(strconv.FormatFloat(float64(i)*0.05, 'f', 2, 64), 64)
		w := p * p * p * (1 - p)
		z += w
		want["p="+strconv.FormatFloat(p, 'g', -1, 64)] = w
	}
	for k := range want {
		want[k] /= z
	}
	if b.Total != 21 || b.Support != 19 || len(b.Hyps) != spaceTop || b.Rest != 19-spaceTop {
		t.Errorf("total %d, support %d, %d listed, rest %d; want 21, 19, %d, %d", b.Total, b.Support, len(b.Hyps), b.Rest, spaceTop, 19-spaceTop)
	}
	listed := 0.0
	prev := math.Inf(1)
	for _, h := range b.Hyps {
		w, ok := want[h.Label]
		if !ok {
			t.Fatalf("a hypothesis %q", h.Label)
		}
		if !(math.Abs(h.P-w) <= 1e-12) {
			t.Errorf("P(%s | D) = %v, by hand %v", h.Label, h.P, w)
		}
		if !(h.P <= prev) {
			t.Errorf("%s is listed after a less probable hypothesis", h.Label)
		}
		prev = h.P
		listed += w
	}
	if !(math.Abs(b.RestP-(1-listed)) <= 1e-12) {
		t.Errorf("the rest's mass is %v, by hand %v", b.RestP, 1-listed)
	}
	if b.MAP != "p=0.75" || b.Hyps[0].Label != "p=0.75" {
		t.Errorf("MAP %q, first %q: want p=0.75", b.MAP, b.Hyps[0].Label)
	}
}

// TestSpaceKinds: a concept space (EnjoySport's version space, six
// hypotheses of 1/6, MAP its most specific member), a variable's states
// as hypotheses (the cancer test: 0.2085 / 0.7915 by hand from
// Mitchell's numbers), and a space with continuous parameters (its ML
// fit, no posterior).
func TestSpaceKinds(t *testing.T) {
	open := func(name string) *Graph {
		s := openSession(t, filepath.Join(repoRoot(t), "examples", name))
		g, err := s.Open(context.Background(), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	g := open("enjoysport.pbl")
	if len(g.Spaces) != 1 || g.Spaces[0].Kind != "concept" || g.Spaces[0].Support != 6 || g.Spaces[0].Total != 973 || len(g.Spaces[0].Hyps) != 6 {
		t.Fatalf("enjoysport: %+v", g.Spaces)
	}
	for _, h := range g.Spaces[0].Hyps {
		if !(math.Abs(h.P-1.0/6) <= 1e-12) {
			t.Errorf("enjoysport: P(%s | D) = %v, want 1/6", h.Label, h.P)
		}
	}
	if m := g.Spaces[0].MAP; m != "<sunny, warm, ?, strong, ?, ?>" {
		t.Errorf("enjoysport: MAP %q, want S = <sunny, warm, ?, strong, ?, ?>", m)
	}

	g = open("cancer_map.pbl")
	if len(g.Spaces) != 1 || g.Spaces[0].Kind != "states" || len(g.Spaces[0].Hyps) != 2 {
		t.Fatalf("cancer_map: %+v", g.Spaces)
	}
	// Mitchell §6.2.1: P(+|cancer)P(cancer) = 0.98·0.008, P(+|¬cancer)P(¬cancer) = 0.03·0.992.
	pc := 0.98 * 0.008 / (0.98*0.008 + 0.03*0.992)
	byLabel := map[string]float64{}
	for _, h := range g.Spaces[0].Hyps {
		byLabel[h.Label] = h.P
	}
	if !(math.Abs(byLabel["cancer"]-pc) <= 1e-12) || !(math.Abs(byLabel["no_cancer"]-(1-pc)) <= 1e-12) || g.Spaces[0].MAP != "no_cancer" {
		t.Errorf("cancer_map: %+v, want P(cancer | D) = %v, MAP no_cancer", g.Spaces[0], pc)
	}

	g = open("line_fit.pbl")
	var fit *SpaceBox
	for i := range g.Spaces {
		if g.Spaces[i].Kind == "fit" {
			fit = &g.Spaces[i]
		}
	}
	if fit == nil || fit.Name != "L" || len(fit.Hyps) != 1 || fit.Query != "ML(L | D)" {
		t.Fatalf("line_fit: %+v", g.Spaces)
	}
}

// TestSpaceErrors: a space without a data set, or whose data lacks the
// column it observes, is a box that says so and lists nothing; a concept
// of one attribute is still written <…>.
func TestSpaceErrors(t *testing.T) {
	space := "space H {\n    p in {0.25, 0.75}\n    heads ~ bernoulli(p)\n}\n"
	for _, c := range []struct{ name, src, want string }{
		{"no data", space, "no data set"},
		{"no column", space + "data D = {\n    tails\n    1\n}\nquery P(H | D)\n", "heads"},
	} {
		s, err := NewSessionSource(filepath.Join(t.TempDir(), "m.pbl"), c.src)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		g, err := s.Open(context.Background(), nil, nil)
		if err != nil || !g.Loaded {
			t.Fatal(c.name, err, g.Diagnostics)
		}
		if len(g.Spaces) != 1 || !strings.Contains(g.Spaces[0].Error, c.want) || len(g.Spaces[0].Hyps) != 0 {
			t.Errorf("%s: the box is %+v, want an error naming %q", c.name, g.Spaces, c.want)
		}
	}
	src := "var A: {x, y}\nvar T: {yes, no}\nspace C {\n    T = yes if conjunction(A)\n}\ndata D = {\n    A, T\n    x, yes\n    y, no\n}\nquery P(C | D)\n"
	s, err := NewSessionSource(filepath.Join(t.TempDir(), "c.pbl"), src)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	g, err := s.Open(context.Background(), nil, nil)
	if err != nil || !g.Loaded {
		t.Fatal(err, g.Diagnostics)
	}
	if len(g.Spaces) != 1 || len(g.Spaces[0].Hyps) != 1 || g.Spaces[0].Hyps[0].Label != "<x>" || g.Spaces[0].MAP != "<x>" || !(g.Spaces[0].Hyps[0].P == 1) {
		t.Errorf("a concept of one attribute: %+v", g.Spaces)
	}
}
