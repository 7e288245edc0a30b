package infer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// TestExpectLik: on random networks with real children, ExpectLik on the
// tree compiled with a likelihood slot per density gives, for rows of
// discrete evidence and real values, the family posteriors, the slots'
// posteriors and ln p(row) of the joint enumerated with the densities
// written out; rows share one workspace, so a row's likelihoods must not
// leak into the next.
func TestExpectLik(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 4))
	for trial := range 10 {
		net := newRealNet(t, r)
		m := net.m
		var scopes [][]ir.VarID
		for _, x := range net.reals {
			scopes = append(scopes, m.Gaussian(x).Parents)
		}
		tree, err := Compile(LikelihoodSlots(m, scopes), Options{})
		if err != nil {
			t.Fatal(err)
		}
		const nrows = 6
		rows := make([]LikRow, nrows)
		obsOf := make([][]ir.RealObs, nrows)
		scale := make([]float64, nrows)
		post := make([][][]float64, nrows)
		for k := range rows {
			obs := make([]int, len(m.Vars))
			for v := range obs {
				obs[v] = -1
			}
			if d := net.disc[r.IntN(len(net.disc))]; r.IntN(2) == 0 {
				obs[d] = r.IntN(len(m.Vars[d].States))
			}
			rows[k] = LikRow{Obs: obs, Weight: 1 + float64(k), Lik: make([][]float64, len(scopes))}
			post[k] = make([][]float64, len(scopes))
			for j, x := range net.reals {
				if k%3 == 2 && j == 1 {
					continue // the second real variable missing
				}
				o := []ir.RealObs{{Var: x, Value: r.NormFloat64() * 4}}
				obsOf[k] = append(obsOf[k], o[0])
				_, l, shift, err := ir.LogDensities(m.Gaussian(x), o)
				if err != nil {
					t.Fatal(err)
				}
				top := math.Inf(-1)
				for _, y := range l {
					top = max(top, y)
				}
				for u := range l {
					l[u] = math.Exp(l[u] - top)
				}
				scale[k] += shift + top
				rows[k].Lik[j] = l
				post[k][j] = make([]float64, len(l))
			}
		}
		acc := make([][]float64, len(m.Vars))
		for _, v := range net.disc {
			acc[v] = make([]float64, len(m.Factor(v).Vals))
		}
		logp := make([]float64, nrows)
		st, err := tree.ExpectLik(rows, acc, post, logp)
		if err != nil {
			t.Fatal(err)
		}
		want := make([][]float64, len(m.Vars))
		for _, v := range net.disc {
			want[v] = make([]float64, len(acc[v]))
		}
		wantLL := 0.0
		for k, row := range rows {
			as, ps := net.bruteJoint(obsOf[k])
			z := 0.0
			slotPost := make([][]float64, len(scopes))
			for j, l := range row.Lik {
				if l != nil {
					slotPost[j] = make([]float64, len(l))
				}
			}
			for i, a := range as {
				if agrees(a, row.Obs) {
					z += ps[i]
				}
			}
			for i, a := range as {
				if !agrees(a, row.Obs) {
					continue
				}
				for _, v := range net.disc {
					f := m.Factor(v)
					want[v][entryOf(f, a)] += row.Weight * ps[i] / z
				}
				for j, sp := range slotPost {
					if sp != nil {
						g := m.Gaussian(net.reals[j])
						u := 0
						for _, p := range g.Parents {
							u = u*len(m.Vars[p].States) + a[p]
						}
						sp[u] += ps[i]
					}
				}
			}
			if d := math.Abs(logp[k] + scale[k] - math.Log(z)); !(d <= 1e-9*max(1, math.Abs(math.Log(z)))) {
				t.Errorf("trial %d row %d: ln p(row) %v, enumerated %v", trial, k, logp[k]+scale[k], math.Log(z))
			}
			wantLL += row.Weight * math.Log(z)
			for j, sp := range slotPost {
				if sp == nil {
					continue
				}
				for u := range sp {
					if d := math.Abs(post[k][j][u] - sp[u]/z); !(d <= 1e-9) {
						t.Errorf("trial %d row %d slot %d: posterior %v, enumerated %v", trial, k, j, post[k][j], sp)
						break
					}
				}
			}
		}
		for _, v := range net.disc {
			for i := range want[v] {
				if d := math.Abs(acc[v][i] - want[v][i]); !(d <= 1e-9*max(1, want[v][i])) {
					t.Errorf("trial %d: expected counts of %s's family %v, enumerated %v", trial, m.Vars[v].Name, acc[v], want[v])
					break
				}
			}
		}
		if d := math.Abs(st.LogLik + sumWeighted(rows, scale) - wantLL); !(d <= 1e-9*max(1, math.Abs(wantLL))) {
			t.Errorf("trial %d: LogLik %v, enumerated %v", trial, st.LogLik+sumWeighted(rows, scale), wantLL)
		}
		if st.Rows != nrows || st.Impossible != 0 {
			t.Errorf("trial %d: %+v", trial, st)
		}
	}
}

func sumWeighted(rows []LikRow, scale []float64) float64 {
	s := 0.0
	for k, r := range rows {
		s += r.Weight * scale[k]
	}
	return s
}

// agrees reports whether the assignment a agrees with the evidence obs.
func agrees(a, obs []int) bool {
	for v, s := range obs {
		if s >= 0 && a[v] != s {
			return false
		}
	}
	return true
}
