package learn

import (
	"cmp"
	"slices"

	"github.com/pbl-lang/pbl/ir"
)

// This file is gradient ascent on the log-likelihood (Mitchell §6.11.5).
// The gradient of ln P(D | θ) with respect to the CPT entry
// w_ijk = P(Y_i = y_ij | U_i = u_ik) is
//
//	∂ ln P(D) / ∂ w_ijk = Σ_d P(y_ij, u_ik | d) / w_ijk
//
// the expected count of the entry over its value (emRun.expect gives the
// counts). A step is Mitchell's rule w_ijk ← w_ijk + η ∂/∂w_ijk, then each
// row put back on the simplex, with one change: each row's gradient is
// divided by the row's expected count N_ik = Σ_j P(u_ik | d) summed over
// the data (a step η per row and per case). Without it one η must suit
// rows seen once and rows seen 10,000 times, and the line search shrinks
// it to the heaviest row's: on asia with 3,000 rows the plain rule was
// still 1.5e-3 short of EM's log-likelihood after 1,000 iterations, the
// scaled one within 1e-9 after 100. Dividing a row by its sum, the obvious way,
// can move it against the gradient (w = (0.01, 0.99) with expected counts
// (0.001, 0.999) raises w_1, which should fall), so the row is projected:
// the nearest point (Euclidean) of the simplex whose entries are at least
// minEntry, which keeps every entry positive. For small η that is the
// gradient projected on the simplex, an ascent direction.
//
// The step η adapts by backtracking: a step that does not raise the
// log-likelihood is halved until one does, and each accepted step doubles
// η for the next iteration, so that no user has to tune it. The
// log-likelihood never decreases; when no step raises it, the run has
// converged. The fixed points are EM's: the projected gradient of a row
// is 0 exactly when its gradient is constant along it, that is when every
// entry is its expected count over the row's (up to minEntry).

// DefaultEta is the first step of gradient ascent: the gradient is scaled
// per row, so steps of about 1 move a row about as far as it can go.
const DefaultEta = 0.1

// minEntry is the smallest entry gradient ascent gives a table.
const minEntry = 1e-12

// maxHalvings bounds the halvings of one line search: 2^-60 of a step
// changes no float64 entry.
const maxHalvings = 60

// gradient runs gradient ascent from m0, start r of starts.
func (e *emRun) gradient(m0 *ir.Model, r, starts int) (*fit, error) {
	cur := m0
	ll, err := e.expectAt(cur)
	if err != nil {
		return nil, err
	}
	f := &fit{m: cur, trace: []float64{ll}, obj: ll, rows: int64(e.p.n)}
	eta := e.opt.Eta
	if eta <= 0 {
		eta = DefaultEta
	}
	grad := e.tables()
	for it := 1; it <= e.maxIter; it++ {
		// The gradient at cur, before the line search overwrites the
		// counts.
		for _, v := range e.learned {
			w := cur.Factor(v).Vals
			k := len(e.m.Vars[v].States)
			for row := 0; row < len(w); row += k {
				n := e.total[v][row : row+k]
				rowN := 0.0
				for _, x := range n {
					rowN += x
				}
				for j, x := range n {
					if w[row+j] > 0 && rowN > 0 {
						grad[v][row+j] = x / w[row+j] / rowN
					} else {
						grad[v][row+j] = 0
					}
				}
			}
		}
		eta0 := eta
		next, nll, err := e.search(cur, grad, ll, &eta)
		if err == nil && next == nil && eta0 != DefaultEta {
			// The search only shrinks a step that fails: from a step too
			// small to change an entry, or to change the log-likelihood
			// beyond rounding (a tiny eta, given or adapted), it fails
			// at once, far from a maximum. Search again from the default
			// step before calling it converged.
			eta = DefaultEta
			next, nll, err = e.search(cur, grad, ll, &eta)
		}
		if err != nil {
			return nil, err
		}
		if next == nil {
			// No step raises the log-likelihood: a maximum, to the
			// precision of float64.
			f.converged = true
			break
		}
		ll, cur = nll, next
		if done, err := e.advance(f, next, ll, ll, it, r, starts); done || err != nil {
			return f, err
		}
	}
	return f, nil
}

// search is the line search of one iteration from cur, along grad, whose
// log-likelihood is ll: it halves *eta until a step raises the
// log-likelihood, or doubles it while that raises it more, and returns the
// best model and its log-likelihood (nil if no step raises it), leaving
// *eta at the step taken. e.total holds the expected counts at the model
// returned.
func (e *emRun) search(cur *ir.Model, grad [][]float64, ll float64, eta *float64) (*ir.Model, float64, error) {
	try := func(eta float64) (*ir.Model, float64, bool, error) {
		next, moved, err := e.step(cur, grad, eta)
		if err != nil || !moved {
			return nil, 0, moved, err
		}
		nll, err := e.expectAt(next)
		return next, nll, true, err
	}
	for range maxHalvings {
		next, nll, moved, err := try(*eta)
		if err != nil {
			return nil, 0, err
		}
		if !moved {
			return nil, 0, nil
		}
		if nll <= ll {
			*eta /= 2
			continue
		}
		// Longer steps while they do better; e.total must end at the
		// model returned, so the counts of the best step so far are kept
		// aside while a longer one is tried.
		for range maxHalvings {
			e.keepTotal()
			longer, lll, moved, err := try(2 * *eta)
			if err != nil {
				return nil, 0, err
			}
			if !moved || !(lll > nll) {
				if moved {
					e.restoreTotal()
				}
				break
			}
			next, nll = longer, lll
			*eta *= 2
		}
		return next, nll, nil
	}
	return nil, 0, nil
}

// step returns the model whose learned tables are those of cur moved by
// eta along grad, each row projected on the simplex, and whether any entry
// changed.
func (e *emRun) step(cur *ir.Model, grad [][]float64, eta float64) (*ir.Model, bool, error) {
	moved := false
	dists := make([]ir.Dist, 0, len(e.learned))
	var sorted []float64
	for _, v := range e.learned {
		w := cur.Factor(v).Vals
		f := e.newFactor(v)
		k := f.Card[len(f.Card)-1]
		g := grad[v]
		for row := 0; row < len(w); row += k {
			out := f.Vals[row : row+k]
			for j := range out {
				out[j] = w[row+j] + eta*g[row+j]
			}
			sorted = projectSimplex(out, minEntry, sorted)
			for j := range out {
				moved = moved || out[j] != w[row+j]
			}
		}
		dists = append(dists, e.cpt(v, f))
	}
	m, err := e.m.WithDists(dists...)
	return m, moved, err
}

// projectSimplex replaces y by its Euclidean projection on the simplex
// {x : Σ x = 1, x ≥ lo} (Held, Wolfe and Crowder's sort-based algorithm),
// with scratch space buf (returned, perhaps grown). len(y)·lo must be
// below 1.
func projectSimplex(y []float64, lo float64, buf []float64) []float64 {
	k := len(y)
	if k == 1 {
		y[0] = 1
		return buf
	}
	lo = min(lo, 0.5/float64(k))
	// Project y - lo on {x ≥ 0, Σ x = z}, then add lo back.
	z := 1 - float64(k)*lo
	buf = append(buf[:0], y...)
	for i := range buf {
		buf[i] -= lo
	}
	slices.SortFunc(buf, func(a, b float64) int { return cmp.Compare(b, a) })
	sum, tau := 0.0, 0.0
	for j, u := range buf {
		sum += u
		t := (sum - z) / float64(j+1)
		if u-t > 0 {
			tau = t
		}
	}
	total := 0.0
	for i := range y {
		y[i] = max(y[i]-lo-tau, 0) + lo
		total += y[i]
	}
	for i := range y { // the rounding of tau
		y[i] = min(y[i]/total, 1)
	}
	return buf
}

// keepTotal copies the expected counts aside; restoreTotal puts them back.
func (e *emRun) keepTotal() {
	if e.kept == nil {
		e.kept = e.tables()
	}
	for _, v := range e.learned {
		copy(e.kept[v], e.total[v])
	}
}

func (e *emRun) restoreTotal() {
	for _, v := range e.learned {
		copy(e.total[v], e.kept[v])
	}
}
