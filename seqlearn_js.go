//go:build js

package pbl

import (
	"errors"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// ErrSequencesInPage is the refusal of learning a time-indexed model in
// the WebAssembly page, which leaves it (and package hmm) out of its
// module for the module's size limit: the pbl command learns it.
var ErrSequencesInPage = errors.New("learning a time-indexed model from sequences is done by the pbl command, not in the page")

// LearnSequences refuses in the WebAssembly page: see ErrSequencesInPage.
func LearnSequences(m *ir.Model, path string, sopt SequenceOptions, opt learn.SeqOptions) (*ir.Model, *learn.Report, error) {
	return nil, nil, ErrSequencesInPage
}

// LearnSequenceShards refuses in the WebAssembly page: see
// ErrSequencesInPage.
func LearnSequenceShards(m *ir.Model, paths []string, sopt SequenceOptions, opt learn.SeqOptions) (*ir.Model, *learn.Report, error) {
	return nil, nil, ErrSequencesInPage
}
