package pbl

import (
	"slices"
	"testing"
)

// WriteFormats lists exactly the extensions of writers, in their order,
// sorted and each once.
func TestWriteFormatsAreWriters(t *testing.T) {
	var exts []string
	for _, wr := range writers {
		if wr.write == nil {
			t.Errorf("%s: no writer", wr.ext)
		}
		exts = append(exts, wr.ext)
	}
	if !slices.Equal(exts, WriteFormats) {
		t.Errorf("writers write %v, WriteFormats lists %v", exts, WriteFormats)
	}
	if !slices.IsSorted(WriteFormats) || len(slices.Compact(slices.Clone(WriteFormats))) != len(WriteFormats) {
		t.Errorf("WriteFormats %v: not sorted, or listed twice", WriteFormats)
	}
}
