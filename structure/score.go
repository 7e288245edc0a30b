package structure

import (
	"math"
	"slices"
	"sort"
	"sync"
)

// Score is a decomposable score of a DAG given data: the sum over the
// variables of a family score computed from the counts n_ijk of the
// child's state k under its parents' configuration j.
type Score int

const (
	LogLik Score = iota // Σ n_ijk log(n_ijk / n_ij)
	AIC                 // log-likelihood − q(r−1)
	BIC                 // log-likelihood − ½ log(n) q(r−1), n the family's rows
	BDeu                // log marginal likelihood, Dirichlet(ess/(qr)) priors
	K2                  // Cooper–Herskovits: log marginal likelihood, Dirichlet(1) priors
	BGe                 // real-valued data: log marginal likelihood, normal-Wishart prior (gaussian.go)
)

var scoreNames = []string{"loglik", "aic", "bic", "bdeu", "k2", "bge"}

func (s Score) String() string { return scoreNames[s] }

// ScoreNames returns the names ParseScore accepts.
func ScoreNames() []string { return slices.Clone(scoreNames) }

// ParseScore returns the score named name.
func ParseScore(name string) (Score, error) {
	for i, n := range scoreNames {
		if n == name {
			return Score(i), nil
		}
	}
	return 0, &UnknownNameError{What: "score", Name: name, Want: slices.Clone(scoreNames)}
}

// DefaultESS is BDeu's default equivalent sample size.
const DefaultESS = 1.0

// Scorer scores families of one data set and caches their scores, keyed
// by (child, parent set). It is safe for concurrent use; a family score
// is a function of the counts only, so it is the same whichever goroutine
// computes it.
type Scorer struct {
	D    *Data
	Kind Score
	ESS  float64 // BDeu's equivalent sample size

	mu    sync.Mutex
	cache map[string]float64
	pool  sync.Pool // *[]int32 count tables
	gauss gaussStats

	// Counted is the number of families counted (cache misses).
	Counted int
}

// NewScorer returns a scorer of d by kind; ess is used by BDeu only.
func NewScorer(d *Data, kind Score, ess float64) *Scorer {
	return &Scorer{D: d, Kind: kind, ESS: ess, cache: map[string]float64{}}
}

// familyKey encodes (child, sorted parents) as a map key.
func familyKey(child int, parents []int) string {
	b := make([]byte, 0, 3*(len(parents)+1))
	b = append(b, byte(child), byte(child>>8), byte(child>>16))
	for _, p := range parents {
		b = append(b, byte(p), byte(p>>8), byte(p>>16))
	}
	return string(b)
}

// Family returns the score of child given parents (in any order).
func (s *Scorer) Family(child int, parents []int) float64 {
	ps := parents
	if !slices.IsSorted(ps) {
		ps = slices.Clone(ps)
		slices.Sort(ps)
	}
	return s.addFamily(child, ps, nil, -1)
}

// Total returns the score of g: the sum of its family scores.
func (s *Scorer) Total(g *DAG) float64 {
	t := 0.0
	for v, ps := range g.Parents {
		t += s.Family(v, ps)
	}
	return t
}

// maxDenseTable is the largest count table kept dense; larger families
// are counted by sorting their rows' configuration indices.
const maxDenseTable = 1 << 22

// configs returns the number q of configurations of parents, or -1 if it
// overflows an int64-safe bound.
func (s *Scorer) configs(parents []int) int64 {
	q := int64(1)
	for _, p := range parents {
		q *= int64(s.D.Card[p])
		if q > 1<<50 {
			return -1
		}
	}
	return q
}

// countScore counts the family (child, parents) and scores it. If base
// is not nil, it holds for every row the configuration index of
// parents[:len(parents)] without extra, times the child's card, plus the
// child's state (or −1 when one of them is missing); extra ≥ 0 is then an
// added parent whose state is the most significant digit. Otherwise the
// rows are indexed from scratch.
func (s *Scorer) countScore(child int, parents []int, base []int32, extra int) float64 {
	d := s.D
	r := int64(d.Card[child])
	q := s.configs(parents)
	if q < 0 || q*r > maxDenseTable {
		return s.sparseScore(child, parents, q)
	}
	size := int(q * r)
	tp, _ := s.pool.Get().(*[]int32)
	if tp == nil {
		tp = new([]int32)
	}
	if cap(*tp) < size {
		*tp = make([]int32, size)
	}
	tab := (*tp)[:size]
	clear(tab)
	if base != nil {
		stride := int32(size / d.Card[extra])
		xe := d.Cols[extra][:len(base)]
		for i, b := range base {
			x := xe[i]
			if b < 0 || x < 0 {
				continue
			}
			tab[x*stride+b]++
		}
	} else {
		idx := familyIndex(d, child, parents, nil)
		for _, ix := range idx {
			if ix >= 0 {
				tab[ix]++
			}
		}
	}
	v := s.scoreTable(tab, int(r), int(q))
	s.pool.Put(tp)
	return v
}

// familyIndex returns, for every row, the index of the row's family
// configuration (parents in order, most significant first, then the
// child, fastest), or −1 when a cell of the family is missing. dst is
// reused if large enough.
func familyIndex(d *Data, child int, parents []int, dst []int32) []int32 {
	if cap(dst) < d.N {
		dst = make([]int32, d.N)
	}
	idx := dst[:d.N]
	clear(idx)
	for _, p := range append(slices.Clip(parents), child) {
		c := int32(d.Card[p])
		col := d.Cols[p][:d.N]
		for i, x := range col {
			if idx[i] < 0 {
				continue
			}
			if x < 0 {
				idx[i] = -1
				continue
			}
			idx[i] = idx[i]*c + x
		}
	}
	return idx
}

// sparseScore scores a family whose table is too large to hold: the rows'
// configuration indices are sorted and counted in runs.
func (s *Scorer) sparseScore(child int, parents []int, q int64) float64 {
	d := s.D
	type cell struct{ j, k int64 }
	cells := make([]cell, 0, d.N)
rows:
	for i := 0; i < d.N; i++ {
		j := int64(0)
		for _, p := range parents {
			x := d.Cols[p][i]
			if x < 0 {
				continue rows
			}
			// q may have overflowed: hash the configuration exactly by
			// mixed radix modulo 2^64; collisions need 2^64 configurations.
			j = j*int64(d.Card[p]) + int64(x)
		}
		x := d.Cols[child][i]
		if x < 0 {
			continue
		}
		cells = append(cells, cell{j, int64(x)})
	}
	sort.Slice(cells, func(a, b int) bool {
		if cells[a].j != cells[b].j {
			return cells[a].j < cells[b].j
		}
		return cells[a].k < cells[b].k
	})
	r := d.Card[child]
	qf := float64(q)
	if q < 0 {
		qf = 1
		for _, p := range parents {
			qf *= float64(d.Card[p])
		}
	}
	acc := newFamilyAcc(s, r, qf)
	row := make([]int32, r)
	for a := 0; a < len(cells); {
		b := a
		clear(row)
		for b < len(cells) && cells[b].j == cells[a].j {
			row[cells[b].k]++
			b++
		}
		acc.add(row)
		a = b
	}
	return acc.result()
}

// scoreTable scores a dense count table of q rows of r cells each.
func (s *Scorer) scoreTable(tab []int32, r, q int) float64 {
	acc := newFamilyAcc(s, r, float64(q))
	for j := 0; j < q; j++ {
		acc.add(tab[j*r : (j+1)*r])
	}
	return acc.result()
}

// familyAcc accumulates a family score row by row (one parent
// configuration at a time); rows with no counts add nothing.
type familyAcc struct {
	kind    Score
	r       int
	q       float64
	n       float64   // rows counted
	terms   []float64 // each seen parent configuration's term
	aj, ajk float64   // BDeu/K2 prior: α_ij and α_ijk
	lgAj    float64   // lgamma(α_ij)
	lgAjk   float64   // lgamma(α_ijk)
}

func newFamilyAcc(s *Scorer, r int, q float64) *familyAcc {
	a := &familyAcc{kind: s.Kind, r: r, q: q}
	switch s.Kind {
	case BDeu:
		a.aj = s.ESS / q
		a.ajk = s.ESS / (q * float64(r))
	case K2:
		a.aj = float64(r)
		a.ajk = 1
	}
	a.lgAj, _ = math.Lgamma(a.aj)
	a.lgAjk, _ = math.Lgamma(a.ajk)
	return a
}

// logRising returns ln Γ(a+n) − ln Γ(a), given lgA = ln Γ(a), for a > 0
// and n ≥ 0 (the log of
// a(a+1)…(a+n−1) for a whole n). For a large α — a BDeu prior of a large
// equivalent sample size — the difference of the two Lgammas loses every
// digit (both near a·ln a) and then becomes Inf − Inf; there it is taken
// from Stirling's series, differenced by hand:
//
//	(a−½)·log1p(n/a) + n·ln(a+n) − n − n/(12a(a+n))
//
// whose next term is below 1/(360a³).
func logRising(a, lgA, n float64) float64 {
	if n == 0 {
		return 0
	}
	if a < 1e5 {
		hi, _ := math.Lgamma(a + n)
		return hi - lgA
	}
	return (a-0.5)*math.Log1p(n/a) + n*math.Log(a+n) - n - n/(12*a*(a+n))
}

func (a *familyAcc) add(row []int32) {
	nij := int32(0)
	for _, c := range row {
		nij += c
	}
	if nij == 0 {
		return
	}
	a.n += float64(nij)
	t := 0.0
	switch a.kind {
	case BDeu, K2:
		t = -logRising(a.aj, a.lgAj, float64(nij))
		for _, c := range row {
			if c > 0 {
				t += logRising(a.ajk, a.lgAjk, float64(c))
			}
		}
	default:
		ln := math.Log(float64(nij))
		for _, c := range row {
			if c > 0 {
				t += float64(c) * (math.Log(float64(c)) - ln)
			}
		}
	}
	a.terms = append(a.terms, t)
}

// result returns the family score. The terms are summed in sorted order,
// so the score does not depend on the order of the parents in the count
// table: a family counted from scratch and one counted by adding a parent
// to another family's row indices score the same to the last bit, which
// keeps the searches independent of the cache's history and of the
// number of workers.
func (a *familyAcc) result() float64 {
	slices.Sort(a.terms)
	sum := 0.0
	for _, t := range a.terms {
		sum += t
	}
	k := a.q * float64(a.r-1) // free parameters
	switch a.kind {
	case AIC:
		return sum - k
	case BIC:
		if a.n > 0 {
			return sum - 0.5*math.Log(a.n)*k
		}
	}
	return sum
}
