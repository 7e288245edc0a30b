package ir_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/parser"
)

func lowerSrc(t *testing.T, src string) *ir.Model {
	t.Helper()
	f, err := parser.Parse("test.pbl", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	m, err := ir.Lower(f)
	if err != nil {
		t.Fatalf("lower: %v\n%s", err, src)
	}
	return m
}

func table(t *testing.T, m *ir.Model, name string) []float64 {
	t.Helper()
	v, ok := m.Lookup(name)
	if !ok {
		t.Fatalf("no variable %s", name)
	}
	c := m.Table(v.ID)
	if c == nil {
		t.Fatalf("%s has no table", name)
	}
	return c.Factor.Vals
}

// TestDeterministicTables: lookups and formulas give a 1 at the state
// they name in each row (the rows row-major over the parents, the child's
// states fastest).
func TestDeterministicTables(t *testing.T) {
	const decls = "var A, B, C, Y: bool\nvar S: {lo, mid, hi}\nvar T: {lo, hi}\nvar G: {x, y, z}\n"
	tests := []struct {
		dist string
		want []int // the child's state per parent configuration
	}{
		{`P(Y | A, B) = A and B`, []int{0, 1, 1, 1}},
		{`P(Y | A, B) = A or B`, []int{0, 0, 0, 1}},
		{`P(Y | A) = not A`, []int{1, 0}},
		{`P(Y | A, B) = not (A or B)`, []int{1, 1, 1, 0}},
		{`P(Y | A, B, C) = A and B or C`, []int{0, 0, 0, 1, 0, 1, 0, 1}},
		{`P(Y | A, B, C) = A and (B or C)`, []int{0, 0, 0, 1, 1, 1, 1, 1}},
		{`P(Y | A, B) = A == B`, []int{0, 1, 1, 0}},
		{`P(Y | A, B) = A != B`, []int{1, 0, 0, 1}},
		{`P(Y | S) = S = hi or S = lo`, []int{0, 1, 0}},
		{`P(Y | S, T) = S == T`, []int{0, 1, 1, 1, 1, 0}},
		{`P(Y | A, S) = A and not S = mid`, []int{0, 1, 0, 1, 1, 1}},
		// == and != with a state of the left parent (no parent of that
		// name): A != s is not A = s, A == s is A = s.
		{`P(Y | S) = S != mid`, []int{0, 1, 0}},
		{`P(Y | S) = S == hi`, []int{1, 1, 0}},
		{`P(Y | A, S) = A and S != mid`, []int{0, 1, 0, 1, 1, 1}},
		{`P(Y | S, T) = S != lo and T != hi`, []int{1, 1, 0, 1, 0, 1}},
		{`P(Y | A) = A != false`, []int{0, 1}},
		{`P(Y | A) = not A != true`, []int{0, 1}},
		{`P(Y | G) = G != "y" or G == z`, []int{0, 1, 0}},
		{`P(G | S) = lookup { lo: x  mid: y  hi: z }`, []int{0, 1, 2}},
		{`P(G | A, S) = lookup { true, hi: z; else: x }`, []int{0, 0, 2, 0, 0, 0}},
		{`P(G | A) = lookup { else: y }`, []int{1, 1}},
		{`P(S | A, B) = lookup { true, true: hi, false, false: lo, else: mid }`, []int{2, 1, 1, 0}},
	}
	for _, test := range tests {
		m := lowerSrc(t, decls+test.dist)
		name := strings.TrimSpace(test.dist[2:strings.IndexAny(test.dist, "|)")])
		vals := table(t, m, name)
		v, _ := m.Lookup(name)
		k := len(v.States)
		if len(vals) != k*len(test.want) {
			t.Errorf("%s: %d values, want %d", test.dist, len(vals), k*len(test.want))
			continue
		}
		for r, s := range test.want {
			for j := range k {
				want := 0.0
				if j == s {
					want = 1
				}
				if got := vals[r*k+j]; got != want {
					t.Errorf("%s: row %d state %d is %v, want %v", test.dist, r, j, got, want)
				}
			}
		}
		if p := m.Dist(v.ID).(*ir.Deterministic).Params(); p != 0 {
			t.Errorf("%s: %d free parameters, want 0", test.dist, p)
		}
	}
}

// TestFormulaParentWins: in A == B and A != B, a parent named B is
// compared with A even when A has a state B too (the meaning these had
// before they took states); A = B, and not A = B, say the state.
func TestFormulaParentWins(t *testing.T) {
	const decls = "var S, lo: {lo, hi}\nvar Y: bool\n"
	tests := []struct {
		dist string
		want []float64 // P(Y=true) per configuration of the parents
	}{
		{`P(Y | S, lo) = S != lo`, []float64{0, 1, 1, 0}},
		{`P(Y | S, lo) = S == lo`, []float64{1, 0, 0, 1}},
		{`P(Y | S, lo) = not S = lo and lo = hi`, []float64{0, 0, 0, 1}},
	}
	for _, test := range tests {
		vals := table(t, lowerSrc(t, decls+test.dist), "Y")
		for r, w := range test.want {
			if got := vals[2*r]; got != w {
				t.Errorf("%s: row %d: P(Y=true) = %v, want %v", test.dist, r, got, w)
			}
		}
	}
}

// TestNoisyOrTable checks noisy_or against its expanded table computed
// here by the textbook formula, P(Y=false | x) = (1 − leak) Π over the
// parents that are true of (1 − p_i), on random link probabilities.
func TestNoisyOrTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := range 20 {
		n := 1 + trial%5
		p := make([]float64, n)
		leak := 0.0
		if trial%3 != 0 {
			leak = rng.Float64() / 10
		}
		var names, links []string
		for i := range p {
			p[i] = rng.Float64()
			names = append(names, fmt.Sprintf("C%d", i))
			links = append(links, fmt.Sprintf("C%d: %s", i, ir.FormatFloat(p[i])))
		}
		if leak != 0 {
			links = append(links, "leak: "+ir.FormatFloat(leak))
		}
		src := fmt.Sprintf("var %s, Y: bool\nP(Y | %s) = noisy_or(%s)\n", strings.Join(names, ", "), strings.Join(names, ", "), strings.Join(links, ", "))
		m := lowerSrc(t, src)
		vals := table(t, m, "Y")
		for r := range 1 << n {
			off := 1 - leak
			for i := range n {
				// Parent i's state in row r: bit n−1−i (row-major), 0 = true.
				if r>>(n-1-i)&1 == 0 {
					off *= 1 - p[i]
				}
			}
			if d := math.Abs(vals[2*r+1] - off); !(d <= 1e-15) {
				t.Errorf("%s: row %d: P(Y=false) = %v, want %v", src, r, vals[2*r+1], off)
			}
			if d := math.Abs(vals[2*r] - (1 - off)); !(d <= 1e-15) {
				t.Errorf("%s: row %d: P(Y=true) = %v, want %v", src, r, vals[2*r], 1-off)
			}
		}
		y, _ := m.Lookup("Y")
		want := n // the links, and the leak if there is one
		if leak != 0 {
			want++
		}
		if got := m.Dist(y.ID).(*ir.NoisyOr).Params(); got != want {
			t.Errorf("%s: %d free parameters, want %d", src, got, want)
		}
	}
}

// TestNoisyMaxTable checks noisy_max against Díez's formula computed here:
// with the child's states y_0 … y_k−1 ordered from the most severe to the
// distinguished y_k−1, P(Y is y_j or milder | x) = Π over the causes
// (the leak included) of P(Y_i is y_j or milder | x_i), and P(Y = y_j |
// x) the difference of two of these.
func TestNoisyMaxTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	randDist := func(k int) []float64 {
		d := make([]float64, k)
		for i := range d {
			d[i] = float64(1 + rng.IntN(1000))
		}
		// Exact decimals: normalise to thousandths, the rest on the last.
		sum := 0.0
		for _, x := range d {
			sum += x
		}
		rest := 1000
		for i := range d[:k-1] {
			q := int(d[i] / sum * 1000)
			d[i] = float64(q) / 1000
			rest -= q
		}
		d[k-1] = float64(rest) / 1000
		return d
	}
	vec := func(d []float64) string {
		s := make([]string, len(d))
		for i, x := range d {
			s[i] = ir.FormatFloat(x)
		}
		return "[" + strings.Join(s, ", ") + "]"
	}
	for trial := range 20 {
		k := 2 + trial%3
		n := 1 + trial%3
		childStates := []string{"s0", "s1", "s2", "s3"}[:k]
		// Parent i has i+2 states; every state but the last is active.
		link := make([][][]float64, n)
		var decls, names, links []string
		for i := range n {
			ns := i + 2
			var states, rows []string
			link[i] = make([][]float64, ns)
			for s := range ns {
				states = append(states, fmt.Sprintf("p%d", s))
				if s < ns-1 {
					link[i][s] = randDist(k)
					rows = append(rows, fmt.Sprintf("p%d: %s", s, vec(link[i][s])))
				} else {
					link[i][s] = make([]float64, k)
					link[i][s][k-1] = 1
				}
			}
			decls = append(decls, fmt.Sprintf("var C%d: {%s}", i, strings.Join(states, ", ")))
			names = append(names, fmt.Sprintf("C%d", i))
			links = append(links, fmt.Sprintf("C%d: { %s }", i, strings.Join(rows, " ")))
		}
		leak := randDist(k)
		links = append(links, "leak: "+vec(leak))
		src := fmt.Sprintf("%s\nvar Y: {%s}\nP(Y | %s) = noisy_max(%s)\n", strings.Join(decls, "\n"), strings.Join(childStates, ", "),
			strings.Join(names, ", "), strings.Join(links, ", "))
		m := lowerSrc(t, src)
		vals := table(t, m, "Y")
		// Odometer over the parents' states.
		a := make([]int, n)
		for r := 0; r*k < len(vals); r++ {
			// milder[j] = P(Y ∈ {y_j, …, y_k−1}).
			milder := func(d []float64, j int) float64 {
				s := 0.0
				for t := k - 1; t >= j; t-- {
					s += d[t]
				}
				return s
			}
			cum := make([]float64, k+1)
			for j := range k {
				c := milder(leak, j)
				if j == 0 {
					c = 1
				}
				for i := range n {
					if j > 0 {
						c *= milder(link[i][a[i]], j)
					}
				}
				cum[j] = c
			}
			for j := range k {
				want := cum[j] - cum[j+1]
				if d := math.Abs(vals[r*k+j] - want); !(d <= 1e-15) {
					t.Errorf("%s: row %d state %d: %v, want %v", src, r, j, vals[r*k+j], want)
				}
			}
			for i := n - 1; i >= 0; i-- {
				if a[i]++; a[i] < i+2 {
					break
				}
				a[i] = 0
			}
		}
	}
}

// TestNoisyOrIsNoisyMax: a noisy_max of a bool child is the noisy_or with
// the same links.
func TestNoisyOrIsNoisyMax(t *testing.T) {
	m := lowerSrc(t, `var A, B, X, Y: bool
var S: {hi, lo, no}
P(X | A, S) = noisy_or(A: 0.7, S: { hi: 0.9, lo: 0.4 }, leak: 0.05)
P(Y | A, S) = noisy_max(A: [0.7, 0.3], S: { hi: [0.9, 0.1], lo: [0.4, 0.6] }, leak: [0.05, 0.95])
`)
	x, y := table(t, m, "X"), table(t, m, "Y")
	for i := range x {
		if d := math.Abs(x[i] - y[i]); !(d <= 1e-15) {
			t.Errorf("entry %d: noisy_or %v, noisy_max %v", i, x[i], y[i])
		}
	}
}
