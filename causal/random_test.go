package causal

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"
)

// fullModel is a random semi-Markovian model: observed variables 0..nObs-1
// and latent ones after them, each with a CPT.
type fullModel struct {
	nObs    int
	names   []string
	card    []int
	parents [][]int
	cpt     [][]float64 // cpt[v][parentConfig*card[v]+state]
}

func randomModel(r *rand.Rand) *fullModel {
	nObs := 2 + r.IntN(5)
	nLat := r.IntN(4)
	n := nObs + nLat
	m := &fullModel{nObs: nObs, names: make([]string, n), card: make([]int, n), parents: make([][]int, n), cpt: make([][]float64, n)}
	for i := range n {
		if i < nObs {
			m.names[i] = fmt.Sprintf("V%d", i)
		} else {
			m.names[i] = fmt.Sprintf("U%d", i-nObs)
		}
		m.card[i] = 2 + r.IntN(2)
	}
	pos := r.Perm(nObs) // pos[i]: variable i's place in a causal order
	for i := range nObs {
		for j := range nObs {
			if pos[i] < pos[j] && r.Float64() < 0.4 {
				m.parents[j] = append(m.parents[j], i)
			}
		}
	}
	for l := nObs; l < n; l++ {
		a := r.IntN(nObs)
		b := (a + 1 + r.IntN(nObs-1)) % nObs
		kids := []int{a, b}
		if c := r.IntN(nObs); r.Float64() < 0.3 && c != a && c != b {
			kids = append(kids, c)
		}
		for _, k := range kids {
			m.parents[k] = append(m.parents[k], l)
		}
		if l > nObs && len(m.parents[l-1]) == 0 && r.Float64() < 0.2 { // a latent caused by the previous, a root
			m.parents[l] = append(m.parents[l], l-1)
		} else if r.Float64() < 0.25 { // a latent with an observed cause before its children
			first := kids[0]
			for _, k := range kids {
				if pos[k] < pos[first] {
					first = k
				}
			}
			for p := range nObs {
				if pos[p] < pos[first] {
					m.parents[l] = append(m.parents[l], p)
					break
				}
			}
		}
	}
	for v := range n {
		rows := 1
		for _, p := range m.parents[v] {
			rows *= m.card[p]
		}
		t := make([]float64, rows*m.card[v])
		for row := range rows {
			total := 0.0
			for k := range m.card[v] {
				t[row*m.card[v]+k] = 0.05 + r.Float64()
				total += t[row*m.card[v]+k]
			}
			for k := range m.card[v] {
				t[row*m.card[v]+k] /= total
			}
		}
		m.cpt[v] = t
	}
	return m
}

// each calls f on every joint state of the model's variables.
func (m *fullModel) each(f func(state []int)) {
	state := make([]int, len(m.card))
	for {
		f(state)
		k := len(state) - 1
		for k >= 0 {
			state[k]++
			if state[k] < m.card[k] {
				break
			}
			state[k] = 0
			k--
		}
		if k < 0 {
			return
		}
	}
}

// factor returns P(v = state[v] | its parents' states).
func (m *fullModel) factor(v int, state []int) float64 {
	row := 0
	for _, p := range m.parents[v] {
		row = row*m.card[p] + state[p]
	}
	return m.cpt[v][row*m.card[v]+state[v]]
}

// observed returns P(V) by summing the latents out of the full joint.
func (m *fullModel) observed() (card []int, p []float64) {
	card = m.card[:m.nObs]
	size := 1
	for _, c := range card {
		size *= c
	}
	p = make([]float64, size)
	m.each(func(state []int) {
		pr := 1.0
		for v := range m.card {
			pr *= m.factor(v, state)
		}
		k := 0
		for i := range m.nObs {
			k = k*m.card[i] + state[i]
		}
		p[k] += pr
	})
	return card, p
}

// surgery returns P(Y=y | do(X=x), Z=z) by the truncated factorisation of
// the full model, latents summed out: vals gives the states of Y, X, Z.
func (m *fullModel) surgery(y, x, z []int, vals map[int]int) float64 {
	var num, den float64
	m.each(func(state []int) {
		for _, v := range x {
			if state[v] != vals[v] {
				return
			}
		}
		for _, v := range z {
			if state[v] != vals[v] {
				return
			}
		}
		pr := 1.0
		isX := map[int]bool{}
		for _, v := range x {
			isX[v] = true
		}
		for v := range m.card {
			if !isX[v] {
				pr *= m.factor(v, state)
			}
		}
		den += pr
		for _, v := range y {
			if state[v] != vals[v] {
				return
			}
		}
		num += pr
	})
	return num / den
}

func (m *fullModel) admg(t interface{ Fatal(...any) }) *ADMG {
	par := map[string][]string{}
	for v, ps := range m.parents {
		for _, p := range ps {
			par[m.names[v]] = append(par[m.names[v]], m.names[p])
		}
	}
	g, err := Project(m.names[:m.nObs], m.names[m.nObs:], par)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestRandomSemiMarkovian checks every identifiable random query's
// estimand, and the ID/IDC expression behind it, against surgery on the
// full model, and every non-identifiable one's hedge.
func TestRandomSemiMarkovian(t *testing.T) {
	var ident, nonIdent, anyChecked, methods = 0, 0, 0, map[string]int{}
	rapid.Check(t, func(rt *rapid.T) {
		seed := rapid.Uint64().Draw(rt, "seed")
		r := rand.New(rand.NewPCG(seed, 34))
		m := randomModel(r)
		g := m.admg(rt)
		card, p := m.observed()
		joint, err := NewJoint(card, p)
		if err != nil {
			rt.Fatal(err)
		}
		for range 4 {
			perm := r.Perm(m.nObs)
			ny := 1 + r.IntN(2)
			nx := r.IntN(3)
			nz := r.IntN(3)
			if ny+nx+nz > m.nObs {
				continue
			}
			y, x, z := perm[:ny], perm[ny:ny+nx], perm[ny+nx:ny+nx+nz]
			q := Query{Y: names(m, y), X: names(m, x), Z: names(m, z)}
			est, err := g.Identify(q)
			if err != nil {
				var ne *NotIdentifiableError
				if !errors.As(err, &ne) {
					rt.Fatalf("%v: %v", q, err)
				}
				if msg := checkHedge(g, q, ne.Hedge); msg != "" {
					rt.Fatalf("%v: hedge %v: %s", q, ne.Hedge, msg)
				}
				nonIdent++
				continue
			}
			ident++
			methods[est.Method]++
			raw, f := g.idc(SetOf(y...), SetOf(x...), SetOf(z...))
			if f != nil {
				rt.Fatalf("%v: %s by %s but IDC fails", q, est, est.Method)
			}
			rawEst := &Estimand{Method: "IDC", Expr: raw, g: g, y: SetOf(y...), x: SetOf(x...), z: SetOf(z...)}
			all := []*Estimand{est, rawEst}
			if len(z) == 0 && len(x) > 0 { // every minimal adjustment set gives the effect
				sets, err := g.AdjustmentSets(q.X, q.Y)
				if err != nil {
					rt.Fatal(err)
				}
				for _, s := range sets {
					zs, _ := g.setOf(s)
					all = append(all, &Estimand{Method: "backdoor " + fmt.Sprint(s), Expr: Sum{Over: zs, Body: Product{Factors: []Expr{Prob{Vars: SetOf(y...), Given: SetOf(x...) | zs}, Prob{Vars: zs}}}}, g: g, y: SetOf(y...), x: SetOf(x...)})
				}
			}
			qv := append(append(append([]int(nil), y...), x...), z...)
			eachState(m, qv, func(vals map[int]int) {
				want := m.surgery(y, x, z, vals)
				byName := map[string]int{}
				for v, s := range vals {
					byName[m.names[v]] = s
				}
				for _, e := range all {
					got, err := e.Eval(joint, byName)
					if err != nil {
						rt.Fatalf("%v = %s: %v", q, e, err)
					}
					if !(math.Abs(got-want) <= 1e-9) {
						rt.Fatalf("%v at %v = %s (%s): %v, surgery %v", q, byName, e, e.Method, got, want)
					}
					// a variable the formula leaves free ("for any W") may take any state
					if extra := Free(e.Expr).minus(e.y | e.x | e.z).members(); len(extra) > 0 {
						env := make([]int, g.Len())
						for v, s := range vals {
							env[v] = s
						}
						for _, w := range extra {
							env[w] = r.IntN(m.card[w])
						}
						other, err := joint.eval(e.Expr, env)
						if err != nil || !(math.Abs(other-want) <= 1e-9) {
							rt.Fatalf("%v at %v = %s with free %v = %v: %v, %v; surgery %v", q, byName, e, extra, env, other, err, want)
						}
						anyChecked++
					}
				}
			})
		}
	})
	t.Logf("identifiable %d %v, not identifiable %d; %d values at other states of free variables", ident, methods, nonIdent, anyChecked)
	if ident < 20 || nonIdent < 10 || methods["ID"]+methods["IDC"] < 10 {
		t.Errorf("too few cases of a kind: identifiable %d %v, not identifiable %d", ident, methods, nonIdent)
	}
}

func names(m *fullModel, vs []int) []string {
	out := make([]string, len(vs))
	for k, v := range vs {
		out[k] = m.names[v]
	}
	return out
}

// eachState calls f on every joint state of the variables vs.
func eachState(m *fullModel, vs []int, f func(map[int]int)) {
	vals := map[int]int{}
	var rec func(k int)
	rec = func(k int) {
		if k == len(vs) {
			f(vals)
			return
		}
		for s := range m.card[vs[k]] {
			vals[vs[k]] = s
			rec(k + 1)
		}
	}
	rec(0)
}
