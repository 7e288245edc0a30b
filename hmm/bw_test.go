package hmm

import (
	"math"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"
)

// bruteEM returns one EM iteration of h over seqs computed from expected
// counts summed over every hidden path of every sequence, with the
// M-step's formulas written out again (uncentred moments), and the
// log-likelihood of h.
func bruteEM(h *HMM, seqs []Seq, p Prior) (*HMM, float64) {
	k := h.K
	init, trans := make([]float64, k), make([]float64, k*k)
	var cnt, sx, sxx []float64
	var d, m int
	switch e := h.Emit.(type) {
	case *Categorical:
		m = e.M
		cnt = make([]float64, k*m)
	case *Gaussian:
		d = e.D
		cnt, sx, sxx = make([]float64, k*d), make([]float64, k*d), make([]float64, k*d)
	}
	ll := 0.0
	for _, s := range seqs {
		T, _ := h.Len(s)
		if T == 0 {
			continue
		}
		tot := 0.0
		paths(h, s, T, func(z []int, pz float64) { tot += pz })
		ll += math.Log(tot)
		paths(h, s, T, func(z []int, pz float64) {
			w := pz / tot
			init[z[0]] += w
			for t := 1; t < T; t++ {
				trans[z[t-1]*k+z[t]] += w
			}
			for t, st := range z {
				if m > 0 {
					if s.Sym[t] >= 0 {
						cnt[st*m+s.Sym[t]] += w
					}
					continue
				}
				for j := range d {
					if x := s.X[t*d+j]; !math.IsNaN(x) {
						cnt[st*d+j] += w
						sx[st*d+j] += w * x
						sxx[st*d+j] += w * x * x
					}
				}
			}
		})
	}
	out := &HMM{K: k, Init: make([]float64, k), Trans: make([]float64, k*k)}
	norm := func(dst, n, old []float64, a float64) {
		s := 0.0
		for _, v := range n {
			s += v + a
		}
		for i := range dst {
			if s == 0 {
				dst[i] = old[i]
			} else {
				dst[i] = (n[i] + a) / s
			}
		}
	}
	norm(out.Init, init, h.Init, p.Init)
	for i := range k {
		norm(out.Trans[i*k:(i+1)*k], trans[i*k:(i+1)*k], h.Trans[i*k:(i+1)*k], p.Trans)
	}
	switch e := h.Emit.(type) {
	case *Categorical:
		c := &Categorical{M: m, Prob: make([]float64, k*m)}
		for i := range k {
			norm(c.Prob[i*m:(i+1)*m], cnt[i*m:(i+1)*m], e.Prob[i*m:(i+1)*m], p.Emit)
		}
		out.Emit = c
	case *Gaussian:
		g := &Gaussian{D: d, Mean: make([]float64, k*d), Var: make([]float64, k*d)}
		floor := p.VarFloor
		if floor == 0 {
			floor = 1e-6
		}
		for l := range cnt {
			if cnt[l] == 0 {
				g.Mean[l], g.Var[l] = e.Mean[l], e.Var[l]
				continue
			}
			g.Mean[l] = sx[l] / cnt[l]
			g.Var[l] = math.Max(sxx[l]/cnt[l]-g.Mean[l]*g.Mean[l], floor)
		}
		out.Emit = g
	}
	return out, ll
}

// hmmNear reports whether a and b's numbers agree to tol.
func hmmNear(a, b *HMM, tol float64) bool {
	if !closeAll(a.Init, b.Init, tol) || !closeAll(a.Trans, b.Trans, tol) {
		return false
	}
	switch e := a.Emit.(type) {
	case *Categorical:
		f, ok := b.Emit.(*Categorical)
		return ok && closeAll(e.Prob, f.Prob, tol)
	case *Gaussian:
		f, ok := b.Emit.(*Gaussian)
		return ok && closeAll(e.Mean, f.Mean, tol) && closeAll(e.Var, f.Var, tol)
	}
	return false
}

// TestBaumWelchBrute checks one EM iteration (E-step, M-step and the
// log-likelihood before and after) against expected counts over all
// hidden paths, with and without priors.
func TestBaumWelchBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	done := 0
	for c := 0; done < 150; c++ {
		h, _ := randCase(r)
		if c%3 == 0 {
			h = randHMM(r, 3, c%2 == 0, 2) // always K = 3
		}
		seqs := make([]Seq, 1+r.IntN(4))
		for i := range seqs {
			seqs[i] = randSeq(r, h, r.IntN(7))
		}
		var p Prior
		if c%2 == 1 {
			p = Prior{Init: 0.5, Trans: 1, Emit: 0.25, VarFloor: 0.3}
		}
		st, err := h.EStep(seqs, 2)
		if isKind(err, ErrImpossible) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		done++
		want, wantLL := bruteEM(h, seqs, p)
		if !near(st.LogLik, wantLL, bruteTol) {
			t.Errorf("case %d: log-likelihood %v, brute force %v", c, st.LogLik, wantLL)
		}
		got, err := h.MStep(st, p)
		if err != nil {
			t.Fatal(err)
		}
		if !hmmNear(got, want, bruteTol) {
			t.Errorf("case %d: one iteration gives\n%+v %+v\nbrute force\n%+v %+v", c, got, got.Emit, want, want.Emit)
		}
		res, err := Fit(h, seqs, FitOptions{MaxIter: 1, Prior: p})
		if err != nil {
			t.Fatal(err)
		}
		_, nextLL := bruteEM(want, seqs, p)
		wantTrace := []float64{wantLL + want0Prior(h, p), nextLL + want0Prior(want, p)}
		if !hmmNear(res.HMM, want, bruteTol) || !closeAll(res.Trace, wantTrace, bruteTol) || !near(res.LogLik, nextLL, bruteTol) {
			t.Errorf("case %d: Fit trace %v, log-likelihood %v; brute force %v, %v", c, res.Trace, res.LogLik, wantTrace, nextLL)
		}
	}
}

// want0Prior is the Dirichlet priors' log-density up to a constant,
// written out again.
func want0Prior(h *HMM, p Prior) float64 {
	s := 0.0
	for _, v := range h.Init {
		if p.Init > 0 {
			s += p.Init * math.Log(v)
		}
	}
	for _, v := range h.Trans {
		if p.Trans > 0 {
			s += p.Trans * math.Log(v)
		}
	}
	if c, ok := h.Emit.(*Categorical); ok && p.Emit > 0 {
		for _, v := range c.Prob {
			s += p.Emit * math.Log(v)
		}
	}
	return s
}

// TestEStepWorkers checks that the E-step's statistics are the same bit
// for bit on 1, 2 and 4 workers, and that merging shards' statistics
// gives the whole's to rounding.
func TestEStepWorkers(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, gauss := range []bool{false, true} {
		h := randHMM(r, 4, gauss, 2)
		if !gauss {
			h.Emit = &Categorical{M: 2, Prob: []float64{0.5, 0.5, 0.2, 0.8, 0.9, 0.1, 0.3, 0.7}}
		}
		seqs := make([]Seq, 45)
		for i := range seqs {
			seqs[i] = randSeq(r, h, r.IntN(300))
		}
		one, err := h.EStep(seqs, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []int{2, 4} {
			got, err := h.EStep(seqs, w)
			if err != nil {
				t.Fatal(err)
			}
			if !statsEqual(one, got, 0) {
				t.Errorf("gauss %v: %d workers differ from 1", gauss, w)
			}
		}
		a, _ := h.EStep(seqs[:17], 2)
		b, _ := h.EStep(seqs[17:], 1)
		if err := a.Merge(b); err != nil {
			t.Fatal(err)
		}
		if !statsEqual(one, a, 1e-12) {
			t.Errorf("gauss %v: merged shards differ from the whole", gauss)
		}
	}
}

func statsEqual(a, b *Stats, tol float64) bool {
	eq := func(x, y []float64) bool {
		if tol == 0 {
			if len(x) != len(y) {
				return false
			}
			for i := range x {
				if x[i] != y[i] {
					return false
				}
			}
			return true
		}
		return closeAll(x, y, tol)
	}
	return eq(a.Init, b.Init) && eq(a.Trans, b.Trans) && eq(a.Count, b.Count) && eq(a.Sum, b.Sum) &&
		eq(a.SumSq, b.SumSq) && eq([]float64{a.LogLik}, []float64{b.LogLik}) && a.Seqs == b.Seqs && a.Steps == b.Steps
}

// TestProperties checks, on random HMMs and sequences of up to 300 steps,
// that smoothed and filtered distributions sum to 1 and hold no NaN, that
// checkpointed smoothing equals plain smoothing, and that Baum–Welch's
// trace never falls.
func TestProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		seed := rapid.Uint64().Draw(rt, "seed")
		r := rand.New(rand.NewPCG(seed, 1))
		k := rapid.IntRange(1, 6).Draw(rt, "k")
		gauss := rapid.Bool().Draw(rt, "gauss")
		h := randHMM(r, k, gauss, rapid.IntRange(1, 4).Draw(rt, "m"))
		if !gauss {
			// No zero emissions, so that every sequence is possible.
			c := h.Emit.(*Categorical)
			for i := range c.Prob {
				c.Prob[i] = 0.05 + c.Prob[i]
			}
			for i := range k {
				row := c.Prob[i*c.M : (i+1)*c.M]
				s := 0.0
				for _, v := range row {
					s += v
				}
				for j := range row {
					row[j] /= s
				}
			}
		}
		seqs := make([]Seq, rapid.IntRange(1, 5).Draw(rt, "n"))
		for i := range seqs {
			seqs[i] = randSeq(r, h, rapid.IntRange(0, 300).Draw(rt, "T"))
		}
		for _, s := range seqs {
			T, _ := h.Len(s)
			post, err := h.Smooth(s)
			if err != nil {
				rt.Fatal(err)
			}
			check := func(what string, t int, p []float64) {
				sum := 0.0
				for _, v := range p {
					if math.IsNaN(v) || v < 0 {
						rt.Fatalf("%s at %d: %v", what, t, p)
					}
					sum += v
				}
				if !(math.Abs(sum-1) <= 1e-12) {
					rt.Fatalf("%s at %d sums to %v", what, t, sum)
				}
			}
			for i := range T {
				check("smoothed", i, post.At(i))
			}
			if _, err := h.Filter(s, func(t int, p []float64) { check("filtered", t, p) }); err != nil {
				rt.Fatal(err)
			}
			ll, err := h.SmoothEach(s, func(t int, p []float64) {
				if !closeAll(p, post.At(t), 1e-10) {
					rt.Fatalf("checkpointed at %d: %v, plain %v", t, p, post.At(t))
				}
			})
			if err != nil || !near(ll, post.LogLik, 1e-10) {
				rt.Fatalf("checkpointed log-likelihood %v (%v), plain %v", ll, err, post.LogLik)
			}
		}
		res, err := Fit(h, seqs, FitOptions{MaxIter: 15, Workers: 2})
		if err != nil {
			rt.Fatal(err)
		}
		for i := 1; i < len(res.Trace); i++ {
			if !(res.Trace[i] >= res.Trace[i-1]-1e-9*(1+math.Abs(res.Trace[i-1]))) {
				rt.Fatalf("trace falls at %d: %v", i, res.Trace)
			}
		}
	})
}

// TestRestarts checks that restarts keep the best fit and that the
// random starts are reproducible.
func TestRestarts(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	truth := randHMM(r, 3, true, 1)
	g := truth.Emit.(*Gaussian)
	copy(g.Mean, []float64{-3, 0, 3})
	copy(g.Var, []float64{0.5, 0.5, 0.5})
	seqs := sampleSeqs(r, truth, 20, 100)
	start := randomStart(truth, seqs, 1, 1)
	one, err := Fit(start, seqs, FitOptions{MaxIter: 300, Tol: 1e-4})
	if err != nil {
		t.Fatal(err)
	}
	many, err := Fit(start, seqs, FitOptions{MaxIter: 300, Tol: 1e-4, Restarts: 6, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !(many.LogLik >= one.LogLik) {
		t.Errorf("6 restarts: log-likelihood %v, below the first start's %v", many.LogLik, one.LogLik)
	}
	again, _ := Fit(start, seqs, FitOptions{MaxIter: 300, Tol: 1e-4, Restarts: 6, Seed: 3})
	if again.LogLik != many.LogLik || again.Restart != many.Restart {
		t.Errorf("the same seed gives restart %d (%v), then %d (%v)", many.Restart, many.LogLik, again.Restart, again.LogLik)
	}
	if !many.Converged || many.Iterations < 1 {
		t.Errorf("did not converge: %d iterations", many.Iterations)
	}
	a, _ := RandomStart(truth, seqs, 3, 2)
	if !hmmNear(a, randomStart(truth, seqs, 3, 2), 0) {
		t.Error("RandomStart is not reproducible")
	}
}

// sampleSeqs draws n sequences of t steps from h (Gaussian or
// categorical), none missing.
func sampleSeqs(r *rand.Rand, h *HMM, n, t int) []Seq {
	seqs := make([]Seq, n)
	draw := func(p []float64) int {
		u := r.Float64()
		for i, v := range p {
			if u -= v; u < 0 {
				return i
			}
		}
		return len(p) - 1
	}
	for i := range seqs {
		z := draw(h.Init)
		switch e := h.Emit.(type) {
		case *Gaussian:
			x := make([]float64, t*e.D)
			for s := range t {
				if s > 0 {
					z = draw(h.Trans[z*h.K : (z+1)*h.K])
				}
				for d := range e.D {
					x[s*e.D+d] = e.Mean[z*e.D+d] + math.Sqrt(e.Var[z*e.D+d])*r.NormFloat64()
				}
			}
			seqs[i] = Seq{X: x}
		case *Categorical:
			sym := make([]int, t)
			for s := range t {
				if s > 0 {
					z = draw(h.Trans[z*h.K : (z+1)*h.K])
				}
				sym[s] = draw(e.Prob[z*e.M : (z+1)*e.M])
			}
			seqs[i] = Seq{Sym: sym}
		}
	}
	return seqs
}

// TestCheckpointedXi checks the expected transition counts of
// forward–backward in blocks of every size (the E-step checkpoints long
// sequences) against enumeration of every hidden path.
func TestCheckpointedXi(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	done := 0
	for done < 150 {
		h, s := randCase(r)
		T, _ := h.Len(s)
		k := h.K
		want := make([]float64, k*k)
		tot := 0.0
		paths(h, s, T, func(z []int, p float64) {
			tot += p
			for i := 1; i < T; i++ {
				want[z[i-1]*k+z[i]] += p
			}
		})
		if tot == 0 {
			continue
		}
		done++
		for i := range want {
			want[i] /= tot
		}
		e := newEngine(h)
		for S := 1; S <= T; S++ {
			w := ensureWork(nil, k, S, T)
			if _, err := e.smooth(s, T, w, func(int, []float64) {}); err != nil {
				t.Fatal(err)
			}
			got := make([]float64, k*k)
			for i, v := range w.xiM {
				got[i] = v * h.Trans[i]
			}
			if !closeAll(got, want, bruteTol) {
				t.Errorf("T %d, blocks of %d: transitions %v, brute force %v", T, S, got, want)
			}
		}
	}
}
