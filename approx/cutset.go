package approx

import (
	"math"
	"slices"
	"time"

	"github.com/pbl-lang/pbl/factor"
)

// This file is exact inference by conditioning on a cutset that leaves
// the other variables isolated: every factor (restricted to the evidence)
// has at most one variable outside the cutset C. Given C's states the
// other variables are then independent, each with the product of its
// factors at those states as its unnormalised distribution, so that
//
//	Z = Σ_{x_C} Π_{f ⊆ C} f(x_C) · Π_{j ∉ C} Σ_{x_j} Π_{f ∋ j} f(x_C, x_j),
//
// and the marginals are the same sums weighted by each cutset state's
// share. It is exact, takes memory linear in the problem, and time
// proportional to the number of C's joint states times the factors that
// each step of the enumeration touches. It suits networks that are dense
// but bipartite-like: a complete bipartite network of 20 + 20 binary
// variables (as the UAI 2014 DBN instances: two time slices fully
// connected) has a junction tree of width 20 in clusters of 2^21 entries
// each, but a cutset of 2^20 states, enumerated in a second or so.
//
// The cutset is the complement of an independent set of the interaction
// graph chosen greedily (least degree first, ties by index).

// cutsetMaxStates is the most joint states of a cutset cutsetExact
// enumerates.
const cutsetMaxStates = 1 << 22

// cutsetPlan returns the cutset (variables of r) whose removal isolates
// the other variables (empty when they are already isolated), and the
// log2 of its joint states; ok is false when the problem has no
// unobserved variable in a factor.
func cutsetPlan(r *propReduced) (cut []int, bits float64, ok bool) {
	n := len(r.card)
	adj := make([][]int32, n)
	for _, f := range r.fs {
		for i, u := range f.Vars {
			for _, w := range f.Vars[i+1:] {
				if u != w {
					adj[u] = insertSorted(adj[u], int32(w))
					adj[w] = insertSorted(adj[w], int32(u))
				}
			}
		}
	}
	var vs []int
	for v := range n {
		if r.card[v] > 0 && r.obs[v] < 0 && r.inFactor[v] {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return nil, 0, false
	}
	slices.SortStableFunc(vs, func(a, b int) int { return len(adj[a]) - len(adj[b]) })
	in := make([]bool, n)
	blocked := make([]bool, n)
	for _, v := range vs {
		if blocked[v] {
			continue
		}
		in[v] = true
		for _, w := range adj[v] {
			blocked[w] = true
		}
	}
	for _, v := range vs {
		if !in[v] {
			cut = append(cut, v)
			bits += math.Log2(float64(r.card[v]))
		}
	}
	slices.Sort(cut)
	return cut, bits, true
}

// cutsetExact enumerates the cutset's states (see the file's comment). It
// returns nil when the cutset has more than cutsetMaxStates states, when
// the enumeration's measured speed says it cannot finish before the
// deadline, or when it is stopped; ErrImpossible when every state has
// weight 0.
func cutsetExact(r *propReduced, s Settings) (*Result, error) {
	cut, bits, ok := cutsetPlan(r)
	if !ok || bits > math.Log2(cutsetMaxStates) {
		return nil, nil
	}
	n := len(r.card)
	pos := make([]int, n) // position of a variable in cut, or -1
	for v := range pos {
		pos[v] = -1
	}
	for i, v := range cut {
		pos[v] = i
	}
	// Each factor: its log table, its free variable (or -1) and that
	// variable's stride.
	type cf struct {
		lv     []float64
		free   int
		stride int
		base   int
	}
	fs := make([]cf, len(r.fs))
	byCut := make([][]int, len(cut)) // factors of each cutset variable
	byFree := make([][]int, n)       // factors of each free variable
	var cutOnly []int
	for k, f := range r.fs {
		c := cf{lv: make([]float64, len(f.Vals)), free: -1}
		for i, x := range f.Vals {
			c.lv[i] = math.Log(x)
		}
		for i, v := range f.Vars {
			if p := pos[v]; p >= 0 {
				byCut[p] = append(byCut[p], k)
			} else {
				c.free, c.stride = int(v), f.Stride[i]
			}
		}
		if c.free >= 0 {
			byFree[c.free] = append(byFree[c.free], k)
		} else {
			cutOnly = append(cutOnly, k)
		}
		fs[k] = c
	}
	// strideOf[k][i]: the stride in factor k of cut[i] (0 when absent).
	type ks struct{ k, sd int }
	strideOf := make([][]ks, len(cut))
	for i, v := range cut {
		for _, k := range byCut[i] {
			strideOf[i] = append(strideOf[i], ks{k, r.fs[k].Stride[r.fs[k].Pos(factor.Var(v))]})
		}
	}
	var free []int
	for v := range n {
		if r.card[v] > 0 && r.obs[v] < 0 && r.inFactor[v] && pos[v] < 0 {
			free = append(free, v)
		}
	}
	lse := make([]float64, n)     // ln Σ_s of a free variable's product
	cond := make([][]float64, n)  // its conditional distribution
	acc := make([][]float64, n)   // its log product per state
	margF := make([][]float64, n) // accumulated marginals, free variables
	margC := make([][]float64, len(cut))
	for _, j := range free {
		cond[j] = make([]float64, r.card[j])
		acc[j] = make([]float64, r.card[j])
		margF[j] = make([]float64, r.card[j])
	}
	for i, v := range cut {
		margC[i] = make([]float64, r.card[v])
	}
	update := func(j int) {
		a := acc[j]
		for t := range a {
			a[t] = 0
		}
		for _, k := range byFree[j] {
			f := &fs[k]
			for t := range a {
				a[t] += f.lv[f.base+t*f.stride]
			}
		}
		m := math.Inf(-1)
		for _, x := range a {
			m = max(m, x)
		}
		if math.IsInf(m, -1) {
			lse[j] = m
			for t := range a {
				cond[j][t] = 0
			}
			return
		}
		sum := 0.0
		for t, x := range a {
			cond[j][t] = math.Exp(x - m)
			sum += cond[j][t]
		}
		for t := range a {
			cond[j][t] /= sum
		}
		lse[j] = m + math.Log(sum)
	}
	cutLog := func() float64 {
		l := 0.0
		for _, k := range cutOnly {
			l += fs[k].lv[fs[k].base]
		}
		return l
	}
	for _, j := range free {
		update(j)
	}
	state := make([]int, len(cut))
	dirty := make([]bool, n)
	var touched []int
	st := newPropStopper(s)
	maxLog := math.Inf(-1)
	zacc := 0.0
	total := math.Exp2(bits)
	start := time.Now()
	for step := 0; ; step++ {
		lw := cutLog()
		for _, j := range free {
			lw += lse[j]
		}
		if !math.IsInf(lw, -1) {
			if lw > maxLog {
				sc := math.Exp(maxLog - lw)
				if math.IsInf(maxLog, -1) {
					sc = 0
				}
				zacc *= sc
				for _, m := range margC {
					for t := range m {
						m[t] *= sc
					}
				}
				for _, j := range free {
					for t := range margF[j] {
						margF[j][t] *= sc
					}
				}
				maxLog = lw
			}
			w := math.Exp(lw - maxLog)
			zacc += w
			for i, x := range state {
				margC[i][x] += w
			}
			for _, j := range free {
				for t, p := range cond[j] {
					margF[j][t] += w * p
				}
			}
		}
		// The next state (an odometer, the first variable fastest).
		i := 0
		for ; i < len(cut); i++ {
			old := state[i]
			nw := old + 1
			if nw == r.card[cut[i]] {
				nw = 0
			}
			state[i] = nw
			for _, e := range strideOf[i] {
				k := e.k
				fs[k].base += (nw - old) * e.sd
				if j := fs[k].free; j >= 0 && !dirty[j] {
					dirty[j] = true
					touched = append(touched, j)
				}
			}
			if nw != 0 {
				break
			}
		}
		for _, j := range touched {
			dirty[j] = false
			update(j)
		}
		touched = touched[:0]
		if i == len(cut) {
			break
		}
		if step&4095 == 4095 {
			if st.stop() {
				return nil, nil
			}
			if !s.Deadline.IsZero() {
				el := time.Since(start)
				if step == 4095 && time.Duration(float64(el)*total/4096) > time.Until(s.Deadline) {
					return nil, nil
				}
			}
		}
	}
	if math.IsInf(maxLog, -1) || !(zacc > 0) {
		return nil, ErrImpossible
	}
	res := r.result(nil, nil)
	for i, v := range cut {
		copy(res.Marg[v], margC[i])
		propClamp(res.Marg[v])
	}
	for _, j := range free {
		copy(res.Marg[j], margF[j])
		propClamp(res.Marg[j])
	}
	res.LogZ = maxLog + math.Log(zacc) + r.logConst + r.logFree
	res.LogZLo, res.LogZHi = res.LogZ, res.LogZ
	res.Engine = "cutset"
	res.Converged = true
	res.Iterations = int(total)
	return res, nil
}
