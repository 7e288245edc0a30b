package learn

import (
	"math"
	"slices"
	"sync/atomic"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
)

// LogPosterior fills dst[c] = log P(C=c | observed features of row i of b)
// for a model with a learned naive Bayes or TAN classifier (m.Classifier),
// skipping missing features (a feature that is not a column of b is
// missing in every row). Real-valued features are not used. If the
// observed features are impossible under every class (possible only
// without a prior), every dst[c] is -Inf. dst must have one entry per
// state of the class. LogPosterior panics if m has no classifier or its
// CPTs are not learned or not a classifier's (the class and at most one
// feature as a discrete feature's parents, the class alone as a real
// feature's). It is safe for concurrent use; the
// first call for a model and a batch layout prepares log tables, reused
// while the model's CPTs are unchanged.
func LogPosterior(m *ir.Model, b *data.Batch, i int, dst []float64) {
	if m.Classifier == nil {
		panic("learn: LogPosterior: the model has no classifier")
	}
	logPosterior(m, m.Classifier, b, i, dst)
}

// logPosterior is LogPosterior for the classifier cl of m.
func logPosterior(m *ir.Model, cl *ir.Classifier, b *data.Batch, i int, dst []float64) {
	s := scorerFor(m, cl, b.Vars)
	if len(dst) != s.kc {
		panic("learn: LogPosterior: len(dst) is not the number of classes")
	}
	s.score(b, i, dst)
	logNormalize(dst)
}

// scorer holds what LogPosterior needs for one model and batch layout.
type scorer struct {
	m     *ir.Model
	cl    *ir.Classifier
	vars  []ir.VarID // the batch layout it was made for
	kc    int
	prior []float64 // log P(c)
	feats []feature
	order []int // features, children before parents
	tree  bool  // some feature has a feature parent
	gauss []gaussFeature
}

// gaussFeature is one real feature's density given the class:
// log N(x; mean[c], sd[c]) = lognorm[c] − ((x − mean[c])/sd[c])²/2.
type gaussFeature struct {
	col               int // column in the batch, or -1
	mean, sd, lognorm []float64
}

// feature is one discrete feature's table, in (class, parent, child)
// layout, child fastest; kp is 1 when it has no feature parent.
type feature struct {
	col      int // column in the batch, or -1
	k, kp    int
	par      int // index in feats of the tree parent, or -1
	p, logp  []float64
	children []int
}

var lastScorer atomic.Pointer[scorer]

func scorerFor(m *ir.Model, cl *ir.Classifier, vars []ir.VarID) *scorer {
	if s := lastScorer.Load(); s != nil && s.valid(m, cl, vars) {
		return s
	}
	s := newScorer(m, cl, vars)
	lastScorer.Store(s)
	return s
}

func (s *scorer) valid(m *ir.Model, cl *ir.Classifier, vars []ir.VarID) bool {
	// Models are never changed once built: the same model, classifier and
	// batch layout have the same tables.
	if s.m != m || len(s.vars) != len(vars) || (len(vars) > 0 && &s.vars[0] != &vars[0]) {
		return false
	}
	return s.cl == cl || s.cl.Class == cl.Class && slices.Equal(s.cl.Features, cl.Features)
}

func newScorer(m *ir.Model, cl *ir.Classifier, vars []ir.VarID) *scorer {
	prior := m.Factor(cl.Class)
	if prior == nil || len(m.Parents[cl.Class]) != 0 {
		panic("learn: LogPosterior: the class's CPT is not learned, or has parents")
	}
	s := &scorer{m: m, cl: cl, vars: vars, kc: len(m.Vars[cl.Class].States)}
	s.prior = logs(prior.Vals)
	col := make([]int, len(m.Vars))
	for v := range col {
		col[v] = -1
	}
	for j, v := range vars {
		col[v] = j
	}
	feats := discreteFeatures(m, cl)
	index := make([]int, len(m.Vars))
	for i, f := range feats {
		index[f] = i
	}
	for _, f := range feats {
		fac := m.Factor(f)
		if fac == nil {
			panic("learn: LogPosterior: a feature's CPT is not learned")
		}
		fe := feature{col: col[f], k: len(m.Vars[f].States), kp: 1, par: -1}
		var par ir.VarID = -1
		for _, p := range m.Parents[f] {
			if p == cl.Class {
				continue
			}
			if par >= 0 || !m.Vars[p].Discrete() {
				panic("learn: LogPosterior: a feature has parents other than the class and one feature")
			}
			par = p
		}
		if fac.Pos(cl.Class) < 0 {
			panic("learn: LogPosterior: a feature's CPT does not depend on the class")
		}
		if par >= 0 {
			fe.kp = len(m.Vars[par].States)
			fe.par = index[par]
			s.tree = true
		}
		// Re-lay the table out as (class, parent, child).
		fe.p = make([]float64, s.kc*fe.kp*fe.k)
		sc, sx := fac.Stride[fac.Pos(cl.Class)], fac.Stride[fac.Pos(f)]
		sp := 0
		if par >= 0 {
			sp = fac.Stride[fac.Pos(par)]
		}
		for cc := range s.kc {
			for xp := range fe.kp {
				for x := range fe.k {
					fe.p[(cc*fe.kp+xp)*fe.k+x] = fac.Vals[cc*sc+xp*sp+x*sx]
				}
			}
		}
		fe.logp = logs(fe.p)
		s.feats = append(s.feats, fe)
	}
	for _, f := range cl.Features {
		if m.Vars[f].Discrete() {
			continue
		}
		g := m.Gaussian(f)
		if g == nil {
			panic("learn: LogPosterior: a real feature's density is not learned")
		}
		if len(g.Parents) != 1 || g.Parents[0] != cl.Class || len(g.Mean) != s.kc || len(g.Real) > 0 {
			panic("learn: LogPosterior: a real feature's density is not given the class alone")
		}
		gf := gaussFeature{col: col[f], mean: g.Mean, sd: g.SD, lognorm: make([]float64, s.kc)}
		for c, sd := range g.SD {
			gf.lognorm[c] = ir.LogNorm(sd)
		}
		s.gauss = append(s.gauss, gf)
	}
	// Children lists and a children-first order (a tree: parents form no
	// cycle, so repeatedly taking features whose children are placed ends).
	for i, fe := range s.feats {
		if fe.par >= 0 {
			s.feats[fe.par].children = append(s.feats[fe.par].children, i)
		}
	}
	placed := make([]bool, len(s.feats))
	for len(s.order) < len(s.feats) {
		progress := false
		for i, fe := range s.feats {
			if placed[i] {
				continue
			}
			ready := true
			for _, ch := range fe.children {
				ready = ready && placed[ch]
			}
			if ready {
				placed[i] = true
				s.order = append(s.order, i)
				progress = true
			}
		}
		if !progress {
			panic("learn: LogPosterior: the features' parents form a cycle")
		}
	}
	return s
}

func logs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Log(x)
	}
	return out
}

// state returns feature fe's state in row i of b, or -1.
func (fe *feature) state(b *data.Batch, i int) int {
	if fe.col < 0 {
		return -1
	}
	return int(b.Cols[fe.col][i])
}

// score writes log P(c, observed features) into dst (for real features,
// the log of their density).
func (s *scorer) score(b *data.Batch, i int, dst []float64) {
	s.scoreDiscrete(b, i, dst)
	for _, g := range s.gauss {
		if g.col < 0 || g.col >= len(b.Reals) || b.Reals[g.col] == nil {
			continue
		}
		x := b.Reals[g.col][i]
		if math.IsNaN(x) {
			continue
		}
		g.add(x, dst)
	}
}

// add adds to dst[c] the log density of x in class c, less a term common
// to every class (score's results are only ever normalised): see
// ir.NormalLogDensities.
func (g *gaussFeature) add(x float64, dst []float64) {
	var buf [16]float64
	tmp := buf[:0]
	if len(dst) > len(buf) {
		tmp = make([]float64, len(dst))
	}
	tmp = tmp[:len(dst)]
	ir.NormalLogDensities(x, g.mean, g.sd, g.lognorm, tmp)
	for c, l := range tmp {
		dst[c] += l
	}
}

// scoreDiscrete writes log P(c, observed discrete features) into dst.
func (s *scorer) scoreDiscrete(b *data.Batch, i int, dst []float64) {
	copy(dst, s.prior)
	complete := true
	for f := range s.feats {
		fe := &s.feats[f]
		x := fe.state(b, i)
		if x < 0 {
			complete = false
			continue
		}
		if fe.par < 0 {
			for c := range dst {
				dst[c] += fe.logp[c*fe.k+x]
			}
		}
	}
	if !s.tree {
		return
	}
	if complete {
		for f := range s.feats {
			fe := &s.feats[f]
			if fe.par < 0 {
				continue
			}
			x, xp := fe.state(b, i), s.feats[fe.par].state(b, i)
			for c := range dst {
				dst[c] += fe.logp[(c*fe.kp+xp)*fe.k+x]
			}
		}
		return
	}
	// Some feature is missing: sum it out by passing messages up the
	// tree, per class. msgs[f][xp] is P(evidence in f's subtree | c, xp),
	// scaled so that its largest entry is 1 (the scale goes to dst).
	copy(dst, s.prior)
	msgs := make([][]float64, len(s.feats))
	for f := range s.feats {
		msgs[f] = make([]float64, s.feats[f].kp)
	}
	for c := range dst {
		if math.IsInf(dst[c], -1) {
			continue
		}
		for _, f := range s.order {
			fe := &s.feats[f]
			x0 := fe.state(b, i)
			top := 0.0
			for xp := range fe.kp {
				sum := 0.0
				row := fe.p[(c*fe.kp+xp)*fe.k : (c*fe.kp+xp+1)*fe.k]
				for x, p := range row {
					if x0 >= 0 && x != x0 {
						continue
					}
					for _, ch := range fe.children {
						p *= msgs[ch][x]
					}
					sum += p
				}
				msgs[f][xp] = sum
				top = max(top, sum)
			}
			if top == 0 {
				dst[c] = math.Inf(-1)
				break
			}
			for xp := range fe.kp {
				msgs[f][xp] /= top
			}
			dst[c] += math.Log(top)
		}
		if math.IsInf(dst[c], -1) {
			continue
		}
		// The roots' messages have kp == 1 and were folded into dst;
		// a non-root's message was consumed by its parent.
	}
}

// logNormalize subtracts log Σ exp(dst) from every entry, leaving all
// -Inf as they are.
func logNormalize(dst []float64) {
	top := math.Inf(-1)
	for _, x := range dst {
		top = max(top, x)
	}
	if math.IsInf(top, -1) {
		return
	}
	sum := 0.0
	for _, x := range dst {
		sum += math.Exp(x - top)
	}
	lse := top + math.Log(sum)
	for c := range dst {
		dst[c] -= lse
	}
}

// classifierFor returns the classifier whose class is target: m's
// declared classifier, or else, for a model with Gaussian features, the
// naive Bayes or TAN structure around target that m's tables have (as a
// learned classifier written to .pbl has: target a root, every Gaussian
// given target alone, every discrete variable given target and at most
// one other discrete variable). It returns nil if there is none: the
// target is then predicted by exact inference, without real evidence.
func classifierFor(m *ir.Model, target ir.VarID) *ir.Classifier {
	if cl := m.Classifier; cl != nil {
		if cl.Class == target {
			return cl
		}
		return nil
	}
	if !slices.ContainsFunc(m.Vars, func(v *ir.Variable) bool { return m.Gaussian(v.ID) != nil }) {
		return nil
	}
	if !m.IsBayesNet() || !m.Vars[target].Discrete() || len(m.Parents[target]) != 0 || m.Factor(target) == nil {
		return nil
	}
	cl := &ir.Classifier{Kind: ir.NaiveBayes, Class: target}
	gaussians := false
	for v, x := range m.Vars {
		id := ir.VarID(v)
		if id == target {
			continue
		}
		if !x.Discrete() {
			g := m.Gaussian(id)
			if g == nil && len(m.Parents[v]) == 0 {
				continue // a real variable without a density: not a feature
			}
			if g == nil || len(g.Parents) != 1 || g.Parents[0] != target || len(g.Real) > 0 {
				return nil
			}
			gaussians = true
			cl.Features = append(cl.Features, id)
			continue
		}
		ps := m.Parents[v]
		if m.Factor(id) == nil || !slices.Contains(ps, target) || len(ps) > 2 {
			return nil
		}
		for _, p := range ps {
			if p != target && !m.Vars[p].Discrete() {
				return nil
			}
			if p != target {
				cl.Kind = ir.TAN
			}
		}
		cl.Features = append(cl.Features, id)
	}
	if !gaussians {
		return nil
	}
	return cl
}
