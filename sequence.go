package pbl

import (
	"errors"
	"fmt"

	"github.com/pbl-lang/pbl/dbn"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// SeqTask is what AnswerSequence computes for a sequence.
type SeqTask int

const (
	// Filter is P(X_t | observations 0..t) at every step t.
	Filter SeqTask = iota
	// Smooth is P(X_t | every observation) at every step t.
	Smooth
	// Viterbi is the most probable joint assignment of the variables
	// not observed, at every step, given every observation, with its
	// log-probability log P(path, observations).
	Viterbi
	// Predict is P(X_{T-1+k} | every observation) for k = 1..steps.
	Predict
)

// SeqTasks are the tasks' names, as pbl sequence --task takes them.
var SeqTasks = []string{"filter", "smooth", "viterbi", "predict"}

func (t SeqTask) String() string { return SeqTasks[t] }

// SeqAnswer is AnswerSequence's answer for one sequence.
type SeqAnswer struct {
	Seq     *Sequence
	Task    SeqTask
	Targets []int // the reported variables: indices into m.Time.Vars

	// LogP is ln P(observations) (Filter, Smooth, Predict) or ln P(path,
	// observations) (Viterbi).
	LogP float64
	// Engine names the engine that answered: "interface" (package dbn's
	// interface algorithm), "hmm" (its fast path, package hmm, for a
	// hidden Markov model), "unrolled" (the exact engines on the model
	// unrolled to the sequence's length, where dbn refuses it), or
	// "particle" (the particle filter: approximate).
	Engine string
	// LogPErr, for an approximate answer, is the standard error of LogP.
	LogPErr float64
	// Why, for an answer the particle filter gave though no particles
	// were asked for, is the exact engines' refusal.
	Why string

	rows answerRows // the steps' answers: Len, Step, Posterior, StdErr, State
}

// SeqOptions configures AnswerSequence.
type SeqOptions struct {
	Targets []int // indices into m.Time.Vars; nil: every variable no step of the sequence observes
	Steps   int   // Predict: how many steps ahead (at least 1)
	Infer   infer.Options

	// Particles, if positive, answers Filter and Predict by the particle
	// filter with that many particles, drawn from PCG streams seeded by
	// Seed (the same numbers on any machine and number of cores).
	Particles int
	Seed      uint64

	// Exact refuses an answer the exact engines cannot give, instead of
	// the particle filter's (by default, Filter and Predict fall back on
	// it, with DefaultParticles, where the model unrolled is too wide).
	Exact bool

	unrolled bool // tests: skip package dbn, answer on the model unrolled
}

// ErrSeqTask is the kind of error of a sequence task that cannot be
// answered as asked: Predict without steps, a real-valued target.
var ErrSeqTask = errors.New("a sequence task that cannot be answered")

// AnswerSequence answers task for the sequence s of the time-indexed
// model m, exactly: the model is unrolled to the sequence's length (and
// the steps predicted), its observations are evidence, and the exact
// engines answer.
func AnswerSequence(m *ir.Model, s *Sequence, task SeqTask, opt SeqOptions) (*SeqAnswer, error) {
	if m.Time == nil {
		return nil, fmt.Errorf("the model has no time-indexed variables: %w", ErrSequenceData)
	}
	T := len(s.Steps)
	if task == Predict && opt.Steps < 1 {
		return nil, fmt.Errorf("prediction needs at least one step ahead: %w", ErrSeqTask)
	}
	targets := opt.Targets
	if targets == nil {
		targets = hiddenOf(m, s)
	}
	for _, k := range targets {
		if x := m.Vars[m.Time.Vars[k].Slices[0]]; !x.Discrete() {
			return nil, fmt.Errorf("%s is real-valued: a sequence's answers are the distributions and paths of discrete variables: %w", m.Time.Vars[k].Name, ErrSeqTask)
		}
	}
	if opt.Particles > 0 {
		return particleAnswer(m, s, task, targets, opt.Steps, opt.Particles, opt.Seed)
	}
	// The interface algorithm (package dbn), in memory constant (filter)
	// or O(√T) (smoothing) in the length; where it refuses the model (a
	// real variable with children, a step's product too large), the
	// exact engines on the model unrolled.
	var dbnErr error // why package dbn refused
	if !opt.unrolled {
		a, err := dbnSequence(m, s, task, targets, opt.Steps)
		if err == nil {
			return a, nil
		} else if errors.Is(err, dbn.ErrImpossible) {
			return nil, fmt.Errorf("%w (%w)", err, infer.ErrImpossible) // matched as the exact engines' is
		}
		dbnErr = err
	}
	last := T - 1
	if task == Predict {
		last += opt.Steps
	}
	mu, err := ir.Unroll(m, max(last, 0))
	if err != nil {
		if dbnErr != nil {
			// Both refused: the interface algorithm's reason first.
			return nil, fmt.Errorf("%w; unrolled instead: %w", dbnErr, err)
		}
		return nil, err
	}
	a, err := exactSequence(m, mu, s, task, targets, last, opt)
	var tl *infer.TooLargeError
	if errors.As(err, &tl) && (task == Filter || task == Predict) && !opt.Exact {
		// The slices are too wide for the exact engines: the particle
		// filter answers, labelled (Engine, Err), with a reason.
		a, perr := particleAnswer(m, s, task, targets, opt.Steps, DefaultParticles, opt.Seed)
		if perr != nil {
			return nil, err
		}
		a.Why = err.Error()
		return a, nil
	}
	return a, err
}

// exactSequence answers task on mu, m unrolled to the slice last.
func exactSequence(m, mu *ir.Model, s *Sequence, task SeqTask, targets []int, last int, opt SeqOptions) (*SeqAnswer, error) {
	T := len(s.Steps)
	ev, real := seqEvidence(mu, s, T-1)
	a := &SeqAnswer{Seq: s, Task: task, Targets: targets, Engine: "unrolled"}
	switch task {
	case Predict:
		a.rows = newRows(m, targets, T, last-T+1, false, false)
	default:
		a.rows = newRows(m, targets, 0, T, task == Viterbi, false)
	}
	lp, err := logPE(mu, ev, real, opt.Infer)
	if err != nil {
		return nil, err
	}
	a.LogP = lp
	switch task {
	case Smooth, Predict:
		from, to := 0, T-1
		if task == Predict {
			from, to = T, last
		}
		marg, err := marginals(mu, ev, real, opt.Infer)
		if err != nil {
			return nil, err
		}
		for t := from; t <= to; t++ {
			a.rows.setPost(t-from, targetsAt(mu, marg, targets, t, s))
		}
	case Filter:
		for t := range T {
			ev, real := seqEvidence(mu, s, t)
			marg, err := marginals(mu, ev, real, opt.Infer)
			if err != nil {
				return nil, err
			}
			a.rows.setPost(t, targetsAt(mu, marg, targets, t, s))
		}
	case Viterbi:
		// The most probable assignment of every variable not observed in
		// the slices 0..T-1 (the slices after them, if the model has
		// any, are summed out: they hold no evidence).
		var vars []ir.VarID
		observed := map[ir.VarID]bool{}
		for _, o := range ev {
			observed[o.Var] = true
		}
		for _, o := range real {
			observed[o.Var] = true
		}
		for t := range T {
			for _, tv := range mu.Time.Vars {
				if v := tv.Slices[t]; !observed[v] && mu.Vars[v].Discrete() {
					vars = append(vars, v)
				}
			}
		}
		for _, v := range Statics(mu) {
			if !observed[v] && mu.Vars[v].Discrete() {
				vars = append(vars, v)
			}
		}
		q := &ir.MAPQuery{QueryHeader: ir.QueryHeader{Pos: ir.Pos{File: m.Source}, Text: "viterbi"}, Conditions: ir.Conditions{Evidence: ev, Real: real}, Targets: vars}
		res, err := infer.Answer(mu, q, opt.Infer)
		if err != nil {
			return nil, err
		}
		as := res.(*infer.Assignment)
		state := map[ir.VarID]int{}
		for _, o := range as.Assignment {
			state[o.Var] = o.State
		}
		for _, o := range ev {
			state[o.Var] = o.State
		}
		a.LogP += as.LogP
		for t := range T {
			row := make([]int, len(targets))
			for k, i := range targets {
				row[k] = state[mu.Time.Vars[i].Slices[t]]
			}
			a.rows.setPath(t, row)
		}
	}
	return a, nil
}

// hiddenOf returns the discrete time-indexed variables that no step of s
// observes.
func hiddenOf(m *ir.Model, s *Sequence) []int {
	var out []int
	for k, tv := range m.Time.Vars {
		if !m.Vars[tv.Slices[0]].Discrete() {
			continue
		}
		seen := false
		for _, step := range s.Steps {
			seen = seen || !isMissing(m.Vars[tv.Slices[0]], step[k])
		}
		if !seen {
			out = append(out, k)
		}
	}
	return out
}

// seqEvidence returns the observations of s at the steps 0..last, and
// the static variables it gives, as evidence on the unrolled model mu.
func seqEvidence(mu *ir.Model, s *Sequence, last int) ([]ir.Obs, []ir.RealObs) {
	var ev []ir.Obs
	var real []ir.RealObs
	add := func(v ir.VarID, x float64) {
		switch xv := mu.Vars[v]; {
		case isMissing(xv, x):
		case xv.Discrete():
			ev = append(ev, ir.Obs{Var: v, State: int(x)})
		default:
			real = append(real, ir.RealObs{Var: v, Value: x})
		}
	}
	for t := 0; t <= last && t < len(s.Steps); t++ {
		for k, tv := range mu.Time.Vars {
			add(tv.Slices[t], s.Steps[t][k])
		}
	}
	for j, v := range Statics(mu) {
		add(v, s.Static[j])
	}
	return ev, real
}

// marginals returns every unobserved discrete variable's posterior given
// the evidence, by VarID.
func marginals(mu *ir.Model, ev []ir.Obs, real []ir.RealObs, opt infer.Options) (map[ir.VarID][]float64, error) {
	q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Pos: ir.Pos{File: mu.Source}, Text: "P(*)"}, Conditions: ir.Conditions{Evidence: ev, Real: real}, Star: true}
	res, err := infer.Answer(mu, q, opt)
	if err != nil {
		return nil, err
	}
	out := map[ir.VarID][]float64{}
	for _, mg := range res.(*infer.Marginals).Marginals {
		out[mg.Var] = mg.P
	}
	return out, nil
}

// logPE returns ln P(evidence).
func logPE(mu *ir.Model, ev []ir.Obs, real []ir.RealObs, opt infer.Options) (float64, error) {
	q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Pos: ir.Pos{File: mu.Source}, Text: "P(e)"}, Conditions: ir.Conditions{Evidence: ev, Real: real}}
	res, err := infer.Answer(mu, q, opt)
	var under *infer.UnderflowError
	if errors.As(err, &under) {
		return under.LogP, nil // P(e) underflows float64; its logarithm does not
	}
	if err != nil {
		return 0, err
	}
	switch r := res.(type) {
	case *infer.Evidence:
		return r.LogP, nil
	case *infer.Number:
		return r.LogP, nil
	case *infer.Density: // real-valued observations only: their joint density
		return r.LogDensity, nil
	}
	return 0, nil // no evidence: P(e) = 1
}

// targetsAt returns the targets' distributions at step t: the posterior,
// or a point mass on the state observed.
func targetsAt(mu *ir.Model, marg map[ir.VarID][]float64, targets []int, t int, s *Sequence) [][]float64 {
	out := make([][]float64, len(targets))
	for k, i := range targets {
		v := mu.Time.Vars[i].Slices[t]
		if p, ok := marg[v]; ok {
			out[k] = p
			continue
		}
		p := make([]float64, len(mu.Vars[v].States))
		if t < len(s.Steps) {
			if x := s.Steps[t][i]; x >= 0 && int(x) < len(p) {
				p[int(x)] = 1
			}
		}
		out[k] = p
	}
	return out
}

// dbnSequence answers task with package dbn's engine.
func dbnSequence(m *ir.Model, s *Sequence, task SeqTask, targets []int, steps int) (*SeqAnswer, error) {
	mu, err := ir.Unroll(m, m.Time.Order+1)
	if err != nil {
		return nil, err
	}
	n, err := dbn.Compile(mu)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(targets))
	for i, k := range targets {
		names[i] = m.Time.Vars[k].Name
	}
	seq := dbn.Seq{Steps: s.Steps, Static: s.Static}
	a := &SeqAnswer{Seq: s, Task: task, Targets: targets, Engine: "interface"}
	if n.Fast() {
		a.Engine = "hmm"
	}
	T := len(s.Steps)
	switch task {
	case Filter, Smooth:
		// Each step's posteriors go straight into the answer's rows
		// (smoothing emits the last step first).
		a.rows = newRows(m, targets, 0, T, false, false)
		keep := func(t int, post [][]float64) error {
			a.rows.setPost(t, post)
			return nil
		}
		if task == Filter {
			err = n.Filter(seq, names, keep)
		} else {
			err = n.Smooth(seq, names, keep)
		}
	case Predict:
		var post [][][]float64
		if post, err = n.Predict(seq, names, steps); err == nil {
			a.rows = newRows(m, targets, T, len(post), false, false)
			for k, p := range post {
				a.rows.setPost(k, p)
			}
		}
	case Viterbi:
		var path [][]int
		if path, a.LogP, err = n.Viterbi(seq, names); err == nil {
			a.rows = newRows(m, targets, 0, len(path), true, false)
			for t, row := range path {
				a.rows.setPath(t, row)
			}
			return a, nil
		}
	}
	if err != nil {
		return nil, err
	}
	if a.LogP, err = n.LogLik(seq); err != nil {
		return nil, err
	}
	return a, nil
}
