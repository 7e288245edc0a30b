package main

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"maps"
	"slices"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/mixture"
)

// A partial is what one shard contributes to a pass, and what the pass's
// CombineFn merges: the statistics of its rows, or its error. Partials
// travel between workers gob-encoded (every float64 exactly), and merge
// associatively and commutatively: counts and row numbers are integers,
// floating sums are added (any grouping agrees to rounding, about 1e-15
// relative), states are kept per shard and merged in shard order at the
// end, and of several errors the one of the first shard is kept, so that
// the result does not depend on how the runner groups the shards.
type partial struct {
	Rows     int64
	Err      string // the error of shard ErrShard, or ""
	ErrShard int
	Impure   bool // gmm: the rows are not a Gaussian mixture's alone (see mixtureRows)

	States map[int]map[ir.VarID][]string // by shard: the states of open variables (the states pass)
	GMM    *mixture.GMMStats             // a Gaussian mixture's E-step
	Eval   *evalStats                    // classification scores
	Counts *countStats                   // counts for CPTs and Gaussians
	Seq    *seqPartial                   // a time-indexed model's sequences: their census, or an E-step's statistics
}

// evalStats are the mergeable scores of a classifier: learn.Evaluator's
// sums, exported so that they travel.
type evalStats struct {
	Conf                []int64 // k×k, row-major: Conf[t*k+p]
	NLL                 float64 // Σ −ln max(P(true class), learn.MinProb)
	N                   int64
	Skipped, Unlabelled int64
}

// failed returns the partial of shard i that failed with err.
func failed(i int, err error) *partial { return &partial{Err: err.Error(), ErrShard: i} }

// merge adds o to p.
func (p *partial) merge(o *partial) {
	if o.Err != "" && (p.Err == "" || o.ErrShard < p.ErrShard) {
		p.Err, p.ErrShard = o.Err, o.ErrShard
	}
	p.Rows += o.Rows
	p.Impure = p.Impure || o.Impure
	if o.States != nil {
		if p.States == nil {
			p.States = map[int]map[ir.VarID][]string{}
		}
		maps.Copy(p.States, o.States)
	}
	mergeInto(&p.GMM, o.GMM, (*mixture.GMMStats).Merge)
	mergeInto(&p.Eval, o.Eval, (*evalStats).merge)
	mergeInto(&p.Counts, o.Counts, (*countStats).merge)
	mergeInto(&p.Seq, o.Seq, (*seqPartial).merge)
}

// mergeInto merges the statistics src into *dst by merge, or makes them
// *dst if it is nil; a nil src changes nothing.
func mergeInto[T any](dst **T, src *T, merge func(*T, *T)) {
	switch {
	case src == nil:
	case *dst == nil:
		*dst = src
	default:
		merge(*dst, src)
	}
}

func (e *evalStats) merge(o *evalStats) {
	for i, x := range o.Conf {
		e.Conf[i] += x
	}
	e.NLL += o.NLL
	e.N += o.N
	e.Skipped += o.Skipped
	e.Unlabelled += o.Unlabelled
}

// mergedStates returns the states of the open variables of every shard,
// merged in shard order (data.MergeStates): the numbering of one reader
// of the shards one after the other.
func (p *partial) mergedStates() map[ir.VarID][]string {
	out := map[ir.VarID][]string{}
	for _, i := range slices.Sorted(maps.Keys(p.States)) {
		out = data.MergeStates(out, p.States[i])
	}
	return out
}

// encode returns p gob-encoded.
func (p *partial) encode() []byte {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(p); err != nil {
		panic(fmt.Sprintf("pbl-beam: encoding a partial: %v", err))
	}
	return b.Bytes()
}

// decode returns the partial b encodes; an empty b is the empty partial.
func decode(b []byte) (*partial, error) {
	p := &partial{}
	if len(b) == 0 {
		return p, nil
	}
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(p); err != nil {
		return nil, fmt.Errorf("decoding a partial: %v", err)
	}
	return p, nil
}
