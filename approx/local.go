package approx

import (
	"math"
	"math/rand/v2"

	"github.com/pbl-lang/pbl/factor"
)

// LocalSearchMPE searches for the MPE, the most probable assignment of the
// unobserved variables given the evidence, by local search: iterated
// conditional modes (each variable in turn set to its best state given
// the others, until none changes) from the argmax of Settings.Init's
// beliefs (or, without them, of a short run of loopy belief propagation),
// then restarts from the best assignment so far with between one and a
// third of the variables set at random (every tenth restart, all of
// them), seeded by Settings.Seed, keeping the best. An assignment that makes a factor zero is worse than any that
// makes fewer factors zero, so the search can leave a zero of a
// deterministic factor.
//
// It runs until Settings.Deadline or Cancel (Stopped set), or, with
// neither, for Settings.MaxIter restarts (default 200); with a deadline
// and MaxIter both, whichever comes first. Result.Assign is the best
// assignment (the evidence included, 0 for a variable in no factor, -1
// for one that takes no part) and LogMax the ln of the factors' product
// there (-Inf when every assignment found makes a factor zero); LogZ is
// LogMax too and LogZLo, since Z is at least the largest term: a lower
// bound on ln Z, with LogZHi +Inf and LogZErr +Inf. Marg and Err are nil:
// local search gives no marginals.
func LocalSearchMPE(p *Problem, s Settings) (*Result, error) {
	r, err := propReduce(p)
	if err != nil {
		return nil, err
	}
	st := newPropStopper(s)
	n := len(r.card)
	ls := newLocalSearch(r)
	x := make([]int, n)
	for v, c := range r.card {
		switch {
		case c <= 0:
			x[v] = -1
		case r.obs[v] >= 0:
			x[v] = r.obs[v]
		}
	}
	init := s.Init
	if init == nil {
		init = localInit(r, s)
	}
	for _, v := range ls.vars {
		if v < len(init) && len(init[v]) == r.card[v] {
			best := 0
			for t, b := range init[v] {
				if b > init[v][best] {
					best = t
				}
			}
			x[v] = best
		}
	}
	ls.icm(x, st)
	best := append([]int(nil), x...)
	bz, bl := ls.score(best)
	restarts := s.MaxIter
	if restarts <= 0 && (!s.Deadline.IsZero() || s.Cancel != nil) {
		restarts = math.MaxInt
	} else if restarts <= 0 {
		restarts = 200
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x6c6f63616c))
	iter := 0
	for ; iter < restarts && len(ls.vars) > 0 && !st.stop(); iter++ {
		copy(x, best)
		// Mostly a kick of random size (one variable to a third of
		// them) from the best; every tenth restart from scratch.
		k := 1 + rng.IntN(max(1, len(ls.vars)/3))
		if iter%10 == 9 {
			k = len(ls.vars)
		}
		for range k {
			v := ls.vars[rng.IntN(len(ls.vars))]
			x[v] = rng.IntN(r.card[v])
		}
		ls.icm(x, st)
		if z, l := ls.score(x); z < bz || z == bz && l > bl {
			copy(best, x)
			bz, bl = z, l
		}
	}
	res := &Result{Engine: "local", Assign: best, Iterations: iter, Stopped: st.stopped, Converged: !st.stopped}
	res.LogMax = math.Inf(-1)
	if bz == 0 {
		res.LogMax = bl + r.logConst
	}
	res.LogZ, res.LogZLo, res.LogZHi, res.LogZErr = res.LogMax, res.LogMax, math.Inf(1), math.Inf(1)
	return res, nil
}

// localInit returns the beliefs of a short run of loopy belief
// propagation (at most 50 sweeps), or nil if it finds nothing.
func localInit(r *propReduced, s Settings) [][]float64 {
	g, home, err := lbpGraph(r)
	if err != nil {
		return nil
	}
	damp, tol, _ := propDefaults(s)
	if _, _, err := g.propagate(damp, tol, 50, newPropStopper(s)); err != nil {
		return nil
	}
	return r.result(g, home).Marg
}

// localSearch holds the tables local search scores assignments with: the
// logarithms of the propReduced factors and, for each variable, the factors
// that mention it.
type localSearch struct {
	r     *propReduced
	logs  [][]float64 // ln of each factor's entries (-Inf for 0)
	of    [][]int32   // factors of each variable
	vars  []int       // the variables searched over (unobserved, in a factor)
	zeros []int       // scratch: zero count per state
	sums  []float64   // scratch: log sum per state
}

func newLocalSearch(r *propReduced) *localSearch {
	ls := &localSearch{r: r, logs: make([][]float64, len(r.fs)), of: make([][]int32, len(r.card))}
	maxCard := 1
	for i, f := range r.fs {
		l := make([]float64, len(f.Vals))
		for k, x := range f.Vals {
			l[k] = math.Log(x)
		}
		ls.logs[i] = l
		for _, v := range f.Vars {
			ls.of[v] = append(ls.of[v], int32(i))
		}
	}
	for v, c := range r.card {
		if c > 0 && r.obs[v] < 0 && r.inFactor[v] {
			ls.vars = append(ls.vars, v)
			maxCard = max(maxCard, c)
		}
	}
	ls.zeros = make([]int, maxCard)
	ls.sums = make([]float64, maxCard)
	return ls
}

// offset returns the entry of factor f at assignment x.
func localOffset(f *factor.Factor, x []int) int {
	o := 0
	for k, v := range f.Vars {
		o += x[v] * f.Stride[k]
	}
	return o
}

// score returns the number of zero factors at x and the sum of the logs
// of the others.
func (ls *localSearch) score(x []int) (zeros int, sum float64) {
	for i, f := range ls.r.fs {
		l := ls.logs[i][localOffset(f, x)]
		if math.IsInf(l, -1) {
			zeros++
		} else {
			sum += l
		}
	}
	return zeros, sum
}

// icm sets each variable in turn to its best state given the others
// until no variable changes (or st stops it): a local optimum.
func (ls *localSearch) icm(x []int, st *propStopper) {
	for sweep := 0; sweep < 1000; sweep++ {
		changed := false
		for _, v := range ls.vars {
			c := ls.r.card[v]
			z, sm := ls.zeros[:c], ls.sums[:c]
			clear(z)
			clear(sm)
			for _, i := range ls.of[v] {
				f := ls.r.fs[i]
				p := factor.IndexOf(f.Vars, factor.Var(v))
				base := localOffset(f, x) - x[v]*f.Stride[p]
				for t := range c {
					l := ls.logs[i][base+t*f.Stride[p]]
					if math.IsInf(l, -1) {
						z[t]++
					} else {
						sm[t] += l
					}
				}
			}
			best := x[v]
			for t := range c {
				if z[t] < z[best] || z[t] == z[best] && sm[t] > sm[best] {
					best = t
				}
			}
			if best != x[v] {
				x[v] = best
				changed = true
			}
		}
		if !changed || st.stop() {
			return
		}
	}
}
