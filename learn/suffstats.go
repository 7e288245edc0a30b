package learn

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"

	"github.com/pbl-lang/pbl/ir"
)

// This file makes the sufficient statistics travel: Counts encode to bytes
// and back, so that a pipeline (an Apache Beam combiner) can carry them
// between workers and machines. EMStats (emshard.go), and package
// mixture's KMeansStats and GMMStats, are structs of exported fields and
// travel as they are.
//
// The statistics, and how each merges (see the package doc):
//
//	Counts       counts of discrete families: sums of whole numbers, exact;
//	             Gaussians' moments: Chan–Golub–LeVeque, to rounding
//	EMStats      expected counts, densities' weighted sums, log-likelihood: sums, to rounding
//	mixture.KMeansStats  rows per centre (exact), sums of rows, inertia
//	mixture.GMMStats     responsibilities' sums, weighted sums and scatters about the current means

// countsWire is the encoded form of Counts.
type countsWire struct {
	Fams                   []familyWire
	Open                   []bool
	Rows, Missing, Partial int
	Err                    string
	Names                  []string
}

type familyWire struct {
	Child           int32
	Vars            []int32
	Card            []int
	N               []float64
	Real, Dead      bool
	Shift, Mean, M2 []float64
	AllN, AllShift  float64
	AllMean, AllM2  float64
}

// MarshalBinary encodes c (encoding.BinaryMarshaler), bit for bit.
func (c *Counts) MarshalBinary() ([]byte, error) {
	w := countsWire{Open: c.open, Rows: c.rows, Missing: c.missing, Partial: c.partial, Names: c.names}
	if c.err != nil {
		w.Err = c.err.Error()
	}
	for _, f := range c.fams {
		fw := familyWire{Child: int32(f.child), Card: f.card, N: f.n, Real: f.real, Dead: f.dead,
			Shift: f.shift, Mean: f.mean, M2: f.m2, AllN: f.all.n, AllShift: f.all.shift, AllMean: f.all.mean, AllM2: f.all.m2}
		for _, v := range f.vars {
			fw.Vars = append(fw.Vars, int32(v))
		}
		w.Fams = append(w.Fams, fw)
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(&w); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// UnmarshalBinary decodes counts that MarshalBinary encoded into c
// (encoding.BinaryUnmarshaler), replacing what c held.
func (c *Counts) UnmarshalBinary(p []byte) error {
	var w countsWire
	if err := gob.NewDecoder(bytes.NewReader(p)).Decode(&w); err != nil {
		return fmt.Errorf("learn: decoding counts: %w", err)
	}
	*c = Counts{open: w.Open, rows: w.Rows, missing: w.Missing, partial: w.Partial, names: w.Names}
	if w.Err != "" {
		c.err = errors.New(w.Err)
	}
	for _, fw := range w.Fams {
		f := &family{child: ir.VarID(fw.Child), card: fw.Card, n: fw.N, real: fw.Real, dead: fw.Dead,
			shift: fw.Shift, mean: fw.Mean, m2: fw.M2, all: moments{fw.AllN, fw.AllShift, fw.AllMean, fw.AllM2}}
		for _, v := range fw.Vars {
			f.vars = append(f.vars, ir.VarID(v))
		}
		size, ok := tableSize(f.card)
		if !ok || len(f.vars) != len(f.card) || len(f.vars) == 0 || size != len(f.n) ||
			f.real && (len(f.shift) != size || len(f.mean) != size || len(f.m2) != size) {
			return errors.New("learn: decoding counts: inconsistent tables")
		}
		if f.n == nil {
			f.alloc(0)
		}
		c.fams = append(c.fams, f)
	}
	return nil
}

// Err returns the error that stopped some family's counting (a table that
// grew too large), or nil. Learn reports it; a pipeline that counts with
// Add and Merge checks it before Estimate.
func (c *Counts) Err() error { return c.err }
