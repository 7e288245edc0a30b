package hypothesis

import (
	"fmt"
	"math"
	"strings"

	"github.com/pbl-lang/pbl/ir"
)

// mode is how an observation's log-likelihood is computed.
type mode uint8

const (
	modeConst     mode = iota // no argument reads a parameter: computed once
	modeSuff                  // normal, from sufficient statistics (suffNormal)
	modeCount                 // bernoulli(P) with P of parameters only: k1·ln P + k0·ln(1−P)
	modeNormal                // normal, a column at a time
	modeSigmoid               // bernoulli(sigmoid(Z)), a column at a time, from Z
	modeBernoulli             // bernoulli(P), a column at a time
)

// obsEval computes one observation's log-likelihood under a hypothesis.
type obsEval struct {
	ob   *ir.Observation
	args []*node
	y    []float64 // the observed column
	mode mode

	constLL    float64     // modeConst
	constBelow bool        // modeConst: constLL is −Inf, below float64's range, though the data are possible
	suff       *suffNormal // modeSuff
	k1, k0     float64     // modeCount: rows with 1, with 0
	sign       []float64   // modeSigmoid: −1 for a row with 1, 1 otherwise
}

// likelihood is the log-likelihood of the data under a space's
// hypotheses: its observations compiled and bound to the data.
type likelihood struct {
	s     *ir.Space
	d     *Data
	obs   []*obsEval
	slots int // buffers of mixed nodes per work
	maxJ  int // the largest number of coefficients of a suffNormal
}

// newLikelihood compiles the observations of s (a parameterised space)
// with c and binds them to d. p0 is a hypothesis under which the
// observations that read no parameter are checked.
func newLikelihood(c *compiler, d *Data, p0 []float64) (*likelihood, error) {
	s := c.s
	l := &likelihood{s: s, d: d}
	rows := d.Len()
	for _, ob := range s.Obs {
		want := 2
		if ob.Family == ir.FamilyBernoulli {
			want = 1
		}
		if len(ob.Args) != want {
			panic(fmt.Sprintf("hypothesis: %s has %d arguments", ob.Family, len(ob.Args)))
		}
		o := &obsEval{ob: ob, y: d.Cols[ob.Column][:rows]}
		for _, a := range ob.Args {
			n := c.compile(a)
			n.bindColumns(d.Cols, rows)
			o.args = append(o.args, n)
		}
		l.obs = append(l.obs, o)
	}
	l.slots = c.slots
	w := newWork(l.slots, rows)
	for _, o := range l.obs {
		params := false
		for _, a := range o.args {
			params = params || a.dependsOnParams()
		}
		switch {
		case !params:
			o.mode = modeConst
			ll, ok := o.direct(w, p0)
			if !ok {
				if err := l.diagnose(o, p0); err != nil {
					return nil, err
				}
				ll, o.constBelow = math.Inf(-1), true
			}
			o.constLL = ll
		case o.ob.Family == ir.FamilyNormal:
			if o.suff = newSuffNormal(o.args[0], o.args[1], o.y); o.suff != nil {
				o.mode = modeSuff
				l.maxJ = max(l.maxJ, len(o.suff.groups))
			} else {
				o.mode = modeNormal
			}
		case !o.args[0].dependsOnColumns():
			o.mode = modeCount
			for _, v := range o.y {
				if v == 1 {
					o.k1++
				} else {
					o.k0++
				}
			}
		case o.args[0].tag == tCall && o.args[0].fn == ir.FnSigmoid:
			o.mode = modeSigmoid
			o.sign = make([]float64, len(o.y))
			for i, v := range o.y {
				o.sign[i] = 1
				if v == 1 {
					o.sign[i] = -1
				}
			}
		default:
			o.mode = modeBernoulli
		}
	}
	return l, nil
}

// scratch is one goroutine's working memory for logLik.
type scratch struct {
	w     *work
	delta []float64

	run    *runScratch // for runs (runs.go), or nil
	params []float64   // the parameters of a chunk's current run
	idx    []int       // their indices
}

func (l *likelihood) newScratch() *scratch {
	return &scratch{w: newWork(l.slots, l.d.Len()), delta: make([]float64, l.maxJ)}
}

// logLik returns ln P(D|h) for the hypothesis with parameters p: the sum
// over observations and rows, every constant included. An expression out
// of its domain is an *ir.Error at it (ErrDomain). below is true when
// ln P(D|h) is −Inf though P(D|h) > 0: every value is in its domain but
// the log-likelihood is below float64's range (a normal's |z| beyond
// 1.9e154), which is not an impossibility.
func (l *likelihood) logLik(sc *scratch, p []float64) (ll float64, below bool, err error) {
	var total float64
	impossible := false
	for _, o := range l.obs {
		ll, ok := o.logLik(sc, p)
		impossible = impossible || ok && math.IsInf(ll, -1) // a probability of 0
		if !ok {
			if o.mode != modeConst { // its errors were found by newLikelihood
				if err := l.diagnose(o, p); err != nil {
					return 0, false, err
				}
			}
			ll, below = math.Inf(-1), true
		}
		total += ll
	}
	return total, below && !impossible, nil
}

func (o *obsEval) count(p []float64) (float64, bool) {
	q := o.args[0].at(p, nil)
	if !(q >= 0 && q <= 1) {
		return 0, false
	}
	var ll float64
	if o.k1 > 0 {
		ll += o.k1 * math.Log(q)
	}
	if o.k0 > 0 {
		ll += o.k0 * math.Log1p(-q)
	}
	return ll, true
}

// direct computes the log-likelihood a column at a time. ok is false when
// a value is out of its domain or the sum is not finite.
func (o *obsEval) direct(w *work, p []float64) (float64, bool) {
	y := o.y
	rows := len(y)
	switch o.ob.Family {
	case ir.FamilyNormal:
		mu, mus := o.args[0].operand(w, p)
		sd, sds := o.args[1].operand(w, p)
		if sd == nil {
			if !(sds > 0) || math.IsInf(sds, 0) {
				return 0, false
			}
			var half float64
			if mu == nil {
				half = halfSquares(y, nil, mus, sds)
			} else {
				half = halfSquares(y, mu[:rows], 0, sds)
			}
			ll := -float64(rows)*math.Log(sds) - float64(rows)/2*ln2Pi - half
			return ll, !math.IsNaN(ll) && !math.IsInf(ll, 0)
		}
		sd = sd[:rows]
		var ll, half float64
		bad := false
		for i, v := range y {
			m := mus
			if mu != nil {
				m = mu[i]
			}
			s := sd[i]
			bad = bad || !(s > 0) || math.IsInf(s, 0)
			h := zscore(v, m, s) / 2
			ll -= math.Log(s)
			half += h * h
		}
		ll -= float64(rows)/2*ln2Pi + 2*half
		return ll, !bad && !math.IsNaN(ll) && !math.IsInf(ll, 0)
	}
	if o.mode == modeSigmoid {
		z, zs := o.args[0].x.operand(w, p)
		if z == nil {
			panic("hypothesis: sigmoid of a scalar in modeSigmoid")
		}
		_ = zs
		ll := logSigmoidSum(z[:rows], o.sign)
		return ll, !math.IsNaN(ll) && !math.IsInf(ll, 0) // −Inf: the sum overflowed
	}
	q, qs := o.args[0].operand(w, p)
	var ll float64
	bad := false
	for i, v := range y {
		pi := qs
		if q != nil {
			pi = q[i]
		}
		bad = bad || !(pi >= 0 && pi <= 1)
		if v == 1 {
			ll += math.Log(pi)
		} else {
			ll += math.Log1p(-pi)
		}
	}
	return ll, !bad
}

// diagnose finds why an observation's log-likelihood failed under
// parameters p, going through the rows one at a time: the first row where
// an argument is NaN or infinite (positioned at the innermost expression
// that made it so), a standard deviation ≤ 0, a probability outside
// [0, 1]. It returns nil when every value is in its domain (the sum
// overflowed: the likelihood is 0).
func (l *likelihood) diagnose(o *obsEval, p []float64) error {
	names := []string{"the mean", "the standard deviation"}
	if o.ob.Family == ir.FamilyBernoulli {
		names = []string{"the probability"}
	}
	check := func(k int, row []float64, i int) error {
		a := o.args[k]
		at := ""
		if i >= 0 {
			at = l.rowText(i)
		}
		if n, v := a.origin(p, row); n != nil {
			what := n.describe(p, row)
			if n == a {
				what = names[k]
				if a.tag == tCall || a.tag == tBinary || a.tag == tUnary {
					what += " " + n.describe(p, row)
				}
			}
			return l.domainError(n.e.Position(), "%s is %g under %s%s", what, v, l.hypText(p), at)
		}
		v := a.at(p, row)
		switch {
		case o.ob.Family == ir.FamilyNormal && k == 1 && !(v > 0):
			return l.domainError(a.e.Position(), "the standard deviation is %g (it must be > 0) under %s%s", v, l.hypText(p), at)
		case o.ob.Family == ir.FamilyBernoulli && !(v >= 0 && v <= 1):
			return l.domainError(a.e.Position(), "the probability is %g (it must be in [0, 1]) under %s%s", v, l.hypText(p), at)
		}
		return nil
	}
	for k, a := range o.args {
		if !a.dependsOnColumns() {
			if err := check(k, nil, -1); err != nil {
				return err
			}
		}
	}
	row := make([]float64, len(l.d.Cols))
	for i := range l.d.Len() {
		for j, c := range l.d.Cols {
			row[j] = c[i]
		}
		for k, a := range o.args {
			if a.dependsOnColumns() {
				if err := check(k, row, i); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (l *likelihood) domainError(pos ir.Pos, format string, args ...any) error {
	return ir.ErrorList{{Pos: pos, Msg: fmt.Sprintf(format, args...), Err: ErrDomain}}
}

// hypText names a hypothesis by its parameters' values.
func (l *likelihood) hypText(p []float64) string { return hypText(l.s, p) }

func hypText(s *ir.Space, p []float64) string {
	if len(s.Params) == 0 {
		return "the only hypothesis"
	}
	var b strings.Builder
	b.WriteString("hypothesis ")
	for i, sp := range s.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s = %g", sp.Name, p[i])
	}
	return b.String()
}

// rowText names a data row: " at row 3 (data.csv:4)".
func (l *likelihood) rowText(i int) string {
	s := fmt.Sprintf(" at row %d", i+1)
	if pos := l.d.Pos(i, -1); pos.IsValid() {
		s += fmt.Sprintf(" (%s)", pos)
	}
	return s
}

// logSigmoidSum returns Σ_i ln σ(−sign_i·z_i): a bernoulli(sigmoid(z))
// log-likelihood, sign_i −1 for a 1 and 1 for a 0. Each term is
// −softplus(±z_i) = −max(±z_i, 0) − ln(1 + e^−|z_i|), whose second part
// does not depend on the row's value; so the sum is −(M + ln Π(1 + e_i))
// with one exponential per row and a logarithm per 2^64 of the product,
// not one per row. The product is kept as Q = Π(1 + e_i) − 1, updated by
// Q ← Q + (e + Q·e), which keeps the digits of the e_i however small
// (|z| large); then ln(1 + Q) = log1p(Q). Both parts are sums of
// non-negative terms, accurate to a few ulps per row, as the sum of the
// rows' log1p is.
func logSigmoidSum(z, sign []float64) float64 {
	sign = sign[:len(z)]
	var m, l, q float64
	for i, x := range z {
		m += max(sign[i]*x, 0)
		e := math.Exp(-math.Abs(x))
		q += e + q*e
		if q > 0x1p64 {
			l += math.Log1p(q)
			q = 0
		}
	}
	return -(m + (l + math.Log1p(q)))
}

// zscore returns (x − m)/s, also where x − m overflows though the
// quotient does not (x = 1e300, m = −1e300, s = 10).
func zscore(x, m, s float64) float64 {
	z := (x - m) / s
	if math.IsInf(z, 0) && !math.IsInf(x, 0) && !math.IsInf(m, 0) {
		z = 2 * ((x/2 - m/2) / s)
	}
	return z
}

// twoSum returns a + b and its rounding error (Knuth's TwoSum): s + e
// is a + b exactly.
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

// dot2 returns the compensated sum (s, c) less a·b: one step of Ogita,
// Rump and Oishi's Dot2, each product's error found by FMA and each
// sum's by TwoSum, so that s + c is as accurate as if computed in twice
// the working precision and rounded once.
func dot2(s, c, a, b float64) (float64, float64) {
	p := -a * b
	pe := math.FMA(-a, b, -p)
	s, e := twoSum(s, p)
	return s, c + (e + pe)
}

// halfSquares returns Σ_i z_i²/2 for z_i = (y_i − mean_i)/sd, mean_i
// from mean or, when it is nil, the scalar m: the quadratic part of a
// normal log-likelihood, computed from the z_i so that it keeps its
// digits whatever the scale (y = 1e24 and σ = 1, σ = 1e-300, where σ²
// underflows, y = 1e300, where (y − mean)² overflows); it is +Inf only
// where the sum is beyond float64's range. The sum is 2·Σ (z_i/2)²,
// which is Σ z_i²/2 with the same roundings but overflows only at
// |z| ≈ 1.9e154, as z²/2 does.
func halfSquares(y, mean []float64, m, sd float64) float64 {
	var acc float64
	if inv := 1 / sd; !math.IsInf(inv, 0) {
		for i, v := range y {
			if mean != nil {
				m = mean[i]
			}
			h := (v - m) * inv / 2
			if math.IsInf(h, 0) {
				h = zscore(v, m, sd) / 2
			}
			acc += h * h
		}
		return 2 * acc
	}
	for i, v := range y {
		if mean != nil {
			m = mean[i]
		}
		h := zscore(v, m, sd) / 2
		acc += h * h
	}
	return 2 * acc
}

// suffRows returns the log-likelihood of a modeSuff observation a row at
// a time: Σ_i −ln SD − ½ ln 2π − z_i²/2 with z_i = (d_i − Σ_j a_j b_ij)/SD,
// each residual computed in twice the working precision and halved
// (dot2), so that neither the rounding of the mean's terms (a line
// through data of 1e24) nor an overflow of d − MEAN (data of ±1e300)
// changes it. a (len J) is scratch. ok is false when a value is out of
// its domain or the result is not finite.
func (o *obsEval) suffRows(p, a []float64) (float64, bool) {
	s := o.suff
	sd := s.sd.at(p, nil)
	if !(sd > 0) || math.IsInf(sd, 0) {
		return 0, false
	}
	a = a[:len(s.groups)]
	for j := range a {
		if a[j] = s.coefAt(j, p); !finite(a[j]) {
			return 0, false
		}
	}
	var acc float64 // Σ (z_i/2)²
	for i, v := range o.y {
		hs, hc := v/2, 0.0
		for j, aj := range a {
			hs, hc = dot2(hs, hc, aj, s.cols[j][i]/2)
		}
		h := (hs + hc) / sd
		acc += h * h
	}
	n := float64(len(o.y))
	ll := -n*math.Log(sd) - n/2*ln2Pi - 2*acc
	return ll, finite(ll)
}

// logLik returns the observation's log-likelihood of the data under the
// parameters p, by its mode, and false where a value is out of its
// domain.
func (o *obsEval) logLik(sc *scratch, p []float64) (float64, bool) {
	switch o.mode {
	case modeConst:
		return o.constLL, !o.constBelow
	case modeSuff:
		if ll, ok := o.suff.logLik(p, sc.delta); ok {
			return ll, true
		}
		// Out of the statistics' range: SD out of [2^-300, 2^300], the
		// data too large for their digits to survive, a sum that
		// overflows. A row at a time, each residual in twice the
		// working precision, is right there; or the direct evaluation
		// finds the value out of its domain.
		return o.suffRows(p, sc.delta)
	case modeCount:
		return o.count(p)
	}
	return o.direct(sc.w, p)
}
