package sample

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"

	"github.com/pbl-lang/pbl/ir"
)

// WriteSequences writes n sequences of a time-indexed model (m.Time set)
// to w as CSV, in the layout pbl sequence and learning read: a column
// "sequence" (1..n), a column per time-indexed variable named without its
// index, a column per static variable; one row per slice 0..length-1 of
// the model the sampler was made for (the caller unrolls it at least that
// far, ir.Unroll; the slices after are drawn and not written). Each sequence is one forward sample of the
// unrolled model, from the streams of chunk i (ChunkSource(seed, i)), so
// that the output depends only on the model, n, seed and missing; each
// cell is left empty with probability missing, static cells too (then
// in every row of the sequence).
func (s *Sampler) WriteSequences(w io.Writer, n, length int, seed uint64, missing float64) error {
	m := s.m
	if m.Time == nil {
		return fmt.Errorf("sample: the model has no time-indexed variables")
	}
	if n < 0 {
		return fmt.Errorf("sample: negative number of sequences %d", n)
	}
	if length < 1 || length > m.Time.Horizon+1 {
		return fmt.Errorf("sample: %d steps: the model has slices 0..%d", length, m.Time.Horizon)
	}
	if !(missing >= 0 && missing <= 1) {
		return fmt.Errorf("sample: the missing fraction %v is not in [0, 1]", missing)
	}
	in := make([]bool, len(m.Vars))
	header := []string{"sequence"}
	for _, tv := range m.Time.Vars {
		header = append(header, tv.Name)
		for _, v := range tv.Slices {
			in[v] = true
		}
	}
	var statics []ir.VarID
	for v, x := range m.Vars {
		if !in[v] && (x.Discrete() || s.hasReal(ir.VarID(v))) {
			statics = append(statics, ir.VarID(v))
			header = append(header, x.Name)
		}
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	var line []byte
	for i, h := range header {
		if i > 0 {
			line = append(line, ',')
		}
		line = append(line, quoteField(h)...)
	}
	line = append(line, '\n')
	if _, err := bw.Write(line); err != nil {
		return err
	}
	miss := missingThreshold(missing)
	dst := make([]int32, len(m.Vars))
	vals := make([]float64, len(m.Vars))
	staticCell := make([]bool, len(statics))
	cell := func(buf []byte, v ir.VarID) []byte {
		x := m.Vars[v]
		if x.Discrete() {
			return append(buf, quoteField(x.States[dst[v]])...)
		}
		return strconv.AppendFloat(buf, vals[v], 'g', -1, 64)
	}
	for i := range n {
		src := ChunkSource(seed, i)
		var reals *rand.PCG
		if s.realDraws > 0 {
			reals = ChunkRealSource(seed, i)
		}
		s.sampleRow(src, reals, dst, vals)
		for j := range statics {
			staticCell[j] = !(miss > 0 && src.Uint64()>>1 < miss)
		}
		for t := range length {
			line = strconv.AppendInt(line[:0], int64(i+1), 10)
			for _, tv := range m.Time.Vars {
				line = append(line, ',')
				v := tv.Slices[t]
				if !m.Vars[v].Discrete() && !s.hasReal(v) || miss > 0 && src.Uint64()>>1 < miss {
					continue
				}
				line = cell(line, v)
			}
			for j, v := range statics {
				line = append(line, ',')
				if staticCell[j] {
					line = cell(line, v)
				}
			}
			line = append(line, '\n')
			if _, err := bw.Write(line); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// hasReal reports whether the real-valued variable v is sampled (it has a
// density).
func (s *Sampler) hasReal(v ir.VarID) bool {
	for _, c := range s.realCol {
		if ir.VarID(c) == v {
			return true
		}
	}
	return false
}
