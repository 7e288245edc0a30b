package hypothesis

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
)

// TestBadInput: each user error is an *ir.Error of its kind, at the
// expression or cell that caused it.
func TestBadInput(t *testing.T) {
	one := []float64{1}
	for _, tc := range []struct {
		name   string
		params []*ir.SpaceParam
		prior  string
		obs    string
		header []string
		rows   [][]string
		kind   error
		pos    string // file:line:col
		msg    string // a regexp
	}{{
		name:   "sd not positive",
		params: []*ir.SpaceParam{param("w", one), param("s", []float64{-1, 1})},
		obs:    "d ~ normal(w, s)", header: []string{"d"}, rows: [][]string{{"1"}},
		kind: ErrDomain, pos: "t.pbl:2:15", msg: `^t.pbl:2:15: the standard deviation is -1 \(it must be > 0\) under hypothesis w = 1, s = -1$`,
	}, {
		name:   "sd of a column",
		params: []*ir.SpaceParam{param("w", one)},
		obs:    "d ~ normal(w, x - 2)", header: []string{"d", "x"}, rows: [][]string{{"1", "3"}, {"1", "2"}},
		kind: ErrDomain, pos: "t.pbl:2:17", msg: `the standard deviation is 0 \(it must be > 0\) under hypothesis w = 1 at row 2 \(data.csv:3\)$`,
	}, {
		name:   "p out of range",
		params: []*ir.SpaceParam{param("w", []float64{0.5, 2})},
		obs:    "b ~ bernoulli(w * x)", header: []string{"b", "x"}, rows: [][]string{{"1", "0.2"}, {"0", "1"}},
		kind: ErrDomain, pos: "t.pbl:2:17", msg: `the probability is 2 \(it must be in \[0, 1\]\) under hypothesis w = 2 at row 2 \(data.csv:3\)$`,
	}, {
		name:   "NaN from log of a negative",
		params: []*ir.SpaceParam{param("w", []float64{1, 2})},
		obs:    "d ~ normal(log(w * x), 1)", header: []string{"d", "x"}, rows: [][]string{{"1", "2"}, {"1", "-1"}},
		kind: ErrDomain, pos: "t.pbl:2:12", msg: `the mean log\(-1\) is NaN under hypothesis w = 1 at row 2`,
	}, {
		name:   "NaN of parameters",
		params: []*ir.SpaceParam{param("w", []float64{1, -1})},
		obs:    "d ~ normal(sqrt(w) * x, 1)", header: []string{"d", "x"}, rows: [][]string{{"1", "2"}},
		kind: ErrDomain, pos: "t.pbl:2:12", msg: `sqrt\(-1\) is NaN under hypothesis w = -1`,
	}, {
		name:   "sigmoid of NaN",
		params: []*ir.SpaceParam{param("w", []float64{1})},
		obs:    "b ~ bernoulli(sigmoid(w * log(x)))", header: []string{"b", "x"}, rows: [][]string{{"1", "2"}, {"0", "-3"}},
		kind: ErrDomain, pos: "t.pbl:2:27", msg: `log\(-3\) is NaN under hypothesis w = 1 at row 2`,
	}, {
		name:   "prior negative",
		params: []*ir.SpaceParam{param("w", []float64{2, 0})},
		prior:  "w - 1",
		obs:    "d ~ normal(w, 1)", header: []string{"d"}, rows: [][]string{{"1"}},
		kind: ErrPrior, pos: "t.pbl:1:3", msg: `the prior weight is -1 under hypothesis w = 0: it must be finite and >= 0`,
	}, {
		name:   "prior reads a column",
		params: []*ir.SpaceParam{param("w", one)},
		prior:  "w * d",
		obs:    "d ~ normal(w, 1)", header: []string{"d"}, rows: [][]string{{"1"}},
		kind: ErrPrior, pos: "t.pbl:1:5", msg: `the prior reads the data column d`,
	}, {
		name:   "prior zero everywhere",
		params: []*ir.SpaceParam{param("w", []float64{1, 2})},
		prior:  "w > 5",
		obs:    "d ~ normal(w, 1)", header: []string{"d"}, rows: [][]string{{"1"}},
		kind: ErrPrior, pos: "t.pbl:1:3", msg: `the prior weight is 0 for every hypothesis`,
	}, {
		name:   "impossible data",
		params: []*ir.SpaceParam{param("w", []float64{0, 1})},
		prior:  "w < 1",
		obs:    "b ~ bernoulli(w)", header: []string{"b"}, rows: [][]string{{"1"}},
		kind: ErrImpossible, pos: "t.pbl:1:1", msg: `the data are impossible under every hypothesis of H that the prior allows`,
	}, {
		name:   "missing column",
		params: []*ir.SpaceParam{param("w", one)},
		obs:    "d ~ normal(w * rain, 1)", header: []string{"d", "Rain"}, rows: [][]string{{"1", "2"}},
		kind: ErrMissingColumn, pos: "data.csv:1", msg: `^data.csv:1: the data have no column "rain" \(did you mean "Rain"\?\)$`,
	}, {
		name:   "text in a numeric cell",
		params: []*ir.SpaceParam{param("w", one)},
		obs:    "d ~ normal(w * x, 1)", header: []string{"x", "d"}, rows: [][]string{{"1", "2"}, {"abc", "3"}},
		kind: ErrBadValue, pos: "data.csv:3:1", msg: `"abc" is not a number \(column "x"\)`,
	}, {
		name:   "NaN in a cell",
		params: []*ir.SpaceParam{param("w", one)},
		obs:    "d ~ normal(w * x, 1)", header: []string{"x", "d"}, rows: [][]string{{"1", "NaN"}},
		kind: ErrBadValue, pos: "data.csv:2:2", msg: `NaN is not a finite number \(column "d"\)`,
	}, {
		name:   "empty cell",
		params: []*ir.SpaceParam{param("w", one)},
		obs:    "d ~ normal(w * x, 1)", header: []string{"x", "d"}, rows: [][]string{{"", "1"}},
		kind: ErrMissingValue, pos: "data.csv:2:1", msg: `missing value for "x"`,
	}, {
		name:   "bad bernoulli cell",
		params: []*ir.SpaceParam{param("w", []float64{0.5})},
		obs:    "b ~ bernoulli(w)", header: []string{"b"}, rows: [][]string{{"yes"}, {"maybe"}},
		kind: ErrBadValue, pos: "data.csv:3:1", msg: `"maybe" is not a value of the bernoulli column "b"`,
	}, {
		name:   "too many hypotheses",
		params: []*ir.SpaceParam{param("a", grid(0, 19999, 1)), param("b", grid(0, 19999, 1))},
		obs:    "d ~ normal(a + b, 1)", header: []string{"d"}, rows: [][]string{{"1"}},
		kind: ErrTooLarge, pos: "t.pbl:1:1", msg: `space H has 20000 × 20000 hypotheses, more than the limit of 100000000: use a coarser grid`,
	}, {
		name:   "continuous parameter",
		params: []*ir.SpaceParam{param("w", nil)},
		obs:    "d ~ normal(w, 1)", header: []string{"d"}, rows: [][]string{{"1"}},
		kind: ErrContinuous, pos: "t.pbl:1:1", msg: `parameter w is continuous`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSpace(t, tc.params, tc.prior, tc.obs)
			cellPos := func(row, f int) ir.Pos { // as a CSV file: the header on line 1
				p := ir.Pos{File: "data.csv", Line: row + 2}
				if f >= 0 {
					p.Col = f + 1 // the column's index in these tests
				}
				return p
			}
			d, err := NewData(s, nil, tc.header, tc.rows, cellPos)
			if err == nil {
				_, err = Evaluate(context.Background(), s, nil, d)
			}
			var e *ir.Error
			if !errors.Is(err, tc.kind) || !errors.As(err, &e) {
				t.Fatalf("err = %v, want a %v", err, tc.kind)
			}
			if e.Pos.String() != tc.pos {
				t.Errorf("at %s, want %s (%v)", e.Pos, tc.pos, err)
			}
			if !regexp.MustCompile(tc.msg).MatchString(err.Error()) {
				t.Errorf("message %q, want %q", err, tc.msg)
			}
		})
	}
}

func TestReadCSV(t *testing.T) {
	dir := t.TempDir()
	s := newSpace(t, []*ir.SpaceParam{param("w", []float64{0.5, 1})}, "", "d ~ normal(w * x, 1)")
	for _, tc := range []struct {
		name, src string
		want      [][]float64 // d, x
		err       string
	}{
		{"simple", "x,d\n1,2\n3,4\n", [][]float64{{2, 4}, {1, 3}}, ""},
		{"bom crlf extra column", "\uFEFFnote,d,x\r\nabc,2,1\r\n\"q,r\",4,3\r\n", [][]float64{{2, 4}, {1, 3}}, ""},
		{"rune columns", "näme,x,d\né,abc,1\n", nil, `^data.csv:2:3: "abc" is not a number \(x is real-valued\)$`},
		{"field count", "x,d\n1,2,3\n", nil, `^data.csv:2:5: row has 3 fields, expected 2 \(one per header column\)$`},
		{"missing column", "x,D\n1,2\n", nil, `^data.csv:1: the data have no column "d" \(did you mean "D"\?\)$`},
		{"empty file", "", nil, `^data.csv:1:1: empty file`},
		{"short row", "x,d\n1\n", nil, `^data.csv:2:2: row has 1 field, expected 2 \(one per header column\)$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "data.csv")
			if err := os.WriteFile(path, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			d, err := ReadCSV(path, s, nil)
			if tc.err != "" {
				if err == nil || !regexp.MustCompile(tc.err).MatchString(relErr(err, dir)) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for j, col := range tc.want {
				for i, v := range col {
					if d.Cols[j][i] != v {
						t.Errorf("column %s row %d = %g, want %g", d.Names[j], i, d.Cols[j][i], v)
					}
				}
			}
			if got := d.Pos(1, -1).Line; got != 3 {
				t.Errorf("row 2 at line %d", got)
			}
		})
	}
}

func relErr(err error, dir string) string {
	return regexp.MustCompile(regexp.QuoteMeta(dir+string(filepath.Separator))).ReplaceAllString(err.Error(), "")
}

// TestReadCSVCells: a space's CSV data are read as every command reads
// CSV (package data): a bernoulli column's 0/1/true/false/yes/no in any
// case, a concept's state names, and errors of this package's kinds at
// the cell (a missing cell, empty, ?, NA or NaN, is ErrMissingValue;
// encoding/csv trimmed spaces, and read ? and NA as bad values).
func TestReadCSVCells(t *testing.T) {
	dir := t.TempDir()
	bern := newSpace(t, []*ir.SpaceParam{param("w", []float64{0.5})}, "", "b ~ bernoulli(w)")
	m, concept := conceptModel(t, [][]string{{"Sunny", "Rainy"}, {"Yes", "No"}}, []string{"Sky", "Enjoy"}, 0)
	for _, tc := range []struct {
		name string
		s    *ir.Space
		src  string
		want [][]float64
		kind error
		err  string
	}{
		{"bernoulli", bern, "\uFEFFb,note\r\nyes,\"a,\"\"b\"\"\"\r\nNo,x\r\n1,\r\nFALSE,y\r\n", [][]float64{{1, 0, 1, 0}}, nil, ""},
		{"bernoulli bad", bern, "b\nyes\nmaybe\n", nil, ErrBadValue, `^data.csv:3:1: "maybe" is not a value of the bernoulli column "b" \(0, 1, true, false, yes or no\)$`},
		{"bernoulli spaces", bern, "b,c\n yes,1\n", nil, ErrBadValue, `^data.csv:2:1: " yes" is not a value of the bernoulli column "b"`},
		{"bernoulli NA", bern, "c,b\n1,NA\n", nil, ErrMissingValue, `^data.csv:2:3: missing value for b$`},
		{"concept", concept, "Enjoy,Sky\nYes,Sunny\n\"No\",Rainy\n", [][]float64{{0, 1}, {0, 1}}, nil, ""},
		{"concept unknown state", concept, "Enjoy,Sky\nYes,Sunny\nNo,Cloudy\n", nil, ErrBadValue, `^data.csv:3:4: unknown state "Cloudy" for Sky`},
		{"concept ?", concept, "Sky,Enjoy\nSunny,?\n", nil, ErrMissingValue, `^data.csv:2:7: missing value for Enjoy$`},
		{"concept missing column", concept, "Sky,enjoy\nSunny,Yes\n", nil, ErrMissingColumn, `^data.csv:1: the data have no column "Enjoy" \(did you mean "enjoy"\?\)$`},
		{"column twice", concept, "Sky,Enjoy,Sky\nSunny,Yes,Sunny\n", nil, ErrBadValue, `^data.csv:1:11: column "Sky" appears twice in the header$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "data.csv")
			if err := os.WriteFile(path, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			d, err := ReadCSV(path, tc.s, m)
			if tc.err != "" {
				var e *ir.Error
				if !errors.Is(err, tc.kind) || !errors.As(err, &e) || !regexp.MustCompile(tc.err).MatchString(relErr(err, dir)) {
					t.Fatalf("err = %v, want %q of kind %v", err, tc.err, tc.kind)
				}
				if tc.kind == ErrMissingValue && !errors.Is(err, data.ErrMissingValue) {
					t.Errorf("err = %v is not of data's kind %v too", err, data.ErrMissingValue)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for j, col := range tc.want {
				if len(d.Cols[j]) != len(col) {
					t.Fatalf("column %s: %v, want %v", d.Names[j], d.Cols[j], col)
				}
				for i, v := range col {
					if !(d.Cols[j][i] == v) {
						t.Errorf("column %s row %d = %g, want %g", d.Names[j], i, d.Cols[j][i], v)
					}
				}
			}
		})
	}
}
