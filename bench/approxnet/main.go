package main

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/formats/bif"
	"github.com/pbl-lang/pbl/formats/uai"
	"github.com/pbl-lang/pbl/ir"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// spec is what the flags ask for.
type spec struct {
	kind              string
	n, m, k, window   int
	seed              uint64
	observe, coupling float64
	alpha, positive   float64
	out, name         string
}

func run(args []string) int {
	var s spec
	fs := flag.NewFlagSet("approxnet", flag.ContinueOnError)
	fs.StringVar(&s.kind, "kind", "grid", "grid, bn or diag")
	fs.IntVar(&s.n, "n", 20, "grid side (grid), variables (bn) or diseases (diag)")
	fs.IntVar(&s.m, "m", 400, "findings (diag)")
	fs.IntVar(&s.k, "k", 3, "most parents (bn), parents of a finding (diag)")
	fs.IntVar(&s.window, "window", 0, "parents among the window variables before (bn; 0: any)")
	fs.Uint64Var(&s.seed, "seed", 1, "random seed")
	fs.Float64Var(&s.observe, "observe", 0.2, "fraction of the variables observed")
	fs.Float64Var(&s.coupling, "coupling", 1, "standard deviation of the couplings (grid)")
	fs.Float64Var(&s.alpha, "alpha", 1, "Dirichlet parameter of the CPT rows (bn)")
	fs.Float64Var(&s.positive, "positive", 0, "fraction of the observed findings taken among the positive ones (diag; 0: at random)")
	fs.StringVar(&s.out, "out", ".", "output directory")
	fs.StringVar(&s.name, "name", "", "base name of the files (default KIND-N-sSEED)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if s.name == "" {
		s.name = fmt.Sprintf("%s-%d-s%d", s.kind, s.n, s.seed)
	}
	r := rand.New(rand.NewPCG(s.seed, 0x617070726f78))
	var (
		m   *ir.Model
		obs []ir.Obs
		err error
	)
	switch s.kind {
	case "grid":
		m, obs, err = grid(r, s)
	case "bn":
		m, obs, err = randomBN(r, s)
	case "diag":
		m, obs, err = diagnosis(r, s)
	default:
		fmt.Fprintf(os.Stderr, "approxnet: unknown kind %q (grid, bn, diag)\n", s.kind)
		return 2
	}
	if err == nil {
		err = write(m, obs, s)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "approxnet:", err)
		return 1
	}
	return 0
}

// states returns the names s0..s{k-1}.
func states(k int) []string {
	out := make([]string, k)
	for i := range out {
		out[i] = "s" + strconv.Itoa(i)
	}
	return out
}

func grid(r *rand.Rand, s spec) (*ir.Model, []ir.Obs, error) {
	b := ir.NewBuilder(s.name + ".uai")
	n := s.n
	for i := range n {
		for j := range n {
			b.AddVar(ir.Pos{}, fmt.Sprintf("x%d_%d", i, j), ir.Enum, states(2), 0)
		}
	}
	for v := range n * n {
		h := 0.5 * r.NormFloat64()
		b.AddFactor(ir.Pos{}, []ir.VarID{ir.VarID(v)}, []float64{math.Exp(-h), math.Exp(h)})
	}
	edge := func(a, c int) {
		j := s.coupling * r.NormFloat64()
		b.AddFactor(ir.Pos{}, []ir.VarID{ir.VarID(a), ir.VarID(c)}, []float64{math.Exp(j), math.Exp(-j), math.Exp(-j), math.Exp(j)})
	}
	for i := range n {
		for j := range n {
			if j+1 < n {
				edge(i*n+j, i*n+j+1)
			}
			if i+1 < n {
				edge(i*n+j, (i+1)*n+j)
			}
		}
	}
	var obs []ir.Obs
	for _, v := range chosen(r, n*n, s.observe, nil) {
		obs = append(obs, ir.Obs{Var: ir.VarID(v), State: r.IntN(2)})
	}
	m, err := b.Finish()
	return m, obs, err
}

// chosen returns round(frac·len) of the candidates (all of 0..n-1 when
// candidates is nil), drawn without replacement, in increasing order.
func chosen(r *rand.Rand, n int, frac float64, candidates []int) []int {
	if candidates == nil {
		candidates = make([]int, n)
		for i := range candidates {
			candidates[i] = i
		}
	}
	k := min(int(math.Round(frac*float64(n))), len(candidates))
	perm := r.Perm(len(candidates))[:k]
	out := make([]int, k)
	for i, p := range perm {
		out[i] = candidates[p]
	}
	sortInts(out)
	return out
}

func sortInts(xs []int) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

// dirichlet fills row with a draw from Dirichlet(alpha, ..., alpha).
func dirichlet(r *rand.Rand, row []float64, alpha float64) {
	s := 0.0
	for i := range row {
		row[i] = gamma(r, alpha)
		s += row[i]
	}
	for i := range row {
		row[i] /= s
	}
	// Keep every entry positive and representable in text.
	for i := range row {
		row[i] = math.Max(row[i], 1e-6)
	}
	s = 0
	for _, x := range row {
		s += x
	}
	for i := range row {
		row[i] /= s
	}
}

// gamma draws from Gamma(a, 1) (Marsaglia and Tsang; a < 1 by boosting).
func gamma(r *rand.Rand, a float64) float64 {
	if a < 1 {
		return gamma(r, a+1) * math.Pow(r.Float64(), 1/a)
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}

// draw returns a state drawn from the distribution row.
func draw(r *rand.Rand, row []float64) int {
	u, acc := r.Float64(), 0.0
	for i, p := range row {
		acc += p
		if u < acc {
			return i
		}
	}
	return len(row) - 1
}

// rowOf returns the CPT row of child given the parents' states.
func rowOf(vals []float64, card []int, parents []int, sample []int, cv int) []float64 {
	o := 0
	for i, p := range parents {
		o = o*card[i] + sample[p]
	}
	return vals[o*cv : (o+1)*cv]
}

func randomBN(r *rand.Rand, s spec) (*ir.Model, []ir.Obs, error) {
	b := ir.NewBuilder(s.name + ".bif")
	card := make([]int, s.n)
	for v := range s.n {
		card[v] = 2 + r.IntN(3)
		b.AddVar(ir.Pos{}, fmt.Sprintf("x%d", v), ir.Enum, states(card[v]), 0)
	}
	sample := make([]int, s.n)
	for v := range s.n {
		lo := 0
		if s.window > 0 {
			lo = max(0, v-s.window)
		}
		np := 0
		if v > lo {
			np = r.IntN(min(s.k, v-lo) + 1)
		}
		perm := r.Perm(v - lo)[:np]
		parents := make([]int, np)
		for i, p := range perm {
			parents[i] = lo + p
		}
		sortInts(parents)
		pc := make([]int, np)
		rows := 1
		pv := make([]ir.VarID, np)
		for i, p := range parents {
			pc[i] = card[p]
			rows *= card[p]
			pv[i] = ir.VarID(p)
		}
		vals := make([]float64, rows*card[v])
		for k := range rows {
			dirichlet(r, vals[k*card[v]:(k+1)*card[v]], s.alpha)
		}
		b.SetCPT(ir.Pos{}, ir.VarID(v), pv, vals, nil)
		sample[v] = draw(r, rowOf(vals, pc, parents, sample, card[v]))
	}
	var obs []ir.Obs
	for _, v := range chosen(r, s.n, s.observe, nil) {
		obs = append(obs, ir.Obs{Var: ir.VarID(v), State: sample[v]})
	}
	m, err := b.Finish()
	return m, obs, err
}

func diagnosis(r *rand.Rand, s spec) (*ir.Model, []ir.Obs, error) {
	b := ir.NewBuilder(s.name + ".bif")
	nd, nf := s.n, s.m
	for d := range nd {
		b.AddVar(ir.Pos{}, fmt.Sprintf("d%d", d), ir.Enum, []string{"absent", "present"}, 0)
	}
	for f := range nf {
		b.AddVar(ir.Pos{}, fmt.Sprintf("f%d", f), ir.Enum, []string{"negative", "positive"}, 0)
	}
	sample := make([]int, nd+nf)
	for d := range nd {
		p := 0.01 + 0.09*r.Float64()
		b.SetCPT(ir.Pos{}, ir.VarID(d), nil, []float64{1 - p, p}, nil)
		if r.Float64() < 2*p {
			sample[d] = 1
		}
	}
	const leak = 0.01
	for f := range nf {
		k := min(s.k, nd)
		parents := r.Perm(nd)[:k]
		sortInts(parents)
		q := make([]float64, k)
		for i := range q {
			q[i] = 0.1 + 0.8*r.Float64()
		}
		vals := make([]float64, 2<<k)
		pv := make([]ir.VarID, k)
		for i, p := range parents {
			pv[i] = ir.VarID(p)
		}
		for c := range 1 << k {
			neg := 1 - leak
			for i := range k {
				if c>>(k-1-i)&1 == 1 {
					neg *= q[i]
				}
			}
			vals[2*c], vals[2*c+1] = neg, 1-neg
		}
		b.SetCPT(ir.Pos{}, ir.VarID(nd+f), pv, vals, nil)
		pc := make([]int, k)
		for i := range pc {
			pc[i] = 2
		}
		sample[nd+f] = draw(r, rowOf(vals, pc, parents, sample, 2))
	}
	findings := make([]int, nf)
	var pos, neg []int
	for i := range findings {
		findings[i] = nd + i
		if sample[nd+i] == 1 {
			pos = append(pos, nd+i)
		} else {
			neg = append(neg, nd+i)
		}
	}
	var picked []int
	if s.positive > 0 {
		// As many positive findings as asked for (and as there are), the
		// rest among the negative ones.
		k := min(int(math.Round(s.observe*float64(nd+nf))), nf)
		kp := min(int(math.Round(s.positive*float64(k))), len(pos))
		picked = append(chosen(r, len(pos), float64(kp)/float64(max(len(pos), 1)), pos),
			chosen(r, len(neg), float64(k-kp)/float64(max(len(neg), 1)), neg)...)
		sortInts(picked)
	} else {
		picked = chosen(r, nd+nf, s.observe, findings)
	}
	var obs []ir.Obs
	for _, v := range picked {
		obs = append(obs, ir.Obs{Var: ir.VarID(v), State: sample[v]})
	}
	m, err := b.Finish()
	return m, obs, err
}

// write writes NAME.uai, NAME.uai.evid and, for a Bayesian network,
// NAME.bif into the output directory.
func write(m *ir.Model, obs []ir.Obs, s spec) error {
	if err := os.MkdirAll(s.out, 0o755); err != nil {
		return err
	}
	base := filepath.Join(s.out, s.name)
	var buf bytes.Buffer
	if err := uai.Write(&buf, m); err != nil {
		return err
	}
	if err := os.WriteFile(base+".uai", buf.Bytes(), 0o644); err != nil {
		return err
	}
	var ev strings.Builder
	fmt.Fprintf(&ev, "%d", len(obs))
	for _, o := range obs {
		fmt.Fprintf(&ev, " %d %d", o.Var, o.State)
	}
	ev.WriteString("\n")
	if err := os.WriteFile(base+".uai.evid", []byte(ev.String()), 0o644); err != nil {
		return err
	}
	if !m.IsBayesNet() {
		return nil
	}
	buf.Reset()
	if err := bif.Write(&buf, m); err != nil {
		return err
	}
	return os.WriteFile(base+".bif", buf.Bytes(), 0o644)
}
