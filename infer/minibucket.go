package infer

import (
	"math"
	"slices"

	"github.com/pbl-lang/pbl/factor"
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
			msg := make([]ir.VarID, 0, len(g)-1)
			for _, w := range g {
				if w != v {
					msg = append(msg, w)
				}
			}
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
func runMBE(p *mpeProblem, order []ir.VarID, ibound float64, k *factor.Kernel) (*mbe, bool) {
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
	var sc blockScratch
	for i, v := range order {
		if k.Stop() {
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
		var tabs [][]float64
		if len(groups) > 1 {
			r.exact = false
			// Moment matching on v: each group's sum kept as a table
			// (at most ibound entries) for its max-marginal.
			mu = mu[:0]
			tabs = make([][]float64, len(groups))
			for g := range groups {
				tabs[g] = make([]float64, len(msgs[g].vals)*cv)
				sumTable(tabs[g], msgs[g], v, cv, members[g], &sc)
				m := make([]float64, cv)
				maxMarginal(m, tabs[g])
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
			if tabs != nil {
				maxOfTable(msgs[g], tabs[g], cv, sh)
			} else {
				maxOut(msgs[g], v, cv, members[g], &sc)
			}
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
// states of the sum of items.
func maxOut(dst *lfac, v ir.VarID, cv int, items []*lfac, sc *blockScratch) {
	sumBlocks(dst, v, cv, items, sc, func(e0 int, block []float64) {
		out := dst.vals[e0 : e0+len(block)/cv]
		if cv == 2 {
			for c := range out {
				a, b := block[2*c], block[2*c+1]
				if b > a {
					a = b
				}
				out[c] = a
			}
			return
		}
		if cv == 3 {
			for c := range out {
				row := block[3*c : 3*c+3 : 3*c+3]
				out[c] = max3(row[0], row[1], row[2])
			}
			return
		}
		k := 0
		for c := range out {
			row := block[k : k+cv : k+cv]
			best := row[0]
			for _, y := range row[1:] {
				if y > best {
					best = y
				}
			}
			out[c] = best
			k += cv
		}
	})
}

// max3 is the largest of a, b and c, by > as maxOut's loop compares (so
// that a NaN, which never occurs, would be kept the same way).
func max3(a, b, c float64) float64 {
	if b > a {
		a = b
	}
	if c > a {
		a = c
	}
	return a
}

// sumTable fills t, a table over dst's scope and then v (v fastest), with
// the sum of items.
func sumTable(t []float64, dst *lfac, v ir.VarID, cv int, items []*lfac, sc *blockScratch) {
	sumBlocks(dst, v, cv, items, sc, func(e0 int, block []float64) { copy(t[e0*cv:], block) })
}

// maxOfTable sets dst to the maximum over v of t + shift (see sumTable).
func maxOfTable(dst *lfac, t []float64, cv int, shift []float64) {
	for e := range dst.vals {
		row := t[e*cv : (e+1)*cv]
		best := math.Inf(-1)
		for x, y := range row {
			if shift != nil {
				y += shift[x]
			}
			if y > best {
				best = y
			}
		}
		dst.vals[e] = best
	}
}

// maxMarginal sets mu[x] to the maximum of t at v's state x.
func maxMarginal(mu, t []float64) {
	cv := len(mu)
	for x := range mu {
		mu[x] = math.Inf(-1)
	}
	for e := 0; e < len(t); e += cv {
		for x, y := range t[e : e+cv] {
			if y > mu[x] {
				mu[x] = y
			}
		}
	}
}

// sumBlocks computes the sum of items over dst's scope and then v (v
// fastest) a block at a time, and calls each with the block and the
// offset in dst of its first entry (the block is reused).
//
// A block is every configuration of dst's last few variables (at least
// mbBlock entries with v's states, or all of dst) at one configuration
// of the others: each item's offsets within a block are the same for every
// block, so they are computed once (an index map per item), and the inner
// loop is a gather over flat arrays; an odometer over the leading
// variables moves each item's base offset between blocks.
func sumBlocks(dst *lfac, v ir.VarID, cv int, items []*lfac, sc *blockScratch, each func(e0 int, block []float64)) {
	if sc == nil {
		sc = new(blockScratch)
	}
	items = absorbScopes(items)
	n, ni := len(dst.vars), len(items)
	// Leading variables lead[0:nl], trailing ones in the block.
	nl, bl := n, 1
	for nl > 0 && bl*cv < mbBlock {
		nl--
		bl *= dst.card[nl]
	}
	bsize := bl * cv
	ints := scratchOf(&sc.ints, ni+ni*nl+(n-nl)+nl)
	base, ints := ints[:ni], ints[ni:]
	str, ints := ints[:ni*nl], ints[ni*nl:] // str[j*nl+d]: stride of dst.vars[d] in items[j]
	icnt, cnt := ints[:n-nl], ints[n-nl:]
	ixs := scratchOf(&sc.ix, ni*bsize)
	if cap(sc.idx) < ni {
		sc.idx = make([][]int32, ni)
	}
	idx := sc.idx[:ni]
	for j, f := range items {
		for d := range nl {
			str[j*nl+d] = f.stride(dst.vars[d])
		}
		// The offsets of the block's entries in f.
		ix := ixs[j*bsize : (j+1)*bsize]
		sv := f.stride(v)
		k := 0
		clear(icnt)
		o := 0
		for range bl {
			for x := range cv {
				ix[k] = int32(o + x*sv)
				k++
			}
			for d := n - 1; d >= nl; d-- {
				sd := f.stride(dst.vars[d])
				icnt[d-nl]++
				if icnt[d-nl] < dst.card[d] {
					o += sd
					break
				}
				icnt[d-nl] = 0
				o -= (dst.card[d] - 1) * sd
			}
		}
		idx[j] = ix
	}
	// An item whose offsets in the block are consecutive (its layout ends
	// like the block's) is added as a run, without the gather.
	run := scratchOf(&sc.run, ni)
	for j, ix := range idx {
		run[j] = true
		for b, o := range ix {
			if o != ix[0]+int32(b) {
				run[j] = false
				break
			}
		}
	}
	block := scratchOf(&sc.block, bsize)
	for e0 := 0; e0 < len(dst.vals); e0 += bl {
		clear(block)
		for j, f := range items {
			vals := f.vals[base[j]:]
			if run[j] {
				src := vals[idx[j][0] : int(idx[j][0])+len(block)]
				src = src[:len(block)]
				for b := range block {
					block[b] += src[b]
				}
				continue
			}
			ix := idx[j][:len(block)]
			for b := range block {
				block[b] += vals[ix[b]]
			}
		}
		each(e0, block)
		for d := nl - 1; d >= 0; d-- {
			cnt[d]++
			if cnt[d] < dst.card[d] {
				for j := range base {
					base[j] += str[j*nl+d]
				}
				break
			}
			cnt[d] = 0
			for j := range base {
				base[j] -= (dst.card[d] - 1) * str[j*nl+d]
			}
		}
	}
}

// blockScratch holds sumBlocks' buffers from one call to the next (runMBE
// makes thousands of calls on pigs; nil: allocated for the call).
type blockScratch struct {
	run   []bool
	ints  []int
	ix    []int32
	block []float64
	idx   [][]int32
}

// scratchOf returns (*buf)[:n] cleared, growing *buf if needed.
func scratchOf[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
	}
	s := (*buf)[:n]
	clear(s)
	return s
}

// mbBlock is the fewest entries of a block of sumBlocks.
const mbBlock = 64

// absorbScopes returns items with each table whose scope lies within a
// larger one's added into a copy of that one: the same sum, fewer tables
// for maxOut's loop over the whole scope (a group holds many small tables
// within a few large ones). items is not modified.
func absorbScopes(items []*lfac) []*lfac {
	if len(items) < 2 {
		return items
	}
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(items[b].vals) - len(items[a].vals) })
	var out []*lfac
	copied := make([]bool, 0, len(items))
next:
	for _, i := range order {
		f := items[i]
		for j, g := range out {
			if len(g.vals) >= len(f.vals) && within(f.vars, g.vars) {
				if !copied[j] {
					g = &lfac{vars: g.vars, card: g.card, str: g.str, vals: slices.Clone(g.vals)}
					out[j], copied[j] = g, true
				}
				addInto(g, f)
				continue next
			}
		}
		out = append(out, f)
		copied = append(copied, false)
	}
	return out
}

// within reports whether every variable of a is in b.
func within(a, b []ir.VarID) bool {
	for _, v := range a {
		if !slices.Contains(b, v) {
			return false
		}
	}
	return true
}

// addInto adds f (whose scope lies within g's) to g.
func addInto(g, f *lfac) {
	n := len(g.vars)
	if n == 0 {
		g.vals[0] += f.vals[0]
		return
	}
	str := make([]int, n) // f's stride of each of g's variables
	for d, w := range g.vars {
		str[d] = f.stride(w)
	}
	// A row of g's last variable at a time: a contiguous or constant run
	// of f in the common cases (an odometer step per entry was 40% of
	// mini-bucket elimination on munin1).
	cl, sl := g.card[n-1], str[n-1]
	cnt := make([]int, n-1)
	o := 0
	for e0 := 0; e0 < len(g.vals); e0 += cl {
		row := g.vals[e0 : e0+cl]
		switch sl {
		case 0:
			x := f.vals[o]
			for k := range row {
				row[k] += x
			}
		case 1:
			src := f.vals[o : o+cl]
			for k := range row {
				row[k] += src[k]
			}
		default:
			for k := range row {
				row[k] += f.vals[o+k*sl]
			}
		}
		for d := n - 2; d >= 0; d-- {
			cnt[d]++
			if cnt[d] < g.card[d] {
				o += str[d]
				break
			}
			cnt[d] = 0
			o -= (g.card[d] - 1) * str[d]
		}
	}
}
