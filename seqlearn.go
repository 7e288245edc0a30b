//go:build !js

package pbl

import (
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// LearnSequences learns m, a time-indexed model, from the sequences of
// the CSV file path (read by ReadSequences with sopt) by
// learn.LearnSequences: every distribution, with one set of numbers per
// template distribution.
func LearnSequences(m *ir.Model, path string, sopt SequenceOptions, opt learn.SeqOptions) (*ir.Model, *learn.Report, error) {
	seqs, err := ReadSequences(m, path, sopt)
	if err != nil {
		return nil, nil, err
	}
	ls := make([]learn.Seq, len(seqs))
	for i, s := range seqs {
		ls[i] = learn.Seq{Steps: s.Steps, Static: s.Static, Line: s.Line}
	}
	return learn.LearnSequences(m, ls, opt)
}
