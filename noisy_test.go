package pbl_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// noisyOff is a noisy_max whose links and leak sum to 1 only within the
// 1e-6 tolerance, both ways (1 − 9e-7 and 1 + 9e-7), and whose
// inactive-looking link S=lo gives the last state 0.9999991: the links are
// renormalised as a CPT's rows are, so that no cause produces C=severe
// but S=hi, and no entry is negative.
const noisyOff = `
var A: bool
var S: {hi, lo, no}
var C: {severe, mild, absent}
P(A) = 0.3
P(S) = [0.2, 0.3, 0.5]
P(C | A, S) = noisy_max(A: [0, 0.3, 0.6999991],
                        S: { hi: [0.2, 0.5, 0.3000009]  lo: [0, 0, 0.9999991] },
                        leak: [0, 0.1, 0.9000009])
`

// noisyRounding: links that sum to 1 exactly in decimals, but whose
// cumulative sums in float64 exceed 1 (0.56 + 0.34 + 0.1 is 1 + 2.2e-16),
// which gave C=severe the entry −2.2e-16 (pbl convert to .bif and .uai
// refused the table, and pbl refused the .xml and .net it wrote); and a
// noisy_or whose link 1e-20 must leave Y=true possible (1 − (1 − 1e-20)
// is 0 in float64).
const noisyRounding = `
var A, B, Y: bool
var C: {severe, moderate, mild, absent}
P(A) = 0.5
P(B) = 0.25
P(C | A, B) = noisy_max(A: [0, 0.1, 0.34, 0.56], B: [0.11, 0.33, 0.0, 0.56], leak: [0, 0, 0.1, 0.9])
P(Y | A, B) = noisy_or(A: 1e-20, B: 0.3)
`

// noisyMaxRow is Díez's noisy-MAX row computed here from the links as
// written, each renormalised by its sum: P(C is y_j or milder) = Π over
// the causes of F(j), F(j) = Σ_{t ≥ j} of its distribution, and P(y_j)
// the difference of two of these.
func noisyMaxRow(causes ...[]float64) []float64 {
	k := len(causes[0])
	milder := func(j int) float64 {
		if j == k {
			return 0
		}
		p := 1.0
		for _, c := range causes {
			sum, f := 0.0, 0.0
			for t, x := range c {
				sum += x
				if t >= j {
					f += x
				}
			}
			p *= f / sum
		}
		return p
	}
	row := make([]float64, k)
	for j := range k {
		row[j] = milder(j) - milder(j+1)
	}
	return row
}

// TestNoisyMaxTolerance: noisy_max links and leaks within the tolerance
// are renormalised (C=severe is impossible where no cause produces it),
// every table a compact distribution gives is non-negative with rows
// summing to 1, every format pbl writes reads back with the same tables,
// and the answers are the closed form's.
func TestNoisyMaxTolerance(t *testing.T) {
	pA, pS := []float64{0.3, 0.7}, []float64{0.2, 0.3, 0.5}
	a1, a0 := []float64{0, 0.3, 0.6999991}, []float64{0, 0, 1}
	s := [][]float64{{0.2, 0.5, 0.3000009}, {0, 0, 0.9999991}, {0, 0, 1}}
	leak := []float64{0, 0.1, 0.9000009}
	m, err := pbl.Load("off.pbl", []byte(noisyOff))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := m.Lookup("C")
	vals := m.Table(c.ID).Factor.Vals
	// The table, row-major over (A, S), against the closed form.
	var want []float64
	for _, a := range [][]float64{a1, a0} {
		for _, sd := range s {
			want = append(want, noisyMaxRow(a, sd, leak)...)
		}
	}
	for i := range want {
		if !(math.Abs(vals[i]-want[i]) <= 1e-15) || vals[i] < 0 {
			t.Errorf("P(C | A, S) entry %d = %v, want %v", i, vals[i], want[i])
		}
	}
	// No cause but S=hi produces C=severe: exactly 0 there (1e-7 before).
	for _, r := range []int{1, 2, 4, 5} {
		if vals[3*r] != 0 {
			t.Errorf("row %d: P(C=severe) = %v, want 0", r, vals[3*r])
		}
	}
	// P(C) by hand: Σ P(A) P(S) P(C | A, S).
	pc := make([]float64, 3)
	for i := range 2 {
		for j := range 3 {
			for k := range 3 {
				pc[k] += pA[i] * pS[j] * want[(i*3+j)*3+k]
			}
		}
	}
	ans, err := pbl.Ask(m, "P(C)")
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for k, st := range c.States {
		got, err := ans.Prob("C=" + st)
		if err != nil || !(math.Abs(got-pc[k]) <= 1e-15) {
			t.Errorf("P(C=%s) = %v (%v), want %v", st, got, err, pc[k])
		}
		sum += got
	}
	if !(math.Abs(sum-1) <= 1e-15) {
		t.Errorf("P(C) sums to %v", sum)
	}
	// Given C=severe, S=hi for certain; A keeps its prior.
	ans, err = pbl.Ask(m, "P(A | C=severe)")
	if err != nil {
		t.Fatal(err)
	}
	sev := (pA[0]*want[0] + pA[1]*want[9]) * pS[0] // P(C=severe)
	if got, err := ans.Prob("A=true"); err != nil || !(math.Abs(got-pA[0]*pS[0]*want[0]/sev) <= 1e-12) {
		t.Errorf("P(A=true | C=severe) = %v (%v), want %v", got, err, pA[0]*pS[0]*want[0]/sev)
	}
	for _, q := range []string{"P(A | C=severe, S=lo)", "MPE(C=severe, S=no)", "P(C=severe, S=lo)"} {
		ans, err := pbl.Ask(m, q)
		if q == "P(C=severe, S=lo)" {
			if p, _ := ans.Prob(); err != nil || p != 0 {
				t.Errorf("%s = %v (%v), want 0", q, p, err)
			}
			continue
		}
		if !errors.Is(err, infer.ErrImpossible) {
			t.Errorf("%s: %v, want impossible evidence", q, err)
		}
	}
	// The .pbl writer keeps the numbers as written.
	var buf bytes.Buffer
	if err := pbl.Write(&buf, m, ".pbl"); err != nil {
		t.Fatal(err)
	}
	for _, lit := range []string{"0.6999991", "0.3000009", "0.9999991", "0.9000009"} {
		if !bytes.Contains(buf.Bytes(), []byte(lit)) {
			t.Errorf("the .pbl written lacks %s:\n%s", lit, buf.String())
		}
	}
}

// TestNoisyTablesRoundTrip: the compact tables of noisyOff and
// noisyRounding are non-negative, sum to 1 by row within rounding, are
// written by every table format and read back unchanged.
func TestNoisyTablesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{"off": noisyOff, "rounding": noisyRounding} {
		m, err := pbl.Load(name+".pbl", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		for v := range m.Vars {
			f := m.Factor(ir.VarID(v))
			k := f.Card[len(f.Card)-1]
			for r := 0; r < len(f.Vals); r += k {
				sum := 0.0
				for _, x := range f.Vals[r : r+k] {
					if !(x >= 0 && x <= 1) {
						t.Errorf("%s: %s: entry %v", name, m.Vars[v].Name, x)
					}
					sum += x
				}
				if !(math.Abs(sum-1) <= 4e-16) {
					t.Errorf("%s: %s: row %d sums to 1%+v", name, m.Vars[v].Name, r/k, sum-1)
				}
			}
		}
		for _, ext := range pbl.WriteFormats {
			if ext == ".dot" {
				continue // the graph only
			}
			path := filepath.Join(dir, name+ext)
			var buf bytes.Buffer
			if err := pbl.Write(&buf, m, ext); err != nil {
				t.Errorf("%s: write %s: %v", name, ext, err)
				continue
			}
			if err := os.WriteFile(path, buf.Bytes(), 0o666); err != nil {
				t.Fatal(err)
			}
			back, err := pbl.LoadFile(path)
			if err != nil {
				t.Errorf("%s: %s does not read back: %v", name, ext, err)
				continue
			}
			for v := range m.Vars {
				checkReadBack(t, name+ext+": "+m.Vars[v].Name, back.Table(ir.VarID(v)), m.Factor(ir.VarID(v)).Vals)
			}
		}
	}
	// The closed form of noisyRounding, and the noisy_or's 1e-20 kept.
	m, err := pbl.Load("rounding.pbl", []byte(noisyRounding))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := m.Lookup("C")
	vals := m.Table(c.ID).Factor.Vals
	off := []float64{0, 0, 0, 1}
	la, lb, leak := []float64{0, 0.1, 0.34, 0.56}, []float64{0.11, 0.33, 0.0, 0.56}, []float64{0, 0, 0.1, 0.9}
	var want []float64
	for _, a := range [][]float64{la, off} {
		for _, b := range [][]float64{lb, off} {
			want = append(want, noisyMaxRow(a, b, leak)...)
		}
	}
	for i := range want {
		if !(math.Abs(vals[i]-want[i]) <= 1e-15) {
			t.Errorf("P(C | A, B) entry %d = %v, want %v", i, vals[i], want[i])
		}
	}
	// P(Y=true | A=true, B=false) = 1e-20; P(Y=true | A=true, B=true) =
	// 1 − (1 − 1e-20)(1 − 0.3) = 0.3 + 0.7e-20.
	y, _ := m.Lookup("Y")
	yv := m.Table(y.ID).Factor.Vals
	if got := yv[2]; !(math.Abs(got-1e-20) <= 1e-32) {
		t.Errorf("P(Y=true | A=true, B=false) = %v, want 1e-20", got)
	}
	ans, err := pbl.Ask(m, "P(A | Y=true, B=false)")
	if err != nil {
		t.Fatalf("P(A | Y=true, B=false): %v", err)
	}
	if got, _ := ans.Prob("A=true"); got != 1 {
		t.Errorf("P(A=true | Y=true, B=false) = %v, want 1", got)
	}
}

// TestNoisyRandomRoundTrip: random noisy_max and noisy_or tables whose
// links and leaks are off by up to the tolerance, either way, and hold
// exact zeros: every table is the closed form's, non-negative, its rows
// summing to 1, and every table format reads back what pbl writes.
func TestNoisyRandomRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 3))
	dir := t.TempDir()
	dist := func(k int) []float64 {
		d := make([]float64, k)
		sum := 0.0
		for i := range d {
			if rng.IntN(3) > 0 { // a third of the entries exactly 0
				d[i] = float64(1+rng.IntN(99)) / 100
			}
			sum += d[i]
		}
		if sum == 0 {
			d[k-1], sum = 1, 1
		}
		for i := range d {
			d[i] /= sum
			d[i] = math.Round(d[i]*1e4) / 1e4 // a decimal as written
		}
		// Off by up to 9e-7 either way, on a non-zero entry.
		for i := range d {
			if d[i] != 0 {
				delta := (rng.Float64()*2 - 1) * 9e-7
				if d[i]+delta > 1 { // a probability above 1 is an error
					delta = -delta
				}
				d[i] += delta
				break
			}
		}
		s := 0.0
		for _, x := range d {
			s += x
		}
		if !(math.Abs(s-1) <= 9.9e-7) {
			for i := range d { // keep the written sum within the tolerance
				if x := d[i] + 1 - s; x >= 0 && x <= 1 {
					d[i] = x
					break
				}
			}
		}
		return d
	}
	vec := func(d []float64) string {
		s := make([]string, len(d))
		for i, x := range d {
			s[i] = strconv.FormatFloat(x, 'g', -1, 64)
		}
		return "[" + strings.Join(s, ", ") + "]"
	}
	for trial := range 30 {
		k := 2 + trial%3
		n := 1 + trial%3
		var src strings.Builder
		var names, links []string
		lk := make([][]float64, n)
		for i := range n {
			name := fmt.Sprintf("A%d", i)
			names = append(names, name)
			fmt.Fprintf(&src, "var %s: bool\nP(%s) = %v\n", name, name, float64(1+rng.IntN(9))/10)
			lk[i] = dist(k)
			links = append(links, name+": "+vec(lk[i]))
		}
		leak := dist(k)
		links = append(links, "leak: "+vec(leak))
		states := []string{"s0", "s1", "s2", "s3"}[:k]
		fmt.Fprintf(&src, "var C: {%s}\nP(C | %s) = noisy_max(%s)\n", strings.Join(states, ", "), strings.Join(names, ", "), strings.Join(links, ", "))
		m, err := pbl.Load("random.pbl", []byte(src.String()))
		if err != nil {
			t.Fatalf("%v\n%s", err, src.String())
		}
		c, _ := m.Lookup("C")
		vals := m.Table(c.ID).Factor.Vals
		off := make([]float64, k)
		off[k-1] = 1
		for r := 0; r < 1<<n; r++ {
			causes := [][]float64{leak}
			for i := range n {
				if r>>(n-1-i)&1 == 0 { // A_i = true
					causes = append(causes, lk[i])
				} else {
					causes = append(causes, off)
				}
			}
			want := noisyMaxRow(causes...)
			sum := 0.0
			for j := range k {
				got := vals[r*k+j]
				sum += got
				if !(math.Abs(got-want[j]) <= 1e-14) || got < 0 || (want[j] == 0) != (got == 0) {
					t.Errorf("trial %d row %d state %d: %v, want %v\n%s", trial, r, j, got, want[j], src.String())
				}
			}
			if !(math.Abs(sum-1) <= 4e-16) {
				t.Errorf("trial %d row %d sums to 1%+v", trial, r, sum-1)
			}
		}
		for _, ext := range []string{".bif", ".net", ".uai", ".xml", ".pbl"} {
			path := filepath.Join(dir, fmt.Sprintf("r%d%s", trial, ext))
			var buf bytes.Buffer
			if err := pbl.Write(&buf, m, ext); err != nil {
				t.Errorf("trial %d: write %s: %v", trial, ext, err)
				continue
			}
			if err := os.WriteFile(path, buf.Bytes(), 0o666); err != nil {
				t.Fatal(err)
			}
			back, err := pbl.LoadFile(path)
			if err != nil {
				t.Errorf("trial %d: %s does not read back: %v", trial, ext, err)
				continue
			}
			checkReadBack(t, fmt.Sprintf("trial %d%s", trial, ext), back.Table(c.ID), vals)
		}
	}
}

// checkReadBack: a table read back from a file holds, as written, the
// numbers want exactly, and as the engines multiply them want within
// rounding (a row that sums to 1 within a few ulps is renormalised on
// reading, as every row is).
func checkReadBack(t *testing.T, what string, back *ir.CPT, want []float64) {
	t.Helper()
	if back == nil {
		t.Errorf("%s: no table read back", what)
		return
	}
	if got := back.Written().Vals; !slices.Equal(got, want) {
		t.Errorf("%s: written as %v, want %v", what, got, want)
	}
	for i, x := range back.Factor.Vals {
		if !(math.Abs(x-want[i]) <= 5e-16) || (x == 0) != (want[i] == 0) {
			t.Errorf("%s: entry %d read back as %v, want %v", what, i, x, want[i])
		}
	}
}
