package data

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// realModel is the model OpenFunc's callers make from a header: one real
// variable per named column.
func realModel(h *Header) (*ir.Model, error) {
	b := ir.NewBuilder(h.File())
	for k, name := range h.Names {
		if name != "" {
			b.AddVar(h.Pos(k), name, ir.Real, nil, 0)
		}
	}
	return b.Finish()
}

// TestOpenFunc: the model made from the header binds its columns, the
// header's fields given as written (unquoted, after a byte order mark,
// gzip decompressed) with the positions where they stand, and an error
// of the function is OpenFunc's.
func TestOpenFunc(t *testing.T) {
	dir := t.TempDir()
	src := "\uFEFF\"a,\"\"b\"\"\",c,x̃,\"d\ne\"\r\n1,2,3,4\r\n"
	for _, compressed := range []bool{false, true} {
		text := src
		if compressed {
			text = gz(src)
		}
		path := filepath.Join(dir, fmt.Sprint("h", compressed, ".csv"))
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		var got []string
		r, err := OpenFunc(path, func(h *Header) (*ir.Model, error) {
			for k, name := range h.Names {
				got = append(got, fmt.Sprintf("%q@%s", name, h.Pos(k)))
			}
			return realModel(h)
		}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{
			fmt.Sprintf(`"a,\"b\""@%s:1:1`, path),
			fmt.Sprintf(`"c"@%s:1:11`, path),
			fmt.Sprintf(`"x̃"@%s:1:13`, path),
			fmt.Sprintf(`"d\ne"@%s:1:16`, path),
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("gzip %v: header %v, want %v", compressed, got, want)
		}
		b, err := ReadRest(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if b.N != 1 || b.Lines[0] != 3 || !(b.Reals[0][0] == 1) || !(b.Reals[3][0] == 4) {
			t.Errorf("gzip %v: %d rows, first at line %v", compressed, b.N, b.Lines)
		}
	}

	errNo := errors.New("no model")
	_, err := OpenFunc(filepath.Join(dir, "hfalse.csv"), func(*Header) (*ir.Model, error) { return nil, errNo }, Options{})
	if !errors.Is(err, errNo) {
		t.Errorf("the function's error: got %v", err)
	}
}

// TestRequired: with Options.Required a missing cell (empty, ?, NA, NaN
// in a real column, a blank line of a one-column file) is an error of
// kind ErrMissingValue at the cell, on one worker or several; without it
// the same cells are missing values.
func TestRequired(t *testing.T) {
	m := testModel(t)
	for _, tc := range []struct {
		header, pad, rows string // the file is header, pad repeated (to start parallel parsing), rows
		line, col         int    // the error's place after the header and rows
		msg               string
	}{
		{"Outlook,Temp\n", "sunny,1\n", "sunny,1\n,2\n", 3, 1, `missing value for Outlook`},
		{"Outlook,Temp\n", "sunny,1\n", "sunny,1\nrain,?\n", 3, 6, `missing value for Temp`},
		{"Outlook,Temp\n", "sunny,1\n", "sunny,NA\n", 2, 7, `missing value for Temp`},
		{"Outlook,Temp\n", "sunny,1\n", "sunny,NaN\n", 2, 7, `missing value for Temp`},
		{"Temp,Outlook\r\n", "1,rain\r\n", "1,\"\"\r\n", 2, 3, `missing value for Outlook`},
		{"Temp\n", "1\n", "1\n\n2\n", 3, 1, `missing value for Temp`},
		{"Path,Temp\n", "NA,1\n", "NA,1\n?,2\n,3\n", 4, 1, `missing value for Path`}, // NA and ? are states of Path
	} {
		for _, workers := range []int{1, 3} {
			pad := 0
			if workers > 1 {
				pad = 2000
			}
			src := tc.header + strings.Repeat(tc.pad, pad) + tc.rows
			_, err := ReadAll("d.csv", strings.NewReader(src), m, Options{Required: true, Workers: workers, chunkSize: 512})
			var e *ir.Error
			want := fmt.Sprintf("d.csv:%d:%d: %s", tc.line+pad, tc.col, tc.msg)
			if !errors.Is(err, ErrMissingValue) || !errors.As(err, &e) || e.Error() != want {
				t.Errorf("%q on %d workers: %v, want %s of kind ErrMissingValue", tc.rows, workers, err, want)
			}
		}
		b, err := ReadAll("d.csv", strings.NewReader(tc.header+tc.rows), m, Options{})
		if err != nil || b.N == 0 {
			t.Errorf("%q without Required: %v", tc.rows, err)
		}
	}
}

// TestDecode: Options.Decode reads a real column's cells that are not
// missing; its error is reported at the cell with the decoder's error as
// its kind, and the cells of other columns, and the bad values
// strconv.ParseFloat refuses, are of kind ErrBadValue.
func TestDecode(t *testing.T) {
	m := testModel(t)
	temp, _ := m.Lookup("Temp")
	errOdd := errors.New("odd")
	decode := map[ir.VarID]func(string) (float64, error){temp.ID: func(s string) (float64, error) {
		switch s {
		case "yes":
			return 1, nil
		case "no":
			return 0, nil
		}
		return 0, fmt.Errorf("%q is neither yes nor no: %w", s, errOdd)
	}}
	b, err := ReadAll("d.csv", strings.NewReader("Temp,Outlook\nyes,sunny\nno,rain\n,rain\n"), m, Options{Decode: decode})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Reals[0]; !(got[0] == 1 && got[1] == 0 && math.IsNaN(got[2])) {
		t.Errorf("decoded %v, want [1 0 NaN]", got)
	}
	_, err = ReadAll("d.csv", strings.NewReader("Temp,Outlook\nyes,sunny\n\"mabye\",rain\n"), m, Options{Decode: decode})
	var e *ir.Error
	if !errors.Is(err, errOdd) || !errors.As(err, &e) || e.Error() != `d.csv:3:1: "mabye" is neither yes nor no: odd` {
		t.Errorf("decoder's error: %v", err)
	}
	for _, src := range []string{"Temp,Outlook\n1,sunny\n1,mabye\n", "Temp,Outlook\nx,sunny\n", "Temp,Outlook\n1e999,sunny\n", "Temp,Outlook\n-Inf,sunny\n"} {
		_, err := ReadAll("d.csv", strings.NewReader(src), m, Options{})
		if !errors.Is(err, ErrBadValue) {
			t.Errorf("%q: %v, want an error of kind ErrBadValue", src, err)
		}
	}
}

// TestErrorKinds: the reader's errors about the file's syntax, and about
// a file with no header, have kinds that errors.Is finds, on one worker
// or several.
func TestErrorKinds(t *testing.T) {
	m := testModel(t)
	for _, tc := range []struct {
		src  string
		kind error
	}{
		{"", ErrNoHeader},
		{"\n1,2\n", ErrNoHeader},
		{"Outlook,Temp\nsu\"nny,1\n", ErrMalformed},
		{"Outlook,Temp\n\"sunny\"x,1\n", ErrMalformed},
		{"Outlook,Temp\n\"sunny,1\n", ErrMalformed},
		{"Outlook,Temp\nsunny,1,2\n", ErrMalformed},
		{"Outlook,Temp\nsunny\n", ErrMalformed},
		{"Outlook,Temp\nsunny,1\rrain,2\n", ErrMalformed},
		{"Outlook,\"Te\"mp\n", ErrMalformed},
		{gz("Outlook,Temp\nsunny,1\n")[:20], ErrMalformed},
		{"Outlook,Temp\nmabye,1\n", ErrBadValue},
	} {
		for _, workers := range []int{1, 3} {
			_, err := ReadAll("d.csv", strings.NewReader(tc.src), m, Options{Workers: workers, chunkSize: 8})
			var e *ir.Error
			if !errors.Is(err, tc.kind) || !errors.As(err, &e) || e.Pos.File != "d.csv" {
				t.Errorf("%q on %d workers: %v, want an *ir.Error in d.csv of kind %v", tc.src, workers, err, tc.kind)
			}
		}
	}
}
