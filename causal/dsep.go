package causal

// dag is a DAG over the observed variables and one latent per bidirected
// edge, the form d-separation (m-separation in the ADMG) is decided on.
type dag struct {
	pa, ch [][]int
	n      int // the observed variables are 0..n-1
}

// augmented returns the graph's DAG with edges into cutIn removed (the
// bidirected ones touching it too) and directed edges out of cutOut
// removed.
func (g *ADMG) augmented(cutIn, cutOut Set) *dag {
	n := len(g.names)
	d := &dag{pa: make([][]int, n), ch: make([][]int, n), n: n}
	link := func(a, b int) {
		d.pa[b] = append(d.pa[b], a)
		d.ch[a] = append(d.ch[a], b)
	}
	for b := range n {
		if cutIn.has(b) {
			continue
		}
		for _, a := range g.pa[b].members() {
			if !cutOut.has(a) {
				link(a, b)
			}
		}
	}
	for a := range n {
		for _, b := range g.bi[a].members() {
			if b < a || cutIn.has(a) || cutIn.has(b) {
				continue
			}
			u := len(d.pa)
			d.pa = append(d.pa, nil)
			d.ch = append(d.ch, nil)
			link(u, a)
			link(u, b)
		}
	}
	return d
}

// separated reports whether x and y are d-separated by z in d (the
// reachability of Koller and Friedman, algorithm 3.1).
func (d *dag) separated(x, y, z Set) bool {
	inZ := func(v int) bool { return v < d.n && z.has(v) }
	// ancestors of z
	anc := make([]bool, len(d.pa))
	stack := z.members()
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if anc[v] {
			continue
		}
		anc[v] = true
		stack = append(stack, d.pa[v]...)
	}
	type item struct {
		v  int
		up bool // reached from a child
	}
	seen := make(map[item]bool)
	queue := []item{}
	for _, v := range x.members() {
		queue = append(queue, item{v, true})
	}
	for len(queue) > 0 {
		it := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if seen[it] {
			continue
		}
		seen[it] = true
		v := it.v
		if !inZ(v) && v < d.n && y.has(v) {
			return false
		}
		if it.up && !inZ(v) {
			for _, p := range d.pa[v] {
				queue = append(queue, item{p, true})
			}
			for _, c := range d.ch[v] {
				queue = append(queue, item{c, false})
			}
		} else if !it.up {
			if !inZ(v) {
				for _, c := range d.ch[v] {
					queue = append(queue, item{c, false})
				}
			}
			if anc[v] {
				for _, p := range d.pa[v] {
					queue = append(queue, item{p, true})
				}
			}
		}
	}
	return true
}
