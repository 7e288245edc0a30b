package main

import (
	"bufio"
	"context"
	"fmt"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/internal/batch"
	"github.com/pbl-lang/pbl/internal/par"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// This file scores shards in bulk: classify's predictions and scores,
// and the answers of queries for every row (query --batch). Each shard
// writes its own output file, the same bytes pbl writes for that shard
// alone (package internal/batch), and the classification scores of the
// shards are combined.

// scoreRows is the number of rows read, scored and written at a time.
const scoreRows = 4096

// shardOutput starts the output file of shard i, or returns nil if the
// job writes none.
func (j *job) shardOutput(ctx context.Context, i int) (*output, error) {
	if j.Out == "" {
		return nil, nil
	}
	return create(ctx, shardName(j.Out, i, j.Shards, j.Ext))
}

// classify scores m as a classifier of j.Target on the rows of r, shard
// i, writing their predictions if j.Out is set.
func (j *job) classify(ctx context.Context, m *ir.Model, r *data.Reader, i int) (p *partial, err error) {
	out, err := j.shardOutput(ctx, i)
	if err != nil {
		return nil, err
	}
	var w *bufio.Writer
	if out != nil {
		defer func() {
			if err != nil {
				out.abort()
			}
		}()
		w = bufio.NewWriterSize(out, 1<<16)
		w.Write(batch.PredictionHeader(nil, m, j.Target))
	}
	k := len(m.Vars[j.Target].States)
	ev := &evalStats{Conf: make([]int64, k*k)}
	posts := make([][]float64, scoreRows)
	var line []byte
	row := 0
	err = eachBatch(r, r.NewBatch(scoreRows), func(b *data.Batch) error {
		mt, err := learn.EvaluateFunc(m, j.Target, b, func(i int, post []float64) {
			posts[i] = append(posts[i][:0], post...)
			if post == nil {
				posts[i] = nil
			}
		})
		if err != nil {
			return fmt.Errorf("%s: %w", r.File(), err)
		}
		for t, cells := range mt.Confusion {
			for p, c := range cells {
				ev.Conf[t*k+p] += int64(c)
			}
		}
		ev.NLL += mt.LogLoss * float64(mt.N)
		ev.N += int64(mt.N)
		ev.Skipped += int64(mt.Skipped)
		ev.Unlabelled += int64(mt.Unlabelled)
		if w != nil {
			col := batch.TargetColumn(b, j.Target)
			for i := range b.N {
				line = batch.AppendPrediction(line[:0], m, j.Target, b, col, i, row+i+1, posts[i])
				w.Write(line)
			}
		}
		row += b.N
		return nil
	})
	if err != nil {
		return nil, err
	}
	if w != nil {
		if err := w.Flush(); err != nil {
			return nil, err
		}
		if err := out.commit(); err != nil {
			return nil, err
		}
	}
	return &partial{Rows: int64(row), Eval: ev}, nil
}

// answerParams are the options of answering queries.
type answerParams struct {
	Engine, Order string
	MaxTable      int
	MaxMemory     int64
	Top           int
	Seed          uint64
	Queries       int // infer.Options.Queries: the queries sharing a junction tree's compilation
}

// options returns the answering options.
func (a answerParams) options() (pbl.AnswerOptions, error) {
	eng, err := infer.ParseEngine(a.Engine)
	if err != nil {
		return pbl.AnswerOptions{}, err
	}
	order, err := infer.ParseHeuristic(a.Order)
	if err != nil {
		return pbl.AnswerOptions{}, err
	}
	return pbl.AnswerOptions{Infer: infer.Options{Engine: eng, Order: order, MaxTable: a.MaxTable, MaxMemory: a.MaxMemory, Queries: a.Queries}, Top: a.Top, Seed: a.Seed}, nil
}

// query answers j.Queries for every row of r, shard i, writing one line
// of JSON per row.
func (j *job) query(ctx context.Context, m *ir.Model, r *data.Reader, i int) (p *partial, err error) {
	opt, err := j.Answer.options()
	if err != nil {
		return nil, err
	}
	queries := make([]ir.Query, len(j.Queries))
	for k, text := range j.Queries {
		if queries[k], err = pbl.ParseQuery(m, text); err != nil {
			return nil, err
		}
	}
	out, err := j.shardOutput(ctx, i)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			out.abort()
		}
	}()
	w := bufio.NewWriterSize(out, 1<<16)
	lines := make([][]byte, scoreRows)
	row := 0
	err = eachBatch(r, r.NewBatch(scoreRows), func(b *data.Batch) error {
		par.For(b.N, func(i int) {
			lines[i] = batch.AppendAnswers(lines[i][:0], m, queries, b, i, row+i+1, opt)
		})
		for _, l := range lines[:b.N] {
			w.Write(l)
		}
		row += b.N
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	if err := out.commit(); err != nil {
		return nil, err
	}
	return &partial{Rows: int64(row)}, nil
}

// metrics returns the scores of e for the classes.
func (e *evalStats) metrics(classes []string) *learn.Metrics {
	// learn.Evaluator's sums are not exported: an evaluator is given the
	// confusion matrix row by row (a one-hot posterior per row), and the
	// log loss is set from the merged sum.
	k := len(classes)
	ev := learn.NewEvaluator(classes)
	post := make([]float64, k)
	for t := range k {
		for p := range k {
			clear(post)
			post[p] = 1
			for range e.Conf[t*k+p] {
				ev.Add(t, post)
			}
		}
	}
	mt := ev.Metrics()
	mt.LogLoss = 0
	if e.N > 0 {
		mt.LogLoss = e.NLL / float64(e.N)
	}
	mt.Skipped, mt.Unlabelled = int(e.Skipped), int(e.Unlabelled)
	return mt
}
