package infer

import (
	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// This file holds the blocked index maps of a junction tree and the
// evidence restrictions of a calibration.
//
// A clique's table is row-major over its variables, the last fastest. Its
// trailing variables, up to the first whose product of cardinalities
// reaches blockMin, are its inner variables; their entries form a block of
// blk[c] consecutive entries, and the other (outer) variables number the
// blocks. The offset in a separator of a clique entry is linear in the
// states of the clique's variables, so it is the sum of a block's outer
// offset and the entry's inner offset within the block: two short tables
// (one entry per block, one per entry of a block) replace an int32 per
// clique entry. Message passing then reads the clique tables once per
// pass, and the maps from cache; a block of a message-passing loop is
// small enough to stay in the first-level cache while the messages of
// every neighbour are multiplied into it and it is summed onto the
// separators.

// blockMin is the size of a block from which a clique's trailing
// variables stop being added to its inner variables.
const blockMin = 64

// mapKind says how a block's entries map onto a separator. A block is
// made of runs: the entries over the clique's last variables that are all
// outside the separator (mapZero), or all in it (mapIdent). The entries of
// a run map to one separator entry (mapZero) or to consecutive ones
// (mapIdent), so the loops over a run need no index per entry.
type mapKind uint8

const (
	mapZero   mapKind = iota // every entry of a run maps to the run's offset
	mapIdent                 // entry i of a run maps to the run's offset plus i
	mapGather                // runs of one entry: inner holds every entry's offset (runs too short to pay)
)

// minRun is the shortest run worth looping over: shorter ones are mapped
// entry by entry (mapGather) in cliques of at most gatherMax entries,
// which stay in cache (in larger ones, reading fewer offsets pays).
const (
	minRun    = 4
	gatherMax = 1 << 12
)

// sepMap maps a clique's entries onto one of its separators, by blocks and
// runs: entry b·blk + q·run + i maps to outer[b] + inner[q], plus i if the
// kind is mapIdent.
type sepMap struct {
	kind  mapKind
	run   int     // entries of a run
	inner []int32 // one per run of a block: its offset in the block's part of the separator
	outer []int32 // one per block
}

// inOff returns the offset of a block's entry j from the block's outer
// offset.
func (m *sepMap) inOff(j int) int {
	o := int(m.inner[j/m.run])
	if m.kind == mapIdent {
		o += j % m.run
	}
	return o
}

// at returns the separator offset of the clique's entry i, for blocks of
// blk entries.
func (m *sepMap) at(i, blk int) int {
	return int(m.outer[i/blk]) + m.inOff(i%blk)
}

// blockOf returns the number of inner variables of a clique with the
// given cardinalities and the size of its blocks.
func blockOf(card []int) (nin, blk int) {
	blk = 1
	for i := len(card) - 1; i >= 0 && blk < blockMin; i-- {
		blk *= card[i]
		nin++
	}
	return nin, blk
}

// cutSepMap returns the map of clique c's entries onto a separator with
// its tables cut from block (to be filled by fillSepMap), and the rest of
// block.
func (t *jtStructure) cutSepMap(c int, block []int32) (sepMap, []int32) {
	b, nb := t.blk[c], (t.off[c+1]-t.off[c])/t.blk[c]
	m := sepMap{inner: block[:b:b], outer: block[b : b+nb : b+nb]}
	return m, block[b+nb:]
}

// fillSepMap fills in the tables of m, clique c's map onto the separator
// over sv (strides sstr), and sets its kind and runs.
func (t *jtStructure) fillSepMap(m *sepMap, c int, sv []ir.VarID, sstr []int) {
	vars, card := t.cvars[c], t.ccard[c]
	d := len(vars) - t.nin[c]
	sepMapTo(m.inner, vars[d:], card[d:], sv, sstr)
	sepMapTo(m.outer, vars[:d], card[:d], sv, sstr)
	// The run: the last variables, as long as they are all in the
	// separator or all outside it.
	m.kind, m.run = mapZero, 1
	if n := len(vars); n > d {
		in := factor.IndexOf(sv, vars[n-1]) >= 0
		if in {
			m.kind = mapIdent
		}
		for i := n - 1; i >= d && (factor.IndexOf(sv, vars[i]) >= 0) == in; i-- {
			m.run *= card[i]
		}
	}
	if m.run < minRun && m.run < len(m.inner) && t.off[c+1]-t.off[c] <= gatherMax {
		m.kind, m.run = mapGather, 1
		return
	}
	// One offset per run, moved down in place.
	nr := len(m.inner) / m.run
	for q := range nr {
		m.inner[q] = m.inner[q*m.run]
	}
	m.inner = m.inner[:nr:nr]
}

// sepMapLen is the number of int32 entries of a clique's map onto a
// separator.
func (t *jtStructure) sepMapLen(c int) int {
	return t.blk[c] + (t.off[c+1]-t.off[c])/t.blk[c]
}

// varPos is a clique holding a variable and the variable's position in it.
type varPos struct {
	clique int32
	pos    int32
}

// jtFix is one observed variable of a clique in a calibration: its
// position in the clique and its state; next is the clique's next one in
// the workspace's list (-1 ends it).
type jtFix struct {
	pos, state, next int32
}

// restrict records, in w, the evidence obs of the calibration: every
// clique holding an observed variable is restricted to the entries
// consistent with it, which are the only ones that are not 0 once the
// tree is calibrated. It allocates nothing.
func (t *JTree) restrict(w *jtWork, obs []int) {
	for _, c := range w.fixed {
		w.fixHead[c] = -1
	}
	w.fixed = w.fixed[:0]
	w.fixes = w.fixes[:0]
	for v, s := range obs {
		if s < 0 || t.home[v] < 0 {
			continue
		}
		for _, cp := range t.varCl[v] {
			c := cp.clique
			if w.fixHead[c] < 0 {
				w.fixed = append(w.fixed, c)
			}
			w.fixes = append(w.fixes, jtFix{pos: cp.pos, state: int32(s), next: w.fixHead[c]})
			w.fixHead[c] = int32(len(w.fixes) - 1)
		}
	}
}

// outerFixed reports whether clique c has an observed outer variable in w.
func (t *JTree) outerFixed(w *jtWork, c int) bool {
	d := int32(len(t.cvars[c]) - t.nin[c])
	for f := w.fixHead[c]; f >= 0; f = w.fixes[f].next {
		if w.fixes[f].pos < d {
			return true
		}
	}
	return false
}

// runs calls fn(b0, b1) for every maximal run [b0, b1) of consecutive
// blocks of clique c that are consistent with the evidence on c's outer
// variables in w, in increasing order. cnt is scratch of at least as many
// entries as c has variables.
func (t *JTree) runs(w *jtWork, c int, cnt []int, fn func(b0, b1 int)) {
	nb := (t.off[c+1] - t.off[c]) / t.blk[c]
	if w.fixHead[c] < 0 {
		fn(0, nb)
		return
	}
	d := len(t.cvars[c]) - t.nin[c]
	card, str, blk := t.ccard[c], t.cstride[c], t.blk[c]
	// The fixed outer variables: their states give the base; the free
	// ones after the last fixed one make up a run.
	fixed := cnt[:d]
	clear(fixed)
	base, last := 0, -1
	for f := w.fixHead[c]; f >= 0; f = w.fixes[f].next {
		p := int(w.fixes[f].pos)
		if p >= d {
			continue
		}
		fixed[p] = 1
		base += int(w.fixes[f].state) * str[p] / blk
		last = max(last, p)
	}
	if last < 0 {
		fn(0, nb)
		return
	}
	run := str[last] / blk
	// An odometer over the free outer variables before the last fixed
	// one; fixed[p] is 1 for a fixed variable, else 2 plus its count.
	for p := range last {
		if fixed[p] == 0 {
			fixed[p] = 2
		}
	}
	b := base
	for {
		fn(b, b+run)
		p := last - 1
		for ; p >= 0; p-- {
			if fixed[p] == 1 {
				continue
			}
			fixed[p]++
			b += str[p] / blk
			if fixed[p]-2 < card[p] {
				break
			}
			fixed[p] = 2
			b -= card[p] * str[p] / blk
		}
		if p < 0 {
			return
		}
	}
}

// zeroInner zeroes the entries of one block of clique c that are
// inconsistent with the evidence on c's inner variables in w.
func (t *JTree) zeroInner(w *jtWork, c int, blk []float64) {
	d := int32(len(t.cvars[c]) - t.nin[c])
	for f := w.fixHead[c]; f >= 0; f = w.fixes[f].next {
		p := w.fixes[f].pos
		if p < d {
			continue
		}
		st, k, s := t.cstride[c][p], t.ccard[c][p], int(w.fixes[f].state)
		step := st * k
		for b := 0; b < len(blk); b += step {
			clear(blk[b : b+s*st])
			clear(blk[b+(s+1)*st : b+step])
		}
	}
}

// innerFixed reports whether clique c has an observed inner variable in w.
func (t *JTree) innerFixed(w *jtWork, c int) bool {
	d := int32(len(t.cvars[c]) - t.nin[c])
	for f := w.fixHead[c]; f >= 0; f = w.fixes[f].next {
		if w.fixes[f].pos >= d {
			return true
		}
	}
	return false
}

// The block kernels. Each works on one block of a clique (blk, in cache)
// and one separator m through the map e at block b.

// mulBlock multiplies blk by m.
func mulBlock(blk, m []float64, e *sepMap, b int) {
	ob, r := int(e.outer[b]), e.run
	if e.kind == mapGather {
		in := e.inner[:len(blk)]
		for j, s := range in {
			blk[j] *= m[ob+int(s)]
		}
		return
	}
	if e.kind == mapZero {
		if r == len(blk) {
			f := m[ob]
			for j := range blk {
				blk[j] *= f
			}
			return
		}
		for q, s := range e.inner {
			f := m[ob+int(s)]
			seg := blk[q*r : q*r+r]
			for j := range seg {
				seg[j] *= f
			}
		}
		return
	}
	for q, s := range e.inner {
		o := ob + int(s)
		mm := m[o : o+r]
		seg := blk[q*r : q*r+r]
		for j := range seg {
			seg[j] *= mm[j]
		}
	}
}

// mulBlockTo sets dst to src times m (mulBlock into another block).
func mulBlockTo(dst, src, m []float64, e *sepMap, b int) {
	ob, r := int(e.outer[b]), e.run
	src = src[:len(dst)]
	if e.kind == mapGather {
		in := e.inner[:len(dst)]
		for j, s := range in {
			dst[j] = src[j] * m[ob+int(s)]
		}
		return
	}
	if e.kind == mapZero {
		for q, s := range e.inner {
			f := m[ob+int(s)]
			seg, in := dst[q*r:q*r+r], src[q*r:q*r+r]
			for j := range seg {
				seg[j] = in[j] * f
			}
		}
		return
	}
	for q, s := range e.inner {
		o := ob + int(s)
		mm := m[o : o+r]
		seg, in := dst[q*r:q*r+r], src[q*r:q*r+r]
		for j := range seg {
			seg[j] = in[j] * mm[j]
		}
	}
}

// mulBlockChecked is mulBlock reporting whether a product of nonzero
// entries fell below the normal range.
func mulBlockChecked(blk, m []float64, e *sepMap, b int) bool {
	ob := int(e.outer[b])
	lost := false
	for j := range blk {
		a, y := blk[j], m[ob+e.inOff(j)]
		x := a * y
		blk[j] = x
		if x < factor.MinNormal && (x != 0 || a != 0 && y != 0) {
			lost = true
		}
	}
	return lost
}

// sumBlock adds blk onto m.
func sumBlock(blk, m []float64, e *sepMap, b int) {
	ob, r := int(e.outer[b]), e.run
	if e.kind == mapGather {
		in := e.inner[:len(blk)]
		for j, s := range in {
			m[ob+int(s)] += blk[j]
		}
		return
	}
	if e.kind == mapZero {
		if r == len(blk) {
			m[ob] += sumOf(blk)
			return
		}
		for q, s := range e.inner {
			seg := blk[q*r : q*r+r]
			x := 0.0
			for _, y := range seg {
				x += y
			}
			m[ob+int(s)] += x
		}
		return
	}
	for q, s := range e.inner {
		o := ob + int(s)
		mm := m[o : o+r]
		seg := blk[q*r : q*r+r]
		for j, x := range seg {
			mm[j] += x
		}
	}
}

// maxBlock maximises blk onto m.
func maxBlock(blk, m []float64, e *sepMap, b int) {
	ob := int(e.outer[b])
	for j, x := range blk {
		if o := ob + e.inOff(j); x > m[o] {
			m[o] = x
		}
	}
}

// sumOf returns the sum of xs, in four interleaved partial sums (which
// keep the adder busy: one running sum waits on each addition), added
// up at the end: the same result for the same xs, always.
func sumOf(xs []float64) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(xs); i += 4 {
		s0 += xs[i]
		s1 += xs[i+1]
		s2 += xs[i+2]
		s3 += xs[i+3]
	}
	for ; i < len(xs); i++ {
		s0 += xs[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// maxOf returns the largest of xs (0 if xs is empty or all its entries are
// smaller).
func maxOf(xs []float64) float64 {
	var m0, m1, m2, m3 float64
	i := 0
	for ; i+4 <= len(xs); i += 4 {
		m0 = max(m0, xs[i])
		m1 = max(m1, xs[i+1])
		m2 = max(m2, xs[i+2])
		m3 = max(m3, xs[i+3])
	}
	for ; i < len(xs); i++ {
		m0 = max(m0, xs[i])
	}
	return max(max(m0, m1), max(m2, m3))
}
