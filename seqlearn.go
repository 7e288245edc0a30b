//go:build !js

package pbl

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

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

// ErrShardColumns is the kind of error of a shard whose header names
// other variables than the first shard's.
var ErrShardColumns = errors.New("shards with different columns")

// sameColumns returns an error at path's header if its variable columns,
// cols, are not those of the first shard, first (both sorted): the shards
// are one data set, a variable without a column in one of them would be
// hidden there and observed elsewhere.
func sameColumns(path string, cols []string, firstPath string, first []string) error {
	for _, c := range cols {
		if _, ok := slices.BinarySearch(first, c); !ok {
			return &ir.Error{Pos: ir.Pos{File: path, Line: 1, Col: 1}, Err: ErrShardColumns,
				Msg: fmt.Sprintf("column %s names a variable that %s has no column for: every shard must have the same columns", strconv.Quote(c), firstPath)}
		}
	}
	for _, c := range first {
		if _, ok := slices.BinarySearch(cols, c); !ok {
			return &ir.Error{Pos: ir.Pos{File: path, Line: 1, Col: 1}, Err: ErrShardColumns,
				Msg: fmt.Sprintf("no column for %s, which %s has: every shard must have the same columns", ir.Quote(c), firstPath)}
		}
	}
	return nil
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
	var first []string // the first shard's variable columns
	for i, path := range paths {
		seqs, cols, err := readSequenceFile(m, path, sopt)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			first = cols
		} else if err := sameColumns(path, cols, paths[0], first); err != nil {
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
