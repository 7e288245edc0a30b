package infer

import (
	"fmt"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// MaxEnum is the largest number of assignments the enumeration engine
// visits before it refuses with an error.
const MaxEnum = 1 << 25

// enum is the reference engine: it visits every assignment of the
// unobserved discrete variables consistent with the evidence and multiplies
// every CPT factor of the model exactly as written (nothing is pruned).
// In a model with variables still to be learned it does the same over the
// variables the query needs (mark), the ancestral closure of its variables.
type enum struct {
	m    *ir.Model
	pos  ir.Pos
	k    *factor.Kernel // cancellation
	obs  []int          // obs[v]: observed state of v, or -1
	card []int          // card[v]: number of states (0 for real variables)
	mark []bool         // mark[v]: v is enumerated; nil for every variable
}

// factors returns the factors multiplied: every factor of the model, or
// the families of the marked variables.
func (e *enum) factors() []*ir.Factor {
	if e.mark == nil {
		return e.m.Factors()
	}
	var fs []*ir.Factor
	for v, ok := range e.mark {
		if f := e.m.Factor(ir.VarID(v)); ok && f != nil {
			fs = append(fs, f)
		}
	}
	return fs
}

// walk calls fn(a, p) for every assignment a (indexed by VarID; observed
// variables at their states, real ones at 0) with its joint p = Π φ(a). The
// assignments come in lexicographic order of the unobserved variables by
// VarID, the last fastest. a is reused between calls.
func (e *enum) walk(fn func(a []int, p factor.Scaled)) error {
	if err := e.check(); err != nil {
		return err
	}
	free := e.free()
	a := make([]int, len(e.card))
	for v, s := range e.obs {
		if s >= 0 {
			a[v] = s
		}
	}
	fs := e.factors()
	work := factor.PollEvery // products since the last poll of the cancellation
	for {
		if work += len(fs) + 1; work >= factor.PollEvery {
			work = 0
			if e.k.Poll() {
				return canceled(e.pos)
			}
		}
		// The product in mantissa and exponent: p.m stays within
		// [2^-500, 2^500], and a factor beyond that range is multiplied
		// into a normalised mantissa, so nothing under- or overflows.
		p := factor.Scaled{M: 1, E: 0}
		for _, f := range fs {
			off := 0
			for i, v := range f.Vars {
				off += a[v] * f.Stride[i]
			}
			x := f.Vals[off]
			if x >= 0x1p-500 && x <= 0x1p500 {
				p.M *= x
				if p.M < 0x1p-500 || p.M > 0x1p500 {
					p = p.Norm()
				}
			} else {
				p = p.Norm().MulFloat(x)
			}
		}
		fn(a, p.Norm())
		// Odometer over free, last fastest.
		d := len(free) - 1
		for ; d >= 0; d-- {
			v := free[d]
			a[v]++
			if a[v] < e.card[v] {
				break
			}
			a[v] = 0
		}
		if d < 0 {
			return nil
		}
	}
}

// check returns an error if there are more than MaxEnum assignments.
func (e *enum) check() error {
	n := 1
	for _, v := range e.free() {
		c := e.card[v]
		if n > MaxEnum/c {
			free := e.free()
			card := make([]int, len(free))
			for i, v := range free {
				card[i] = e.card[v]
			}
			err := &TooLargeError{What: OversizeEnum, Vars: free, Size: product(card), Limit: MaxEnum, Instead: VE}
			err.msg = fmt.Sprintf("enumeration would visit more than %d assignments of %d unobserved variables; use variable elimination", MaxEnum, len(free))
			return err.at(e.pos)
		}
		n *= c
	}
	return nil
}

// free returns the unobserved discrete variables enumerated, in VarID
// order.
func (e *enum) free() []ir.VarID {
	var free []ir.VarID
	for v, c := range e.card {
		if c > 0 && e.obs[v] < 0 && (e.mark == nil || e.mark[v]) {
			free = append(free, ir.VarID(v))
		}
	}
	return free
}

// Joint returns P(keep, e) as a factor over keep times the returned scale,
// like (*ve).Joint.
func (e *enum) Joint(keep []ir.VarID) (*ir.Factor, factor.Scaled, error) {
	// The table over keep is no larger than the number of assignments:
	// check that before allocating it.
	if err := e.check(); err != nil {
		return nil, factor.Scaled{}, err
	}
	kc := make([]int, len(keep))
	for i, v := range keep {
		kc[i] = e.card[v]
	}
	out := factor.New(keep, kc)
	acc := make([]factor.Scaled, len(out.Vals))
	err := e.walk(func(a []int, p factor.Scaled) {
		off := 0
		for i, v := range keep {
			off += a[v] * out.Stride[i]
		}
		acc[off] = acc[off].Add(p)
	})
	if err != nil {
		return nil, factor.Scaled{}, err
	}
	// Bring every entry to the largest exponent.
	top := factor.Scaled{}
	for _, x := range acc {
		if top.Less(x) {
			top = x
		}
	}
	e.k.Coarse = false
	for i, x := range acc {
		if x.M != 0 {
			out.Vals[i] = x.Div(factor.Scaled{M: 1, E: top.E})
			if out.Vals[i] < factor.MinNormal {
				e.k.Coarse = true
			}
		}
	}
	return out, factor.Scaled{M: 1, E: top.E}, nil
}

// Partition returns Σ_x Π φ(x) over every assignment, without evidence.
func (e *enum) Partition() (factor.Scaled, error) {
	f := *e
	f.obs = noEvidence(len(e.obs))
	return peOf(&f)
}

// noEvidence returns evidence for n variables that observes none.
func noEvidence(n int) []int {
	obs := make([]int, n)
	for i := range obs {
		obs[i] = -1
	}
	return obs
}
