package mixture

import (
	"fmt"
	"math"
)

// Matrix is an n×d matrix of float64 values stored row-major: row i is
// Data[i*Cols : (i+1)*Cols].
type Matrix struct {
	Rows, Cols int
	Data       []float64
}

// NewMatrix returns the rows×cols matrix whose row-major values are data.
// It panics if len(data) is not rows*cols.
func NewMatrix(rows, cols int, data []float64) *Matrix {
	if rows < 0 || cols < 0 || len(data) != rows*cols {
		panic(fmt.Sprintf("mixture: NewMatrix: %d values for %d×%d", len(data), rows, cols))
	}
	return &Matrix{Rows: rows, Cols: cols, Data: data}
}

// Row returns row i, sharing the matrix's storage.
func (m *Matrix) Row(i int) []float64 { return m.Data[i*m.Cols : (i+1)*m.Cols : (i+1)*m.Cols] }

// check returns an error unless x has at least k rows, at least one
// column and only finite values.
func (m *Matrix) check(k int) error {
	if m.Cols < 1 {
		return &Error{Err: ErrNoColumns, Msg: "the data has no columns"}
	}
	if k < 1 {
		return &Error{Err: ErrBadOption, Msg: fmt.Sprintf("k is %d: want at least 1 cluster", k)}
	}
	if m.Rows < k {
		return &Error{Err: ErrTooFewRows, Msg: fmt.Sprintf("%s for %s: want at least as many rows as clusters", plural(m.Rows, "row"), plural(k, "cluster"))}
	}
	for i, v := range m.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &Error{Err: ErrNotFinite, Row: i/m.Cols + 1, Msg: fmt.Sprintf("row %d, column %d is %v: want finite numbers", i/m.Cols+1, i%m.Cols+1, v)}
		}
	}
	return nil
}

// colMeanVariance returns the mean over the columns of each column's
// (population) variance, which scales k-means' tolerance.
func (m *Matrix) colMeanVariance() float64 {
	d := m.Cols
	mean := make([]float64, d)
	for i := range m.Rows {
		for j, v := range m.Row(i) {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(m.Rows)
	}
	vs := make([]float64, d)
	for i := range m.Rows {
		for j, v := range m.Row(i) {
			e := v - mean[j]
			vs[j] += e * e
		}
	}
	s := 0.0
	for _, v := range vs {
		s += v / float64(m.Rows)
	}
	return s / float64(d)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
