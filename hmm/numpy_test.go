package hmm

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// npCase is one case of testdata/bw_numpy.json, which bw_numpy.py (numpy,
// written apart from this package) makes: how is in its doc string.
type npCase struct {
	Start npParams        `json:"start"`
	Seqs  json.RawMessage `json:"seqs"`
	Prior struct {
		Init, Trans, Emit float64
	} `json:"prior"`
	Iters []struct {
		LogLik float64  `json:"loglik"`
		After  npParams `json:"after"`
	} `json:"iters"`
}

type npParams struct {
	Kind  string      `json:"kind"`
	K     int         `json:"K"`
	D     int         `json:"D"`
	M     int         `json:"M"`
	Init  []float64   `json:"init"`
	Trans [][]float64 `json:"trans"`
	Mean  [][]float64 `json:"mean"`
	Var   [][]float64 `json:"var"`
	Prob  [][]float64 `json:"prob"`
}

func flat(x [][]float64) []float64 {
	var out []float64
	for _, r := range x {
		out = append(out, r...)
	}
	return out
}

func (p npParams) hmm(d, m int) *HMM {
	h := &HMM{K: p.K, Init: p.Init, Trans: flat(p.Trans)}
	if p.Kind == "gauss" {
		h.Emit = &Gaussian{D: d, Mean: flat(p.Mean), Var: flat(p.Var)}
	} else {
		h.Emit = &Categorical{M: m, Prob: flat(p.Prob)}
	}
	return h
}

// TestBaumWelchNumpy checks eight Baum–Welch iterations, one by one,
// against numpy's: the log-likelihood before each and the parameters
// after it, to 1e-9 relative; and Fit's trace.
func TestBaumWelchNumpy(t *testing.T) {
	raw, err := os.ReadFile("testdata/bw_numpy.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases map[string]npCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2 {
		t.Fatalf("%d cases, want 2", len(cases))
	}
	for name, c := range cases {
		var seqs []Seq
		d, m := c.Start.D, c.Start.M
		if name == "gauss" {
			var xs [][][]*float64
			if err := json.Unmarshal(c.Seqs, &xs); err != nil {
				t.Fatal(err)
			}
			for _, s := range xs {
				var x []float64
				for _, row := range s {
					for _, v := range row {
						if v == nil {
							x = append(x, math.NaN())
						} else {
							x = append(x, *v)
						}
					}
				}
				seqs = append(seqs, Seq{X: x})
			}
		} else {
			var ss [][]int
			if err := json.Unmarshal(c.Seqs, &ss); err != nil {
				t.Fatal(err)
			}
			for _, s := range ss {
				seqs = append(seqs, Seq{Sym: s})
			}
		}
		prior := Prior{Init: c.Prior.Init, Trans: c.Prior.Trans, Emit: c.Prior.Emit}
		h := c.Start.hmm(d, m)
		if len(c.Iters) != 8 {
			t.Fatalf("%s: %d iterations, want 8", name, len(c.Iters))
		}
		for i, it := range c.Iters {
			st, err := h.EStep(seqs, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !near(st.LogLik, it.LogLik, bruteTol) {
				t.Errorf("%s, iteration %d: log-likelihood %.17g, numpy %.17g", name, i+1, st.LogLik, it.LogLik)
			}
			if h, err = h.MStep(st, prior); err != nil {
				t.Fatal(err)
			}
			if want := it.After.hmm(d, m); !hmmNear(h, want, bruteTol) {
				t.Errorf("%s, iteration %d:\n%+v %+v\nnumpy\n%+v %+v", name, i+1, h, h.Emit, want, want.Emit)
			}
		}
		res, err := Fit(c.Start.hmm(d, m), seqs, FitOptions{MaxIter: 7, Prior: prior})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range res.Trace {
			if want := c.Iters[i].LogLik + startPrior(c, i, d, m, prior); !near(v, want, bruteTol) {
				t.Errorf("%s: trace %d is %.17g, numpy %.17g", name, i, v, want)
			}
		}
	}
}

// startPrior returns the prior's log-density of the parameters whose
// log-likelihood is c.Iters[i].LogLik: the start, or iteration i's.
func startPrior(c npCase, i, d, m int, p Prior) float64 {
	h := c.Start.hmm(d, m)
	if i > 0 {
		h = c.Iters[i-1].After.hmm(d, m)
	}
	return want0Prior(h, p)
}
