package structure

import (
	"github.com/pbl-lang/pbl/data"
	"math"
	"slices"
	"strconv"

	"github.com/pbl-lang/pbl/ir"
)

// IsReal reports whether variable v of d is real-valued.
func (d *Data) IsReal(v int) bool { return v < len(d.Real) && d.Real[v] != nil }

// HasReal reports whether d has a real-valued variable.
func (d *Data) HasReal() bool {
	for v := range d.Real {
		if d.Real[v] != nil {
			return true
		}
	}
	return false
}

// AllReal reports whether every variable of d is real-valued (and d has
// one).
func (d *Data) AllReal() bool {
	for v := range d.Names {
		if !d.IsReal(v) {
			return false
		}
	}
	return len(d.Names) > 0
}

// sniffRows is the number of first rows ReadCSVNumeric looks at to tell
// real-valued columns.
const sniffRows = 1000

// ReadCSVNumeric reads a CSV file as ReadCSV does, except that a column
// whose cells in the first 1,000 rows are all numbers, at least one with
// a fraction, and none missing, is read as real-valued (Data.Real): its
// cells are parsed as numbers, not collected as states, so a file of
// millions of real values reads fast. A later cell of such a column that
// is not a number is a positioned error; a missing one is an error of
// kind ErrBadData. Columns with a missing cell among the first rows are
// left to [Data.Numeric].
func ReadCSVNumeric(path string) (*Data, error) {
	r, err := openCSV(path, nil)
	if err != nil {
		return nil, readError(err)
	}
	head, err := data.ReadHead(r, sniffRows)
	states := r.States()
	r.Close()
	if err != nil {
		return nil, readError(err)
	}
	real := make([]bool, len(head.Vars))
	any := false
	for j, v := range head.Vars {
		st := states[v]
		vals := make([]float64, len(st))
		ok, frac := len(st) > 0, false
		for k, c := range st {
			x, err := strconv.ParseFloat(c, 64)
			if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
				ok = false
				break
			}
			vals[k] = x
			frac = frac || x != math.Trunc(x)
		}
		if ok && frac && !slices.ContainsFunc(head.Cols[j], func(x int32) bool { return x < 0 }) {
			real[v] = true
			any = true
		}
	}
	if !any {
		real = nil
	}
	d, err := readCSV(path, real)
	if err != nil {
		return nil, err
	}
	if err := d.Numeric(); err != nil {
		return nil, err
	}
	return d, nil
}

// Numeric turns the columns of d read as discrete whose every value is a
// finite number, at least one of them not a whole number, into
// real-valued columns (a column of whole numbers, 0/1 or counts, stays
// discrete). A real column must have no missing cell: the Gaussian
// scores and tests here are computed from complete columns' sums of
// squares. It is how ReadCSV's caller learns from real-valued and mixed
// data.
func (d *Data) Numeric() error {
	for v := range d.Names {
		if d.IsReal(v) {
			continue
		}
		vals := make([]float64, len(d.States[v]))
		frac := false
		ok := true
		for k, s := range d.States[v] {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
				ok = false
				break
			}
			vals[k] = x
			frac = frac || x != math.Trunc(x)
		}
		if !ok || !frac {
			continue
		}
		col := make([]float64, d.N)
		for i, x := range d.Cols[v][:d.N] {
			if x < 0 {
				return errorf(ErrBadData, "column %s is real-valued and has a missing cell in data row %d: learning from real-valued columns needs every value", ir.Quote(d.Names[v]), i+1)
			}
			col[i] = vals[x]
		}
		if d.Real == nil {
			d.Real = make([][]float64, len(d.Names))
		}
		d.Real[v] = col
		d.Cols[v], d.States[v], d.Card[v] = nil, nil, 0
	}
	return nil
}

// CheckScore reports the kind of a score that d's variables cannot take:
// BDeu and K2 need discrete variables, BGe real-valued ones.
func CheckScore(d *Data, kind Score) error {
	if !d.HasReal() {
		if kind == BGe {
			return errorf(ErrInvalidArgument, "the bge score is for real-valued variables, and every variable here is discrete")
		}
		return nil
	}
	switch kind {
	case BDeu, K2:
		return errorf(ErrNotDiscrete, "the %s score is for discrete variables: use bic, aic or loglik (conditional linear Gaussian), or bge when every variable is real-valued", kind)
	case BGe:
		if !d.AllReal() {
			for v := range d.Names {
				if !d.IsReal(v) {
					return errorf(ErrNotDiscrete, "the bge score needs every variable real-valued, and %s is discrete: use bic, aic or loglik (conditional linear Gaussian)", ir.Quote(d.Names[v]))
				}
			}
		}
	}
	return nil
}

// realForbidden returns the edges from a real-valued variable to a
// discrete one, which a conditional linear Gaussian network cannot have.
func realForbidden(d *Data) [][2]int {
	var out [][2]int
	for a := range d.Names {
		if !d.IsReal(a) {
			continue
		}
		for b := range d.Names {
			if !d.IsReal(b) {
				out = append(out, [2]int{a, b})
			}
		}
	}
	return out
}

// withRealForbidden returns forbid with the edges of [realForbidden]
// added, for data with a real-valued variable.
func withRealForbidden(d *Data, forbid [][2]int) [][2]int {
	if !d.HasReal() {
		return forbid
	}
	return append(slices.Clip(forbid), realForbidden(d)...)
}

// realMI is the mutual information of a pair with a real-valued variable
// in it, estimated as the gain in maximum log-likelihood per row of the
// real one (b, or a if b is discrete) given the other: −½ ln(1 − ρ²) for
// two real-valued variables, the CLG gain for a discrete and a real one.
func realMI(s *Scorer, a, b int) float64 {
	d := s.D
	if !d.IsReal(b) {
		a, b = b, a
	}
	ll := &Scorer{D: d, Kind: LogLik}
	if d.IsReal(a) {
		st := s.stats()
		ll.gauss.once.Do(func() {})
		ll.gauss.mean, ll.gauss.s = st.mean, st.s
	}
	v := (ll.gaussFamily(b, []int{a}) - ll.gaussFamily(b, nil)) / float64(d.N)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}
