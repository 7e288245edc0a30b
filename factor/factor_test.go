package factor_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pbl-lang/pbl/factor"
	"gonum.org/v1/gonum/floats"
)

// bruteCombine computes the product of fs over the union scope and folds
// the variables not in keep, evaluating every assignment separately, in
// log space (so that it neither under- nor overflows): it returns the log
// of each entry of the result (-Inf for 0).
func bruteCombine(keep []factor.Var, kc []int, fs []*factor.Factor, o factor.Op) []float64 {
	u, card := factor.UnionScope(keep, fs)
	copy(card, kc)
	full := factor.New(u, card)
	out := factor.New(keep, kc)
	logs := make([]float64, len(out.Vals))
	for i := range logs {
		logs[i] = math.Inf(-1)
	}
	a := make([]int, len(u))
	for i := range full.Vals {
		full.Assignment(a, i)
		lp := 0.0
		for _, f := range fs {
			off := 0
			for k, v := range f.Vars {
				off += a[factor.IndexOf(u, v)] * f.Stride[k]
			}
			lp += math.Log(f.Vals[off])
		}
		off := 0
		for k := range keep {
			off += a[k] * out.Stride[k]
		}
		if o == factor.OpSum {
			logs[off] = logAdd(logs[off], lp)
		} else {
			logs[off] = math.Max(logs[off], lp)
		}
	}
	return logs
}

// logAdd returns ln(e^a + e^b).
func logAdd(a, b float64) float64 { return floats.LogSumExp([]float64{a, b}) }

// near reports whether got is within tol (relative) of want, false on NaN.
func near(got, want, tol float64) bool {
	if got == want {
		return true
	}
	return math.Abs(got-want) <= tol*math.Max(math.Abs(want), 1e-300)
}

// nearLog compares two logarithms: within 1e-12 absolutely near 0,
// relatively far from it; false on NaN, true for two -Inf (two zeros).
func nearLog(got, want float64) bool {
	if math.IsInf(want, -1) {
		return math.IsInf(got, -1)
	}
	return math.Abs(got-want) <= 1e-12*math.Max(1, math.Abs(want))
}

func vars(vs ...int) []factor.Var {
	out := make([]factor.Var, len(vs))
	for i, v := range vs {
		out[i] = factor.Var(v)
	}
	return out
}

func table(vs []factor.Var, card []int, vals ...float64) *factor.Factor {
	f := factor.New(vs, card)
	copy(f.Vals, vals)
	return f
}

// randomCase returns random factors over up to 6 variables of random
// cardinalities, and a random destination scope (with, sometimes, a
// variable no factor mentions).
func randomCase(rng *rand.Rand, scale float64) (fs []*factor.Factor, keep []factor.Var, kc []int) {
	const nv = 6
	card := make([]int, nv)
	for i := range card {
		card[i] = 1 + rng.IntN(4)
	}
	fs = make([]*factor.Factor, rng.IntN(4))
	for j := range fs {
		perm := rng.Perm(nv)[:rng.IntN(4)]
		cs := make([]int, len(perm))
		for i, v := range perm {
			cs[i] = card[v]
		}
		f := factor.New(vars(perm...), cs)
		for i := range f.Vals {
			f.Vals[i] = rng.Float64() * scale
			if rng.IntN(8) == 0 {
				f.Vals[i] = 0
			}
		}
		fs[j] = f
	}
	u, _ := factor.UnionScope(nil, fs)
	for _, i := range rng.Perm(len(u)) {
		if rng.IntN(2) == 0 {
			keep = append(keep, u[i])
		}
	}
	if rng.IntN(4) == 0 {
		for v := factor.Var(0); v < nv; v++ {
			if factor.IndexOf(u, v) < 0 {
				keep = append(keep, v)
				break
			}
		}
	}
	kc = make([]int, len(keep))
	for i, v := range keep {
		kc[i] = card[v]
	}
	return fs, keep, kc
}

func TestCombineRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := range 2000 {
		fs, keep, kc := randomCase(rng, 1)
		for _, o := range []factor.Op{factor.OpSum, factor.OpMax} {
			want := bruteCombine(keep, kc, fs, o)
			dst := factor.New(keep, kc)
			var arg []int32
			if o == factor.OpMax {
				arg = make([]int32, len(dst.Vals))
			}
			got := factor.Combine(nil, dst, fs, o, arg)
			for i := range want {
				if !nearLog(math.Log(got.Vals[i]), want[i]) {
					t.Fatalf("trial %d op %d: entry %d = %v, want exp(%v)", trial, o, i, got.Vals[i], want[i])
				}
			}
			if arg != nil {
				checkArgmax(t, trial, dst, fs, arg)
			}
		}
	}
}

// checkArgmax checks that arg[i] is, for each entry i of dst, the index
// (row-major over the folded variables, in the order of the union scope)
// of the first configuration of the folded variables that maximises the
// product of fs, by enumeration.
func checkArgmax(t *testing.T, trial int, dst *factor.Factor, fs []*factor.Factor, arg []int32) {
	t.Helper()
	u, card := factor.UnionScope(dst.Vars, fs)
	nk := len(dst.Vars)
	folded, fc := u[nk:], card[nk:]
	block := 1
	for _, c := range fc {
		block *= c
	}
	a := make([]int, len(u))
	val := func() float64 {
		p := 1.0
		for _, f := range fs {
			sub := make([]int, len(f.Vars))
			for i, v := range f.Vars {
				sub[i] = a[factor.IndexOf(u, v)]
			}
			p *= f.Vals[f.Index(sub)]
		}
		return p
	}
	for i := range dst.Vals {
		dst.Assignment(a[:nk], i)
		best, bi := -1.0, 0
		for b := range block {
			r := b
			for k := len(folded) - 1; k >= 0; k-- {
				a[nk+k] = r % fc[k]
				r /= fc[k]
			}
			if p := val(); p > best {
				best, bi = p, b
			}
		}
		if int(arg[i]) != bi {
			t.Fatalf("trial %d: arg[%d] = %d, want %d", trial, i, arg[i], bi)
		}
	}
}

func TestCombineTable(t *testing.T) {
	ab := table(vars(0, 1), []int{2, 3}, 0.1, 0.5, 0.5, 0.7, 0.2, 0.1)
	b := table(vars(1), []int{3}, 0.5, 0.25, 1)
	ba := table(vars(1, 0), []int{3, 2}, 1, 2, 3, 4, 5, 6) // a scope in the other order
	for _, tc := range []struct {
		name    string
		keep    []factor.Var
		kc      []int
		fs      []*factor.Factor
		o       factor.Op
		want    []float64
		wantArg []int32
	}{
		{"sum out B", vars(0), []int{2}, []*factor.Factor{ab}, factor.OpSum, []float64{1.1, 1.0}, nil},
		{"max out B, ties low", vars(0), []int{2}, []*factor.Factor{ab}, factor.OpMax, []float64{0.5, 0.7}, []int32{1, 0}},
		{"sum out A", vars(1), []int{3}, []*factor.Factor{ab}, factor.OpSum, []float64{0.8, 0.7, 0.6}, nil},
		{"product, nothing folded", vars(0, 1), []int{2, 3}, []*factor.Factor{ab, b}, factor.OpSum, []float64{0.05, 0.125, 0.5, 0.35, 0.05, 0.1}, nil},
		{"product, transposed", vars(0, 1), []int{2, 3}, []*factor.Factor{ba}, factor.OpSum, []float64{1, 3, 5, 2, 4, 6}, nil},
		{"everything summed", nil, nil, []*factor.Factor{ab, b}, factor.OpSum, []float64{1.175}, nil},
		{"everything maximised", nil, nil, []*factor.Factor{ab, ba}, factor.OpMax, []float64{2.5}, []int32{2}},
		{"no input: constant 1", vars(2), []int{2}, nil, factor.OpSum, []float64{1, 1}, nil},
		{"variable no input mentions", vars(0, 2), []int{2, 2}, []*factor.Factor{ab}, factor.OpSum, []float64{1.1, 1.1, 1.0, 1.0}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var arg []int32
			if tc.wantArg != nil {
				arg = make([]int32, len(tc.wantArg))
			}
			got := factor.Combine(nil, factor.New(tc.keep, tc.kc), tc.fs, tc.o, arg)
			for i, w := range tc.want {
				if !near(got.Vals[i], w, 1e-15) {
					t.Fatalf("got %v, want %v", got.Vals, tc.want)
				}
			}
			brute := bruteCombine(tc.keep, tc.kc, tc.fs, tc.o)
			for i := range brute {
				if !nearLog(math.Log(got.Vals[i]), brute[i]) {
					t.Fatalf("got %v, brute force exp(%v)", got.Vals, brute)
				}
			}
			for i, w := range tc.wantArg {
				if arg[i] != w {
					t.Fatalf("arg %v, want %v", arg, tc.wantArg)
				}
			}
		})
	}
}

func TestCombineLost(t *testing.T) {
	tiny := table(vars(0), []int{2}, 1e-200, 0.5)
	for _, tc := range []struct {
		name string
		fs   []*factor.Factor
		lost bool
	}{
		{"normal products", []*factor.Factor{tiny, tiny}[:1], false},
		{"product underflows", []*factor.Factor{tiny, tiny}, true},
		{"a zero entry is not lost", []*factor.Factor{table(vars(0), []int{2}, 0, 0.5), table(vars(0), []int{2}, 1e-300, 0.5)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := factor.NewKernel(nil)
			factor.Combine(k, factor.New(vars(0), []int{2}), tc.fs, factor.OpSum, nil)
			if k.Lost != tc.lost {
				t.Errorf("Lost = %v, want %v", k.Lost, tc.lost)
			}
		})
	}
}

func TestMultiplyInto(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for trial := range 100 {
		// Many scaled factors (entries in [0.5, 1)): their product,
		// down to 2^-2000, needs the scale.
		dst := factor.New(vars(0, 1, 2), []int{2, 3, 2})
		for i := range dst.Vals {
			dst.Vals[i] = 1
		}
		var fs []*factor.Factor
		for range 1 + rng.IntN(2000) {
			v := rng.IntN(3)
			f := factor.New(vars(v), []int{dst.Card[v]})
			for i := range f.Vals {
				f.Vals[i] = 0.5 + rng.Float64()/2
			}
			fs = append(fs, f)
		}
		want := bruteCombine(dst.Vars, dst.Card, fs, factor.OpSum)
		e := factor.MultiplyInto(nil, dst, fs)
		for i, w := range want {
			if got := math.Log(dst.Vals[i]) + float64(e)*math.Ln2; !nearLog(got, w) {
				t.Fatalf("trial %d: entry %d: ln = %v, want %v", trial, i, got, w)
			}
		}
	}
}

func TestRestrict(t *testing.T) {
	f := factor.New(vars(0, 1, 2), []int{2, 3, 2})
	for i := range f.Vals {
		f.Vals[i] = float64(i)
	}
	for _, tc := range []struct {
		name  string
		obs   []int
		scope []factor.Var
		want  []float64
	}{
		{"middle observed", []int{-1, 2, -1}, vars(0, 2), []float64{4, 5, 10, 11}},
		{"first observed", []int{1, -1, -1}, vars(1, 2), []float64{6, 7, 8, 9, 10, 11}},
		{"last observed", []int{-1, -1, 0}, vars(0, 1), []float64{0, 2, 4, 6, 8, 10}},
		{"all observed", []int{1, 0, 1}, nil, []float64{7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := factor.Restrict(f, tc.obs)
			if len(g.Vars) != len(tc.scope) {
				t.Fatalf("scope %v, want %v", g.Vars, tc.scope)
			}
			for i := range tc.scope {
				if g.Vars[i] != tc.scope[i] {
					t.Fatalf("scope %v, want %v", g.Vars, tc.scope)
				}
			}
			// Brute force: every entry of f consistent with obs.
			a, b := make([]int, 3), make([]int, len(g.Vars))
			for i, x := range f.Vals {
				f.Assignment(a, i)
				ok := true
				for k, s := range tc.obs {
					if s >= 0 && a[k] != s {
						ok = false
					}
				}
				if !ok {
					continue
				}
				for k, v := range g.Vars {
					b[k] = a[v]
				}
				if got := g.Vals[g.Index(b)]; got != x {
					t.Fatalf("entry %v = %v, want %v", b, got, x)
				}
			}
			for i := range tc.want {
				if g.Vals[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", g.Vals, tc.want)
				}
			}
		})
	}
	if h := factor.Restrict(f, []int{-1, -1, -1}); h != f {
		t.Error("Restrict with no evidence copied the factor")
	}
}

func TestRescale(t *testing.T) {
	for _, tc := range []struct {
		name string
		vals []float64
		lost bool
	}{
		{"tiny", []float64{1e-300, 3e-301, 0}, false},
		{"huge", []float64{1e300, 3e299}, false},
		{"span beyond float64", []float64{1e300, 1e-300}, true},
		{"zero", []float64{0, 0}, false},
		{"already scaled", []float64{0.75, 0.5}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := table(vars(0), []int{len(tc.vals)}, tc.vals...)
			k := factor.NewKernel(nil)
			e := factor.Rescale(k, f)
			mx := 0.0
			for i, x := range f.Vals {
				mx = math.Max(mx, x)
				if !tc.lost && !near(math.Ldexp(x, e), tc.vals[i], 1e-15) {
					t.Errorf("entry %d: %v·2^%d, want %v", i, x, e, tc.vals[i])
				}
			}
			if mx != 0 && !(mx >= 0.5 && mx < 1) {
				t.Errorf("largest %v not in [0.5, 1)", mx)
			}
			if k.Lost != tc.lost {
				t.Errorf("Lost = %v, want %v", k.Lost, tc.lost)
			}
		})
	}
}

func TestPrepare(t *testing.T) {
	cpt := table(vars(0), []int{2}, 0.25, 0.75)
	if g, e, mn := factor.Prepare(nil, cpt); g != cpt || e != 0 || mn != 0.25 {
		t.Errorf("a CPT is used as it is: %p %d %v", g, e, mn)
	}
	big := table(vars(0), []int{2}, 1e10, 4e10)
	g, e, mn := factor.Prepare(nil, big)
	if g == big || big.Vals[1] != 4e10 || !near(math.Ldexp(g.Vals[1], e), 4e10, 1e-15) || !near(math.Ldexp(mn, e), 1e10, 1e-15) {
		t.Errorf("Prepare(%v) = %v·2^%d, min %v", big.Vals, g.Vals, e, mn)
	}
}

func TestScaled(t *testing.T) {
	x := factor.Scaled{M: 1}
	for range 3000 {
		x = x.MulFloat(0.5)
	}
	if got := x.Log(); !near(got, -3000*math.Ln2, 1e-12) {
		t.Errorf("log 2^-3000 = %v", got)
	}
	y := x.Add(x)
	if got := y.Div(x); got != 2 {
		t.Errorf("(x+x)/x = %v", got)
	}
	if !x.Less(y) || y.Less(x) || (factor.Scaled{}).Add(x) != x || !(factor.Scaled{}).Less(x) {
		t.Error("Less/Add")
	}
	if x.Float() != 0 {
		t.Error("2^-3000 should underflow as a float64")
	}
	if got := x.Mul(y).Log(); !near(got, -5999*math.Ln2, 1e-12) {
		t.Errorf("log 2^-3000·2^-2999 = %v", got)
	}
	if got := (factor.Scaled{M: 3, E: 2}).Norm(); got != (factor.Scaled{M: 0.75, E: 4}) {
		t.Errorf("Norm = %v", got)
	}
}

func TestCombineExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for trial := range 300 {
		// Entries near 1e-150: products of three underflow float64.
		fs, keep, kc := randomCase(rng, 1e-150)
		xs := make([]factor.Exact, len(fs))
		for i, f := range fs {
			xs[i] = factor.ToExact(f)
		}
		for _, o := range []factor.Op{factor.OpSum, factor.OpMax} {
			want := bruteCombine(keep, kc, fs, o)
			dst := factor.NewExact(keep, kc)
			factor.CombineExact(nil, dst, xs, o, nil)
			for i, w := range want {
				if got := dst.At(i).Log(); !nearLog(got, w) {
					t.Fatalf("trial %d op %d: entry %d: ln = %v, want %v", trial, o, i, got, w)
				}
			}
		}
	}
}

func TestKernelCancel(t *testing.T) {
	c := make(chan struct{})
	k := factor.NewKernel(c)
	if k.Poll() || k.Stop() {
		t.Fatal("canceled before the channel was closed")
	}
	f := k.Fork()
	close(c)
	if !f.Poll() || !k.Stop() || !k.CanceledNow() || k.CancelChan() == nil {
		t.Fatal("not canceled after the channel was closed")
	}
	var nk *factor.Kernel
	if nk.Poll() || nk.CancelChan() != nil || nk.Fork() == nil {
		t.Fatal("nil kernel")
	}
	nk.Flush() // records nothing, does not panic
	// A canceled kernel stops a large product early.
	big := factor.New(vars(0, 1), []int{1 << 10, 1 << 10})
	dst := factor.New(vars(0), []int{1 << 10})
	for i := range dst.Vals {
		dst.Vals[i] = -1
	}
	factor.Combine(k, dst, []*factor.Factor{big}, factor.OpSum, nil)
	if dst.Vals[len(dst.Vals)-1] != -1 {
		t.Error("a canceled Combine completed")
	}
}

func TestSizes(t *testing.T) {
	for _, tc := range []struct {
		card  []int
		limit int
		size  int
	}{
		{[]int{2, 3}, 100, 6},
		{nil, 1, 1},
		{[]int{1 << 20, 1 << 20}, 1 << 30, -1},
	} {
		if got := factor.Size(tc.card, tc.limit); got != tc.size {
			t.Errorf("Size(%v, %d) = %d, want %d", tc.card, tc.limit, got, tc.size)
		}
	}
	if _, ok := factor.TableSize([]int{1 << 16, 1 << 16}); ok {
		t.Error("TableSize accepted 2^32 entries")
	}
	if _, ok := factor.TableSize([]int{2, 0}); ok {
		t.Error("TableSize accepted a cardinality of 0")
	}
}

// benchFactors returns two random factors over 8 binary-to-quaternary
// variables sharing four of them.
func benchFactors() (a, b *factor.Factor) {
	rng := rand.New(rand.NewPCG(4, 4))
	fill := func(f *factor.Factor) *factor.Factor {
		for i := range f.Vals {
			f.Vals[i] = rng.Float64()
		}
		return f
	}
	a = fill(factor.New(vars(0, 1, 2, 3, 4, 5), []int{4, 3, 4, 2, 4, 3}))
	b = fill(factor.New(vars(2, 3, 4, 5, 6, 7), []int{4, 2, 4, 3, 4, 3}))
	return a, b
}

// BenchmarkProduct multiplies two factors into their union scope (12
// thousand entries), nothing folded.
func BenchmarkProduct(b *testing.B) {
	f, g := benchFactors()
	u, card := factor.UnionScope(nil, []*factor.Factor{f, g})
	dst := factor.New(u, card)
	fs := []*factor.Factor{f, g}
	for b.Loop() {
		factor.Combine(nil, dst, fs, factor.OpSum, nil)
	}
}

// benchFold multiplies two factors and folds all but their four shared
// variables with o.
func benchFold(b *testing.B, o factor.Op) {
	f, g := benchFactors()
	dst := factor.New(vars(2, 3, 4, 5), []int{4, 2, 4, 3})
	arg := make([]int32, len(dst.Vals))
	fs := []*factor.Factor{f, g}
	for b.Loop() {
		factor.Combine(nil, dst, fs, o, arg)
	}
}

// BenchmarkSumOut multiplies two factors and sums out all but their four
// shared variables.
func BenchmarkSumOut(b *testing.B) { benchFold(b, factor.OpSum) }

// BenchmarkMaxOut is BenchmarkSumOut maximising, with the argmax.
func BenchmarkMaxOut(b *testing.B) { benchFold(b, factor.OpMax) }

// BenchmarkMultiplyInto multiplies 40 one-variable factors into a table
// of 12 thousand entries.
func BenchmarkMultiplyInto(b *testing.B) {
	f, _ := benchFactors()
	var fs []*factor.Factor
	for i := range 40 {
		v := i % len(f.Vars)
		g := factor.New(f.Vars[v:v+1], f.Card[v:v+1])
		for j := range g.Vals {
			g.Vals[j] = 0.5
		}
		fs = append(fs, g)
	}
	for b.Loop() {
		factor.MultiplyInto(nil, f, fs)
	}
}

// BenchmarkRestrict fixes two variables of a factor of 1152 entries.
func BenchmarkRestrict(b *testing.B) {
	f, _ := benchFactors()
	obs := []int{-1, 1, -1, 0, -1, -1, -1, -1}
	for b.Loop() {
		factor.Restrict(f, obs)
	}
}

// BenchmarkRescale normalises a factor of 1152 entries.
func BenchmarkRescale(b *testing.B) {
	f, _ := benchFactors()
	for b.Loop() {
		f.Vals[0] = 3
		factor.Rescale(nil, f)
	}
}

// BenchmarkCombineExact is BenchmarkSumOut in exact arithmetic.
func BenchmarkCombineExact(b *testing.B) {
	f, g := benchFactors()
	dst := factor.NewExact(vars(2, 3, 4, 5), []int{4, 2, 4, 3})
	fs := []factor.Exact{factor.ToExact(f), factor.ToExact(g)}
	for b.Loop() {
		factor.CombineExact(nil, dst, fs, factor.OpSum, nil)
	}
}

// BenchmarkGridEliminate is one step of variable elimination on a 20×20
// grid of binary variables: the frontier's factor over 20 variables (a
// million entries) times a pairwise and a unary factor, one variable of
// the frontier summed out and the next row's variable brought in.
func BenchmarkGridEliminate(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 5))
	fill := func(f *factor.Factor) *factor.Factor {
		for i := range f.Vals {
			f.Vals[i] = 0.5 + rng.Float64()/2
		}
		return f
	}
	front := make([]int, 20)
	for i := range front {
		front[i] = i
	}
	two := func(n int) []int { return slices.Repeat([]int{2}, n) }
	f := fill(factor.New(vars(front...), two(20)))
	g := fill(factor.New(vars(3, 20), two(2)))
	h := fill(factor.New(vars(20), two(1)))
	keep := append(append(slices.Clone(front[:3]), front[4:]...), 20)
	dst := factor.New(vars(keep...), two(20))
	fs := []*factor.Factor{f, g, h}
	for b.Loop() {
		factor.CombineChecked(nil, dst, fs, factor.OpSum, nil, false)
	}
}

// TestCombinePathsAgree: the sum and product loops that need no check
// (combineLong: the longest dimension inner, products added into dst)
// give the same numbers to the bit as the checked loop (each entry of dst
// summed over its folded configurations in order), and brute force's, on
// random factors, up to seven of them.
func TestCombinePathsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for trial := range 3000 {
		var fs []*factor.Factor
		var keep []factor.Var
		var kc []int
		for range 1 + rng.IntN(3) {
			more, k, c := randomCase(rng, 1)
			fs = append(fs, more...)
			if keep == nil {
				keep, kc = k, c
			}
		}
		// randomCase draws each call's cardinalities afresh: keep the
		// first case's variables, and give every factor those.
		card := map[factor.Var]int{}
		for i, v := range keep {
			card[v] = kc[i]
		}
		for i, f := range fs {
			cs := make([]int, len(f.Vars))
			for j, v := range f.Vars {
				if _, ok := card[v]; !ok {
					card[v] = f.Card[j]
				}
				cs[j] = card[v]
			}
			g := factor.New(f.Vars, cs)
			for j := range g.Vals {
				g.Vals[j] = rng.Float64()
			}
			fs[i] = g
		}
		for _, o := range []factor.Op{factor.OpSum, factor.OpMax} {
			fast := factor.CombineChecked(nil, factor.New(keep, kc), fs, o, nil, false)
			slow := factor.CombineChecked(nil, factor.New(keep, kc), fs, o, nil, true)
			want := bruteCombine(keep, kc, fs, o)
			for i := range want {
				if fast.Vals[i] != slow.Vals[i] || !nearLog(math.Log(fast.Vals[i]), want[i]) {
					t.Fatalf("trial %d op %d (%d inputs): entry %d = %v unchecked, %v checked, brute force exp(%v)", trial, o, len(fs), i, fast.Vals[i], slow.Vals[i], want[i])
				}
			}
		}
	}
}
