package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/mixture"
)

// This file is the part of network EM (em.go) that concerns real
// variables: normal densities given discrete parents (ir.Gaussian, a
// Gaussian naive Bayes feature), linear Gaussian ones (ir.Gaussian with
// real parents: emlinear.go) and joint normal densities of several real
// variables (ir.MultiNormal, a mixture's components), whose discrete
// parents may be hidden, partly missing, and anywhere in a discrete
// network.
//
// # E-step
//
// A row's observed real values are likelihoods over each density's
// parents, as real-valued evidence is in queries (infer/real.go): per
// parent configuration u, ln N(x_o; μ_u,o, Σ_u,oo), the marginal density
// of the observed children x_o. The junction tree is compiled with a slot
// over every density's parents (infer.LikelihoodSlots), and one
// calibration per row (infer.Learner.ExpectLik) gives the discrete families'
// expected counts, the posterior P(u | row) of every density's parent
// configurations and ln p(row). Rows with real values are all distinct:
// they are cut into blocks that depend on the data only, calibrated on
// every core, and summed in block order, as em.go does with patterns.
//
// # M-step
//
// Per density and configuration u, the weighted sufficient statistics
//
//	W_u = Σ_r P(u | r),  S_u = Σ_r P(u | r) (x_r − c_u),  Q_u = Σ_r P(u | r) (x_r − c_u)(x_r − c_u)ᵀ
//
// about c_u, the configuration's current mean (so that the covariance,
// Q_u/W_u − (S_u/W_u)(S_u/W_u)ᵀ, does not lose digits to cancellation),
// merged associatively over the blocks. The new mean is c_u + S_u/W_u, the
// covariance by its form: full, its diagonal (diag), the mean of its
// diagonal (spherical), or Σ_u W_u Σ_u / Σ_u W_u (tied), plus
// DefaultRegCovar on the diagonal, as scikit-learn and package mixture
// do; a normal density's variance gets DefaultRegCovar too (its standard
// deviation is never 0, even on identical values). With a known variance
// (mixture ... (variance = V)) only the means are learned. A configuration
// of zero weight keeps its numbers.
//
// A row that gives some but not all of a learned joint density's
// variables is refused (the conditional expectations of the missing ones
// are not implemented); a row that gives none of them adds nothing to
// it, and a row without a normal density's variable adds nothing to that
// density: they are integrated out, which is exact.
//
// # Starts
//
// A density to learn whose only parent is hidden (a mixture's component)
// starts from k-means (package mixture, seeded by the start) on the rows
// that give all its variables: the clusters' means and covariances, and
// the clusters' shares as the parent's table when it is a learned root,
// as scikit-learn's GaussianMixture starts. Other densities start from
// data: each configuration's means a row drawn at random (or the
// variables' means), its variances the variables' variances. With init
// model, a density the model gives is its start.

// density is a normal or joint normal density in an EM run.
type density struct {
	children []ir.VarID
	parents  []ir.VarID
	nconf    int
	joint    bool       // an ir.MultiNormal; else an ir.Gaussian (one child)
	form     ir.CovForm // the form learned (joint densities)
	variance float64    // a known variance shared by every configuration and child, or 0
	learned  bool
	pos      ir.Pos
	col      []int // col[i]: children[i]'s index among the run's real values
	slot     int   // its likelihood slot in the tree, or -1 without parents

	// A linear Gaussian density (emlinear.go): its real parents, their
	// indices among the run's real values, the names for messages, and
	// the centres of its statistics.
	real      []ir.VarID
	rcol      []int
	realNames []string
	childName string
	centre    []float64
	coef      []float64 // set for each iteration: the current coefficients

	// Set for each iteration (prepare) from the current density:
	mean   []float64 // nconf×d, the current means: the statistics' centres c_u
	chol   []float64 // nconf×d×d, lower Cholesky factors of the covariances (joint)
	base   []float64 // nconf: −(d ln 2π + ln det Σ_u)/2, or ln of the normalising constant
	sd     []float64 // nconf: standard deviations (ir.Gaussian)
	cur    ir.Dist   // the current density
	ncells int       // stats per configuration: 1 + d + d²
}

// dim returns the number of children.
func (d *density) dim() int { return len(d.children) }

// statLen returns the length of d's statistics.
func (d *density) statLen() int { return d.nconf * d.ncells }

// densities returns the densities of m's real variables, in the order of
// their first children, with their values' indices among reals (the real
// variables the rows carry). learned says which variables are to be
// learned. A real variable with neither a density, parents nor children
// is outside the model's distribution and left out.
func densities(m *ir.Model, reals []ir.VarID, learned []bool) ([]*density, error) {
	var out []*density
	seen := map[ir.Dist]bool{}
	inMixture := map[ir.VarID]*ir.Mixture{}
	for _, mx := range m.Mixtures {
		for _, v := range mx.Vars {
			inMixture[v] = mx
		}
	}
	for _, v := range reals {
		d := &density{slot: -1, pos: m.Vars[v].Pos}
		mx := inMixture[v]
		switch dist := m.Dist(v).(type) {
		case *ir.MultiNormal:
			if seen[dist] {
				continue
			}
			seen[dist] = true
			d.children, d.parents, d.joint, d.form, d.cur, d.pos = dist.Children, dist.Parents, true, dist.Form, dist, dist.Pos
		case *ir.Gaussian:
			d.children, d.parents, d.cur, d.pos = []ir.VarID{v}, dist.Parents, dist, dist.Pos
			if len(dist.Real) > 0 {
				d.real = dist.Real
			}
		case nil:
			switch {
			case mx != nil && mx.Vars[0] != v:
				continue // the mixture's density, from its first variable
			case mx != nil:
				d.children, d.joint, d.form, d.pos = mx.Vars, len(mx.Vars) > 1, mx.Form, mx.Pos
			default:
				d.children = []ir.VarID{v}
			}
			d.parents = m.Parents[v]
		}
		if mx != nil {
			d.form, d.variance = mx.Form, mx.Variance
		}
		for _, c := range d.children {
			d.learned = d.learned || learned[c]
		}
		if d.cur == nil && !d.learned {
			return nil, modelErrorf("%s has no density, and is not among the variables to learn", ir.Quote(m.Vars[v].Name))
		}
		if err := d.setLinear(m, reals); err != nil {
			return nil, err
		}
		d.nconf = 1
		for _, p := range d.parents {
			if !m.Discrete(p) {
				return nil, modelErrorf("cannot learn the density of %s by EM: its parent %s is real-valued, and EM does not learn linear Gaussian densities yet (learn them by maximum likelihood from rows that give the whole family: rows with a missing cell in it are skipped)", m.NameList(d.children, 3), ir.Quote(m.Vars[p].Name))
			}
			d.nconf *= len(m.Vars[p].States)
			if d.nconf > MaxCountEntries {
				return nil, modelErrorf("the density of %s has too many parent configurations to learn", m.NameList(d.children, 3))
			}
		}
		for _, c := range d.children {
			d.col = append(d.col, slices.Index(reals, c))
		}
		n := d.dim()
		d.ncells = 1 + n + n*n
		if d.lin() {
			d.ncells = d.linDim() * d.linDim()
		}
		out = append(out, d)
	}
	return out, nil
}

// prepare sets d's per-iteration numbers from its current density in m.
func (d *density) prepare(m *ir.Model) error {
	d.cur = m.Dist(d.children[0])
	n := d.dim()
	d.mean = resize(d.mean, d.nconf*n)
	d.base = resize(d.base, d.nconf)
	switch g := d.cur.(type) {
	case *ir.Gaussian:
		d.sd = resize(d.sd, d.nconf)
		for u := range d.nconf {
			d.mean[u], d.sd[u], d.base[u] = g.Mean[u], g.SD[u], ir.LogNorm(g.SD[u])
		}
		d.coef = g.Coef
		if d.lin() {
			d.setCentre(m)
		}
	case *ir.MultiNormal:
		d.chol = resize(d.chol, d.nconf*n*n)
		for u := range d.nconf {
			copy(d.mean[u*n:], g.Mean[u])
			l := d.chol[u*n*n : (u+1)*n*n]
			logdet, ok := cholesky(l, g.Cov[u], n)
			if !ok {
				return fmt.Errorf("the covariance matrix of %s%s is not positive definite", m.NameList(d.children, 3), configName(m, d.parents, u))
			}
			d.base[u] = -0.5 * (float64(n)*math.Log(2*math.Pi) + logdet)
		}
	default:
		panic("learn: a density that is not one")
	}
	return nil
}

// resize returns s with length n, reusing its array when it can.
func resize(s []float64, n int) []float64 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float64, n)
}

// cholesky writes into l (n×n, row-major) the lower Cholesky factor of the
// symmetric a, and returns ln det a; false if a is not positive definite.
func cholesky(l, a []float64, n int) (float64, bool) {
	clear(l)
	logdet := 0.0
	for i := range n {
		for j := 0; j <= i; j++ {
			s := a[i*n+j]
			for k := range j {
				s -= l[i*n+k] * l[j*n+k]
			}
			if i == j {
				if !(s > 0) {
					return 0, false
				}
				l[i*n+i] = math.Sqrt(s)
				logdet += 2 * math.Log(l[i*n+i])
			} else {
				l[i*n+j] = s / l[j*n+j]
			}
		}
	}
	return logdet, true
}

// logDensities writes into dst[u] the log density of the row's observed
// children (x: the row's real values) per configuration, less the returned
// shift, and reports whether any child is observed. The children all
// observed and near the means take the fast path through the factors of
// prepare; otherwise ir.LogDensities answers (marginal densities, values
// far from every mean).
func (d *density) logDensities(x []float64, dst, buf []float64) (shift float64, observed bool, err error) {
	if d.lin() {
		return d.linLogDensities(x, dst, buf)
	}
	n := d.dim()
	all := true
	for _, c := range d.col {
		if math.IsNaN(x[c]) {
			all = false
		} else {
			observed = true
		}
	}
	if !observed {
		return 0, false, nil
	}
	if all && !d.joint {
		return ir.NormalLogDensities(x[d.col[0]], d.mean, d.sd, d.base, dst), true, nil
	}
	if all {
		fast := true
		w := buf[:n]
		for u := range d.nconf {
			l := d.chol[u*n*n : (u+1)*n*n]
			q := 0.0
			for i := range n {
				s := x[d.col[i]] - d.mean[u*n+i]
				for j := range i {
					s -= l[i*n+j] * w[j]
				}
				w[i] = s / l[i*n+i]
				q += w[i] * w[i]
			}
			if !(q < 1e14) {
				fast = false
				break
			}
			dst[u] = d.base[u] - 0.5*q
		}
		if fast {
			return 0, true, nil
		}
	}
	_, l, shift, err := ir.LogDensities(d.cur, d.observed(x))
	copy(dst, l)
	return shift, true, err
}

// observed returns the row's values x of d's children that are not
// missing.
func (d *density) observed(x []float64) []ir.RealObs {
	var obs []ir.RealObs
	for i, c := range d.col {
		if !math.IsNaN(x[c]) {
			obs = append(obs, ir.RealObs{Var: d.children[i], Value: x[c]})
		}
	}
	return obs
}

// addStats adds to st, d's statistics, the row's values x with the
// weights post[u] (times w).
func (d *density) addStats(st []float64, x []float64, post []float64, w float64, buf []float64) {
	if d.lin() {
		d.linAddStats(st, x, post, w, buf)
		return
	}
	n := d.dim()
	diff := buf[:n]
	for u, p := range post {
		p *= w
		if p == 0 {
			continue
		}
		s := st[u*d.ncells : (u+1)*d.ncells]
		s[0] += p
		for i := range n {
			diff[i] = x[d.col[i]] - d.mean[u*n+i]
			s[1+i] += p * diff[i]
		}
		q := s[1+n:]
		for i := range n {
			pi := p * diff[i]
			for j := i; j < n; j++ {
				q[i*n+j] += pi * diff[j]
			}
		}
	}
}

// estimate returns d's density learned from its statistics st (see the
// file's comment), positioned at pos.
func (d *density) estimate(m *ir.Model, st []float64) (ir.Dist, error) {
	if d.lin() {
		return d.linEstimate(m, st)
	}
	n := d.dim()
	mean := make([]float64, d.nconf*n)
	cov := make([]float64, d.nconf*n*n) // the scatter about the new mean, over W
	var tied []float64
	totW := 0.0
	if d.form == ir.TiedCov {
		tied = make([]float64, n*n)
	}
	for u := range d.nconf {
		s := st[u*d.ncells : (u+1)*d.ncells]
		w := s[0]
		if !(w > 0) {
			copy(mean[u*n:(u+1)*n], d.oldMean(u))
			continue
		}
		q := s[1+n:]
		c := cov[u*n*n : (u+1)*n*n]
		for i := range n {
			mi := s[1+i] / w
			mean[u*n+i] = d.mean[u*n+i] + mi
			for j := i; j < n; j++ {
				v := q[i*n+j]/w - mi*s[1+j]/w
				if i == j {
					v = max(v, 0)
				}
				c[i*n+j], c[j*n+i] = v, v
			}
		}
		if tied != nil {
			totW += w
			for i := range c {
				tied[i] += w * c[i]
			}
		}
	}
	for _, x := range mean {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("cannot learn the density of %s: its values are too large for their mean and variance to be computed (beyond about 1e154); rescale the columns", m.NameList(d.children, 3))
		}
	}
	// covOf returns configuration u's new covariance matrix.
	covOf := func(u int) []float64 {
		old := d.oldCov(u)
		out := make([]float64, n*n)
		if d.variance > 0 {
			for i := range n {
				out[i*n+i] = d.variance
			}
			return out
		}
		if tied != nil {
			if !(totW > 0) {
				return old
			}
			for i := range out {
				out[i] = tied[i] / totW
			}
		} else {
			if !(st[u*d.ncells] > 0) {
				return old
			}
			copy(out, cov[u*n*n:(u+1)*n*n])
		}
		switch d.form {
		case ir.DiagCov:
			for i := range n {
				for j := range n {
					if i != j {
						out[i*n+j] = 0
					}
				}
			}
		case ir.SphericalCov:
			s := 0.0
			for i := range n {
				s += out[i*n+i]
			}
			clear(out)
			for i := range n {
				out[i*n+i] = s / float64(n)
			}
		}
		for i := range n {
			out[i*n+i] += DefaultRegCovar
		}
		return out
	}
	if !d.joint {
		g := &ir.Gaussian{Pos: d.pos, Child: d.children[0], Parents: slices.Clone(d.parents), Mean: mean, SD: make([]float64, d.nconf)}
		for u := range d.nconf {
			g.SD[u] = math.Sqrt(covOf(u)[0])
		}
		return g, nil
	}
	mn := &ir.MultiNormal{Pos: d.pos, Children: slices.Clone(d.children), Parents: slices.Clone(d.parents), Form: d.form,
		Mean: make([][]float64, d.nconf), Cov: make([][]float64, d.nconf)}
	for u := range d.nconf {
		mn.Mean[u] = mean[u*n : (u+1)*n]
		mn.Cov[u] = covOf(u)
	}
	return mn, nil
}

// oldMean returns configuration u's current means.
func (d *density) oldMean(u int) []float64 {
	switch g := d.cur.(type) {
	case *ir.Gaussian:
		return []float64{g.Mean[u]}
	case *ir.MultiNormal:
		return g.Mean[u]
	}
	panic("learn: a density that is not one")
}

// oldCov returns configuration u's current covariance matrix.
func (d *density) oldCov(u int) []float64 {
	switch g := d.cur.(type) {
	case *ir.Gaussian:
		return []float64{g.SD[u] * g.SD[u]}
	case *ir.MultiNormal:
		return slices.Clone(g.Cov[u])
	}
	panic("learn: a density that is not one")
}

// start returns d's starting density for start r of an EM run on the
// rows rr (values of reals), and, when it starts from k-means, the
// starting table of its hidden root parent (else nil). hidden says which
// variables no row observes.
func (d *density) start(m *ir.Model, rr *realRows, nreal int, hidden []bool, learnedCPT []bool, seed uint64, r int) (ir.Dist, *ir.CPT, error) {
	if d.lin() {
		g, err := d.linStart(m, rr, nreal, seed, r)
		return g, nil, err
	}
	n := d.dim()
	// The rows that give every child, and each child's mean and variance
	// over the rows that give it.
	var full []int
	mu, vr, cnt := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range rr.n() {
		x := rr.vals[i*nreal : (i+1)*nreal]
		all := true
		for k, c := range d.col {
			v := x[c]
			if math.IsNaN(v) {
				all = false
				continue
			}
			cnt[k]++
			dv := v - mu[k]
			mu[k] += dv / cnt[k]
			vr[k] += dv * (v - mu[k])
		}
		if all {
			full = append(full, i)
		}
	}
	for k := range n {
		if cnt[k] == 0 {
			return nil, nil, fmt.Errorf("no row of the data gives %s a value: its density cannot be learned", ir.Quote(m.Vars[d.children[k]].Name))
		}
		vr[k] /= cnt[k]
	}
	st := make([]float64, d.statLen())
	d.mean = make([]float64, d.nconf*n) // the statistics' centres: 0
	var root *ir.CPT
	if len(d.parents) == 1 && hidden[d.parents[0]] && len(full) >= d.nconf && d.nconf > 1 {
		// k-means on the complete rows: hard responsibilities.
		vals := make([]float64, 0, len(full)*n)
		for _, i := range full {
			for _, c := range d.col {
				vals = append(vals, rr.vals[i*nreal+c])
			}
		}
		o := mixture.DefaultKMeansOptions(d.nconf)
		o.Seed = seed + uint64(r)
		km, err := mixture.KMeans(mixture.NewMatrix(len(full), n, vals), o)
		if err != nil {
			return nil, nil, err
		}
		post := make([]float64, d.nconf)
		buf := make([]float64, n)
		for k, i := range full {
			clear(post)
			post[km.Labels[k]] = 1
			d.addStats(st, rr.vals[i*nreal:(i+1)*nreal], post, 1, buf)
		}
		if p := d.parents[0]; learnedCPT[p] && len(m.Parents[p]) == 0 {
			f := ir.NewFactor([]ir.VarID{p}, []int{d.nconf})
			for u := range f.Vals {
				f.Vals[u] = st[u*d.ncells] / float64(len(full))
			}
			pos := m.Vars[p].Pos
			if old := m.Dist(p); old != nil {
				pos = old.Position()
			}
			root = &ir.CPT{Pos: pos, Child: p, Factor: f}
		}
	}
	// Configurations k-means left without rows (or all, without it): a
	// row drawn at random as the means, the variables' variances.
	rng := rand.New(rand.NewPCG(seed^0x6d69787475726573, uint64(r)))
	cov := make([]float64, n*n)
	for k := range n {
		cov[k*n+k] = vr[k] + DefaultRegCovar
		if d.variance > 0 {
			cov[k*n+k] = d.variance
		}
	}
	if d.form == ir.SphericalCov && d.variance == 0 {
		s := 0.0
		for k := range n {
			s += cov[k*n+k]
		}
		for k := range n {
			cov[k*n+k] = s / float64(n)
		}
	}
	g := &ir.MultiNormal{Mean: make([][]float64, d.nconf), Cov: make([][]float64, d.nconf)}
	for u := range d.nconf {
		g.Mean[u] = slices.Clone(mu)
		if len(full) > 0 {
			i := full[rng.IntN(len(full))]
			for k, c := range d.col {
				g.Mean[u][k] = rr.vals[i*nreal+c]
			}
		}
		g.Cov[u] = cov
	}
	d.cur = g // what a configuration without statistics keeps
	dist, err := d.estimate(m, st)
	return dist, root, err
}
