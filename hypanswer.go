package pbl

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/pbl-lang/pbl/hypothesis"
	"github.com/pbl-lang/pbl/internal/spell"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// answerConcept answers a query about a concept space: its version space
// (P(H | D): each member with posterior 1/|VS|, and the boundaries S and
// G), a hypothesis (MAP, ML, MDL: every member is one; the first of S, the
// most specific, is given), a Gibbs draw, or a new instance's
// classification.
func answerConcept(ctx context.Context, m *ir.Model, q *hypAsk, d *hypothesis.Data, opt AnswerOptions) (*report.Hyp, error) {
	h := q.Hyp
	vs, err := hypothesis.EvaluateConcept(ctx, h.Space, m, d)
	if err != nil {
		return nil, err
	}
	out := &report.Hyp{Query: q.orig, Total: vs.Total, Support: vs.Len()}
	for _, a := range vs.Attrs {
		out.Names = append(out.Names, a.Name)
	}
	lp, lpost := vs.LogPrior(), vs.LogPosterior()
	row := func(c hypothesis.Conjunction) report.HypRow {
		vals := make([]any, len(c))
		empty := false
		for _, x := range c {
			empty = empty || x == hypothesis.Empty
		}
		for k, x := range c {
			switch {
			case empty:
				vals[k] = "∅"
			case x == hypothesis.Any:
				vals[k] = "?"
			default:
				vals[k] = vs.Attrs[k].States[x]
			}
		}
		return report.HypRow{Values: vals, LogPrior: lp, LogLik: 0, LogPost: lpost}
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0))
	switch {
	case h.Classify:
		x, err := conceptInstance(m, q, vs)
		if err != nil {
			return nil, err
		}
		t := vs.Target
		out.Target = t.Name
		out.Classes = append([]string(nil), t.States...)
		out.P = make([]float64, len(t.States))
		// A conjunction predicts the positive state when it covers x; the
		// target's other state (a concept's target has two) otherwise.
		neg := 1 - vs.Positive
		if len(t.States) != 2 {
			return nil, &ir.Error{Pos: q.Pos, Msg: fmt.Sprintf("the concept's target %s has %d states: a conjunction classifies into two", strconv.Quote(t.Name), len(t.States))}
		}
		p := 0.0
		if q.Kind == hypGibbs {
			g := vs.Gibbs(rng)
			if g.Covers(x) {
				p = 1
			}
			out.Hyps = []report.HypRow{row(g)}
		} else {
			p = vs.Predict(x)
		}
		out.P[vs.Positive], out.P[neg] = p, 1-p
	case q.Kind == hypProb:
		if err := checkListing(q, vs.Len(), opt.Top); err != nil {
			return nil, err
		}
		for i, c := range vs.Members {
			if i >= opt.Top {
				break
			}
			out.Hyps = append(out.Hyps, row(c))
		}
		for _, c := range vs.S {
			out.S = append(out.S, row(c))
		}
		for _, c := range vs.G {
			out.G = append(out.G, row(c))
		}
	case q.Kind == hypGibbs:
		out.Hyps = []report.HypRow{row(vs.Gibbs(rng))}
	default:
		// Every member of the version space is a MAP (and ML, and MDL)
		// hypothesis: report the most specific, S's first.
		r := row(vs.S[0])
		out.Hyps = []report.HypRow{r}
		out.BitsH, out.BitsD = -r.LogPrior/ln2, 0
	}
	return out, nil
}

const ln2 = 0.6931471805599453

// conceptInstance resolves a new instance's attribute states.
func conceptInstance(m *ir.Model, q *hypAsk, vs *hypothesis.VersionSpace) ([]int, error) {
	x := make([]int, len(vs.Attrs))
	for k := range x {
		x[k] = -1
	}
	var errs ir.ErrorList
	for _, g := range q.Hyp.Instance {
		k := -1
		names := make([]string, len(vs.Attrs))
		for i, a := range vs.Attrs {
			names[i] = a.Name
			if a.Name == g.Name {
				k = i
			}
		}
		if k < 0 {
			msg := fmt.Sprintf("%s is not an attribute of the concept", strconv.Quote(g.Name))
			if s := spell.Nearest(g.Name, names); s != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", strconv.Quote(s))
			}
			errs.Add(g.Pos, "%s", msg)
			continue
		}
		a := vs.Attrs[k]
		s := a.State(g.Value)
		if s < 0 {
			errs.Add(g.Pos, "unknown state %s of %s%s", strconv.Quote(g.Value), strconv.Quote(a.Name), ir.StateHint(a, g.Value))
			continue
		}
		x[k] = s
	}
	for k, s := range x {
		if s < 0 && len(errs) == 0 {
			errs.Add(q.Pos, "give the new instance's %s (a concept classifies an instance with every attribute given)", strconv.Quote(vs.Attrs[k].Name))
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return x, nil
}

// smallPosterior is the posterior over a few hypotheses given their log
// priors and log-likelihoods (a variable's states).
type smallPosterior struct {
	lp, ll, post []float64 // post: the normalised log posterior
	support      int
}

func newSmallPosterior(lp, ll []float64) *smallPosterior {
	p := &smallPosterior{lp: lp, ll: ll, post: make([]float64, len(lp))}
	top := math.Inf(-1)
	for i := range lp {
		top = max(top, lp[i]+ll[i])
	}
	sum := 0.0
	for i := range lp {
		if x := lp[i] + ll[i]; !math.IsInf(x, -1) {
			sum += math.Exp(x - top)
			p.support++
		}
	}
	z := top + math.Log(sum)
	for i := range lp {
		p.post[i] = lp[i] + ll[i] - z
	}
	return p
}

func (p *smallPosterior) Support() int                { return p.support }
func (p *smallPosterior) LogPrior(i int) float64      { return p.lp[i] }
func (p *smallPosterior) LogLikelihood(i int) float64 { return p.ll[i] }
func (p *smallPosterior) LogPosterior(i int) float64  { return p.post[i] }

// argmax returns the first index of the largest f(i).
func (p *smallPosterior) argmax(f func(i int) float64) int {
	best := 0
	for i := range p.lp {
		if f(i) > f(best) {
			best = i
		}
	}
	return best
}

func (p *smallPosterior) MAP() int { return p.argmax(p.LogPosterior) }
func (p *smallPosterior) ML() int  { return p.argmax(p.LogLikelihood) }

// MDL returns the hypothesis of shortest total description, −log2 P(h) −
// log2 P(D|h) (the MAP one), and its two lengths in bits.
func (p *smallPosterior) MDL() (int, float64, float64) {
	i := p.MAP()
	return i, -p.lp[i] / ln2, -p.ll[i] / ln2
}

// Top returns the hypotheses with a non-zero posterior, highest first
// (ties in index order), at most k.
func (p *smallPosterior) Top(k int) []int {
	var idx []int
	for i := range p.post {
		if !math.IsInf(p.post[i], -1) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(p.post[b], p.post[a]) })
	return idx[:min(k, len(idx))]
}

// Gibbs draws a hypothesis from the posterior.
func (p *smallPosterior) Gibbs(r *rand.Rand) int {
	u, acc := r.Float64(), 0.0
	last := 0
	for i, x := range p.post {
		if math.IsInf(x, -1) {
			continue
		}
		acc += math.Exp(x)
		last = i
		if u < acc {
			return i
		}
	}
	return last
}

// predictGrid classifies a new instance with a grid space's bernoulli
// observation: Bayes optimal, P(target = 1 | D, x) = Σ_h P(1 | h, x) P(h |
// D), or by a hypothesis drawn from the posterior (Gibbs; its index is
// returned, else -1).
func predictGrid(m *ir.Model, q *hypAsk, post *hypothesis.Posterior, opt AnswerOptions) (float64, int, error) {
	h := q.Hyp
	s := h.Space
	target := slices.Index(s.Columns, h.Target)
	x := make([]float64, len(s.Columns))
	given := make([]bool, len(s.Columns))
	given[target] = true
	var errs ir.ErrorList
	for _, g := range h.Instance {
		j := slices.Index(s.Columns, g.Name)
		if j < 0 {
			msg := fmt.Sprintf("space %s reads no column %s", strconv.Quote(s.Name), strconv.Quote(g.Name))
			if n := spell.Nearest(g.Name, s.Columns); n != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", strconv.Quote(n))
			}
			errs.Add(g.Pos, "%s", msg)
			continue
		}
		v, err := strconv.ParseFloat(g.Value, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			errs.Add(g.Pos, "%s is a column of numbers: give it a finite number, not %s", strconv.Quote(g.Name), strconv.Quote(g.Value))
			continue
		}
		x[j], given[j] = v, true
	}
	for j, ok := range given {
		if !ok && len(errs) == 0 {
			errs.Add(q.Pos, "give the new instance's %s, as in %s=1.5", strconv.Quote(s.Columns[j]), ir.Quote(s.Columns[j]))
		}
	}
	if err := errs.Err(); err != nil {
		return 0, -1, err
	}
	if q.Kind == hypGibbs {
		i := post.Gibbs(rand.New(rand.NewPCG(opt.Seed, 0)))
		p, err := post.PredictWith(i, target, x)
		return p, i, err
	}
	p, err := post.Predict(target, x)
	return p, -1, err
}
