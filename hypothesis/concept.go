package hypothesis

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/pbl-lang/pbl/ir"
)

// Constraint values of a [Conjunction] other than a state index.
const (
	Any   = -1 // ?: any state
	Empty = -2 // ∅: no state
)

// Conjunction is a hypothesis of a concept space: one constraint per
// attribute, a state index, Any or Empty. A conjunction with an Empty
// constraint classifies every instance negative; the package writes the
// one empty hypothesis with every constraint Empty.
type Conjunction []int

// isEmpty reports whether h has an Empty constraint.
func (h Conjunction) isEmpty() bool {
	for _, c := range h {
		if c == Empty {
			return true
		}
	}
	return false
}

// Covers reports whether h classifies the instance x (one state index per
// attribute) positive.
func (h Conjunction) Covers(x []int) bool {
	for k, c := range h {
		if c == Empty || c != Any && c != x[k] {
			return false
		}
	}
	return true
}

// MoreGeneralOrEqual reports whether h ≥g k (Mitchell's
// more-general-than-or-equal-to): every instance k covers, h covers.
func MoreGeneralOrEqual(h, k Conjunction) bool {
	if k.isEmpty() {
		return true
	}
	if h.isEmpty() {
		return false
	}
	for a := range h {
		if h[a] != Any && h[a] != k[a] {
			return false
		}
	}
	return true
}

// VersionSpace is the posterior of a concept space given noise-free data
// (Mitchell §6.3): with a uniform prior over the space's Total
// semantically distinct hypotheses and P(D|h) = 1 for the hypotheses
// consistent with the data, 0 for the others, P(h|D) = 1/|VS| for each
// member of the version space.
type VersionSpace struct {
	Space    *ir.Space
	Attrs    []*ir.Variable
	Target   *ir.Variable
	Positive int // the target's state a satisfied conjunction predicts

	// Total is the number of semantically distinct hypotheses: one per
	// combination of a state or ? for each attribute, and the empty one
	// (973 for EnjoySport's 3·2·2·2·2·2 attributes).
	Total int
	// Members are the consistent hypotheses, in the order of the
	// enumeration: each attribute's states in order, then ?, the first
	// attribute slowest; the empty hypothesis first.
	Members []Conjunction
	// S and G are the version space's boundaries: its maximally specific
	// and maximally general members, in Members' order.
	S, G []Conjunction
}

// EvaluateConcept computes the version space of the concept space s of
// model m given data d (for its [Columns]: the attributes, then the
// target). It enumerates the generalisations of the most specific
// hypothesis covering the positive examples (FIND-S's), or every
// hypothesis when there are none; more than MaxHypotheses of them is an
// error (ErrTooLarge), as is an empty version space (ErrImpossible).
func EvaluateConcept(ctx context.Context, s *ir.Space, m *ir.Model, d *Data) (*VersionSpace, error) {
	c := s.Concept
	if c == nil {
		return nil, ir.ErrorList{{Pos: s.Pos, Msg: fmt.Sprintf("%s is not a concept space", s.Name)}}
	}
	vs := &VersionSpace{Space: s, Target: m.Vars[c.Target], Positive: c.Positive, Total: 1}
	na := len(c.Attrs)
	if len(d.Cols) != na+1 {
		return nil, fmt.Errorf("hypothesis: data with %d columns for concept space %s, which reads %d", len(d.Cols), s.Name, na+1)
	}
	prod := 1
	for _, a := range c.Attrs {
		v := m.Vars[a]
		vs.Attrs = append(vs.Attrs, v)
		if prod > MaxHypotheses/(len(v.States)+1) {
			return nil, ir.ErrorList{{Pos: s.Concept.Pos, Msg: fmt.Sprintf("concept space %s has more than %d hypotheses", s.Name, MaxHypotheses), Err: ErrTooLarge}}
		}
		prod *= len(v.States) + 1
	}
	vs.Total = prod + 1

	// The examples, and FIND-S's hypothesis: the least general
	// conjunction covering every positive one.
	var pos, neg [][]int
	for i := range d.Len() {
		x := make([]int, na)
		for k := range na {
			x[k] = int(d.Cols[k][i])
		}
		if int(d.Cols[na][i]) == c.Positive {
			pos = append(pos, x)
		} else {
			neg = append(neg, x)
		}
	}
	consistent := func(h Conjunction) bool {
		for _, x := range neg {
			if h.Covers(x) {
				return false
			}
		}
		return true
	}
	empty := make(Conjunction, na)
	for k := range empty {
		empty[k] = Empty
	}
	// choices[k]: the constraints attribute k takes in the enumeration.
	choices := make([][]int, na)
	if len(pos) == 0 {
		vs.Members = append(vs.Members, empty) // consistent: it covers no negative
		for k, v := range vs.Attrs {
			for st := range v.States {
				choices[k] = append(choices[k], st)
			}
			choices[k] = append(choices[k], Any)
		}
	} else {
		for k := range na {
			c := pos[0][k]
			for _, x := range pos[1:] {
				if x[k] != c {
					c = Any
				}
			}
			if c == Any {
				choices[k] = []int{Any}
			} else {
				choices[k] = []int{c, Any}
			}
		}
		n := 1
		for _, ch := range choices {
			n *= len(ch)
			if n > MaxHypotheses {
				return nil, ir.ErrorList{{Pos: s.Concept.Pos, Msg: fmt.Sprintf("concept space %s has more than %d hypotheses consistent with the positive examples", s.Name, MaxHypotheses), Err: ErrTooLarge}}
			}
		}
	}
	idx := make([]int, na)
	for count := 0; ; count++ {
		if count%(1<<16) == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		h := make(Conjunction, na)
		for k := range na {
			h[k] = choices[k][idx[k]]
		}
		if consistent(h) {
			vs.Members = append(vs.Members, h)
		}
		k := na - 1
		for ; k >= 0; k-- {
			if idx[k]++; idx[k] < len(choices[k]) {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			break
		}
	}
	if len(vs.Members) == 0 {
		return nil, ir.ErrorList{{Pos: s.Pos, Msg: fmt.Sprintf("no hypothesis of %s is consistent with the data: the version space is empty", s.Name), Err: ErrImpossible}}
	}
	vs.boundaries(consistent)
	return vs, nil
}

// boundaries computes S and G. The version space is convex in the
// more-general-than ordering, so a member is maximally general when no
// minimal generalisation of it (a state constraint made ?) is consistent;
// S has one member, the least general.
func (vs *VersionSpace) boundaries(consistent func(Conjunction) bool) {
	// Every member is at least as general as the first: the empty
	// hypothesis when there are no positive examples, else FIND-S's.
	vs.S = []Conjunction{vs.Members[0]}
	hasNonEmpty := false
	for _, h := range vs.Members {
		hasNonEmpty = hasNonEmpty || !h.isEmpty()
	}
	for _, h := range vs.Members {
		if h.isEmpty() {
			if !hasNonEmpty {
				vs.G = append(vs.G, h)
			}
			continue
		}
		maximal := true
		g := append(Conjunction(nil), h...)
		for k, c := range h {
			if c == Any {
				continue
			}
			g[k] = Any
			if consistent(g) {
				maximal = false
				break
			}
			g[k] = c
		}
		if maximal {
			vs.G = append(vs.G, h)
		}
	}
}

// Len returns |VS|, the number of consistent hypotheses.
func (vs *VersionSpace) Len() int { return len(vs.Members) }

// LogPrior returns ln P(h) = −ln Total, the same for every hypothesis.
func (vs *VersionSpace) LogPrior() float64 { return -math.Log(float64(vs.Total)) }

// LogPosterior returns ln P(h|D) = −ln |VS| of a member of the version
// space (every other hypothesis has posterior 0).
func (vs *VersionSpace) LogPosterior() float64 { return -math.Log(float64(len(vs.Members))) }

// Predict returns the Bayes optimal probability that the instance x (one
// state index per attribute) is positive: Σ_h P(positive|h,x)·P(h|D), the
// share of the version space that covers it.
func (vs *VersionSpace) Predict(x []int) float64 {
	n := 0
	for _, h := range vs.Members {
		if h.Covers(x) {
			n++
		}
	}
	return float64(n) / float64(len(vs.Members))
}

// Gibbs draws a member of the version space uniformly at random with r.
func (vs *VersionSpace) Gibbs(r *rand.Rand) Conjunction {
	return vs.Members[r.IntN(len(vs.Members))]
}

// Format writes h as Mitchell does: ⟨Sunny, Warm, ?, Strong, ?, ?⟩, and
// the empty hypothesis ⟨∅, ∅, …⟩.
func (vs *VersionSpace) Format(h Conjunction) string {
	var b strings.Builder
	b.WriteString("⟨")
	empty := h.isEmpty()
	for k, c := range h {
		if k > 0 {
			b.WriteString(", ")
		}
		switch {
		case empty:
			b.WriteString("∅")
		case c == Any:
			b.WriteString("?")
		default:
			b.WriteString(vs.Attrs[k].States[c])
		}
	}
	b.WriteString("⟩")
	return b.String()
}
