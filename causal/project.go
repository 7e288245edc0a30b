package causal

// Project returns the latent projection of a DAG over observed and latent
// variables onto the observed ones (Verma and Pearl): A -> B when the DAG
// has a directed path from A to B whose inner variables are all latent,
// and A <-> B when some latent variable has directed paths to A and to B
// whose inner variables are all latent. parents maps every variable,
// observed or latent, to its parents (a variable missing from it has
// none); latent names the latent ones. The observed variables keep the
// order of observed. Identification on the projection is identification
// on the DAG (Tian and Pearl 2002).
func Project(observed, latent []string, parents map[string][]string) (*ADMG, error) {
	all := append(append([]string(nil), observed...), latent...)
	var directed []Edge
	for v, ps := range parents {
		for _, p := range ps {
			directed = append(directed, Edge{p, v})
		}
	}
	full, err := Build(all, directed, nil) // checks names and acyclicity
	if err != nil {
		return nil, err
	}
	nObs := len(observed)
	isLatent := func(i int) bool { return i >= nObs }
	// reach[i]: observed variables reached from i by directed paths whose
	// inner variables are latent.
	reach := func(i int) Set {
		var out Set
		seen := map[int]bool{i: true}
		stack := []int{i}
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, c := range full.ch[v].members() {
				if seen[c] {
					continue
				}
				seen[c] = true
				if isLatent(c) {
					stack = append(stack, c)
				} else {
					out = out.add(c)
				}
			}
		}
		return out
	}
	var dir, bi []Edge
	for i := range nObs {
		for _, j := range reach(i).members() {
			dir = append(dir, Edge{observed[i], observed[j]})
		}
	}
	for l := nObs; l < len(all); l++ {
		r := reach(l).members()
		for a := range r {
			for b := a + 1; b < len(r); b++ {
				bi = append(bi, Edge{observed[r[a]], observed[r[b]]})
			}
		}
	}
	return Build(observed, dir, bi)
}
