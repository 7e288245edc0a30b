package infer

import (
	"math"
	"slices"

	"github.com/pbl-lang/pbl/ir"
)

// This file is mini-bucket elimination (Dechter and Rish) in logarithms:
// the upper bound that guides MPE's branch and bound (mpesearch.go).
//
// Along an elimination order, the bucket of v holds the tables whose
// first-eliminated variable is v. Eliminating v exactly would maximise v
// out of the sum of the bucket's tables, a table over all their other
// variables; mini-buckets split the bucket into groups whose joint scope
// has at most ibound entries and maximise v out of each group apart. The
// sum of the groups' maxima is at least the maximum of the sum, so each
// message, placed in the bucket of its first-eliminated variable, keeps
// the bound; a group alone in its bucket is exact. With a bound large
// enough for every bucket, it is max-product variable elimination.

// mbMsg is a message of mini-bucket elimination: max over the variable of
// bucket from of the sum of one group's tables, a table f over later
// variables placed in bucket to, or the constant c (f nil, to -1).
type mbMsg struct {
	from, to int
	f        *lfac
	c        float64
}

// mbe is the result of mini-bucket elimination.
type mbe struct {
	order []ir.VarID
	orig  [][]*lfac // orig[i]: the model's tables in order[i]'s bucket
	msgs  []mbMsg
	bound float64 // ln of the upper bound on the maximum: the constants' sum
	exact bool    // every bucket is one group: the bound is the maximum
}

// mbPlan sizes the mini-buckets of an order without computing them: the
// scope of every group's table (with the bucket's variable), so that an
// i-bound can be chosen by the work it costs.
func mbPlan(order []ir.VarID, card []int, scopes [][]ir.VarID, ibound float64) (work float64, exact bool) {
	pos := make([]int, len(card))
	for i := range pos {
		pos[i] = -1
	}
	for i, v := range order {
		pos[v] = i
	}
	buckets := make([][][]ir.VarID, len(order))
	for _, s := range scopes {
		b := firstOf(s, pos)
		buckets[b] = append(buckets[b], s)
	}
	exact = true
	var groups [][]ir.VarID
	for i, v := range order {
		groups = partitionScopes(groups[:0], buckets[i], card, ibound)
		if len(groups) > 1 {
			exact = false
		}
		for _, g := range groups {
			work += scopeSize(g, card)
			msg := slices.DeleteFunc(slices.Clone(g), func(w ir.VarID) bool { return w == v })
			if len(msg) > 0 {
				b := firstOf(msg, pos)
				buckets[b] = append(buckets[b], msg)
			}
		}
		buckets[i] = nil
	}
	return work, exact
}

// firstOf returns the least pos[v] over s.
func firstOf(s []ir.VarID, pos []int) int {
	b := math.MaxInt
	for _, v := range s {
		b = min(b, pos[v])
	}
	return b
}

func scopeSize(s []ir.VarID, card []int) float64 {
	n := 1.0
	for _, v := range s {
		n *= float64(card[v])
	}
	return n
}

// partitionScopes splits a bucket's scopes into groups whose union has at
// most ibound entries, largest scopes first, each into the first group it
// fits (first fit decreasing); a scope larger than ibound alone makes a
// group. It returns the groups' unions; assign, if not nil, receives the
// group of each scope.
func partitionScopes(groups [][]ir.VarID, scopes [][]ir.VarID, card []int, ibound float64) [][]ir.VarID {
	return partitionInto(groups, scopes, card, ibound, nil)
}

func partitionInto(groups [][]ir.VarID, scopes [][]ir.VarID, card []int, ibound float64, assign []int) [][]ir.VarID {
	idx := make([]int, len(scopes))
	size := make([]float64, len(scopes))
	for i, s := range scopes {
		idx[i] = i
		size[i] = scopeSize(s, card)
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case size[a] > size[b]:
			return -1
		case size[a] < size[b]:
			return 1
		}
		return 0
	})
	for _, i := range idx {
		s := scopes[i]
		placed := -1
		for g, u := range groups {
			n := scopeSize(u, card)
			for _, v := range s {
				if !slices.Contains(u, v) {
					n *= float64(card[v])
				}
			}
			if n <= ibound {
				placed = g
				break
			}
		}
		if placed < 0 {
			groups = append(groups, nil)
			placed = len(groups) - 1
		}
		for _, v := range s {
			if !slices.Contains(groups[placed], v) {
				groups[placed] = append(groups[placed], v)
			}
		}
		if assign != nil {
			assign[i] = placed
		}
	}
	return groups
}

// runMBE carries out mini-bucket elimination of the problem's tables along
// order with the given i-bound, with moment matching: before a bucket of
// several groups sends its messages, each group's sum is shifted by a
// function of the bucket's variable so that the groups' max-marginals of
// that variable agree (their average); the shifts add up to 0, so the
// bound stays valid, and it is tighter (Flerova, Ihler, Dechter and
// Otten). It returns false if canceled.
func runMBE(p *mpeProblem, order []ir.VarID, ibound float64, k *kernel) (*mbe, bool) {
	pos := make([]int, len(p.card))
	for i := range pos {
		pos[i] = -1
	}
	for i, v := range order {
		pos[v] = i
	}
	r := &mbe{order: order, orig: make([][]*lfac, len(order)), bound: p.konst, exact: true}
	items := make([][]*lfac, len(order))
	for _, f := range p.fs {
		b := firstOf(f.vars, pos)
		items[b] = append(items[b], f)
		r.orig[b] = append(r.orig[b], f)
	}
	var scopes [][]ir.VarID
	var groups [][]ir.VarID
	var assign []int
	var mu [][]float64
	for i, v := range order {
		if k.stop() {
			return nil, false
		}
		in := items[i]
		items[i] = nil
		if len(in) == 0 {
			continue
		}
		scopes = scopes[:0]
		for _, f := range in {
			scopes = append(scopes, f.vars)
		}
		assign = append(assign[:0], make([]int, len(in))...)
		groups = partitionInto(groups[:0], scopes, p.card, ibound, assign)
		members := make([][]*lfac, len(groups))
		for j, f := range in {
			members[assign[j]] = append(members[assign[j]], f)
		}
		msgs := make([]*lfac, len(groups))
		for g := range groups {
			vars := make([]ir.VarID, 0, len(groups[g]))
			for _, w := range groups[g] {
				if w != v {
					vars = append(vars, w)
				}
			}
			// Latest-eliminated first: the search assigns them first.
			slices.SortFunc(vars, func(a, b ir.VarID) int { return pos[b] - pos[a] })
			card := make([]int, len(vars))
			for j, w := range vars {
				card[j] = p.card[w]
			}
			msgs[g] = newLfac(vars, card)
		}
		cv := p.card[v]
		var shift [][]float64
		if len(groups) > 1 {
			r.exact = false
			// Moment matching on v.
			mu = mu[:0]
			for g := range groups {
				m := make([]float64, cv)
				maxOut(msgs[g], v, cv, members[g], nil, m)
				mu = append(mu, m)
			}
			shift = make([][]float64, len(groups))
			for g := range groups {
				shift[g] = make([]float64, cv)
			}
			for x := range cv {
				avg, inf := 0.0, false
				for g := range groups {
					if math.IsInf(mu[g][x], -1) {
						inf = true
					}
					avg += mu[g][x]
				}
				if inf {
					continue // the sum is 0 at x whatever the shifts
				}
				avg /= float64(len(groups))
				for g := range groups {
					shift[g][x] = avg - mu[g][x]
				}
			}
		}
		for g := range groups {
			var sh []float64
			if shift != nil {
				sh = shift[g]
			}
			maxOut(msgs[g], v, cv, members[g], sh, nil)
			if len(msgs[g].vars) == 0 {
				r.bound += msgs[g].vals[0]
				r.msgs = append(r.msgs, mbMsg{from: i, to: -1, c: msgs[g].vals[0]})
				continue
			}
			b := firstOf(msgs[g].vars, pos)
			items[b] = append(items[b], msgs[g])
			r.msgs = append(r.msgs, mbMsg{from: i, to: b, f: msgs[g]})
		}
	}
	return r, true
}

// maxOut sets dst (whose scope excludes v) to the maximum over v's cv
// states of the sum of items plus shift (if not nil) at v's state; if mu
// is not nil, it receives instead the maximum of that sum for each state
// of v (the max-marginal), and dst its maxima without the shift.
//
// The loop walks dst with an odometer over all but its last variable; the
// last variable's states are a tight inner loop, as are v's and the items.
func maxOut(dst *lfac, v ir.VarID, cv int, items []*lfac, shift, mu []float64) {
	type item struct {
		vals   []float64
		off    int // at the odometer's position, last digit 0, v's state 0
		sl, sv int // strides of dst's last variable and of v
	}
	n, ni := len(dst.vars), len(items)
	its := make([]item, ni)
	str := make([]int, ni*n) // str[j*n+d]: stride of dst.vars[d] in items[j]
	for j, f := range items {
		its[j] = item{vals: f.vals, sv: f.stride(v)}
		for d, w := range dst.vars {
			str[j*n+d] = f.stride(w)
		}
		if n > 0 {
			its[j].sl = str[j*n+n-1]
		}
	}
	if mu != nil {
		for x := range mu {
			mu[x] = math.Inf(-1)
		}
	}
	if shift == nil {
		shift = make([]float64, cv)
	}
	shift = shift[:cv]
	cl := 1
	if n > 0 {
		cl = dst.card[n-1]
	}
	cnt := make([]int, n)
	for e0 := 0; e0 < len(dst.vals); e0 += cl {
		row := dst.vals[e0 : e0+cl]
		for c := range row {
			best := math.Inf(-1)
			for x, s := range shift {
				for j := range its {
					it := &its[j]
					s += it.vals[it.off+c*it.sl+x*it.sv]
				}
				if mu != nil {
					mu[x] = max(mu[x], s)
				}
				best = max(best, s)
			}
			row[c] = best
		}
		for d := n - 2; d >= 0; d-- {
			cnt[d]++
			if cnt[d] < dst.card[d] {
				for j := range its {
					its[j].off += str[j*n+d]
				}
				break
			}
			cnt[d] = 0
			for j := range its {
				its[j].off -= (dst.card[d] - 1) * str[j*n+d]
			}
		}
	}
}
