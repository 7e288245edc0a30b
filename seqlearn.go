//go:build !js

package pbl

import (
	"errors"
	"fmt"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// LearnSequences learns m, a time-indexed model, from the sequences of
// the CSV file path (read by ReadSequences with sopt) by
// learn.LearnSequences: every distribution, with one set of numbers per
// template distribution.
func LearnSequences(m *ir.Model, path string, sopt SequenceOptions, opt learn.SeqOptions) (*ir.Model, *learn.Report, error) {
	return LearnSequenceShards(m, []string{path}, sopt, opt)
}

// ErrSplitSequence is the kind of error of a sequence whose rows are in
// two shards: each sequence must be whole in one.
var ErrSplitSequence = errors.New("a sequence split across shards")

// LearnSequenceShards learns m, a time-indexed model, from the sequences
// of the CSV files paths (shards, each read by ReadSequences with sopt,
// each with its own header): the sequences of every shard in turn, as one
// file of them all in that order would give, so the learned numbers are
// the concatenated file's. A sequence belongs to one shard: the same
// sequence id in two shards is ErrSplitSequence, at the second's first
// row (a shard without the sequence column is one sequence of its own).
// The shards' sequences are held in memory together, as one file's are.
func LearnSequenceShards(m *ir.Model, paths []string, sopt SequenceOptions, opt learn.SeqOptions) (*ir.Model, *learn.Report, error) {
	seqs, err := readSequenceShards(m, paths, sopt)
	if err != nil {
		return nil, nil, err
	}
	return learn.LearnSequences(m, seqs, opt)
}

// readSequenceShards reads the sequences of every shard, in order, as
// package learn's, checking that no sequence id is in two shards.
func readSequenceShards(m *ir.Model, paths []string, sopt SequenceOptions) ([]learn.Seq, error) {
	type at struct {
		file string
		line int
	}
	seen := map[string]at{}
	var out []learn.Seq
	for _, path := range paths {
		seqs, err := ReadSequences(m, path, sopt)
		if err != nil {
			return nil, err
		}
		for _, s := range seqs {
			if s.ID != "" && len(paths) > 1 {
				if prev, ok := seen[s.ID]; ok {
					return nil, &ir.Error{Pos: ir.Pos{File: path, Line: s.Line},
						Msg: fmt.Sprintf("sequence %q is also in %s (from line %d): a sequence's rows must all be in one shard", s.ID, prev.file, prev.line), Err: ErrSplitSequence}
				}
				seen[s.ID] = at{path, s.Line}
			}
			sq := learn.Seq{Steps: s.Steps, Static: s.Static, Line: s.Line}
			if len(paths) > 1 {
				sq.File = path
			}
			out = append(out, sq)
		}
	}
	return out, nil
}
