package source_test

import (
	"math"
	"testing"

	"github.com/pbl-lang/pbl"
)

// TestWriteCausal: latent variables, bidirected edges and the observed
// distribution's declaration are written (pbl convert dropped them, so
// that the front-door model read back answered do() by surgery on tables
// it does not have), and the models read back give the examples' answers,
// which their comments derive by hand: the front-door effect
// P(Cancer=yes | do(Smoking=yes)) = 0.5885 and P(Cancer=yes |
// do(Smoking=no)) = 0.2015; the firing squad's counterfactual
// P(D=false | do(A=false), D=true) = 0.06/0.76.
func TestWriteCausal(t *testing.T) {
	for _, tc := range []struct {
		file  string
		wants []string
		asks  map[string]float64
	}{
		{"../../examples/frontdoor.pbl",
			[]string{"Smoking <-> Cancer\n", "observed \""},
			map[string]float64{"P(Cancer=yes | do(Smoking=yes))": 0.5885, "P(Cancer=yes | do(Smoking=no))": 0.2015}},
		{"../../examples/firing_squad.pbl",
			[]string{"latent U, W: bool\n"},
			map[string]float64{"CF(D=false | do(A=false), D=true)": 0.06 / 0.76}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			m, err := pbl.LoadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			back, text := writeRead(t, m, "")
			wantText(t, text, tc.wants...)
			if d := sameModel(m, back); d != "" {
				t.Errorf("%s\n%s", d, text)
			}
			if len(back.Bidirected) != len(m.Bidirected) || (back.Observed == nil) != (m.Observed == nil) || len(back.Latents()) != len(m.Latents()) {
				t.Errorf("read back %d bidirected edges, observed %v, %d latents; want %d, %v, %d\n%s",
					len(back.Bidirected), back.Observed != nil, len(back.Latents()), len(m.Bidirected), m.Observed != nil, len(m.Latents()), text)
			}
			for q, want := range tc.asks {
				a, err := pbl.Ask(back, q)
				if err != nil {
					t.Fatalf("%s: %v\n%s", q, err, text)
				}
				if got := causalP(a); !(math.Abs(got-want) <= 1e-9) {
					t.Errorf("%s = %v, want %v\n%s", q, got, want, text)
				}
			}
		})
	}
}

// causalP is the one number of a causal answer (P(Y=y | do(X=x)), CF).
func causalP(a *pbl.Answer) float64 {
	if a.Causal == nil || len(a.Causal.Rows) != 1 {
		return math.NaN()
	}
	return a.Causal.Rows[0].P
}
