package data

import (
	"io"
	"slices"

	"github.com/pbl-lang/pbl/ir"
)

// ScanStates reads every row of r and returns the states of its open
// variables (see [Reader.States]): the pass that settles an open
// variable's states before any counting, for data read in shards.
func ScanStates(r *Reader) (map[ir.VarID][]string, error) {
	b := r.NewBatch(4096)
	for {
		err := r.Read(b)
		if err == io.EOF {
			return r.States(), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// MergeStates returns the states of open variables found in consecutive
// shards of data: for each variable, the states of a (the earlier shard),
// then those of b that a does not have, in b's order. It is associative,
// so the shards' lists may be merged in any grouping, as long as their
// order is kept; the result numbers the states as one reader of the whole
// data would. a and b are not changed.
func MergeStates(a, b map[ir.VarID][]string) map[ir.VarID][]string {
	out := make(map[ir.VarID][]string, len(a)+len(b))
	for v, st := range a {
		out[v] = slices.Clone(st)
	}
	for v, st := range b {
		have := out[v]
		seen := make(map[string]bool, len(have))
		for _, s := range have {
			seen[s] = true
		}
		for _, s := range st {
			if !seen[s] {
				seen[s] = true
				have = append(have, s)
			}
		}
		out[v] = have
	}
	return out
}
