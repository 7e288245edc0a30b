package hypothesis

import (
	"fmt"
	"math"

	"github.com/pbl-lang/pbl/internal/par"
	"github.com/pbl-lang/pbl/ir"
)

// Predict returns the Bayes optimal probability (Mitchell §6.7) that
// column (an index in Space.Columns, observed as bernoulli) is 1 for a new
// instance whose columns have the values x (in Space.Columns' order; the
// predicted column's own value is ignored):
//
//	P(column = 1 | D, x) = Σ_h P(1 | h, x)·P(h|D)
//
// summed over the hypotheses of non-zero posterior, in fixed chunks in
// parallel. A probability outside [0, 1] under a hypothesis is an error
// (ErrDomain), as in Evaluate.
func (p *Posterior) Predict(column int, x []float64) (float64, error) {
	return p.predict(-1, column, x)
}

// PredictWith returns P(column = 1 | h, x) under hypothesis i alone: the
// Gibbs algorithm's classification (Mitchell §6.8) of the instance x by a
// hypothesis drawn from the posterior (Gibbs).
func (p *Posterior) PredictWith(i, column int, x []float64) (float64, error) {
	return p.predict(i, column, x)
}

// predict is Predict over every hypothesis (only < 0) or under hypothesis
// only.
func (p *Posterior) predict(only, column int, x []float64) (float64, error) {
	s := p.Space
	var o *obsEval
	for _, oe := range p.like.obs {
		if oe.ob.Column == column && oe.ob.Family == ir.FamilyBernoulli {
			o = oe
		}
	}
	if o == nil {
		name := fmt.Sprint(column)
		if column >= 0 && column < len(s.Columns) {
			name = s.Columns[column]
		}
		return 0, ir.ErrorList{{Pos: s.Pos, Msg: fmt.Sprintf("%s observes no column %s as bernoulli: there is nothing to classify", s.Name, name)}}
	}
	if len(x) != len(s.Columns) {
		return 0, fmt.Errorf("hypothesis: an instance of %d values for %d columns", len(x), len(s.Columns))
	}
	if only >= 0 {
		h := p.Hypothesis(only)
		q := o.args[0].at(h, x)
		if !(q >= 0 && q <= 1) {
			return 0, p.like.domainError(o.args[0].e.Position(), "the probability is %g (it must be in [0, 1]) under %s for the new instance", q, hypText(s, h))
		}
		return q, nil
	}
	p.normalise()
	n := p.Len()
	chunks := (n + chunk - 1) / chunk
	sums := make([]float64, chunks)
	errs := make([]error, chunks)
	par.For(chunks, func(c int) {
		for i := c * chunk; i < min(n, (c+1)*chunk); i++ {
			lp := p.logPost(i) - p.logZ
			if lp == math.Inf(-1) {
				continue
			}
			h := p.Hypothesis(i)
			q := o.args[0].at(h, x)
			if !(q >= 0 && q <= 1) {
				errs[c] = p.like.domainError(o.args[0].e.Position(), "the probability is %g (it must be in [0, 1]) under %s for the new instance", q, hypText(s, h))
				return
			}
			sums[c] += q * math.Exp(lp)
		}
	})
	var sum float64
	for c := range chunks {
		if errs[c] != nil {
			return 0, errs[c]
		}
		sum += sums[c]
	}
	return min(sum, 1), nil
}
