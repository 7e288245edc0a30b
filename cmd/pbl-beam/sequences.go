package main

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"maps"
	"slices"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// This file learns a time-indexed model (var X[t]) from shards of
// sequences, as pbl learn does from one file (learn.SeqPlan): a pass
// first that reads every shard's sequences (pbl.ReadSequencesFrom), checks
// them and counts them (learn.SeqCensus: which variables are observed,
// which are then hidden) with their ids; then one pass per EM iteration,
// each shard's E-step under the current parameters (a side input, the
// plan's numbers, learn.SeqPlan.Params) giving learn.SeqStats, merged;
// the M-step on the driver. A sequence must be whole in one shard: an id
// in two shards is an error naming both. A Gaussian that starts from data
// starts from the first shard's sequences.

// seqJob is the job of a sequences pass.
type seqJob struct {
	Opt    learn.SeqOptions
	Column string // the sequence column (pbl.SequenceOptions)

	// An E-step: the census of every shard, from which the workers make
	// the plan (the driver's).
	Seqs, Steps int64
	Observed    []bool
}

// seqPartial is what a shard contributes to a sequences pass.
type seqPartial struct {
	Census *learn.SeqCensus // the census pass: the shard's sequences counted
	IDs    map[int][]seqID  // and their ids, by shard
	Stats  *learn.SeqStats  // an E-step's statistics
}

// seqID is a sequence's id and the line of its first row.
type seqID struct {
	ID   string
	Line int
}

func (p *seqPartial) merge(o *seqPartial) {
	mergeInto(&p.Census, o.Census, (*learn.SeqCensus).Merge)
	mergeInto(&p.Stats, o.Stats, (*learn.SeqStats).Merge)
	if o.IDs != nil {
		if p.IDs == nil {
			p.IDs = map[int][]seqID{}
		}
		maps.Copy(p.IDs, o.IDs)
	}
}

// readShard reads the sequences of shard name.
func (j *job) readShard(ctx context.Context, m *ir.Model, name string) ([]learn.Seq, []seqID, error) {
	src, err := openShard(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	defer src.Close()
	seqs, err := pbl.ReadSequencesFrom(m, name, src, pbl.SequenceOptions{Column: j.Seq.Column})
	if err != nil {
		return nil, nil, err
	}
	out := make([]learn.Seq, len(seqs))
	ids := make([]seqID, len(seqs))
	for i, s := range seqs {
		out[i] = learn.Seq{Steps: s.Steps, Static: s.Static, Line: s.Line, File: name}
		ids[i] = seqID{s.ID, s.Line}
	}
	return out, ids, nil
}

// sequences runs a sequences pass's job on shard i, named name: its
// census, or its E-step's statistics under params.
func (j *job) sequences(ctx context.Context, m *ir.Model, i int, name string, params []byte) (*partial, error) {
	seqs, ids, err := j.readShard(ctx, m, name)
	if err != nil {
		return nil, err
	}
	var steps int64
	for _, s := range seqs {
		steps += int64(len(s.Steps))
	}
	if j.Kind == "seqcensus" {
		c := learn.NewSeqCensus(m)
		if err := c.Add(seqs, 0); err != nil {
			return nil, err
		}
		return &partial{Rows: steps, Seq: &seqPartial{Census: c, IDs: map[int][]seqID{i: ids}}}, nil
	}
	plan, err := seqPlanFor(m, j)
	if err != nil {
		return nil, err
	}
	var x []float64
	if err := gob.NewDecoder(bytes.NewReader(params)).Decode(&x); err != nil {
		return nil, fmt.Errorf("decoding the parameters: %v", err)
	}
	pm, err := plan.FromParams(x)
	if err != nil {
		return nil, err
	}
	es, err := plan.EStep(pm)
	if err != nil {
		return nil, err
	}
	st := es.NewStats()
	if err := es.Add(st, seqs, 0); err != nil {
		return nil, err
	}
	return &partial{Rows: steps, Seq: &seqPartial{Stats: st}}, nil
}

// seqPlans caches the sequence plans of the workers (a plan compiles each
// horizon's junction tree once).
var seqPlans planCache[*learn.SeqPlan]

func seqPlanFor(m *ir.Model, j *job) (*learn.SeqPlan, error) {
	return seqPlans.get(fmt.Sprint(j.Model, j.Seq), func() (*learn.SeqPlan, error) {
		return learn.NewSeqPlan(m, &learn.SeqCensus{Seqs: j.Seq.Seqs, Steps: j.Seq.Steps, Observed: j.Seq.Observed}, j.Seq.Opt)
	})
}

// sequences learns m, a time-indexed model, from the shards of sequences:
// the census pass, then one pass per EM iteration.
func (l *learner) sequences(ctx context.Context, m *ir.Model) (*ir.Model, *learnReport, error) {
	opt := learn.SeqOptions{Options: l.opt}
	sj := seqJob{Opt: opt, Column: l.seqCol}
	p, err := l.pass(ctx, m, &job{Kind: "seqcensus", Seq: sj}, nil)
	if err != nil {
		return nil, nil, err
	}
	if p.Seq == nil || p.Seq.Census == nil || p.Seq.Census.Seqs == 0 {
		return nil, nil, learn.ErrNoRows
	}
	if err := l.splitSequence(p.Seq.IDs); err != nil {
		return nil, nil, err
	}
	// The merged census travelled without its model: made again here.
	c := learn.NewSeqCensus(m)
	c.Seqs, c.Steps, c.Longest = p.Seq.Census.Seqs, p.Seq.Census.Steps, p.Seq.Census.Longest
	copy(c.Observed, p.Seq.Census.Observed)
	plan, err := learn.NewSeqPlan(m, c, opt)
	if err != nil {
		return nil, nil, err
	}
	first, _, err := (&job{Seq: sj}).readShard(ctx, m, l.shards[0])
	if err != nil {
		return nil, nil, err
	}
	sj.Seqs, sj.Steps, sj.Observed = c.Seqs, c.Steps, c.Observed
	src := &seqShards{ctx: ctx, l: l, m: m, plan: plan, j: &job{Kind: "seqestep", Seq: sj}}
	out, rep, err := plan.Run(src, first)
	if err != nil {
		return nil, nil, err
	}
	l.rep.Rows, l.rep.Trace, l.rep.LogLik = int64(rep.Rows), rep.Trace, rep.LogLik
	l.rep.Iterations, l.rep.Converged = rep.Iterations, rep.Converged
	return out, &l.rep, nil
}

// splitSequence returns the error of a sequence id in two shards (ids by
// shard), at the later shard's first row of it, naming the earlier: as
// pbl learn does.
func (l *learner) splitSequence(ids map[int][]seqID) error {
	type at struct {
		shard, line int
	}
	seen := map[string]at{}
	for _, i := range slices.Sorted(maps.Keys(ids)) {
		for _, s := range ids[i] {
			if s.ID == "" {
				continue
			}
			if prev, ok := seen[s.ID]; ok && prev.shard != i {
				return &ir.Error{Pos: ir.Pos{File: l.shards[i], Line: s.Line},
					Msg: fmt.Sprintf("sequence %q is also in %s (from line %d): a sequence's rows must all be in one shard", s.ID, l.shards[prev.shard], prev.line), Err: pbl.ErrSplitSequence}
			}
			seen[s.ID] = at{i, s.Line}
		}
	}
	return nil
}

// seqShards is the shards as the sequences of EM (learn.SeqSource): an
// E-step is a pipeline over every shard under the parameters (a side
// input), its statistics merged.
type seqShards struct {
	ctx  context.Context
	l    *learner
	m    *ir.Model
	plan *learn.SeqPlan
	j    *job
}

func (s *seqShards) Expect(params *ir.Model) (*learn.SeqStats, error) {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(s.plan.Params(params)); err != nil {
		return nil, err
	}
	p, err := s.l.pass(s.ctx, s.m, s.j, b.Bytes())
	if err != nil {
		return nil, err
	}
	if p.Seq == nil || p.Seq.Stats == nil || p.Seq.Stats.Seqs == 0 {
		return nil, learn.ErrNoRows
	}
	return p.Seq.Stats, nil
}
