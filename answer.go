package pbl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/hypothesis"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/internal/input"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// AnswerOptions configures Answer.
type AnswerOptions struct {
	Infer infer.Options
	// Top is the most hypotheses P(H | D) lists (default 1,000).
	Top int
	// Seed seeds Gibbs draws (default 1): the same seed draws the same
	// hypothesis.
	Seed uint64
	// Context, if not nil, stops a long answer when it is done: the
	// reading of a data file's rows, the evaluation of hypotheses, the
	// inference of each row (the states of a variable as hypotheses)
	// check it every few thousand steps, and the answer fails with
	// ctx.Err(); an ordinary query is stopped through Infer.Cancel,
	// which is Context.Done() if not set.
	Context context.Context
	// RegularFilesOnly makes a data file that is not a regular file (a
	// named pipe, a device) an error rather than read: see
	// LoadOptions.RegularFilesOnly.
	RegularFilesOnly bool
}

// DefaultTop is the number of hypotheses P(H | D) lists by default.
const DefaultTop = 1000

// MaxTop is the most hypotheses P(H | D) lists, whatever Top asks: each
// listed is a row in memory and in the output, and a larger --top is
// refused when the posterior has more hypotheses than this to list.
const MaxTop = 1_000_000

// TopError is the refusal to list more than MaxTop hypotheses, of kind
// hypothesis.ErrTooLarge: the query would list List of them, Options.Top
// being Top.
type TopError struct {
	Query     string // the query's text
	List, Top int
}

func (e *TopError) Error() string {
	return fmt.Sprintf("%s would list %d hypotheses (the top %d asked for), more than the limit of %d: ask for fewer", e.Query, e.List, e.Top, MaxTop)
}

// Unwrap returns hypothesis.ErrTooLarge.
func (e *TopError) Unwrap() error { return hypothesis.ErrTooLarge }

// checkListing refuses to list more than MaxTop hypotheses: n have a
// non-zero posterior, top are asked for.
func checkListing(q *hypAsk, n, top int) error {
	if k := min(n, top); k > MaxTop {
		e := &TopError{Query: q.Text, List: k, Top: top}
		return &ir.Error{Pos: q.Pos, Msg: e.Error(), Err: e}
	}
	return nil
}

// An Answer is a query's answer: the engines' result, or for a query
// about hypotheses given data, the hypotheses', or for a query about
// decisions, the decisions'.
type Answer struct {
	Infer    infer.Result
	Hyp      *report.Hyp
	Decision *report.Decision // the answer to MEU(), policy(D) or EU(D=d | e)
	Causal   *report.Causal   // the answer to a causal question: identify, adjust, CF, or P on a model with unobserved confounders

	model *ir.Model // the model answered, for the results by name (named.go)
}

// Answer answers q on m: a query about hypotheses given data (q.Hyp) by
// package hypothesis (or, when the hypotheses are a variable's states, by
// exact inference on each row), any other by infer.Answer.
func AnswerQuery(m *ir.Model, q ir.Query, opt AnswerOptions) (*Answer, error) {
	if opt.Context != nil && opt.Infer.Cancel == nil {
		opt.Infer.Cancel = opt.Context.Done()
	}
	if cq, ok := q.(*ir.CausalQuery); ok {
		c, err := answerCausal(m, cq, opt.RegularFilesOnly)
		if err == nil {
			err = c.Check()
		}
		if err != nil {
			return nil, err
		}
		return &Answer{Causal: c, model: m}, nil
	}
	if dq, ok := q.(*ir.DecisionQuery); ok {
		d, err := answerDecision(m, dq, opt)
		if err == nil {
			err = d.Check()
		}
		if err != nil {
			return nil, err
		}
		return &Answer{Decision: d, model: m}, nil
	}
	hq := askOf(q)
	if hq == nil {
		res, err := infer.Answer(m, q, opt.Infer)
		if err != nil {
			return nil, err
		}
		return &Answer{Infer: res, model: m}, nil
	}
	h, err := answerHyp(m, hq, opt)
	if err == nil {
		err = h.Check() // never a NaN printed
	}
	if err != nil {
		return nil, err
	}
	return &Answer{Hyp: h, model: m}, nil
}

// A hypAsk is a query about hypotheses given data as answerHyp reads it.
type hypAsk struct {
	orig ir.Query
	*ir.QueryHeader
	Hyp  *ir.HypQuery
	Kind hypKind
}

// A hypKind is the kind of a query about hypotheses, as written.
type hypKind string

const (
	hypProb  hypKind = "P"
	hypMAP   hypKind = "MAP"
	hypML    hypKind = "ML"
	hypMDL   hypKind = "MDL"
	hypGibbs hypKind = "Gibbs"
)

// askOf returns q as answerHyp reads it, or nil if q is not about
// hypotheses given data: the root package's one switch on query kinds.
func askOf(q ir.Query) *hypAsk {
	a := &hypAsk{orig: q, QueryHeader: q.Head()}
	switch q := q.(type) {
	case *ir.ProbQuery:
		a.Hyp, a.Kind = q.Hyp, hypProb
	case *ir.MAPQuery:
		a.Hyp, a.Kind = q.Hyp, hypMAP
	case *ir.MLQuery:
		a.Hyp, a.Kind = q.Hyp, hypML
	case *ir.MDLQuery:
		a.Hyp, a.Kind = q.Hyp, hypMDL
	case *ir.GibbsQuery:
		a.Hyp, a.Kind = q.Hyp, hypGibbs
	case *ir.MPEQuery, *ir.IndepQuery, *ir.DensityQuery, *ir.EntropyQuery, *ir.MIQuery, *ir.DecisionQuery, *ir.CausalQuery:
	default:
		panic(fmt.Sprintf("pbl: unknown query %T", q))
	}
	if a.Hyp == nil {
		return nil
	}
	return a
}

// Text writes the answer for people.
func (a *Answer) Text(w io.Writer, m *ir.Model) { a.TextStyle(w, m, report.Style{}) }

// TextStyle writes the answer for people, an approximate one's reason in
// the style s.
func (a *Answer) TextStyle(w io.Writer, m *ir.Model, s report.Style) {
	if a.Hyp != nil {
		report.HypText(w, a.Hyp)
		return
	}
	if a.Causal != nil {
		report.CausalText(w, a.Causal)
		return
	}
	if a.Decision != nil {
		report.DecisionText(w, a.Decision)
		return
	}
	s.Text(w, m, a.Infer)
}

// JSON writes the answer as one line of JSON.
func (a *Answer) JSON(w io.Writer, m *ir.Model) error { return a.JSONStyle(w, m, report.Style{}) }

// JSONStyle writes the answer as one line of JSON, an approximate one's
// reason in the style s.
func (a *Answer) JSONStyle(w io.Writer, m *ir.Model, s report.Style) error {
	if a.Hyp != nil {
		return report.HypJSON(w, a.Hyp)
	}
	if a.Causal != nil {
		return report.CausalJSON(w, a.Causal)
	}
	if a.Decision != nil {
		return report.DecisionJSON(w, a.Decision)
	}
	return s.JSON(w, m, a.Infer)
}

func answerHyp(m *ir.Model, q *hypAsk, opt AnswerOptions) (*report.Hyp, error) {
	ctx := opt.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if opt.Top <= 0 {
		opt.Top = DefaultTop
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	h := q.Hyp
	if h.Space == nil {
		return answerVarHyp(ctx, m, q, opt)
	}
	d, err := spaceData(ctx, m, h.Space, h.Data, q.Pos, opt.RegularFilesOnly)
	if err != nil {
		return nil, err
	}
	if h.Space.Concept != nil {
		return answerConcept(ctx, m, q, d, opt)
	}
	if h.Space.Continuous() {
		return answerFit(ctx, m, q, d)
	}
	post, err := hypothesis.Evaluate(ctx, h.Space, m, d)
	if err != nil {
		return nil, err
	}
	out := &report.Hyp{Query: q.orig, Total: post.Len(), Support: post.Support()}
	for _, p := range h.Space.Params {
		out.Names = append(out.Names, p.Name)
	}
	values := func(i int) []any {
		var vs []any
		for _, x := range post.Hypothesis(i) {
			vs = append(vs, x)
		}
		return vs
	}
	if !h.Classify {
		if err := chooseHyps(out, q, post, values, opt); err != nil {
			return nil, err
		}
		return out, nil
	}
	p1, drawn, err := predictGrid(m, q, post, opt)
	if err != nil {
		return nil, err
	}
	out.Target, out.Classes, out.P = h.Target, []string{"1", "0"}, []float64{p1, 1 - p1}
	if drawn >= 0 {
		out.Hyps = []report.HypRow{hypRow(post, drawn, values)}
	}
	return out, nil
}

// hypPosterior is a posterior over numbered hypotheses: a grid's
// (hypothesis.Posterior) or a variable's states' (smallPosterior).
type hypPosterior interface {
	Support() int
	LogPrior(i int) float64
	LogLikelihood(i int) float64
	LogPosterior(i int) float64
	Top(k int) []int
	MAP() int
	ML() int
	MDL() (i int, bitsH, bitsD float64)
	Gibbs(r *rand.Rand) int
}

// hypRow is hypothesis i of post as the report shows it, its components'
// values given by values.
func hypRow(post hypPosterior, i int, values func(int) []any) report.HypRow {
	return report.HypRow{Values: values(i), LogPrior: post.LogPrior(i), LogLik: post.LogLikelihood(i), LogPost: post.LogPosterior(i)}
}

// chooseHyps sets out's hypotheses for q, a query about the posterior
// post: the top listing of P(H | D), or the MAP, ML, MDL or drawn one.
func chooseHyps(out *report.Hyp, q *hypAsk, post hypPosterior, values func(int) []any, opt AnswerOptions) error {
	row := func(i int) report.HypRow { return hypRow(post, i, values) }
	switch q.Kind {
	case hypProb:
		if err := checkListing(q, post.Support(), opt.Top); err != nil {
			return err
		}
		for _, i := range post.Top(opt.Top) {
			out.Hyps = append(out.Hyps, row(i))
		}
	case hypMAP:
		out.Hyps = []report.HypRow{row(post.MAP())}
	case hypML:
		out.Hyps = []report.HypRow{row(post.ML())}
	case hypMDL:
		i, bh, bd := post.MDL()
		out.Hyps, out.BitsH, out.BitsD = []report.HypRow{row(i)}, bh, bd
	case hypGibbs:
		out.Hyps = []report.HypRow{row(post.Gibbs(rand.New(rand.NewPCG(opt.Seed, 0))))}
	}
	return nil
}

// spaceData reads the data set t for space s, refusing a file that is
// not a regular file if regularOnly.
func spaceData(ctx context.Context, m *ir.Model, s *ir.Space, t *ir.DataTable, at ir.Pos, regularOnly bool) (*hypothesis.Data, error) {
	if t.File == "" {
		return hypothesis.FromTable(s, m, t)
	}
	var d *hypothesis.Data
	err := requireRegular(t.File, regularOnly)
	if err == nil {
		d, err = hypothesis.ReadCSVContext(ctx, t.File, s, m)
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return nil, &ir.Error{Pos: at, Msg: fmt.Sprintf("cannot read data %s from %s: %v", strconv.Quote(t.Name), pe.Path, pe.Err), Err: err}
	}
	return d, err
}

// answerFit answers ML (or MAP, with a uniform prior the same) for a
// space with continuous parameters, found in closed form or by gradient
// ascent.
func answerFit(ctx context.Context, m *ir.Model, q *hypAsk, d *hypothesis.Data) (*report.Hyp, error) {
	s := q.Hyp.Space
	if q.Kind != hypML && !(q.Kind == hypMAP && s.Prior == nil) {
		return nil, &ir.Error{Pos: q.Pos, Msg: fmt.Sprintf("space %s has continuous parameters: pbl finds its ML hypothesis, ML(%s | %s), but lists no posterior over them (put the parameters on grids, w in -5 .. 5 by 0.01, for %s)", strconv.Quote(s.Name), ir.Quote(s.Name), q.Hyp.Data.Name, q.Kind), Err: hypothesis.ErrContinuous}
	}
	fit, err := hypothesis.FitML(ctx, s, m, d, nil)
	if err != nil {
		return nil, err
	}
	out := &report.Hyp{Query: q.orig, Continuous: true, Trace: fit.CrossEntropy, NotConverged: !fit.Converged}
	var vs []any
	for i, p := range s.Params {
		out.Names = append(out.Names, p.Name)
		vs = append(vs, fit.Params[i])
	}
	out.Hyps = []report.HypRow{{Values: vs, LogPrior: math.NaN(), LogLik: fit.LogLikelihood, LogPost: math.NaN()}}
	return out, nil
}

// answerVarHyp answers a query whose hypotheses are the states of a
// discrete variable H of the model: P(H | D) ∝ P(H) Π_rows P(row | H),
// each row's probability given H by exact inference.
func answerVarHyp(ctx context.Context, m *ir.Model, q *hypAsk, opt AnswerOptions) (*report.Hyp, error) {
	h := q.Hyp
	v := m.Vars[h.Var]
	rows, err := varRows(ctx, m, q, opt.RegularFilesOnly)
	if err != nil {
		return nil, err
	}
	prior, err := infer.Posterior(m, h.Var, nil, opt.Infer)
	if err != nil {
		return nil, err
	}
	k := len(v.States)
	lp, ll := make([]float64, k), make([]float64, k)
	for s := range k {
		lp[s] = math.Log(prior[s])
	}
	// Identical rows are one inference, counted.
	type pattern struct {
		obs   []ir.Obs
		count float64
	}
	var pats []*pattern
	index := map[string]*pattern{}
	for i, obs := range rows {
		if i%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		key := fmt.Sprint(obs)
		if p, ok := index[key]; ok {
			p.count++
			continue
		}
		p := &pattern{obs: obs, count: 1}
		index[key] = p
		pats = append(pats, p)
	}
	for s := range k {
		if prior[s] == 0 {
			ll[s] = math.Inf(-1)
			continue
		}
		for _, p := range pats {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			e := append(slices.Clip(p.obs), ir.Obs{Var: h.Var, State: s})
			lj, err := infer.LogPE(m, e, opt.Infer)
			if err != nil {
				return nil, err
			}
			ll[s] += p.count * (lj - lp[s])
		}
	}
	post := newSmallPosterior(lp, ll)
	out := &report.Hyp{Query: q.orig, Names: []string{v.Name}, Total: k, Support: post.Support()}
	if post.Support() == 0 {
		return nil, &ir.Error{Pos: q.Pos, Msg: fmt.Sprintf("the data %s is impossible under every state of %s", strconv.Quote(h.Data.Name), strconv.Quote(v.Name)), Err: infer.ErrImpossible}
	}
	if err := chooseHyps(out, q, post, func(i int) []any { return []any{v.States[i]} }, opt); err != nil {
		return nil, err
	}
	return out, nil
}

// varRows returns the rows of the data of q, a query about the states of
// a variable, as evidence on m's variables, refusing a file that is not a
// regular file if regularOnly, and a file with a column for the variable
// (ir.LowerQuery refuses an inline table with one).
func varRows(ctx context.Context, m *ir.Model, q *hypAsk, regularOnly bool) ([][]ir.Obs, error) {
	t, at, hyp := q.Hyp.Data, q.Pos, q.Hyp.Var
	var rows [][]ir.Obs
	if t.File == "" {
		for _, r := range t.Rows {
			var obs []ir.Obs
			for j, s := range r {
				if s >= 0 {
					obs = append(obs, ir.Obs{Var: t.Vars[j], State: int(s)})
				}
			}
			rows = append(rows, obs)
		}
		return rows, nil
	}
	var src []byte
	err := requireRegular(t.File, regularOnly)
	if err == nil {
		src, err = input.ReadDataContext(ctx, t.File)
	}
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, &ir.Error{Pos: at, Msg: fmt.Sprintf("cannot read data %s: %v", strconv.Quote(t.Name), unwrapPathErr(err)), Err: err}
	}
	rd, err := data.NewReader(t.File, &cancelReader{r: bytes.NewReader(src), cancel: ctx.Done()}, m, data.Options{})
	var b *data.Batch
	if err == nil {
		defer rd.Close()
		b, err = data.ReadRest(rd)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	if j := slices.Index(b.Vars, hyp); j >= 0 {
		return nil, &ir.Error{Pos: rd.HeaderPos[j], Msg: ir.HypColumnMsg(m.Vars[hyp].Name, t.Name, q.Text)}
	}
	for j, col := range b.Reals {
		// Each row is discrete evidence: a real column would be left out
		// of the likelihood, silently (as an inline table's is refused
		// when the query is lowered).
		if col != nil {
			return nil, &ir.Error{Pos: at, Msg: fmt.Sprintf("the data %s has a column of the real-valued %s: the rows of P(%s | D) are observations of discrete variables",
				strconv.Quote(t.Name), ir.Quote(m.Vars[b.Vars[j]].Name), ir.Quote(m.Vars[hyp].Name))}
		}
	}
	for i := range b.N {
		if i%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var obs []ir.Obs
		for j, col := range b.Cols {
			if col != nil && col[i] != data.Missing {
				obs = append(obs, ir.Obs{Var: b.Vars[j], State: int(col[i])})
			}
		}
		rows = append(rows, obs)
	}
	return rows, nil
}
