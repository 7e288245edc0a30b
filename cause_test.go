package pbl_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/causal"
	"github.com/pbl-lang/pbl/ir"
)

// A causalNet is a random model written out as .pbl text by the tests of
// causal questions: variables in a topological order (parents before
// children), the latent ones roots with observed children, every table
// known to the test, which computes every reference by enumeration.
type causalNet struct {
	names   []string
	latent  []bool
	card    []int
	parents [][]int
	cpt     [][]float64 // cpt[v][parentConfig*card[v]+state], the last parent fastest
}

func (n *causalNet) stateName(v, s int) string {
	if n.latent[v] {
		return fmt.Sprintf("a%d", s)
	}
	return fmt.Sprintf("s%d", s)
}

// randomCausalNet returns a model of nObs observed and nLat latent
// variables; each latent one has two or three observed children, and
// each observed variable the earlier observed ones as parents with
// probability 0.4. With quarter set every variable is binary and every
// probability a multiple of 1/4, so that the joint is exact in counts.
func randomCausalNet(r *rand.Rand, nObs, nLat int, quarter bool) *causalNet {
	n := nLat + nObs
	net := &causalNet{names: make([]string, n), latent: make([]bool, n), card: make([]int, n), parents: make([][]int, n), cpt: make([][]float64, n)}
	for v := range n {
		net.latent[v] = v < nLat
		if net.latent[v] {
			net.names[v] = fmt.Sprintf("U%d", v)
		} else {
			net.names[v] = fmt.Sprintf("V%d", v-nLat)
		}
		net.card[v] = 2
		if !quarter && r.IntN(3) == 0 {
			net.card[v] = 3
		}
	}
	for u := range nLat {
		for _, c := range r.Perm(nObs)[:2+r.IntN(2)] {
			net.parents[nLat+c] = append(net.parents[nLat+c], u)
		}
	}
	for v := nLat; v < n; v++ {
		for p := nLat; p < v; p++ {
			if r.Float64() < 0.4 {
				net.parents[v] = append(net.parents[v], p)
			}
		}
		slices.Sort(net.parents[v])
	}
	for v := range n {
		rows := 1
		for _, p := range net.parents[v] {
			rows *= net.card[p]
		}
		k := net.card[v]
		t := make([]float64, rows*k)
		for row := range rows {
			if quarter {
				q := float64(1+r.IntN(3)) / 4
				t[row*2], t[row*2+1] = q, 1-q
				continue
			}
			sum := 0.0
			for s := range k {
				t[row*k+s] = 0.05 + r.Float64()
				sum += t[row*k+s]
			}
			for s := range k {
				t[row*k+s] /= sum
			}
		}
		net.cpt[v] = t
	}
	return net
}

// decl writes the declarations and edges of the model, and the tables
// when tables is set.
func (n *causalNet) source(tables bool, extra string) string {
	var b strings.Builder
	for v, name := range n.names {
		kw := "var"
		if n.latent[v] {
			kw = "latent"
		}
		states := make([]string, n.card[v])
		for s := range states {
			states[s] = n.stateName(v, s)
		}
		fmt.Fprintf(&b, "%s %s: {%s}\n", kw, name, strings.Join(states, ", "))
	}
	for v, ps := range n.parents {
		for _, p := range ps {
			fmt.Fprintf(&b, "%s -> %s\n", n.names[p], n.names[v])
		}
	}
	if tables {
		for v := range n.names {
			b.WriteString(n.table(v))
		}
	}
	b.WriteString(extra)
	return b.String()
}

// table writes P(v | parents) in pbl's syntax, every number as its
// float64 exactly.
func (n *causalNet) table(v int) string {
	var b strings.Builder
	k := n.card[v]
	vec := func(row int) string {
		xs := make([]string, k)
		for s := range k {
			xs[s] = fmt.Sprintf("%.17g", n.cpt[v][row*k+s])
		}
		return "[" + strings.Join(xs, ", ") + "]"
	}
	ps := n.parents[v]
	if len(ps) == 0 {
		fmt.Fprintf(&b, "P(%s) = %s\n", n.names[v], vec(0))
		return b.String()
	}
	pn := make([]string, len(ps))
	for i, p := range ps {
		pn[i] = n.names[p]
	}
	fmt.Fprintf(&b, "P(%s | %s) = {\n", n.names[v], strings.Join(pn, ", "))
	for row, cfg := range n.configs(ps) {
		states := make([]string, len(ps))
		for i, p := range ps {
			states[i] = n.stateName(p, cfg[i])
		}
		fmt.Fprintf(&b, "    %s: %s\n", strings.Join(states, ", "), vec(row))
	}
	b.WriteString("}\n")
	return b.String()
}

// configs returns every configuration of vars, row-major (the last
// fastest).
func (n *causalNet) configs(vars []int) [][]int {
	out := [][]int{nil}
	for _, v := range vars {
		var next [][]int
		for _, c := range out {
			for s := range n.card[v] {
				next = append(next, append(slices.Clone(c), s))
			}
		}
		out = next
	}
	return out
}

// rowOf returns the row of v's table for the states st of every variable.
func (n *causalNet) rowOf(v int, st []int) int {
	row := 0
	for _, p := range n.parents[v] {
		row = row*n.card[p] + st[p]
	}
	return row
}

// prob returns, by enumeration of every variable, the probability that
// every variable of event has its state, with the variables of do cut
// from their parents and set.
func (n *causalNet) prob(event, do map[int]int) float64 {
	all := make([]int, len(n.names))
	for v := range all {
		all[v] = v
	}
	total := 0.0
	for _, st := range n.configs(all) {
		ok := true
		for v, s := range event {
			ok = ok && st[v] == s
		}
		for v, s := range do {
			ok = ok && st[v] == s
		}
		if !ok {
			continue
		}
		p := 1.0
		for v := range n.names {
			if _, set := do[v]; set {
				continue
			}
			p *= n.cpt[v][n.rowOf(v, st)*n.card[v]+st[v]]
		}
		total += p
	}
	return total
}

// observedBIF writes the observed marginal as a BIF file: a complete DAG
// over the observed variables in order, each table the conditional of the
// enumerated joint (uniform where its condition has probability 0).
func (n *causalNet) observedBIF() string {
	var obs []int
	for v := range n.names {
		if !n.latent[v] {
			obs = append(obs, v)
		}
	}
	var b strings.Builder
	b.WriteString("network observed {\n}\n")
	for _, v := range obs {
		states := make([]string, n.card[v])
		for s := range states {
			states[s] = n.stateName(v, s)
		}
		fmt.Fprintf(&b, "variable %s {\n  type discrete [ %d ] { %s };\n}\n", n.names[v], n.card[v], strings.Join(states, ", "))
	}
	for i, v := range obs {
		pre := obs[:i]
		pn := make([]string, len(pre))
		for j, p := range pre {
			pn[j] = n.names[p]
		}
		if len(pre) == 0 {
			fmt.Fprintf(&b, "probability ( %s ) {\n  table", n.names[v])
		} else {
			fmt.Fprintf(&b, "probability ( %s | %s ) {\n", n.names[v], strings.Join(pn, ", "))
		}
		for _, cfg := range n.configs(pre) {
			cond := map[int]int{}
			states := make([]string, len(pre))
			for j, p := range pre {
				cond[p] = cfg[j]
				states[j] = n.stateName(p, cfg[j])
			}
			den := n.prob(cond, nil)
			xs := make([]string, n.card[v])
			for s := range xs {
				q := 1 / float64(n.card[v])
				if den > 0 {
					ev := maps(cond)
					ev[v] = s
					q = n.prob(ev, nil) / den
				}
				xs[s] = fmt.Sprintf("%.17g", q)
			}
			if len(pre) == 0 {
				fmt.Fprintf(&b, " %s;\n}\n", strings.Join(xs, ", "))
			} else {
				fmt.Fprintf(&b, "  (%s) %s;\n", strings.Join(states, ", "), strings.Join(xs, ", "))
			}
		}
		if len(pre) > 0 {
			b.WriteString("}\n")
		}
	}
	return b.String()
}

func maps(m map[int]int) map[int]int {
	out := make(map[int]int, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestIdentifyEqualsSurgery: on random models with latent variables
// whose tables are given, P(Y=y | do(X=x), Z=z) asked of the model written
// without the latent tables, its observed distribution a separate BIF
// file (the observed marginal, enumerated here), is either identified and
// equal to the effect computed here by enumeration on the full model (the
// truncated factorisation) to 1e-9, or refused as not identifiable with a
// hedge; the full model's surgery and identify(...) on the full model
// (its latent variables summed out) agree with both; the verdicts agree.
func TestIdentifyEqualsSurgery(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 1))
	dir := t.TempDir()
	identified, refused := 0, 0
	for trial := range 40 {
		net := randomCausalNet(r, 3+r.IntN(3), 1+r.IntN(3), false)
		nLat := 0
		for _, l := range net.latent {
			if l {
				nLat++
			}
		}
		bifPath := filepath.Join(dir, fmt.Sprintf("obs%d.bif", trial))
		if err := os.WriteFile(bifPath, []byte(net.observedBIF()), 0o644); err != nil {
			t.Fatal(err)
		}
		graph, err := pbl.Load(filepath.Join(dir, fmt.Sprintf("graph%d.pbl", trial)), []byte(net.source(false, fmt.Sprintf("observed %q\n", filepath.Base(bifPath)))))
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		full, err := pbl.Load("full.pbl", []byte(net.source(true, "")))
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if !graph.NeedsIdentification() || full.NeedsIdentification() {
			t.Fatalf("trial %d: NeedsIdentification %v on the graph, %v on the full model", trial, graph.NeedsIdentification(), full.NeedsIdentification())
		}
		nObs := len(net.names) - nLat
		for range 6 {
			perm := r.Perm(nObs)
			x, y := nLat+perm[0], nLat+perm[1]
			xs, ys := r.IntN(net.card[x]), r.IntN(net.card[y])
			event, do := map[int]int{y: ys}, map[int]int{x: xs}
			cond := map[int]int{}
			text := fmt.Sprintf("P(%s=%s | do(%s=%s)", net.names[y], net.stateName(y, ys), net.names[x], net.stateName(x, xs))
			idText := fmt.Sprintf("identify(%s=%s | do(%s=%s)", net.names[y], net.stateName(y, ys), net.names[x], net.stateName(x, xs))
			if nObs > 2 && r.IntN(2) == 0 {
				z := nLat + perm[2]
				zs := r.IntN(net.card[z])
				event[z], cond[z] = zs, zs
				text += fmt.Sprintf(", %s=%s", net.names[z], net.stateName(z, zs))
				idText += fmt.Sprintf(", %s=%s", net.names[z], net.stateName(z, zs))
			}
			text += ")"
			idText += ")"
			want := net.prob(event, do) / net.prob(cond, do)
			if math.IsNaN(want) {
				t.Fatalf("trial %d: %s: the reference is NaN", trial, text)
			}
			// Surgery on the full model, as before this issue.
			if got := ask(t, full, text); !(math.Abs(got-want) <= 1e-9) {
				t.Errorf("trial %d: %s by surgery = %v, enumeration %v", trial, text, got, want)
			}
			a, err := pbl.Ask(graph, text)
			idFull, errFull := pbl.Ask(full, idText)
			if errFull != nil {
				t.Fatalf("trial %d: %s on the full model: %v", trial, idText, errFull)
			}
			var ni *causal.NotIdentifiableError
			switch {
			case errors.As(err, &ni):
				refused++
				var e *ir.Error
				if !errors.As(err, &e) || e.Pos.Line == 0 || !strings.Contains(e.Msg, "hedge F = {") {
					t.Errorf("trial %d: %s: the refusal is not positioned or names no hedge: %v", trial, text, err)
				}
				var zs []string
				for v := range cond {
					zs = append(zs, net.names[v])
				}
				if msg := hedgeProblem(net, ni.Hedge, net.names[y], net.names[x], zs); msg != "" {
					t.Errorf("trial %d: %s: hedge %v: %s", trial, text, ni.Hedge, msg)
				}
				if idFull.Causal.Identifiable {
					t.Errorf("trial %d: %s: identified on the full model, refused on the graph", trial, text)
				}
			case err != nil:
				t.Fatalf("trial %d: %s: %v", trial, text, err)
			default:
				identified++
				got, _ := a.Prob()
				if !(math.Abs(got-want) <= 1e-9) {
					t.Errorf("trial %d: %s identified by %s = %v, enumeration on the full model %v\n%s", trial, text, a.Causal.Estimand, got, want, net.source(true, ""))
				}
				if !idFull.Causal.Identifiable || len(idFull.Causal.Rows) != 1 {
					t.Fatalf("trial %d: %s on the full model: not identified or not evaluated", trial, idText)
				}
				if got := idFull.Causal.Rows[0].P; !(math.Abs(got-want) <= 1e-9) {
					t.Errorf("trial %d: %s on the full model (latents summed out) = %v, enumeration %v", trial, idText, got, want)
				}
			}
		}
	}
	if identified < 40 || refused < 10 {
		t.Errorf("%d effects identified and %d refused: the generator should give many of each", identified, refused)
	}
	t.Logf("%d identified, %d not identifiable", identified, refused)
}

// ask answers a query with one number.
func ask(t *testing.T, m *ir.Model, text string) float64 {
	t.Helper()
	a, err := pbl.Ask(m, text)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	p, err := a.Prob()
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return p
}

// TestIdentifyOnData: the observed distribution as data, a CSV file whose
// rows are the observed marginal in exact counts (every probability of
// the full model a multiple of 1/4), gives the effect equal to
// enumeration on the full model to 1e-9 wherever it is identified.
func TestIdentifyOnData(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 2))
	dir := t.TempDir()
	identified := 0
	for trial := range 12 {
		nObs, nLat := 3+r.IntN(2), 1+r.IntN(2)
		net := randomCausalNet(r, nObs, nLat, true)
		// Odd trials write every variable's column, as a sample of the
		// full model would: the latent columns are left out.
		var obs []int
		var header []string
		for v := range net.names {
			if !net.latent[v] || trial%2 == 1 {
				obs = append(obs, v)
				header = append(header, net.names[v])
			}
		}
		// 4^n rows in all: each observed configuration its probability
		// times 4^n, an integer.
		scale := math.Pow(4, float64(len(net.names)))
		var b strings.Builder
		b.WriteString(strings.Join(header, ",") + "\n")
		rows := 0
		for _, cfg := range net.configs(obs) {
			ev := map[int]int{}
			cells := make([]string, len(obs))
			for i, v := range obs {
				ev[v] = cfg[i]
				cells[i] = net.stateName(v, cfg[i])
			}
			c := net.prob(ev, nil) * scale
			k := int(math.Round(c))
			if math.Abs(c-float64(k)) > 1e-6 {
				t.Fatalf("trial %d: count %v is not an integer", trial, c)
			}
			for range k {
				b.WriteString(strings.Join(cells, ",") + "\n")
			}
			rows += k
		}
		csv := filepath.Join(dir, fmt.Sprintf("obs%d.csv", trial))
		if err := os.WriteFile(csv, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		graph, err := pbl.Load(filepath.Join(dir, fmt.Sprintf("graph%d.pbl", trial)), []byte(net.source(false, fmt.Sprintf("observed data %q\n", filepath.Base(csv)))))
		if err != nil {
			t.Fatal(err)
		}
		for range 4 {
			perm := r.Perm(nObs)
			x, y := nLat+perm[0], nLat+perm[1]
			text := fmt.Sprintf("P(%s=s1 | do(%s=s0))", net.names[y], net.names[x])
			want := net.prob(map[int]int{y: 1}, map[int]int{x: 0})
			a, err := pbl.Ask(graph, text)
			if errors.Is(err, causal.ErrNotIdentifiable) {
				continue
			}
			if err != nil {
				t.Fatalf("trial %d: %s: %v", trial, text, err)
			}
			identified++
			got, _ := a.Prob()
			if !(math.Abs(got-want) <= 1e-9) {
				t.Errorf("trial %d: %s on %d rows = %v, enumeration %v", trial, text, rows, got, want)
			}
			if !strings.Contains(a.Causal.Observed, fmt.Sprintf("(%d rows)", rows)) {
				t.Errorf("trial %d: the answer says it used %s, not the %d rows", trial, a.Causal.Observed, rows)
			}
		}
	}
	if identified < 10 {
		t.Errorf("only %d effects identified", identified)
	}
}

// A randomSCM is a structural model written by the counterfactual tests:
// exogenous variables (latent, with tables) first, then endogenous ones,
// each a function f of its parents.
type randomSCM struct {
	net  *causalNet
	nExo int
	f    [][]int // f[v][row]: the state of endogenous v for its parents' row
}

func newRandomSCM(r *rand.Rand) *randomSCM {
	nExo, nEndo := 1+r.IntN(3), 3+r.IntN(3)
	net := randomCausalNet(r, nEndo, nExo, false)
	s := &randomSCM{net: net, nExo: nExo, f: make([][]int, len(net.names))}
	for v := nExo; v < len(net.names); v++ {
		if len(net.parents[v]) == 0 || !net.latent[net.parents[v][0]] {
			// every endogenous variable has an exogenous parent
			net.parents[v] = append([]int{r.IntN(nExo)}, net.parents[v]...)
			net.parents[v] = slices.Compact(slices.Sorted(slices.Values(net.parents[v])))
		}
		rows := len(net.configs(net.parents[v]))
		k := net.card[v]
		s.f[v] = make([]int, rows)
		net.cpt[v] = make([]float64, rows*k)
		for row := range rows {
			s.f[v][row] = r.IntN(k)
			net.cpt[v][row*k+s.f[v][row]] = 1
		}
	}
	return s
}

// solve returns every variable's state for the exogenous states u, with
// the variables of do set.
func (s *randomSCM) solve(u []int, do map[int]int) []int {
	st := make([]int, len(s.net.names))
	copy(st, u)
	for v := s.nExo; v < len(st); v++ {
		if x, ok := do[v]; ok {
			st[v] = x
			continue
		}
		st[v] = s.f[v][s.net.rowOf(v, st)]
	}
	return st
}

// counterfactual returns P(Y=y in the world under do | evidence in the
// factual world) by enumerating the exogenous states, and P(evidence).
func (s *randomSCM) counterfactual(y map[int]int, do map[int]int, evidence map[int]int) (float64, float64) {
	exo := make([]int, s.nExo)
	for i := range exo {
		exo[i] = i
	}
	num, den := 0.0, 0.0
	for _, u := range s.net.configs(exo) {
		w := 1.0
		for i, x := range u {
			w *= s.net.cpt[i][x]
		}
		fact, cf := s.solve(u, nil), s.solve(u, do)
		ok := true
		for v, x := range evidence {
			ok = ok && fact[v] == x
		}
		if !ok {
			continue
		}
		den += w
		hit := true
		for v, x := range y {
			hit = hit && cf[v] == x
		}
		if hit {
			num += w
		}
	}
	return num, den
}

// TestCounterfactualBruteForce: CF(Y=y | do(X=x), e) on random structural
// models written as .pbl (exogenous latent variables with tables, every
// observed variable's table 0 or 1 in every row) equals the enumeration of
// the exogenous states written here to 1e-9; evidence of probability 0 is
// an error; the probabilities of necessity and sufficiency are among the
// queries (e holding X and Y).
func TestCounterfactualBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 3))
	checked := 0
	for trial := range 40 {
		s := newRandomSCM(r)
		net := s.net
		m, err := pbl.Load("scm.pbl", []byte(net.source(true, "")))
		if err != nil {
			t.Fatalf("trial %d: %v\n%s", trial, err, net.source(true, ""))
		}
		nEndo := len(net.names) - s.nExo
		for range 8 {
			perm := r.Perm(nEndo)
			x, y := s.nExo+perm[0], s.nExo+perm[1]
			xs, ys := r.IntN(net.card[x]), r.IntN(net.card[y])
			evidence := map[int]int{}
			var terms []string
			switch r.IntN(3) {
			case 0: // necessity or sufficiency: X and Y observed
				evidence[x], evidence[y] = r.IntN(net.card[x]), r.IntN(net.card[y])
			case 1:
				z := s.nExo + perm[r.IntN(nEndo)]
				evidence[z] = r.IntN(net.card[z])
			}
			for _, v := range slices.Sorted(func(yield func(int) bool) {
				for v := range evidence {
					if !yield(v) {
						return
					}
				}
			}) {
				terms = append(terms, fmt.Sprintf("%s=%s", net.names[v], net.stateName(v, evidence[v])))
			}
			text := fmt.Sprintf("CF(%s=%s | do(%s=%s)", net.names[y], net.stateName(y, ys), net.names[x], net.stateName(x, xs))
			for _, term := range terms {
				text += ", " + term
			}
			text += ")"
			num, den := s.counterfactual(map[int]int{y: ys}, map[int]int{x: xs}, evidence)
			a, err := pbl.Ask(m, text)
			if den == 0 {
				if !errors.Is(err, causal.ErrPositivity) {
					t.Errorf("trial %d: %s: evidence of probability 0 gave %v", trial, text, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("trial %d: %s: %v", trial, text, err)
			}
			got, _ := a.Prob()
			if want := num / den; !(math.Abs(got-want) <= 1e-9) {
				t.Errorf("trial %d: %s = %v, enumeration %v\n%s", trial, text, got, want, net.source(true, ""))
			}
			checked++
		}
	}
	if checked < 200 {
		t.Errorf("only %d counterfactuals checked", checked)
	}
}

// TestCausalRefusals: the questions pbl cannot answer are refused with
// positioned errors of their kinds.
func TestCausalRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, src, query string
		kind             error
	}{
		{"noisy mechanism", "latent U: bool\nvar X, Y: bool\nU -> X -> Y\nP(U) = 0.5\nP(X | U) = U\nP(Y | X) = { true: 0.9  false: 0.1 }\n",
			"CF(Y=true | do(X=false), Y=true)", ir.ErrNotDeterministic},
		{"confounder without a table", "var X, Y: bool\nX -> Y\nX <-> Y\nP(X) = 0.5\nP(Y | X) = X\n",
			"CF(Y=true | do(X=false), Y=true)", ir.ErrNotDeterministic},
		{"latent without a table", "latent U: bool\nvar X, Y: bool\nU -> X -> Y\nP(X | U) = U\nP(Y | X) = X\n",
			"CF(Y=true | do(X=false), Y=true)", ir.ErrNotDeterministic},
		{"bow arc", "var X, Y: bool\nX -> Y\nX <-> Y\n", "P(Y | do(X=true))", causal.ErrNotIdentifiable},
		{"no observed distribution", "var X, Y, Z: bool\nX -> Y\nZ -> X, Y\nX <-> Z\n", "P(Y=true | do(X=true))", ir.ErrNoDistribution},
		{"latent outcome", "latent U: bool\nvar X, Y: bool\nU -> X, Y\nX -> Y\n", "P(U | do(X=true))", ir.ErrLatent},
		{"adjust with states", "var X, Y: bool\nX -> Y\n", "adjust(X=true, Y)", nil},
		{"CF without do", "latent U: bool\nvar X: bool\nU -> X\nP(U) = 0.5\nP(X | U) = U\n", "CF(X=true | X=false)", ir.ErrNotCausal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := pbl.Load("m.pbl", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			_, err = pbl.Ask(m, tc.query)
			if err == nil {
				t.Fatalf("%s answered", tc.query)
			}
			var e *ir.Error
			if !errors.As(err, &e) || e.Pos.Line == 0 {
				t.Errorf("%s: not positioned: %v", tc.query, err)
			}
			if tc.kind != nil && !errors.Is(err, tc.kind) {
				t.Errorf("%s: %v is not of kind %v", tc.query, err, tc.kind)
			}
		})
	}
}

// TestLatentSyntaxErrors: the declarations of causes are checked where
// they are written.
func TestLatentSyntaxErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"latent U: real\n", "latent \"U\" is real-valued"},
		{"latent U: bool\nvar X: bool\nU <-> X\n", "\"U\" is latent"},
		{"var X: bool\nX <-> X\n", "bidirected edge from \"X\" to itself"},
		{"var X, Y: bool\nX <-> Y\nY <-> X\n", "declared twice"},
		{"var X: bool\nobserved \"a.bif\"\nobserved \"b.bif\"\n", "second observed declaration"},
	} {
		_, err := pbl.Load("m.pbl", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want an error containing %q", tc.src, err, tc.want)
		}
	}
}

// hedgeProblem checks, on the net's own graph (its latent variables are
// roots with observed children, so its projection is the observed edges
// and a bidirected edge between every two children of a latent variable),
// that h is a hedge for P(h.Y | do(h.X)) (Shpitser and Pearl 2006,
// definition 5 and theorem 4), that effect being P(y | do(x), z)'s or,
// for a conditional one, P(y ∪ Z' | do(x ∪ Z”)) with Z' ∪ Z” = z: F' ⊊
// F, F ∩ X ≠ ∅, F' ∩ X = ∅, R = F' ∩ An(Y) in the graph without the edges
// into X, and F and F' R-rooted C-forests (bidirected-connected, every
// variable reaching R along directed edges inside). It returns "" or
// what is wrong. (A port of package causal's test of its own hedges.)
func hedgeProblem(net *causalNet, h causal.Hedge, y, x string, z []string) string {
	index := map[string]int{}
	for v, name := range net.names {
		index[name] = v
	}
	in := func(s []string) map[string]bool {
		m := map[string]bool{}
		for _, v := range s {
			m[v] = true
		}
		return m
	}
	hy, X := in(h.Y), in(h.X)
	if !hy[y] || !X[x] {
		return "the hedge's effect is not the query's"
	}
	for _, v := range z {
		if hy[v] == X[v] {
			return fmt.Sprintf("condition %s is not in exactly one of the hedge's effect and intervention", v)
		}
	}
	if len(h.Y)+len(h.X) != 2+len(z) {
		return "the hedge's effect has variables the query has not"
	}
	parents := func(v string) []string {
		var out []string
		for _, p := range net.parents[index[v]] {
			if !net.latent[p] {
				out = append(out, net.names[p])
			}
		}
		return out
	}
	sibs := func(v string) []string {
		var out []string
		for _, p := range net.parents[index[v]] {
			if !net.latent[p] {
				continue
			}
			for c, ps := range net.parents {
				if net.names[c] != v && slices.Contains(ps, p) {
					out = append(out, net.names[c])
				}
			}
		}
		return out
	}
	F, Fp := in(h.F), in(h.FPrime)
	if len(Fp) >= len(F) || len(Fp) == 0 {
		return "F' is empty or not smaller than F"
	}
	for v := range Fp {
		if !F[v] || X[v] {
			return fmt.Sprintf("%s in F' but not in F, or in X", v)
		}
	}
	meets := false
	for v := range F {
		meets = meets || X[v]
	}
	if !meets {
		return "F does not meet X"
	}
	connected := func(S map[string]bool) bool {
		var start string
		for v := range S {
			start = v
			break
		}
		seen := map[string]bool{start: true}
		stack := []string{start}
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, s := range sibs(v) {
				if S[s] && !seen[s] {
					seen[s] = true
					stack = append(stack, s)
				}
			}
		}
		return len(seen) == len(S)
	}
	if !connected(F) || !connected(Fp) {
		return "F or F' is not bidirected-connected"
	}
	an := in(h.Y)
	stack := slices.Clone(h.Y)
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if X[v] {
			continue
		}
		for _, p := range parents(v) {
			if !an[p] {
				an[p] = true
				stack = append(stack, p)
			}
		}
	}
	var R []string
	for v := range Fp {
		if an[v] {
			R = append(R, v)
		}
	}
	slices.Sort(R)
	if len(R) == 0 {
		return "F' has no ancestor of Y"
	}
	if !slices.Equal(R, slices.Sorted(slices.Values(h.Roots))) {
		return fmt.Sprintf("reported roots %v, not %v", h.Roots, R)
	}
	reaches := func(S map[string]bool) bool {
		got := in(R)
		stack := slices.Clone(R)
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, p := range parents(v) {
				if S[p] && !got[p] {
					got[p] = true
					stack = append(stack, p)
				}
			}
		}
		return len(got) == len(S)
	}
	if !reaches(F) || !reaches(Fp) {
		return "a variable of F or F' does not reach the roots inside it"
	}
	return ""
}
