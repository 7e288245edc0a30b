package learn

import (
	"math"

	"github.com/pbl-lang/pbl/ir"
)

// discreteFeatures returns the classifier's discrete features, in
// declaration order (real features have no CPT).
func discreteFeatures(m *ir.Model, cl *ir.Classifier) []ir.VarID {
	var out []ir.VarID
	for _, f := range cl.Features {
		if m.Vars[f].Discrete() {
			out = append(out, f)
		}
	}
	return out
}

// pairFamilies returns the tables (C, A_i, A_j), i < j, over the
// discrete features, in the order i, j.
func pairFamilies(m *ir.Model, cl *ir.Classifier) [][]ir.VarID {
	feats := discreteFeatures(m, cl)
	var fams [][]ir.VarID
	for i := range feats {
		for j := i + 1; j < len(feats); j++ {
			fams = append(fams, []ir.VarID{cl.Class, feats[i], feats[j]})
		}
	}
	return fams
}

// chowLiu returns the maximum spanning tree over the discrete features
// for the weights I(A_i; A_j | C) computed from pc (made by pairFamilies):
// parent[i] is the index of feature i's tree parent, or -1 for the root,
// feature 0.
func chowLiu(m *ir.Model, cl *ir.Classifier, pc *Counts) []int {
	feats := discreteFeatures(m, cl)
	d := len(feats)
	w := make([][]float64, d)
	for i := range w {
		w[i] = make([]float64, d)
	}
	k := 0
	for i := range feats {
		for j := i + 1; j < d; j++ {
			f := pc.fams[k]
			k++
			card := make([]int, 3)
			for x, v := range f.vars {
				card[x] = len(m.Vars[v].States)
			}
			f.grow(card)
			w[i][j] = condMutualInfo(f.n, card[0], card[1], card[2])
			w[j][i] = w[i][j]
		}
	}
	return maxSpanningTree(w)
}

// condMutualInfo returns the empirical I(A; B | C) in nats of the counts
// n over (C, A, B), laid out with B fastest.
func condMutualInfo(n []float64, kc, ka, kb int) float64 {
	total := 0.0
	for _, x := range n {
		total += x
	}
	if total == 0 {
		return 0
	}
	nca := make([]float64, kc*ka)
	ncb := make([]float64, kc*kb)
	nc := make([]float64, kc)
	for c := range kc {
		for a := range ka {
			for b := range kb {
				x := n[(c*ka+a)*kb+b]
				nca[c*ka+a] += x
				ncb[c*kb+b] += x
				nc[c] += x
			}
		}
	}
	sum := 0.0
	for c := range kc {
		for a := range ka {
			for b := range kb {
				x := n[(c*ka+a)*kb+b]
				if x == 0 {
					continue
				}
				sum += x * math.Log(x*nc[c]/(nca[c*ka+a]*ncb[c*kb+b]))
			}
		}
	}
	return max(0, sum/total) // rounding can make an independent pair's sum a hair negative
}

// maxSpanningTree returns a maximum spanning tree of the complete graph
// with weights w, rooted at vertex 0, by Prim's algorithm: parent[i] is
// i's parent, -1 for the root. Ties go to the lower vertex index.
func maxSpanningTree(w [][]float64) []int {
	d := len(w)
	parent := make([]int, d)
	if d == 0 {
		return parent
	}
	in := make([]bool, d)
	best := make([]float64, d)
	for i := range parent {
		parent[i] = 0
		best[i] = w[0][i]
	}
	parent[0] = -1
	in[0] = true
	for range d - 1 {
		u := -1
		for i := range d {
			if !in[i] && (u < 0 || best[i] > best[u]) {
				u = i
			}
		}
		in[u] = true
		for i := range d {
			if !in[i] && w[u][i] > best[i] {
				best[i], parent[i] = w[u][i], u
			}
		}
	}
	return parent
}
