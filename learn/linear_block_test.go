package learn_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// TestLinearFarFromZero learns a linear Gaussian density whose parents
// lie near 1e8 and -5e7 and whose child near 2.25e8 (a naive sum of
// squares would keep no digit of their spread), from rows built so that
// the least-squares answer is known exactly by hand: over every 8 rows of
// a configuration X1 = 1e8 + 3·t1 and X2 = -5e7 + t2/2, with t1, t2 and r
// = t1·t2·t3 the Walsh patterns ±1 (orthogonal to each other and to the
// constant), and Y = c + b1·X1 + b2·X2 + s·r, every number a multiple of
// 1/4 and so exact in binary and in the CSV. So the fit is c, b1, b2 and
// the standard deviation s (RSS = n·s²) exactly, whatever the order of
// the rows, however they fall into blocks, batches and workers; rows with
// a missing cell, which are skipped, and a discrete parent whose
// configurations interleave take the path row by row.
func TestLinearFarFromZero(t *testing.T) {
	t1 := [8]float64{1, -1, 1, -1, 1, -1, 1, -1}
	t2 := [8]float64{1, 1, -1, -1, 1, 1, -1, -1}
	t3 := [8]float64{1, 1, 1, 1, -1, -1, -1, -1}
	type line struct{ c, b1, b2, s float64 }
	lines := map[string]line{"a": {1000, 2, -0.5, 0.25}, "b": {-3e6, -0.25, 4, 2}}
	for _, tc := range []struct {
		name     string
		periods  int // per configuration
		discrete bool
		missing  bool
	}{
		{"one period", 1, false, false},
		{"one block less a period", 63, false, false},
		{"one block", 64, false, false},
		{"one block and a period", 65, false, false},
		{"many blocks", 5000, false, false},
		{"many blocks, missing cells", 5000, false, true},
		{"discrete parent", 700, true, false},
		{"discrete parent, missing cells", 700, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(31, uint64(tc.periods)))
			confs := []string{"a"}
			if tc.discrete {
				confs = []string{"a", "b"}
			}
			var rows []string
			for _, a := range confs {
				l := lines[a]
				for range tc.periods {
					for i := range 8 {
						x1 := 1e8 + 3*t1[i]
						x2 := -5e7 + t2[i]/2
						y := l.c + l.b1*x1 + l.b2*x2 + l.s*t1[i]*t2[i]*t3[i]
						cells := []string{fmt.Sprint(x1), fmt.Sprint(x2), fmt.Sprint(y)}
						if tc.discrete {
							cells = append([]string{a}, cells...)
						}
						rows = append(rows, strings.Join(cells, ","))
					}
				}
			}
			if tc.missing {
				// Rows with one empty cell and wild values in the others.
				for i := range len(rows) / 10 {
					cells := []string{"1e12", "-7", "3e9"}
					cells[i%3] = ""
					if tc.discrete {
						cells = append([]string{confs[i%2]}, cells...)
						if i%4 == 3 {
							cells = []string{"", "1e12", "-7", "3e9"}
						}
					}
					rows = append(rows, strings.Join(cells, ","))
				}
			}
			r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
			header, src := "X1,X2,Y", "var X1, X2, Y: real\nP(X1) = normal(0, 1)\nP(X2) = normal(0, 1)\nP(Y | X1, X2) = normal(0, 1)\n"
			if tc.discrete {
				header = "A," + header
				src = "var A: {a, b}\nP(A) = [0.5, 0.5]\n" + strings.Replace(src, "P(Y | X1, X2) = normal(0, 1)", "P(Y | A, X1, X2) = { a: normal(0, 1)  b: normal(0, 1) }", 1)
			}
			path := filepath.Join(t.TempDir(), "d.csv")
			if err := os.WriteFile(path, []byte(header+"\n"+strings.Join(rows, "\n")+"\n"), 0o666); err != nil {
				t.Fatal(err)
			}
			m, err := pbl.Load("far.pbl", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := learn.Learn(m, func(m *ir.Model) (*data.Reader, error) { return data.Open(path, m, data.Options{}) },
				learn.Options{Method: learn.MLE, VarSmoothing: 1e-300})
			if err != nil {
				t.Fatal(err)
			}
			y, _ := out.Lookup("Y")
			g := out.Gaussian(y.ID)
			if g == nil || len(g.Real) != 2 || len(g.Mean) != len(confs) {
				t.Fatalf("Y's density %+v", g)
			}
			near := func(what string, got, want float64) {
				if !(math.Abs(got-want) <= 1e-9*math.Abs(want)) {
					t.Errorf("%s: %.17g, want %.17g", what, got, want)
				}
			}
			for u, a := range confs {
				l := lines[a]
				near("Y's intercept given "+a, g.Mean[u], l.c)
				near("Y's coefficient of X1 given "+a, g.Coef[2*u], l.b1)
				near("Y's coefficient of X2 given "+a, g.Coef[2*u+1], l.b2)
				near("Y's sd given "+a, g.SD[u], l.s)
			}
			if !tc.missing {
				x1, _ := out.Lookup("X1")
				g := out.Gaussian(x1.ID)
				near("X1's mean", g.Mean[0], 1e8)
				near("X1's sd", g.SD[0], 3)
			}
		})
	}
}
