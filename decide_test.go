package pbl

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// genNode is a node of a generated influence diagram: a chance variable
// or a decision (binary), with its parents (indices of earlier nodes).
type genNode struct {
	name     string
	decision bool
	parents  []int
	cpt      []float64 // P(node=0 | parents), row-major, the last parent fastest
}

type genUtility struct {
	parents []int
	values  []float64
}

type genDiagram struct {
	nodes []genNode
	utils []genUtility
}

// genDiagram draws a small influence diagram: binary variables in a
// topological order, nd decisions; with recall, each decision's parents
// are the decision before it and all that one's parents, and some chance
// variables; without, a random few earlier nodes.
func drawDiagram(r *rand.Rand, recall bool) *genDiagram {
	for {
		g := drawOnce(r, recall)
		rows := 0
		for _, d := range g.decisions() {
			rows += 1 << len(g.nodes[d].parents)
		}
		if rows <= 14 { // at most 2^14 strategies to enumerate
			return g
		}
	}
}

func drawOnce(r *rand.Rand, recall bool) *genDiagram {
	g := &genDiagram{}
	n := 5 + r.IntN(2)
	nd := 2 + r.IntN(2)
	// Decisions at positions spread over the order (never first).
	isDec := make([]bool, n)
	for k := 0; k < nd; {
		i := 1 + r.IntN(n-1)
		if !isDec[i] {
			isDec[i] = true
			k++
		}
	}
	lastDec := -1
	for i := 0; i < n; i++ {
		nd := genNode{name: fmt.Sprintf("X%d", i), decision: isDec[i]}
		if nd.decision {
			nd.name = fmt.Sprintf("D%d", i)
		}
		var ps []int
		switch {
		case nd.decision && recall && lastDec >= 0:
			ps = append(slices.Clone(g.nodes[lastDec].parents), lastDec)
			for j := lastDec + 1; j < i; j++ {
				if r.IntN(2) == 0 {
					ps = append(ps, j)
				}
			}
		default:
			for j := 0; j < i; j++ {
				if len(ps) < 2 && r.IntN(3) == 0 {
					ps = append(ps, j)
				}
			}
		}
		slices.Sort(ps)
		nd.parents = ps
		if !nd.decision {
			nd.cpt = make([]float64, 1<<len(ps))
			for k := range nd.cpt {
				nd.cpt[k] = float64(1+r.IntN(9)) / 10
			}
		} else {
			lastDec = i
		}
		g.nodes = append(g.nodes, nd)
	}
	for range 2 {
		var ps []int
		for j := range n {
			if len(ps) < 2 && r.IntN(3) == 0 {
				ps = append(ps, j)
			}
		}
		if len(ps) == 0 {
			ps = []int{r.IntN(n)}
		}
		u := genUtility{parents: ps, values: make([]float64, 1<<len(ps))}
		for k := range u.values {
			u.values[k] = float64(r.IntN(201) - 100)
		}
		g.utils = append(g.utils, u)
	}
	return g
}

// source writes g as .pbl text: states s0, s1.
func (g *genDiagram) source() string {
	var b strings.Builder
	for _, nd := range g.nodes {
		kw := "var"
		if nd.decision {
			kw = "decision"
		}
		fmt.Fprintf(&b, "%s %s: {s0, s1}\n", kw, nd.name)
	}
	names := func(ps []int) string {
		s := make([]string, len(ps))
		for i, p := range ps {
			s[i] = g.nodes[p].name
		}
		return strings.Join(s, ", ")
	}
	row := func(k, n int) string {
		s := make([]string, n)
		for i := range n {
			s[i] = fmt.Sprintf("s%d", k>>(n-1-i)&1)
		}
		return strings.Join(s, ", ")
	}
	for _, nd := range g.nodes {
		switch {
		case nd.decision && len(nd.parents) > 0:
			fmt.Fprintf(&b, "%s -> %s\n", names(nd.parents), nd.name)
		case nd.decision:
		case len(nd.parents) == 0:
			fmt.Fprintf(&b, "P(%s) = [%g, %g]\n", nd.name, nd.cpt[0], 1-nd.cpt[0])
		default:
			fmt.Fprintf(&b, "P(%s | %s) = {\n", nd.name, names(nd.parents))
			for k, p := range nd.cpt {
				fmt.Fprintf(&b, "    %s: [%g, %g]\n", row(k, len(nd.parents)), p, 1-p)
			}
			b.WriteString("}\n")
		}
	}
	for i, u := range g.utils {
		fmt.Fprintf(&b, "utility U%d(%s) = {\n", i, names(u.parents))
		for k, x := range u.values {
			fmt.Fprintf(&b, "    %s: %g\n", row(k, len(u.parents)), x)
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// strategy is a policy per decision node: the choice for each
// configuration of its parents.
type strategy map[int][]int

// eu returns, by enumeration of every configuration, the expected total
// utility of s given fixed (node → state: the decisions set, the chance
// variables observed), and the probability of the observations.
func (g *genDiagram) eu(s strategy, fixed map[int]int) (float64, float64) {
	return g.euDo(s, fixed, nil)
}

// euDo is eu after the interventions do (node → state): each node in do
// takes its state with probability 1, whatever its parents.
func (g *genDiagram) euDo(s strategy, fixed, do map[int]int) (float64, float64) {
	n := len(g.nodes)
	var sum, pe float64
	x := make([]int, n)
	idx := func(ps []int) int {
		k := 0
		for _, p := range ps {
			k = k<<1 | x[p]
		}
		return k
	}
	for c := 0; c < 1<<n; c++ {
		for i := range n {
			x[i] = c >> i & 1
		}
		p := 1.0
		for i, nd := range g.nodes {
			if st, ok := fixed[i]; ok && x[i] != st {
				p = 0
				break
			}
			if st, ok := do[i]; ok {
				if x[i] != st {
					p = 0
					break
				}
				continue
			}
			if nd.decision {
				if _, set := fixed[i]; set {
					continue
				}
				if s[i][idx(nd.parents)] != x[i] {
					p = 0
					break
				}
				continue
			}
			q := nd.cpt[idx(nd.parents)]
			if x[i] == 1 {
				q = 1 - q
			}
			p *= q
		}
		if p == 0 {
			continue
		}
		u := 0.0
		for _, ut := range g.utils {
			u += ut.values[idx(ut.parents)]
		}
		sum += p * u
		pe += p
	}
	return sum / pe, pe
}

// strategies calls f with every strategy of g's decisions in decs.
func (g *genDiagram) strategies(decs []int, s strategy, f func(strategy)) {
	if len(decs) == 0 {
		f(s)
		return
	}
	d := decs[0]
	rows := 1 << len(g.nodes[d].parents)
	for c := 0; c < 1<<rows; c++ {
		pol := make([]int, rows)
		for k := range pol {
			pol[k] = c >> k & 1
		}
		s[d] = pol
		g.strategies(decs[1:], s, f)
	}
	delete(s, d)
}

func (g *genDiagram) decisions() []int {
	var out []int
	for i, nd := range g.nodes {
		if nd.decision {
			out = append(out, i)
		}
	}
	return out
}

// strategyOf reads the strategy of an MEU answer, checking that each
// policy's information is the decision's parents.
func (g *genDiagram) strategyOf(t *testing.T, d *report.Decision) strategy {
	t.Helper()
	s := strategy{}
	for _, p := range d.Policies {
		i := slices.IndexFunc(g.nodes, func(nd genNode) bool { return nd.name == p.Decision })
		var info []string
		for _, q := range g.nodes[i].parents {
			info = append(info, g.nodes[q].name)
		}
		if !slices.Equal(info, p.Info) {
			t.Fatalf("policy of %s over %v, want its parents %v", p.Decision, p.Info, info)
		}
		pol := make([]int, len(p.Rows))
		for k, r := range p.Rows {
			pol[k] = r.Index
		}
		s[i] = pol
	}
	return s
}

func answerText(t *testing.T, m *ir.Model, text string) *report.Decision {
	t.Helper()
	q, err := ParseQuery(m, text)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	a, err := AnswerQuery(m, q, AnswerOptions{})
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return a.Decision
}

// TestDecisionsAgainstBruteForce answers MEU(), policy(D) and EU(D=d | e)
// on generated perfect-recall diagrams written as .pbl text, and checks
// them against the enumeration of every strategy: the MEU is the best
// strategy's expected utility, the strategy answered attains it, and EU
// is the best continuation's conditional expected utility.
func TestDecisionsAgainstBruteForce(t *testing.T) {
	for seed := range uint64(25) {
		r := rand.New(rand.NewPCG(seed, 7))
		g := drawDiagram(r, true)
		src := g.source()
		m, err := Load("gen.pbl", []byte(src))
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		decs := g.decisions()
		best := math.Inf(-1)
		g.strategies(decs, strategy{}, func(s strategy) {
			if x, _ := g.eu(s, nil); x > best {
				best = x
			}
		})
		ans := answerText(t, m, "MEU()")
		if ans.LocalOptimum {
			t.Errorf("seed %d: a perfect-recall diagram answered as a local optimum", seed)
		}
		if !(math.Abs(ans.Value-best) <= 1e-9) {
			t.Errorf("seed %d: MEU() = %v, brute force %v\n%s", seed, ans.Value, best, src)
		}
		s := g.strategyOf(t, ans)
		if x, _ := g.eu(s, nil); !(math.Abs(x-best) <= 1e-9) {
			t.Errorf("seed %d: the strategy answered is worth %v, the best %v", seed, x, best)
		}
		// policy(D) is MEU's policy of D.
		last := decs[len(decs)-1]
		pol := answerText(t, m, "policy("+g.nodes[last].name+")")
		if len(pol.Policies) != 1 || !slices.Equal(g.strategyOf(t, pol)[last], s[last]) {
			t.Errorf("seed %d: policy(%s) differs from MEU()'s", seed, g.nodes[last].name)
		}
		// EU of each choice of the last decision given each configuration
		// of its information: the best over the later decisions (none)
		// of the conditional expected utility.
		nd := g.nodes[last]
		for c := 0; c < 1<<len(nd.parents); c++ {
			fixed := map[int]int{}
			var terms []string
			for j, p := range nd.parents {
				st := c >> (len(nd.parents) - 1 - j) & 1
				fixed[p] = st
				terms = append(terms, fmt.Sprintf("%s=s%d", g.nodes[p].name, st))
			}
			for choice := range 2 {
				fixed[last] = choice
				want, pe := g.eu(s, fixed)
				text := fmt.Sprintf("EU(%s=s%d", nd.name, choice)
				if len(terms) > 0 {
					text += " | " + strings.Join(terms, ", ")
				}
				text += ")"
				q, err := ParseQuery(m, text)
				if err != nil {
					t.Fatalf("%s: %v", text, err)
				}
				a, err := AnswerQuery(m, q, AnswerOptions{})
				if pe == 0 {
					if err == nil {
						t.Errorf("seed %d: %s = %v on impossible evidence", seed, text, a.Decision.Value)
					}
					continue
				}
				if err != nil {
					t.Fatalf("seed %d: %s: %v", seed, text, err)
				}
				if !(math.Abs(a.Decision.Value-want) <= 1e-9) {
					t.Errorf("seed %d: %s = %v, brute force %v", seed, text, a.Decision.Value, want)
				}
			}
		}
		// EU of each choice of the first decision given each
		// configuration of its information: the best, over the later
		// decisions' strategies, of the conditional expected utility.
		first := decs[0]
		fd := g.nodes[first]
		for c := 0; c < 1<<len(fd.parents); c++ {
			fixed := map[int]int{}
			var terms []string
			for j, p := range fd.parents {
				st := c >> (len(fd.parents) - 1 - j) & 1
				fixed[p] = st
				terms = append(terms, fmt.Sprintf("%s=s%d", g.nodes[p].name, st))
			}
			for choice := range 2 {
				fixed[first] = choice
				want, pe := math.Inf(-1), 0.0
				g.strategies(decs[1:], strategy{}, func(s strategy) {
					x, p := g.eu(s, fixed)
					pe = p
					if p > 0 && x > want {
						want = x
					}
				})
				text := fmt.Sprintf("EU(%s=s%d", fd.name, choice)
				if len(terms) > 0 {
					text += " | " + strings.Join(terms, ", ")
				}
				text += ")"
				q, err := ParseQuery(m, text)
				if err != nil {
					t.Fatalf("%s: %v", text, err)
				}
				a, err := AnswerQuery(m, q, AnswerOptions{})
				if pe == 0 {
					continue // impossible evidence: refused or arbitrary
				}
				if err != nil {
					t.Fatalf("seed %d: %s: %v", seed, text, err)
				}
				if !(math.Abs(a.Decision.Value-want) <= 1e-9) {
					t.Errorf("seed %d: %s = %v, brute force %v", seed, text, a.Decision.Value, want)
				}
			}
		}
	}
}

// TestLIMIDLocalOptimum answers MEU() on generated diagrams without
// perfect recall and checks, by enumeration, that the strategy answered
// is worth the MEU answered and that no change of one policy improves it.
func TestLIMIDLocalOptimum(t *testing.T) {
	limids := 0
	for seed := range uint64(25) {
		r := rand.New(rand.NewPCG(seed, 11))
		g := drawDiagram(r, false)
		src := g.source()
		m, err := Load("gen.pbl", []byte(src))
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		ans := answerText(t, m, "MEU()")
		if ans.LocalOptimum {
			limids++
		}
		s := g.strategyOf(t, ans)
		x, _ := g.eu(s, nil)
		if !(math.Abs(x-ans.Value) <= 1e-9) {
			t.Errorf("seed %d: MEU() = %v, its strategy is worth %v", seed, ans.Value, x)
		}
		for _, d := range g.decisions() {
			keep := s[d]
			g.strategies([]int{d}, strategy{}, func(one strategy) {
				s[d] = one[d]
				if y, _ := g.eu(s, nil); y > x+1e-9 {
					t.Errorf("seed %d: changing the policy of %s alone improves %v to %v", seed, g.nodes[d].name, x, y)
				}
			})
			s[d] = keep
		}
	}
	if limids == 0 {
		t.Error("no generated diagram was a LIMID")
	}
}
