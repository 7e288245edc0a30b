package ir

import (
	"math"
	"strconv"
)

// Softmax is the distribution of a discrete variable with real-valued
// parents (issue 31, item 4): given configuration u of the discrete
// Parents (row-major, the last fastest) and the values x of the Real
// parents, state s of the child (of k states) has the score
//
//	a_s(u, x) = Bias[u*k+s] + Σ_j Coef[(u*k+s)*len(Real)+j]·x_j
//
// and the probability exp(a_s) / Σ_t exp(a_t) (the softmax of the
// scores). logistic(A), for a child of two states, is the softmax of (A,
// 0): A is the log-odds of the first state (true for a bool), whose
// probability is 1 / (1 + exp(−A)). Model.Parents lists Parents then
// Real.
//
// Such a variable makes the posterior of the real variables non-Gaussian:
// the exact engines refuse a model that has one, and the approximate
// engines (likelihood weighting) answer it. It has no [Model.Table].
type Softmax struct {
	Pos     Pos
	Child   VarID
	K       int       // the child's number of states, at least 2
	Parents []VarID   // the discrete parents, or nil
	Real    []VarID   // the real-valued parents, at least one
	Bias    []float64 // k per configuration: each state's intercept
	Coef    []float64 // len(Real) per state and configuration, row-major
	// Logistic holds, per configuration, whether it was written
	// logistic(A) (the second state's score is then 0); nil when every
	// one was written softmax(...).
	Logistic []bool
}

func (d *Softmax) Position() Pos { return d.Pos }
func (*Softmax) dist()           {}

// Configs returns the number of configurations of the discrete parents.
func (d *Softmax) Configs() int { return len(d.Bias) / max(1, d.K) }

// IsLogistic reports whether configuration u was written logistic(A).
func (d *Softmax) IsLogistic(u int) bool { return u < len(d.Logistic) && d.Logistic[u] }

// ProbsTo writes into dst (len k, the child's number of states) the
// child's distribution given configuration u of the discrete parents and
// the values x of the real ones (len(Real)), and returns it. The scores
// are shifted by their largest before exponentiation, so that no score,
// however large, overflows: a score of +Inf (a real value at infinity)
// gives its state probability 1.
func (d *Softmax) ProbsTo(dst []float64, u int, x []float64) []float64 {
	k, nr := d.K, len(d.Real)
	dst = dst[:k]
	hi := math.Inf(-1)
	for s := range k {
		a := d.Bias[u*k+s]
		c := d.Coef[(u*k+s)*nr : (u*k+s+1)*nr]
		for j, xj := range x {
			if c[j] != 0 {
				a += c[j] * xj
			}
		}
		if math.IsNaN(a) {
			a = math.Inf(-1)
		}
		dst[s] = a
		hi = max(hi, a)
	}
	if math.IsInf(hi, 1) {
		n := 0.0
		for s, a := range dst {
			dst[s] = 0
			if math.IsInf(a, 1) {
				dst[s] = 1
				n++
			}
		}
		for s := range dst {
			dst[s] /= n
		}
		return dst
	}
	sum := 0.0
	for s, a := range dst {
		dst[s] = math.Exp(a - hi)
		sum += dst[s]
	}
	for s := range dst {
		dst[s] /= sum
	}
	return dst
}

// Params is the number of free parameters of d: per configuration,
// (k − 1)·(1 + len(Real)) (the scores are known up to a common affine
// function of the real parents).
func (d *Softmax) Params() int {
	return d.Configs() * (d.K - 1) * (1 + len(d.Real))
}

// checkSoftmax reports scores that are not finite and numbers that do
// not fit the configurations.
func checkSoftmax(errs *ErrorList, m *Model, d *Softmax) bool {
	name := strconv.Quote(m.Vars[d.Child].Name)
	n, _ := TableSize(cards(m, d.Parents))
	if d.K != len(m.Vars[d.Child].States) || d.K < 2 || len(d.Real) == 0 || len(d.Bias) != n*d.K || len(d.Coef) != len(d.Bias)*len(d.Real) ||
		d.Logistic != nil && len(d.Logistic) != n {
		errs.Add(d.Pos, "the distribution of %s has %d intercepts and %d coefficients, not those of %d configurations of %d states and %d real parents",
			name, len(d.Bias), len(d.Coef), n, len(m.Vars[d.Child].States), len(d.Real))
		return false
	}
	for _, p := range d.Parents {
		if !m.Vars[p].Discrete() {
			errs.Add(d.Pos, "%s is real-valued: list it among the real parents of %s", strconv.Quote(m.Vars[p].Name), name)
			return false
		}
	}
	for _, p := range d.Real {
		if m.Vars[p].Discrete() {
			errs.Add(d.Pos, "%s is discrete: list it among the discrete parents of %s", strconv.Quote(m.Vars[p].Name), name)
			return false
		}
	}
	for _, x := range d.Bias {
		if !finite(x) {
			errs.Add(d.Pos, "the scores of %s must be finite, not %s", name, FormatFloat(x))
			return false
		}
	}
	for _, x := range d.Coef {
		if !finite(x) {
			errs.Add(d.Pos, "the coefficients of %s must be finite, not %s", name, FormatFloat(x))
			return false
		}
	}
	return true
}

// cards returns the numbers of states of vs.
func cards(m *Model, vs []VarID) []int {
	out := make([]int, len(vs))
	for i, v := range vs {
		out[i] = len(m.Vars[v].States)
	}
	return out
}
