package infer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// naiveCombine computes the product of fs over the union scope and folds
// the variables not in keep, by evaluating every assignment separately.
func naiveCombine(keep []ir.VarID, kc []int, fs []*ir.Factor, o op) *ir.Factor {
	u, card := unionScope(keep, fs)
	for i := range keep {
		card[i] = kc[i]
	}
	full := ir.NewFactor(u, card)
	out := ir.NewFactor(keep, kc)
	if o == opMax {
		for i := range out.Vals {
			out.Vals[i] = -1
		}
	}
	a := make([]int, len(u))
	for i := range full.Vals {
		full.Assignment(a, i)
		p := 1.0
		for _, f := range fs {
			off := 0
			for k, v := range f.Vars {
				off += a[indexOf(u, v)] * f.Stride[k]
			}
			p *= f.Vals[off]
		}
		off := 0
		for k := range keep {
			off += a[k] * out.Stride[k]
		}
		if o == opSum {
			out.Vals[off] += p
		} else {
			out.Vals[off] = math.Max(out.Vals[off], p)
		}
	}
	return out
}

func TestCombineTo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const nv = 6
	card := make([]int, nv)
	for i := range card {
		card[i] = 1 + rng.IntN(4)
	}
	randFactor := func() *ir.Factor {
		perm := rng.Perm(nv)[:rng.IntN(4)]
		vs := make([]ir.VarID, len(perm))
		cs := make([]int, len(perm))
		for i, v := range perm {
			vs[i], cs[i] = ir.VarID(v), card[v]
		}
		f := ir.NewFactor(vs, cs)
		for i := range f.Vals {
			f.Vals[i] = rng.Float64()
		}
		return f
	}
	for trial := 0; trial < 500; trial++ {
		fs := make([]*ir.Factor, rng.IntN(4))
		for i := range fs {
			fs[i] = randFactor()
		}
		u, _ := unionScope(nil, fs)
		// keep: a random subset of the union in random order, plus maybe a
		// variable no factor mentions.
		var keep []ir.VarID
		for _, i := range rng.Perm(len(u)) {
			if rng.IntN(2) == 0 {
				keep = append(keep, u[i])
			}
		}
		if rng.IntN(4) == 0 {
			for v := ir.VarID(0); v < nv; v++ {
				if indexOf(u, v) < 0 {
					keep = append(keep, v)
					break
				}
			}
		}
		kc := make([]int, len(keep))
		for i, v := range keep {
			kc[i] = card[v]
		}
		for _, o := range []op{opSum, opMax} {
			want := naiveCombine(keep, kc, fs, o)
			var arg []int32
			if o == opMax {
				arg = make([]int32, len(want.Vals))
			}
			got := combineTo(nil, ir.NewFactor(keep, kc), fs, o, arg)
			for i := range want.Vals {
				if !equal(got.Vals[i], want.Vals[i], 1e-14) {
					t.Fatalf("trial %d op %d: entry %d = %v, want %v", trial, o, i, got.Vals[i], want.Vals[i])
				}
			}
		}
	}
}

func TestCombineArg(t *testing.T) {
	// f(A, B) with A fastest folded: the argmax over B for each A, ties low.
	f := ir.NewFactor(ids(0, 1), []int{2, 3})
	copy(f.Vals, []float64{0.1, 0.5, 0.5, 0.7, 0.2, 0.1})
	dst := ir.NewFactor(ids(0), []int{2})
	arg := make([]int32, 2)
	combineTo(nil, dst, []*ir.Factor{f}, opMax, arg)
	if dst.Vals[0] != 0.5 || arg[0] != 1 || dst.Vals[1] != 0.7 || arg[1] != 0 {
		t.Errorf("got %v %v, want [0.5 0.7] [1 0]", dst.Vals, arg)
	}
}

func TestRestrict(t *testing.T) {
	f := ir.NewFactor(ids(0, 1, 2), []int{2, 3, 2})
	for i := range f.Vals {
		f.Vals[i] = float64(i)
	}
	obs := []int{-1, 2, -1}
	g := restrict(f, obs)
	want := []float64{4, 5, 10, 11}
	if len(g.Vars) != 2 || g.Vars[0] != 0 || g.Vars[1] != 2 {
		t.Fatalf("scope %v", g.Vars)
	}
	for i := range want {
		if g.Vals[i] != want[i] {
			t.Fatalf("got %v, want %v", g.Vals, want)
		}
	}
	if h := restrict(f, []int{-1, -1, -1}); h != f {
		t.Error("restrict with no evidence copied the factor")
	}
	if h := restrict(f, []int{1, 0, 1}); len(h.Vars) != 0 || h.Vals[0] != 7 {
		t.Errorf("full restriction: %v", h.Vals)
	}
}

func TestRescaleAndXfloat(t *testing.T) {
	f := ir.NewFactor(ids(0), []int{3})
	copy(f.Vals, []float64{1e-300, 3e-301, 0})
	e := rescale(nil, f)
	if !(f.Vals[0] >= 0.5 && f.Vals[0] < 1) || !equal(math.Ldexp(f.Vals[1], e), 3e-301, 1e-15) || f.Vals[2] != 0 {
		t.Errorf("rescale: %v, %d", f.Vals, e)
	}
	x := xfloat{1, 0}
	for range 3000 {
		x = x.mulf(0.5)
	}
	if got := x.log(); !equal(got, -3000*math.Ln2, 1e-12) {
		t.Errorf("log 2^-3000 = %v", got)
	}
	y := x.add(x)
	if got := y.div(x); got != 2 {
		t.Errorf("(x+x)/x = %v", got)
	}
	if !x.less(y) || y.less(x) || (xfloat{}).add(x) != x {
		t.Error("less/add")
	}
	if x.float() != 0 {
		t.Error("2^-3000 should underflow as a float64")
	}
}
