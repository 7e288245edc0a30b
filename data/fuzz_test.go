package data

import (
	"bytes"
	"errors"
	"io"
	"math"
	"testing"
	"testing/iotest"

	"github.com/pbl-lang/pbl/ir"
)

// FuzzRead checks that no input makes the reader panic or hang; that every
// error is ours, with a position in the file; that the rows do not depend
// on how the input is split across reads or into batches; and that data
// read without error survives a Write and a second read unchanged.
func FuzzRead(f *testing.F) {
	for _, tc := range parseTests {
		f.Add([]byte(tc.csv), tc.opt.IgnoreUnknownColumns)
	}
	for _, tc := range errorTests {
		if len(tc.csv) < 1<<12 {
			f.Add([]byte(tc.csv), tc.opt.IgnoreUnknownColumns)
		}
	}
	m := testModel(f)
	f.Add(genCSV(m, 20, 7), false)
	f.Fuzz(func(t *testing.T, src []byte, ignore bool) {
		const name = "fuzz.csv"
		opt := Options{IgnoreUnknownColumns: ignore}
		all, err := ReadAll(name, bytes.NewReader(src), m, opt)
		checkErr(t, name, err)

		// One byte at a time, one row per batch.
		var rows []*Batch
		var err2 error
		r, err2 := NewReader(name, iotest.OneByteReader(bytes.NewReader(src)), m, opt)
		if err2 == nil {
			for {
				b := r.NewBatch(1)
				if err2 = r.Read(b); err2 != nil {
					if err2 == io.EOF {
						err2 = nil
					}
					break
				}
				rows = append(rows, b)
			}
		}
		if (err == nil) != (err2 == nil) || err != nil && err.Error() != err2.Error() {
			t.Fatalf("ReadAll error %v, but one byte at a time %v", err, err2)
		}
		if err != nil {
			return
		}
		if len(rows) != all.N {
			t.Fatalf("ReadAll read %d rows, one byte at a time %d", all.N, len(rows))
		}

		// With the model made from the header, the same rows; with
		// Required, an error of kind ErrMissingValue exactly when a cell
		// is missing.
		r3, err3 := NewReaderFunc(name, bytes.NewReader(src), func(h *Header) (*ir.Model, error) {
			for k := range h.Names {
				checkPos(t, name, &ir.Error{Pos: h.Pos(k)})
			}
			return m, nil
		}, opt)
		if err3 == nil {
			var b3 *Batch
			if b3, err3 = ReadRest(r3); err3 == nil && (b3.N != all.N || !sameCells(b3, all)) {
				t.Fatalf("NewReaderFunc read other rows than NewReader")
			}
		}
		if err3 != nil {
			t.Fatalf("NewReaderFunc: %v, where NewReader read the rows", err3)
		}
		_, errReq := ReadAll(name, bytes.NewReader(src), m, Options{IgnoreUnknownColumns: ignore, Required: true})
		checkErr(t, name, errReq)
		if missing := hasMissing(all); (errReq != nil) != missing || errReq != nil && !errors.Is(errReq, ErrMissingValue) {
			t.Fatalf("a missing cell: %v; with Required: %v", missing, errReq)
		}
		for i, b := range rows {
			if b.N != 1 || b.Lines[0] != all.Lines[i] || !sameCells(b, slice(all, i)) {
				t.Fatalf("row %d differs read one byte at a time", i)
			}
		}

		var out bytes.Buffer
		if err := Write(&out, m, all.Vars, all); err != nil {
			t.Fatal(err)
		}
		back, err := ReadAll("out.csv", &out, m, Options{})
		if err != nil {
			t.Fatalf("reading back what Write wrote: %v", err)
		}
		if !sameCells(all, back) {
			t.Fatalf("Write and read back changed the data")
		}
	})
}

// hasMissing reports whether a cell of b is missing.
func hasMissing(b *Batch) bool {
	for j := range b.Vars {
		for i := range b.N {
			if b.Reals[j] != nil && math.IsNaN(b.Reals[j][i]) || b.Cols[j] != nil && b.Cols[j][i] == Missing {
				return true
			}
		}
	}
	return false
}

// slice returns row i of b as a batch of one row.
func slice(b *Batch, i int) *Batch {
	out := &Batch{N: 1, Vars: b.Vars, Cols: make([][]int32, len(b.Cols)), Reals: make([][]float64, len(b.Reals))}
	for j := range b.Vars {
		if b.Reals[j] != nil {
			out.Reals[j] = b.Reals[j][i : i+1]
		} else {
			out.Cols[j] = b.Cols[j][i : i+1]
		}
	}
	return out
}

func checkErr(t *testing.T, name string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var list ir.ErrorList
	var e *ir.Error
	switch {
	case errors.As(err, &list):
		if len(list) == 0 {
			t.Fatal("empty error list")
		}
		for _, e := range list {
			checkPos(t, name, e)
		}
	case errors.As(err, &e):
		checkPos(t, name, e)
	default:
		t.Fatalf("error %T is not ours: %v", err, err)
	}
}

func checkPos(t *testing.T, name string, e *ir.Error) {
	t.Helper()
	if e == nil || e.Pos.File != name || e.Pos.Line < 1 || e.Pos.Col < 0 {
		t.Fatalf("error with a bad position: %v", e)
	}
}
