package causal

// ADMG is an acyclic directed mixed graph over observed variables: a
// directed edge A -> B says A is a direct cause of B, a bidirected edge
// A <-> B that some unobserved variable causes both. It is a value: once
// built by Build or Project nothing changes it.
type ADMG struct {
	names []string
	index map[string]int
	pa    []Set // directed parents of each variable
	ch    []Set // directed children
	bi    []Set // bidirected neighbours (symmetric)
	order []int // a topological order of the directed part
}

// Edge is an edge between two variables, by name.
type Edge struct{ From, To string }

// Build returns the ADMG over the named variables with the given directed
// and bidirected edges (a bidirected edge's direction does not matter),
// or an *Error (ErrDuplicate, ErrUnknownVariable, ErrSelfLoop,
// ErrTooLarge) or a *CycleError.
func Build(names []string, directed, bidirected []Edge) (*ADMG, error) {
	if len(names) > MaxVars {
		return nil, errorf(ErrTooLarge, "%d variables, more than the %d a graph may have", len(names), MaxVars)
	}
	g := &ADMG{
		names: append([]string(nil), names...),
		index: make(map[string]int, len(names)),
		pa:    make([]Set, len(names)),
		ch:    make([]Set, len(names)),
		bi:    make([]Set, len(names)),
	}
	for i, n := range names {
		if n == "" {
			return nil, errorf(ErrDuplicate, "variable %d has an empty name", i)
		}
		if _, dup := g.index[n]; dup {
			return nil, errorf(ErrDuplicate, "variable %s is declared twice", n)
		}
		g.index[n] = i
	}
	ends := func(e Edge, arrow string) (int, int, error) {
		a, ok := g.index[e.From]
		if !ok {
			return 0, 0, errorf(ErrUnknownVariable, "edge %s %s %s: no variable %s", e.From, arrow, e.To, e.From)
		}
		b, ok := g.index[e.To]
		if !ok {
			return 0, 0, errorf(ErrUnknownVariable, "edge %s %s %s: no variable %s", e.From, arrow, e.To, e.To)
		}
		if a == b {
			return 0, 0, errorf(ErrSelfLoop, "edge %s %s %s joins a variable to itself", e.From, arrow, e.To)
		}
		return a, b, nil
	}
	for _, e := range directed {
		a, b, err := ends(e, "->")
		if err != nil {
			return nil, err
		}
		g.pa[b] = g.pa[b].add(a)
		g.ch[a] = g.ch[a].add(b)
	}
	for _, e := range bidirected {
		a, b, err := ends(e, "<->")
		if err != nil {
			return nil, err
		}
		g.bi[a] = g.bi[a].add(b)
		g.bi[b] = g.bi[b].add(a)
	}
	if err := g.sortTopo(); err != nil {
		return nil, err
	}
	return g, nil
}

// sortTopo sets g.order, or returns a *CycleError naming one cycle.
func (g *ADMG) sortTopo() error {
	n := len(g.names)
	indeg := make([]int, n)
	for i := range n {
		indeg[i] = g.pa[i].len()
	}
	g.order = g.order[:0]
	var queue []int
	for i := range n {
		if indeg[i] == 0 {
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		g.order = append(g.order, v)
		for _, c := range g.ch[v].members() {
			indeg[c]--
			if indeg[c] == 0 {
				queue = append(queue, c)
			}
		}
	}
	if len(g.order) == n {
		return nil
	}
	// Every variable left has a parent left: walk parents until one repeats.
	var left Set
	for i := range n {
		if indeg[i] > 0 {
			left = left.add(i)
		}
	}
	seen := make(map[int]int)
	var path []int
	v := left.members()[0]
	for {
		if at, ok := seen[v]; ok {
			cyc := path[at:]
			names := make([]string, len(cyc))
			for i := range cyc { // path follows parents: reverse it to follow edges
				names[i] = g.names[cyc[len(cyc)-1-i]]
			}
			return &CycleError{Cycle: names}
		}
		seen[v] = len(path)
		path = append(path, v)
		v = (g.pa[v] & left).members()[0]
	}
}

// Len returns the number of variables.
func (g *ADMG) Len() int { return len(g.names) }

// Name returns variable i's name.
func (g *ADMG) Name(i int) string { return g.names[i] }

// Names returns the variables' names in index order.
func (g *ADMG) Names() []string { return append([]string(nil), g.names...) }

// Index returns the index of the named variable.
func (g *ADMG) Index(name string) (int, bool) {
	i, ok := g.index[name]
	return i, ok
}

// Parents returns variable i's directed parents.
func (g *ADMG) Parents(i int) Set { return g.pa[i] }

// Siblings returns the variables joined to i by a bidirected edge.
func (g *ADMG) Siblings(i int) Set { return g.bi[i] }

// Order returns a topological order of the directed edges.
func (g *ADMG) Order() []int { return append([]int(nil), g.order...) }

// all returns the set of every variable.
func (g *ADMG) all() Set {
	if len(g.names) == 64 {
		return ^Set(0)
	}
	return single(len(g.names)) - 1
}

// setOf returns the set of the named variables.
func (g *ADMG) setOf(names []string) (Set, error) {
	var s Set
	for _, n := range names {
		i, ok := g.index[n]
		if !ok {
			return 0, errorf(ErrUnknownVariable, "no variable %s", n)
		}
		s = s.add(i)
	}
	return s, nil
}

// namesOf returns the names of the variables in s in index order.
func (g *ADMG) namesOf(s Set) []string {
	m := s.members()
	out := make([]string, len(m))
	for k, i := range m {
		out[k] = g.names[i]
	}
	return out
}

// ancestors returns the ancestors of s (s included) in the subgraph
// induced by within, following only directed edges whose heads are
// outside cut (the graph with edges into cut removed).
func (g *ADMG) ancestors(s, within, cut Set) Set {
	an := s & within
	frontier := an
	for !frontier.empty() {
		var next Set
		for _, v := range frontier.members() {
			if cut.has(v) {
				continue
			}
			next |= g.pa[v] & within
		}
		frontier = next.minus(an)
		an |= next
	}
	return an
}

// descendants returns the descendants of s (s included) within a subgraph.
func (g *ADMG) descendants(s, within Set) Set {
	de := s & within
	frontier := de
	for !frontier.empty() {
		var next Set
		for _, v := range frontier.members() {
			next |= g.ch[v] & within
		}
		frontier = next.minus(de)
		de |= next
	}
	return de
}

// districts returns the C-components of the subgraph induced by within:
// the classes of variables joined by bidirected paths inside it.
func (g *ADMG) districts(within Set) []Set {
	var out []Set
	left := within
	for !left.empty() {
		start := single(left.members()[0])
		d := start
		frontier := start
		for !frontier.empty() {
			var next Set
			for _, v := range frontier.members() {
				next |= g.bi[v] & within
			}
			frontier = next.minus(d)
			d |= next
		}
		out = append(out, d)
		left = left.minus(d)
	}
	return out
}
