package data

import (
	"io"
	"strconv"

	"github.com/pbl-lang/pbl/ir"
)

// OpenShards opens the CSV files at paths as one data set, read one after
// another: each is a whole CSV file with its own header row (a shard, as
// a glob such as part-*.csv gives them), and every header must name the
// same variables, in any column order. The first file's header binds the
// columns (Reader.Vars); a later file whose header names a variable the
// first does not, or misses one, is an error when Read reaches it. Rows
// and errors are positioned in their own file, and an open variable's
// states are numbered in order of first appearance over the files in
// order, as in one file. Each file is parsed on every core (see
// "Parallel parsing"). Close closes the file being read.
func OpenShards(paths []string, m *ir.Model, opt Options) (*Reader, error) {
	if len(paths) == 0 {
		panic("data: OpenShards: no paths")
	}
	r, err := Open(paths[0], m, opt)
	if err != nil {
		return nil, err
	}
	r.shards, r.opt = paths[1:], opt
	return r, nil
}

// nextShard moves r on to its next shard and reports whether there is
// one. An error opening it, or a header that does not bind the same
// variables, is returned (and sticks).
func (r *Reader) nextShard() (bool, error) {
	if len(r.shards) == 0 {
		return false, nil
	}
	path := r.shards[0]
	r.shards = r.shards[1:]
	n, err := Open(path, r.m, r.opt)
	if err != nil {
		return false, err
	}
	// Bind n's CSV columns to r's bound columns, by variable.
	at := make(map[ir.VarID]int, len(r.Vars))
	for j, v := range r.Vars {
		at[v] = j
	}
	bind := make([]int32, len(n.bind))
	seen := make([]bool, len(r.Vars))
	for k, jn := range n.bind {
		bind[k] = -1
		if jn < 0 {
			continue
		}
		v := n.Vars[jn]
		j, ok := at[v]
		if !ok {
			n.Close()
			return false, ir.Errorf(ir.Pos{File: path, Line: 1, Col: 1}, "column %s names a variable that %s has no column for: every shard must have the same columns", strconv.Quote(r.m.Vars[v].Name), r.s.file)
		}
		bind[k], seen[j] = int32(j), true
	}
	for j, ok := range seen {
		if !ok {
			n.Close()
			return false, ir.Errorf(ir.Pos{File: path, Line: 1, Col: 1}, "no column for %s, which %s has: every shard must have the same columns", ir.Quote(r.m.Vars[r.Vars[j]].Name), r.s.file)
		}
	}
	r.Close()
	r.s, r.nf, r.bind, r.Header, r.Cols = n.s, n.nf, bind, n.Header, make([]int, len(r.Vars))
	for k, j := range bind {
		if j >= 0 {
			r.Cols[j] = k
		}
	}
	r.closer, r.pipe, r.started = n.closer, nil, false
	r.pending, r.rowErr = 0, nil
	return true, nil
}

// readShards is Read over shards: it reads the current shard, and moves on
// to the next at its end. A batch holds rows of one shard.
func (r *Reader) readShards(b *Batch) error {
	return r.eachShard(io.EOF, func() error { return r.readOne(b) })
}

// eachShard calls read on the current shard and, each time it returns
// end (the shard's end), moves on to the next shard and calls it again.
// It returns read's first other result, an error opening a shard, or end
// after the last shard.
func (r *Reader) eachShard(end error, read func() error) error {
	for {
		if err := read(); err != end {
			return err
		}
		more, err := r.nextShard()
		if err != nil {
			r.s.err = err
			return err
		}
		if !more {
			return end
		}
	}
}
