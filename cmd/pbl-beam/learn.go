package main

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/formats/bif"
	"github.com/pbl-lang/pbl/formats/source"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
	"github.com/pbl-lang/pbl/mixture"
	"github.com/pbl-lang/pbl/report"
)

// This file learns from shards: counting (mle, bayes, mestimate: one
// pass, learn.Counts merged), network EM (one pass per iteration,
// learn.EMPlan's E-step per shard, learn.EMStats merged, the M-step on
// the driver) and a model that is a Gaussian mixture alone (one pass per
// iteration, mixture.GMMStats). Open variables take their states in a
// pass of their own first.

// countJob is the job of a counting or E-step pass.
type countJob struct {
	Opt  learn.Options
	Cols []ir.VarID // EM: the data's columns (the plan's)
}

// countStats travel as learn.Counts' own encoding.
type countStats struct {
	Counts []byte         // learn.Counts, encoded
	EM     *learn.EMStats // an EM iteration's statistics
}

func (c *countStats) merge(o *countStats) {
	mergeInto(&c.EM, o.EM, (*learn.EMStats).Merge)
	if o.Counts != nil {
		if c.Counts == nil {
			c.Counts = o.Counts
			return
		}
		a, b := &learn.Counts{}, &learn.Counts{}
		if err := a.UnmarshalBinary(c.Counts); err != nil {
			panic(err)
		}
		if err := b.UnmarshalBinary(o.Counts); err != nil {
			panic(err)
		}
		a.Merge(b)
		enc, err := a.MarshalBinary()
		if err != nil {
			panic(err)
		}
		c.Counts = enc
	}
}

// counts counts the rows of r (the counting pass), or adds their E-step
// statistics under the side input's parameters (EM).
func (j *job) counts(m *ir.Model, r *data.Reader, params []byte) (*partial, error) {
	if j.Counts.Opt.Method == learn.EM {
		// The E-step calibrates each distinct row of a batch once: large
		// batches have fewer distinct rows per row.
		b := r.NewBatch(emRows)
		if !slices.Equal(r.Vars, j.Counts.Cols) {
			return nil, fmt.Errorf("%s: its columns (%s) are not those of the first shard (%s): every shard must have the same columns",
				r.File(), m.NameList(r.Vars, 8), m.NameList(j.Counts.Cols, 8))
		}
		plan, err := planFor(m, j)
		if err != nil {
			return nil, err
		}
		pm, err := loadParams(params)
		if err != nil {
			return nil, fmt.Errorf("loading the parameters: %v", err)
		}
		es, err := plan.EStep(pm)
		if err != nil {
			return nil, err
		}
		st := es.NewStats()
		if err := eachBatch(r, b, func(b *data.Batch) error { return es.Add(st, b) }); err != nil {
			return nil, err
		}
		return &partial{Rows: st.Rows, Counts: &countStats{EM: st}}, nil
	}
	c := learn.NewCounts(m, j.Counts.Opt)
	err := eachBatch(r, r.NewBatch(4096), func(b *data.Batch) error {
		c.Add(b)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := c.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", r.File(), err)
	}
	enc, err := c.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return &partial{Rows: int64(c.Rows()), Counts: &countStats{Counts: enc}}, nil
}

// emRows is the number of rows of a batch of the E-step.
const emRows = 1 << 16

// planCache holds the plans a worker has made, by key (the model's text
// and the job's options): a plan compiles its junction trees once.
type planCache[P any] struct {
	mu    sync.Mutex
	plans map[string]P
}

// get returns the plan of key, made by build the first time.
func (c *planCache[P]) get(key string, build func() (P, error)) (P, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.plans[key]; ok {
		return p, nil
	}
	p, err := build()
	if err != nil {
		return p, err
	}
	if c.plans == nil {
		c.plans = map[string]P{}
	}
	c.plans[key] = p
	return p, nil
}

// plans caches the EM plans of the workers.
var plans planCache[*learn.EMPlan]

func planFor(m *ir.Model, j *job) (*learn.EMPlan, error) {
	return plans.get(fmt.Sprint(j.Model, j.Counts), func() (*learn.EMPlan, error) {
		return learn.NewEMPlan(m, j.Counts.Cols, j.Counts.Opt)
	})
}

// gmm adds the rows of r to the statistics of an iteration of the
// Gaussian mixture g, over the columns j.Vars.
func (j *job) gmm(m *ir.Model, r *data.Reader, g *mixture.GMM) (*partial, error) {
	cols, comp, ok := mixtureColumns(m, r.Vars, j.Vars)
	if !ok {
		return &partial{Impure: true}, nil
	}
	st := mixture.NewGMMStats(g)
	d := len(cols)
	vals := make([]float64, 0, 4096*d)
	err := eachBatch(r, r.NewBatch(4096), func(b *data.Batch) error {
		var pure bool
		if vals, pure = mixtureRows(b, cols, comp, vals[:0]); !pure {
			return errImpure
		}
		if err := mixture.AddGMM(st, g, mixture.NewMatrix(b.N, d, vals)); err != nil {
			return fmt.Errorf("%s: %v", r.File(), err)
		}
		return nil
	})
	switch {
	case errors.Is(err, errImpure):
		return &partial{Impure: true}, nil
	case err != nil:
		return nil, err
	}
	return &partial{Rows: st.N, GMM: st}, nil
}

// mixtureColumns returns the columns of the mixture's variables vars among
// the data's columns, and the column of its component (or -1); ok is false
// if a variable has no column (the local learner then runs network EM).
func mixtureColumns(m *ir.Model, columns, vars []ir.VarID) (cols []int, comp int, ok bool) {
	col := func(v ir.VarID) int {
		for k, w := range columns {
			if w == v {
				return k
			}
		}
		return -1
	}
	for _, v := range vars {
		k := col(v)
		if k < 0 {
			return nil, 0, false
		}
		cols = append(cols, k)
	}
	return cols, col(m.Mixtures[0].Component), true
}

// mixtureRows appends the values of the columns cols of b's rows to vals,
// and reports whether the rows are those a Gaussian mixture alone learns
// from (package mixture): every value given, the component never
// observed. Other rows are learned by network EM, as the local learner
// does.
func mixtureRows(b *data.Batch, cols []int, comp int, vals []float64) ([]float64, bool) {
	for i := range b.N {
		if comp >= 0 && b.Cols[comp] != nil && b.Cols[comp][i] != data.Missing {
			return vals, false
		}
		for _, k := range cols {
			x := b.Reals[k][i]
			if math.IsNaN(x) {
				return vals, false
			}
			vals = append(vals, x)
		}
	}
	return vals, true
}

// errImpure says that the data is not that of a Gaussian mixture alone
// (see mixtureRows).
var errImpure = errors.New("not a Gaussian mixture's data alone")

// learnCmd runs pbl-beam learn.
func learnCmd(ctx context.Context, c *cli, f *cmdFlags, args []string) int {
	if len(args) != 1 {
		return c.usageErr("want one model file, got %d arguments", len(args))
	}
	if f.data == "" {
		return c.usageErr("--data SHARDS is required: the data to learn from")
	}
	opt, err := f.options(c.fs)
	if err != nil {
		return c.usageErr("%v", err)
	}
	if !(f.varSm > 0) || math.IsInf(f.varSm, 0) {
		return c.usageErr("--var-smoothing must be a positive number")
	}
	opt.VarSmoothing = f.varSm
	ext := strings.ToLower(filepath.Ext(f.out))
	if f.out != "" && ext != ".pbl" && ext != ".bif" {
		return c.usageErr("cannot write %q: pbl-beam learn writes .pbl or .bif", f.out)
	}
	if c.json && f.out == "" {
		return c.usageErr("--json needs -o FILE: without it the model goes to stdout")
	}
	if opt.Method == learn.Gradient {
		return c.usageErr("--method gradient is not run by pbl-beam: use em")
	}
	m, err := pbl.LoadFile(args[0])
	if err != nil {
		c.report(err)
		return exitError
	}
	if cl := m.Classifier; cl != nil && cl.Kind == ir.TAN {
		c.report(fmt.Errorf("%s: pbl-beam does not learn a tan classifier's structure: use pbl learn", args[0]))
		return exitError
	}
	if m.Time == nil && f.seqCol != "" {
		return c.usageErr("--sequence-column applies to a time-indexed model (var X[t]), and %s has none", args[0])
	}
	l, cleanup, err := f.learner(ctx, c, f.data, args[0], opt)
	if err != nil {
		c.report(err)
		return exitError
	}
	defer cleanup()
	out, rep, err := l.learn(ctx, m)
	if err != nil {
		var me *learn.ModelError
		if errors.As(err, &me) {
			err = fmt.Errorf("%s: %v", args[0], err)
		}
		c.report(err)
		return exitError
	}
	var buf bytes.Buffer
	if ext == ".bif" {
		err = bif.Write(&buf, out)
	} else {
		err = source.Write(&buf, out, learn.Provenance("pbl-beam", f.data, args[0], "--method "+f.method))
	}
	if err != nil {
		c.report(fmt.Errorf("%s: %v", f.out, err))
		return exitError
	}
	if f.out == "" {
		if _, err := c.stdout.Write(buf.Bytes()); err != nil {
			c.report(fmt.Errorf("write error: %v", err))
			return exitError
		}
		return exitOK
	}
	if err := writeFile(ctx, f.out, buf.Bytes()); err != nil {
		c.report(err)
		return exitError
	}
	if c.json {
		o := &report.Object{}
		o.Set("model", args[0])
		o.Set("data", f.data)
		o.Set("shards", len(l.shards))
		o.Set("output", f.out)
		o.Set("method", opt.Method.String())
		o.Set("runner", f.runner)
		o.Set("rows", rep.Rows)
		if rep.Trace != nil {
			o.Set("log_likelihood", rep.LogLik)
			o.Set("iterations", rep.Iterations)
			o.Set("converged", rep.Converged)
			o.Set("trace", rep.Trace)
		}
		o.Set("pipelines", rep.Pipelines)
		b, _ := o.MarshalJSON()
		c.stdout.Write(append(b, '\n'))
	}
	return exitOK
}

// learnReport is what learning from shards reports.
type learnReport struct {
	Rows       int64
	LogLik     float64
	Trace      []float64
	Iterations int
	Converged  bool
	Pipelines  int
}

// learner learns a model from shards.
type learner struct {
	c      *cli
	r      *runner
	shards []string
	opt    learn.Options
	ignore bool
	path   string                // the model file
	seqCol string                // a time-indexed model's sequence column
	states map[ir.VarID][]string // the open variables' states, once settled
	rep    learnReport
}

// pass runs one pipeline of kind over the shards with the model m.
func (l *learner) pass(ctx context.Context, m *ir.Model, j *job, params []byte) (*partial, error) {
	ref, err := refOf(l.path, l.states)
	if err != nil {
		return nil, err
	}
	j.Model, j.Ignore = ref, l.ignore
	l.rep.Pipelines++
	return l.r.pass(ctx, j, l.shards, params)
}

// learn learns m's numbers from the shards.
func (l *learner) learn(ctx context.Context, m *ir.Model) (*ir.Model, *learnReport, error) {
	if m.Time != nil {
		return l.sequences(ctx, m) // sequences.go
	}
	// The open variables' states first, in shard order.
	open := false
	for _, v := range m.Vars {
		open = open || v.Open
	}
	if open {
		p, err := l.pass(ctx, m, &job{Kind: "states"}, nil)
		if err != nil {
			return nil, nil, err
		}
		l.states = p.mergedStates()
		m = m.WithStates(l.states)
	}
	// The first shard's first rows: its columns, the checks of the local
	// learner (on these rows), a mixture's start.
	first, err := l.head(ctx, m)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case l.opt.Method == learn.EM && pureMixture(m, l.opt):
		out, rep, err := l.mixture(ctx, m)
		if !errors.Is(err, errImpure) {
			return out, rep, err
		}
		l.rep = learnReport{Pipelines: l.rep.Pipelines}
		return l.em(ctx, m, first) // as the local learner does
	case l.opt.Method == learn.EM:
		return l.em(ctx, m, first)
	}
	// The local learner on the first rows checks the model, the options
	// and the columns as pbl learn does.
	if first.N > 0 {
		if _, _, err := learn.LearnBatch(m, first, l.opt); err != nil {
			return nil, nil, err
		}
	}
	p, err := l.pass(ctx, m, &job{Kind: "counts", Counts: countJob{Opt: l.opt}}, nil)
	if err != nil {
		return nil, nil, err
	}
	if p.Rows == 0 || p.Counts == nil {
		return nil, nil, learn.ErrNoRows
	}
	c := &learn.Counts{}
	if err := c.UnmarshalBinary(p.Counts.Counts); err != nil {
		return nil, nil, err
	}
	out, err := learn.Estimate(m, c, l.opt)
	if err != nil {
		return nil, nil, err
	}
	l.rep.Rows = p.Rows
	return out, &l.rep, nil
}

// headRows is the number of rows the driver reads from the first shard.
const headRows = 4096

// head reads the first rows of the first shard.
func (l *learner) head(ctx context.Context, m *ir.Model) (*data.Batch, error) {
	r, err := openData(ctx, l.shards[0], m, l.ignore)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return data.ReadHead(r, headRows)
}

// em learns by network EM, one pipeline per iteration: each shard's
// E-step under the current parameters (a side input), merged; the M-step
// on the driver. Starts after the first are random, as the local
// learner's; the best objective is kept. A density that starts from data
// starts from the first shard's first rows.
func (l *learner) em(ctx context.Context, m *ir.Model, first *data.Batch) (*ir.Model, *learnReport, error) {
	plan, err := learn.NewEMPlan(m, first.Vars, l.opt)
	if err != nil {
		return nil, nil, err
	}
	src := &shardSource{ctx: ctx, l: l, m: plan.Model(), j: &job{Kind: "counts", Counts: countJob{Opt: l.opt, Cols: first.Vars}}}
	out, rep, err := plan.Run(src, first)
	if err != nil {
		return nil, nil, err
	}
	l.rep.Rows, l.rep.Trace, l.rep.LogLik = int64(rep.Rows), rep.Trace, rep.LogLik
	l.rep.Iterations, l.rep.Converged = rep.Iterations, rep.Converged
	return out, &l.rep, nil
}

// shardSource is the shards as the data of network EM (learn.EMSource):
// an E-step is a pipeline over every shard under the parameters (a side
// input), its statistics merged.
type shardSource struct {
	ctx context.Context
	l   *learner
	m   *ir.Model
	j   *job
}

func (s *shardSource) Expect(params *ir.Model) (*learn.EMStats, error) {
	text, err := paramsRef(params)
	if err != nil {
		return nil, err
	}
	p, err := s.l.pass(s.ctx, s.m, s.j, text)
	if err != nil {
		return nil, err
	}
	if p.Counts == nil || p.Counts.EM == nil || p.Counts.EM.Rows == 0 {
		return nil, learn.ErrNoRows
	}
	return p.Counts.EM, nil
}

// pureMixture reports whether m is a Gaussian mixture alone (its
// component, a root without a column, and the mixture's real variables),
// learned by maximum likelihood from a k-means or random start: the model
// the local learner fits with package mixture.
func pureMixture(m *ir.Model, opt learn.Options) bool {
	if len(m.Mixtures) != 1 || opt.Vars != nil || opt.Alpha > 0 || opt.ESS > 0 || opt.Init == learn.InitModel || opt.Init == learn.InitUniform {
		return false
	}
	mx := m.Mixtures[0]
	if len(m.Parents[mx.Component]) > 0 || mx.Variance > 0 || len(m.Vars) != len(mx.Vars)+1 {
		return false
	}
	return true
}

// gmmOptions are the options of the local learner's fit of the mixture
// of m (learn's fitGMM).
func gmmOptions(m *ir.Model, opt learn.Options) mixture.GMMOptions {
	mx := m.Mixtures[0]
	o := mixture.DefaultGMMOptions(len(m.Vars[mx.Component].States))
	o.Covariance = []mixture.CovarianceType{mixture.Full, mixture.Diag, mixture.Spherical, mixture.Tied}[mx.Form]
	if len(mx.Vars) == 1 {
		o.Covariance = mixture.Full
	}
	o.NInit = max(1, opt.Restarts)
	if opt.MaxIter > 0 {
		o.MaxIter = opt.MaxIter
	}
	o.Tol, o.Seed, o.RegCovar = opt.Tol, opt.Seed, learn.DefaultRegCovar
	if opt.Init == learn.InitRandom {
		o.Init = mixture.InitRandom
	}
	return o
}

// mixture learns a Gaussian mixture alone (errImpure if the data is not
// that of a mixture alone: a value missing, the component observed): it starts from the local fit
// of the first shard's first rows (package mixture: k-means, restarts),
// and runs EM iterations over every shard, one pipeline each, the current
// mixture the side input, until the mean log-likelihood changes by less
// than --tol, as package mixture's EM does.
func (l *learner) mixture(ctx context.Context, m *ir.Model) (*ir.Model, *learnReport, error) {
	mx := m.Mixtures[0]
	o := gmmOptions(m, l.opt)
	x, err := l.headMatrix(ctx, m, mx.Vars)
	if err != nil {
		return nil, nil, err
	}
	g, err := mixture.FitGMM(x, o)
	if err != nil {
		return nil, nil, err
	}
	g, err = l.iterateGMM(ctx, m, mx.Vars, g, o.MaxIter, o.Tol, o.RegCovar)
	if err != nil {
		return nil, nil, err
	}
	out, err := learn.FromGMM(m, g)
	if err != nil {
		return nil, nil, err
	}
	return out, &l.rep, nil
}

// iterateGMM runs EM iterations from g over the shards: the trace is the
// mean log-likelihood before each M-step (times the rows, as learn
// reports it), and the last pass scores the final parameters.
func (l *learner) iterateGMM(ctx context.Context, m *ir.Model, vars []ir.VarID, g *mixture.GMM, maxIter int, tol, reg float64) (*mixture.GMM, error) {
	stats := func(g *mixture.GMM) (*mixture.GMMStats, error) {
		var enc bytes.Buffer
		if err := gob.NewEncoder(&enc).Encode(g); err != nil {
			return nil, err
		}
		p, err := l.pass(ctx, m, &job{Kind: "gmm", Vars: vars}, enc.Bytes())
		if err != nil {
			return nil, err
		}
		if p.Impure {
			return nil, errImpure
		}
		if p.GMM == nil || p.GMM.N == 0 {
			return nil, learn.ErrNoRows
		}
		return p.GMM, nil
	}
	prev := math.Inf(-1)
	var trace []float64
	converged := false
	it := 0
	for it < maxIter {
		it++
		st, err := stats(g)
		if err != nil {
			return nil, err
		}
		ll := st.MeanLogLik()
		trace = append(trace, ll)
		g = st.Update(reg)
		if math.Abs(ll-prev) < tol {
			converged = true
			break
		}
		prev = ll
	}
	st, err := stats(g)
	if err != nil {
		return nil, err
	}
	n := float64(st.N)
	g.Trace, g.Iterations, g.Converged = trace, it, converged
	g.LogLikelihood, g.LowerBound = st.MeanLogLik(), trace[len(trace)-1]
	l.rep.Rows, l.rep.LogLik, l.rep.Iterations, l.rep.Converged = st.N, g.LogLikelihood*n, it, converged
	l.rep.Trace = make([]float64, len(trace))
	for i, t := range trace {
		l.rep.Trace[i] = t * n
	}
	return g, nil
}

// headMatrix reads the values of vars in the first shard's first rows;
// errImpure if they are not a Gaussian mixture's alone.
func (l *learner) headMatrix(ctx context.Context, m *ir.Model, vars []ir.VarID) (*mixture.Matrix, error) {
	r, err := openData(ctx, l.shards[0], m, l.ignore)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cols, comp, ok := mixtureColumns(m, r.Vars, vars)
	if !ok {
		return nil, errImpure
	}
	b, err := data.ReadHead(r, mixtureHead)
	if err != nil {
		return nil, err
	}
	vals, pure := mixtureRows(b, cols, comp, make([]float64, 0, b.N*len(vars)))
	if !pure {
		return nil, errImpure
	}
	return mixture.NewMatrix(b.N, len(vars), vals), nil
}

// mixtureHead is the number of rows of the first shard a mixture's start
// is fitted to.
const mixtureHead = 100000
