package pbl

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/decision"
	"github.com/pbl-lang/pbl/ir"
)

// ancestorsOf returns whether each node of g is a proper ancestor of v,
// with the arcs into the nodes of cut removed (graph surgery).
func (g *genDiagram) ancestorsOf(v int, cut map[int]int) []bool {
	anc := make([]bool, len(g.nodes))
	var walk func(int)
	walk = func(w int) {
		if _, ok := cut[w]; ok {
			return
		}
		for _, p := range g.nodes[w].parents {
			if !anc[p] {
				anc[p] = true
				walk(p)
			}
		}
	}
	walk(v)
	return anc
}

// drawConditions draws conditions for a decision query on g: decisions
// set (as D=s or do(D=s)), a chance variable set by do(X=s), and hard
// findings on chance variables no free decision is an ancestor of after
// the surgery. It returns the terms after the bar for MEU, the same for
// EU (the decisions set as do(D=s): EU(... | D=s) observes a decision of
// its information), the nodes set (do: every set node, chance or
// decision) and the findings (cond).
func drawConditions(r *rand.Rand, g *genDiagram, skip int) (terms, euTerms []string, do, cond map[int]int) {
	do, cond = map[int]int{}, map[int]int{}
	for i, nd := range g.nodes {
		if i == skip {
			continue
		}
		switch {
		case nd.decision && r.IntN(3) == 0:
			st := r.IntN(2)
			do[i] = st
			if r.IntN(2) == 0 {
				terms = append(terms, fmt.Sprintf("%s=s%d", nd.name, st))
			} else {
				terms = append(terms, fmt.Sprintf("do(%s=s%d)", nd.name, st))
			}
			euTerms = append(euTerms, fmt.Sprintf("do(%s=s%d)", nd.name, st))
		case !nd.decision && r.IntN(6) == 0:
			st := r.IntN(2)
			do[i] = st
			terms = append(terms, fmt.Sprintf("do(%s=s%d)", nd.name, st))
			euTerms = append(euTerms, terms[len(terms)-1])
		}
	}
	for i, nd := range g.nodes {
		if _, set := do[i]; set || nd.decision || i == skip || r.IntN(3) != 0 {
			continue
		}
		free := true
		for a, is := range g.ancestorsOf(i, do) {
			if _, set := do[a]; is && g.nodes[a].decision && !set {
				free = false
			}
		}
		if !free {
			continue
		}
		st := r.IntN(2)
		cond[i] = st
		terms = append(terms, fmt.Sprintf("%s=s%d", nd.name, st))
		euTerms = append(euTerms, terms[len(terms)-1])
	}
	r.Shuffle(len(terms), func(i, j int) { terms[i], terms[j] = terms[j], terms[i] })
	return terms, euTerms, do, cond
}

// TestDecisionConditionsAgainstBruteForce asks MEU(| e) and policy(D | e)
// on generated perfect-recall diagrams written as .pbl text, with
// decisions set (D=d, do(D=d)), chance variables set by do(X=x) and
// findings, and checks them against the enumeration of every strategy of
// the decisions left free: the MEU is the best strategy's expected
// utility conditioned on the findings after the surgery, and the strategy
// answered attains it. EU(D=d | e) of the last free decision, given a
// whole configuration of its parents and the findings, is the brute
// force's conditional expected utility.
func TestDecisionConditionsAgainstBruteForce(t *testing.T) {
	checked, impossible := 0, 0
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 13))
		g := drawDiagram(r, true)
		src := g.source()
		m, err := Load("gen.pbl", []byte(src))
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		terms, euTerms, do, cond := drawConditions(r, g, -1)
		var free []int
		for _, d := range g.decisions() {
			if _, set := do[d]; !set {
				free = append(free, d)
			}
		}
		text := "MEU(| " + strings.Join(terms, ", ") + ")"
		if len(terms) == 0 {
			text = "MEU()"
		}
		best, pe := math.Inf(-1), 0.0
		g.strategies(free, strategy{}, func(s strategy) {
			x, p := g.euDo(s, cond, do)
			pe = p
			if p > 0 && x > best {
				best = x
			}
		})
		q, err := ParseQuery(m, text)
		if err != nil {
			t.Fatalf("seed %d: %s: %v\n%s", seed, text, err, src)
		}
		a, err := AnswerQuery(m, q, AnswerOptions{})
		if pe == 0 {
			if !errors.Is(err, decision.ErrImpossible) {
				t.Errorf("seed %d: %s of probability 0: %v", seed, text, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("seed %d: %s: %v\n%s", seed, text, err, src)
		}
		ans := a.Decision
		if !(math.Abs(ans.Value-best) <= 1e-9) {
			t.Errorf("seed %d: %s = %v, brute force %v\n%s", seed, text, ans.Value, best, src)
		}
		s := g.strategyOf(t, ans)
		if len(s) != len(free) {
			t.Errorf("seed %d: %s answers %d policies for %d free decisions", seed, text, len(s), len(free))
		}
		if x, _ := g.euDo(s, cond, do); !(math.Abs(x-best) <= 1e-9) {
			t.Errorf("seed %d: %s: the strategy answered is worth %v, the best %v", seed, text, x, best)
		}
		for _, p := range ans.Policies {
			for _, row := range p.Rows {
				if row.Impossible {
					impossible++
				}
			}
		}
		checked++
		if len(free) == 0 {
			continue
		}
		// EU of the last free decision given each configuration of its
		// parents (all earlier decisions among them) and the findings.
		last := free[len(free)-1]
		nd := g.nodes[last]
		for c := 0; c < 1<<len(nd.parents); c++ {
			fixed := map[int]int{}
			for k, v := range cond {
				fixed[k] = v
			}
			eterms := slices.Clone(euTerms)
			clash := false
			for j, p := range nd.parents {
				st := c >> (len(nd.parents) - 1 - j) & 1
				if prev, ok := fixed[p]; ok && prev != st {
					clash = true
				}
				if prev, ok := do[p]; ok && prev != st {
					clash = true
				}
				if _, ok := fixed[p]; ok {
					continue
				}
				if _, ok := do[p]; ok {
					continue
				}
				fixed[p] = st
				eterms = append(eterms, fmt.Sprintf("%s=s%d", g.nodes[p].name, st))
			}
			if clash {
				continue
			}
			for choice := range 2 {
				fixed[last] = choice
				want, pe := g.euDo(s, fixed, do)
				text := fmt.Sprintf("EU(%s=s%d | %s)", nd.name, choice, strings.Join(eterms, ", "))
				if len(eterms) == 0 {
					text = fmt.Sprintf("EU(%s=s%d)", nd.name, choice)
				}
				q, err := ParseQuery(m, text)
				if err != nil {
					t.Fatalf("seed %d: %s: %v", seed, text, err)
				}
				a, err := AnswerQuery(m, q, AnswerOptions{})
				if pe == 0 {
					if err == nil {
						t.Errorf("seed %d: %s = %v on impossible evidence", seed, text, a.Decision.Value)
					}
					continue
				}
				if err != nil {
					t.Fatalf("seed %d: %s: %v\n%s", seed, text, err, src)
				}
				if !(math.Abs(a.Decision.Value-want) <= 1e-9) {
					t.Errorf("seed %d: %s = %v, brute force %v\n%s", seed, text, a.Decision.Value, want, src)
				}
			}
		}
	}
	t.Logf("%d conditioned MEUs checked by brute force, %d impossible policy rows", checked, impossible)
	if checked < 30 || impossible == 0 {
		t.Errorf("only %d checked, %d impossible rows", checked, impossible)
	}
}

// TestLIMIDConditionsLocalOptimum: on generated LIMIDs with conditions,
// MEU(| e) is the worth of its strategy given e, and no change of one
// policy improves it.
func TestLIMIDConditionsLocalOptimum(t *testing.T) {
	checked := 0
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 17))
		g := drawDiagram(r, false)
		m, err := Load("gen.pbl", []byte(g.source()))
		if err != nil {
			t.Fatal(err)
		}
		terms, _, do, cond := drawConditions(r, g, -1)
		if len(terms) == 0 {
			continue
		}
		text := "MEU(| " + strings.Join(terms, ", ") + ")"
		q, err := ParseQuery(m, text)
		if err != nil {
			t.Fatalf("seed %d: %s: %v", seed, text, err)
		}
		a, err := AnswerQuery(m, q, AnswerOptions{})
		if err != nil {
			if errors.Is(err, decision.ErrImpossible) {
				continue
			}
			t.Fatalf("seed %d: %s: %v", seed, text, err)
		}
		s := g.strategyOf(t, a.Decision)
		x, _ := g.euDo(s, cond, do)
		if !(math.Abs(x-a.Decision.Value) <= 1e-9) {
			t.Errorf("seed %d: %s = %v, its strategy is worth %v", seed, text, a.Decision.Value, x)
		}
		for d := range s {
			keep := s[d]
			g.strategies([]int{d}, strategy{}, func(one strategy) {
				s[d] = one[d]
				if y, _ := g.euDo(s, cond, do); y > x+1e-9 {
					t.Errorf("seed %d: %s: changing the policy of %s alone improves %v to %v", seed, text, g.nodes[d].name, x, y)
				}
			})
			s[d] = keep
		}
		checked++
	}
	if checked < 10 {
		t.Errorf("only %d checked", checked)
	}
}

// TestDecisionConditionErrors: a finding on a variable a free decision
// influences, likelihood evidence on a decision, real values, and
// policy(D) with D set are refused with positioned errors.
func TestDecisionConditionErrors(t *testing.T) {
	m, err := LoadFile("examples/oil.pbl")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query string
		kind  error
	}{
		{"MEU(| Result=closed)", decision.ErrEvidence},         // Result depends on Test, free
		{"EU(Test=yes | Result=closed)", decision.ErrEvidence}, // the same: Test is free when solving
		{"MEU(| Test~[0.5, 0.5])", nil},                        // a decision is set, not observed
		{"policy(Drill | do(Drill=yes))", nil},                 // Drill twice
		{"MEU(| Oil=wet, do(Oil=dry))", nil},                   // Oil twice
		{"MEU(X)", nil},                                        // MEU names no variable
	} {
		q, err := ParseQuery(m, c.query)
		if err == nil {
			_, err = AnswerQuery(m, q, AnswerOptions{})
		}
		var ie *ir.Error
		if !errors.As(err, &ie) || ie.Pos.Line == 0 {
			t.Errorf("%s: %v, want a positioned error", c.query, err)
			continue
		}
		if c.kind != nil && !errors.Is(err, c.kind) {
			t.Errorf("%s: %v, want kind %v", c.query, err, c.kind)
		}
	}
}

// TestRankVPIAgainstBruteForce: on generated perfect-recall diagrams, the
// value of perfect information of each chance variable at a decision D
// is the best strategy's expected utility, by enumeration, with the
// variable added to the parents of D and of every later decision (so that
// recall stays as written) minus the best without; the variables ranked
// are exactly the chance variables neither parents of D nor its
// descendants.
func TestRankVPIAgainstBruteForce(t *testing.T) {
	checked := 0
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 19))
		g := drawDiagram(r, true)
		m, err := Load("gen.pbl", []byte(g.source()))
		if err != nil {
			t.Fatal(err)
		}
		decs := g.decisions()
		k := r.IntN(len(decs))
		dec := decs[k]
		best := func(g *genDiagram) float64 {
			b := math.Inf(-1)
			g.strategies(g.decisions(), strategy{}, func(s strategy) {
				if x, _ := g.eu(s, nil); x > b {
					b = x
				}
			})
			return b
		}
		without := best(g)
		q, err := ParseQuery(m, "MEU()")
		if err != nil {
			t.Fatal(err)
		}
		meu, ranked, err := RankVPI(m, ir.VarID(dec), q.(*ir.DecisionQuery), nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !(math.Abs(meu-without) <= 1e-9) {
			t.Errorf("seed %d: MEU %v, brute force %v", seed, meu, without)
		}
		var want []int
		for x, nd := range g.nodes {
			if nd.decision || slices.Contains(g.nodes[dec].parents, x) || g.ancestorsOf(x, nil)[dec] {
				continue
			}
			want = append(want, x)
		}
		if len(ranked) != len(want) {
			t.Fatalf("seed %d: %d variables ranked, want %v", seed, len(ranked), want)
		}
		for i, v := range ranked {
			x := int(v.Var)
			if !slices.Contains(want, x) {
				t.Fatalf("seed %d: %s ranked, not a candidate", seed, g.nodes[x].name)
			}
			if i > 0 && ranked[i-1].Value < v.Value {
				t.Errorf("seed %d: not sorted", seed)
			}
			h := &genDiagram{nodes: slices.Clone(g.nodes), utils: g.utils}
			for _, d := range decs[k:] {
				ps := slices.Clone(h.nodes[d].parents)
				if !slices.Contains(ps, x) {
					ps = append(ps, x)
					slices.Sort(ps)
				}
				h.nodes[d].parents = ps
			}
			rows := 0
			for _, d := range decs {
				rows += 1 << len(h.nodes[d].parents)
			}
			if rows > 16 { // at most 2^16 strategies to enumerate
				continue
			}
			vpi := best(h) - without
			if !(math.Abs(v.Value-vpi) <= 1e-9) {
				t.Errorf("seed %d: VPI of %s at %s = %v, brute force %v", seed, g.nodes[x].name, g.nodes[dec].name, v.Value, vpi)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("only %d values checked", checked)
	}
}

// TestOilEVPI: the oil wildcatter's expected value of perfect information
// about Oil at Drill, by hand. Without the test (Test=no, set), drilling
// blind is worth .5·-70 + .3·50 + .2·200 = 20; knowing Oil, the
// wildcatter drills only when wet or soaking, .3·50 + .2·200 = 55: EVPI =
// 55 - 20 = 35 (Raiffa's clairvoyant). With the test available, Oil known
// at Drill makes the test worthless (its cost saved): 55 - 22.5 = 32.5.
func TestOilEVPI(t *testing.T) {
	m, err := LoadFile("examples/oil.pbl")
	if err != nil {
		t.Fatal(err)
	}
	drill, _ := m.Lookup("Drill")
	for _, c := range []struct {
		meu         string
		base, value float64
	}{
		{"MEU(| Test=no)", 20, 35},
		{"MEU()", 22.5, 32.5},
	} {
		q, err := ParseQuery(m, c.meu)
		if err != nil {
			t.Fatal(err)
		}
		meu, r, err := RankVPI(m, drill.ID, q.(*ir.DecisionQuery), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !(math.Abs(meu-c.base) <= 1e-9) || len(r) != 1 || m.Vars[r[0].Var].Name != "Oil" || !(math.Abs(r[0].Value-c.value) <= 1e-9) {
			t.Errorf("%s: MEU %v, ranking %v; want %v and Oil %v", c.meu, meu, r, c.base, c.value)
		}
	}
}

// TestEUPartialInformation: EU(D=d | e) with e naming part of D's
// information, earlier decisions among it, observes them: the decisions
// not named follow MEU()'s policies, checked against the enumeration with
// that strategy (the last decision: no later one to optimise).
func TestEUPartialInformation(t *testing.T) {
	checked := 0
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 23))
		g := drawDiagram(r, true)
		m, err := Load("gen.pbl", []byte(g.source()))
		if err != nil {
			t.Fatal(err)
		}
		s := g.strategyOf(t, answerText(t, m, "MEU()"))
		decs := g.decisions()
		last := decs[len(decs)-1]
		nd := g.nodes[last]
		fixed := map[int]int{}
		var terms []string
		for _, p := range nd.parents {
			if r.IntN(2) == 0 {
				st := r.IntN(2)
				fixed[p] = st
				terms = append(terms, fmt.Sprintf("%s=s%d", g.nodes[p].name, st))
			}
		}
		for choice := range 2 {
			fixed[last] = choice
			want, pe := g.eu(s, fixed)
			text := fmt.Sprintf("EU(%s=s%d | %s)", nd.name, choice, strings.Join(terms, ", "))
			if len(terms) == 0 {
				text = fmt.Sprintf("EU(%s=s%d)", nd.name, choice)
			}
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
			checked++
		}
	}
	if checked < 40 {
		t.Errorf("only %d checked", checked)
	}
}
