package source

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/ir"
)

// Write writes m as pbl source. It refuses Markov networks, which the
// language cannot express yet. Consecutive variables with the same domain
// share a declaration; edges are implied by the tables' parents (and written as edge lines
// into variables without a distribution, a structure to learn); each
// table's rows are aligned. header, if not empty, is written first as a
// comment. A time-indexed model (m.Time) is written as its template
// (template.go) if its slices are tied, else unrolled, each slice a
// variable, with a comment saying why. The text is in the layout of pbl
// fmt (package format).
func Write(w io.Writer, m *ir.Model, header string) error {
	if !m.IsBayesNet() {
		return fmt.Errorf("a Markov network (a model with potentials) cannot be written as pbl yet: the language has no syntax for potentials")
	}
	for _, u := range m.Utilities {
		if len(u.Parents) == 0 {
			return &ir.Error{Pos: u.Pos, Msg: fmt.Sprintf("utility %s has no parents, which pbl cannot write: a utility table is over one or more variables", ir.Quote(u.Name))}
		}
	}
	var body, why string
	if m.Time != nil {
		// A time-indexed model as its template, or, if it cannot be
		// written so, unrolled with a comment that says why.
		if body, why = template(m); why != "" {
			note := "Written unrolled, slice by slice: " + why + "."
			if header != "" {
				note = strings.TrimRight(header, "\n") + "\n\n" + note
			}
			header = note
		}
	}
	b := bufio.NewWriter(w)
	if header != "" {
		for _, line := range strings.Split(strings.TrimRight(header, "\n"), "\n") {
			b.WriteString(strings.TrimRight("// "+line, " \t\r") + "\n")
		}
		b.WriteString("\n")
	}
	if m.Time != nil && why == "" {
		b.WriteString(body)
		return b.Flush()
	}
	// Declarations: runs of consecutive variables of the same kind (var
	// or latent) with equal domains; a decision alone.
	for i := 0; i < len(m.Vars); {
		if m.Vars[i].Decision {
			fmt.Fprintf(b, "decision %s: %s\n", declName(m.Vars[i].Name), m.Vars[i].Domain())
			i++
			continue
		}
		j := i + 1
		for j < len(m.Vars) && !m.Vars[j].Decision && m.Vars[j].Latent == m.Vars[i].Latent && sameDomain(m.Vars[i], m.Vars[j]) {
			j++
		}
		names := make([]string, 0, j-i)
		for _, v := range m.Vars[i:j] {
			names = append(names, declName(v.Name))
		}
		kw := "var"
		if m.Vars[i].Latent {
			kw = "latent"
		}
		fmt.Fprintf(b, "%s %s: %s\n", kw, strings.Join(names, ", "), m.Vars[i].Domain())
		i = j
	}
	// Edges into the variables that have no distribution yet (a structure
	// to learn) and into decisions (their information): a table implies
	// its parents' edges, these have none.
	edges := false
	for _, v := range m.Vars {
		if ps := m.Parents[v.ID]; m.Dists[v.ID] == nil && len(ps) > 0 {
			if !edges {
				b.WriteString("\n")
				edges = true
			}
			names := make([]string, len(ps))
			for i, p := range ps {
				names[i] = ir.Quote(m.Vars[p].Name)
			}
			fmt.Fprintf(b, "%s -> %s\n", strings.Join(names, ", "), ir.Quote(v.Name))
		}
	}
	// Unobserved confounders, and where the observed distribution comes
	// from (see observedPath).
	for _, e := range m.Bidirected {
		if !edges {
			b.WriteString("\n")
			edges = true
		}
		fmt.Fprintf(b, "%s <-> %s\n", ir.Quote(m.Vars[e.A].Name), ir.Quote(m.Vars[e.B].Name))
	}
	if o := m.Observed; o != nil {
		kw := "observed"
		if o.Data {
			kw = "observed data"
		}
		if !edges {
			b.WriteString("\n")
		}
		fmt.Fprintf(b, "%s %s\n", kw, strconv.Quote(observedPath(o)))
	}
	plain := &view{Model: m}
	for _, v := range m.Vars {
		writeFamily(b, plain, v.ID, "\n")
	}
	for _, u := range m.Utilities {
		b.WriteString("\n")
		writeUtility(b, plain, u)
	}
	return b.Flush()
}

// writeFamily writes sep and then v's distribution, if it has one (a
// joint normal at its first child), in the form it was given.
func writeFamily(b io.StringWriter, m *view, v ir.VarID, sep string) {
	if g := m.Gaussian(v); g != nil {
		b.WriteString(sep)
		writeGaussian(b, m, g)
		return
	}
	if d, ok := m.Dist(v).(*ir.Softmax); ok {
		b.WriteString(sep)
		writeSoftmax(b, m, d)
		return
	}
	if d := m.MultiNormal(v); d != nil {
		if d.Children[0] == v {
			b.WriteString(sep)
			writeMultiNormal(b, m, d)
		}
		return
	}
	if d := m.Dist(v); d != nil && isCompact(d) {
		b.WriteString(sep)
		writeCompact(b, m, d)
		return
	}
	if c := m.Table(v); c != nil {
		b.WriteString(sep)
		writeCPT(b, m, c)
	}
}

// writeUtility writes utility U(A, B) = { ... }, one aligned row per
// configuration of its parents, in row-major order. The language has no
// form for a utility without parents.
func writeUtility(b io.StringWriter, m *view, u *ir.Utility) {
	names := make([]string, len(u.Parents))
	for i, p := range u.Parents {
		names[i] = m.name(p)
	}
	title := "utility " + ir.Quote(u.Name) + "(" + strings.Join(names, ", ") + ")"
	writeDensities(b, m, title, u.Parents, len(u.Values), func(r int) string { return ir.FormatFloat(u.Values[r]) })
}

func sameDomain(a, b *ir.Variable) bool {
	if a.Kind != b.Kind || len(a.States) != len(b.States) {
		return false
	}
	for i := range a.States {
		if a.States[i] != b.States[i] {
			return false
		}
	}
	return true
}

// writeCPT writes P(X | parents) = ... with one aligned row per parent
// configuration, in row-major order.
func writeCPT(b io.StringWriter, m *view, c *ir.CPT) {
	f := c.Written()
	child := m.Vars[c.Child]
	k := len(child.States)
	b.WriteString(m.title(c.Child, c.Parents) + " = ")
	if len(c.Parents) == 0 {
		b.WriteString(vector(f.Vals))
		b.WriteString("\n")
		return
	}
	b.WriteString("{\n")
	// Column widths of the parents' states, for alignment.
	width := make([]int, len(c.Parents))
	for i, p := range c.Parents {
		for _, s := range m.Vars[p].States {
			width[i] = max(width[i], utf8.RuneCountInString(ir.Quote(s)))
		}
	}
	a := make([]int, len(f.Vars))
	for r := 0; r*k < len(f.Vals); r++ {
		f.Assignment(a, r*k)
		b.WriteString("    ")
		for i, p := range c.Parents {
			s := ir.Quote(m.Vars[p].States[a[i]])
			if i < len(c.Parents)-1 {
				s += ","
				b.WriteString(s)
				b.WriteString(strings.Repeat(" ", width[i]+2-utf8.RuneCountInString(s)))
			} else {
				s += ":"
				b.WriteString(s)
				b.WriteString(strings.Repeat(" ", width[i]+2-utf8.RuneCountInString(s)))
			}
		}
		b.WriteString(vector(f.Vals[r*k : (r+1)*k]))
		b.WriteString("\n")
	}
	b.WriteString("}\n")
}

func vector(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = ir.FormatFloat(x)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// writeGaussian writes P(X | parents) = normal(MEAN, SD), or one
// normal(MEAN, SD) per configuration of the discrete parents; with real
// parents, MEAN is the intercept plus each coefficient times its parent
// (linearMean), and the title lists the discrete parents, then the real.
func writeGaussian(b io.StringWriter, m *view, g *ir.Gaussian) {
	title := m.title(g.Child, append(append([]ir.VarID(nil), g.Parents...), g.Real...))
	writeDensities(b, m, title, g.Parents, len(g.Mean), func(r int) string {
		spread := ir.FormatFloat(g.SD[r])
		switch g.SpreadOf(r) {
		case ir.SpreadSD:
			spread = "sd = " + spread
		case ir.SpreadVar:
			if v, ok := g.VarOf(r); ok {
				spread = "var = " + ir.FormatFloat(v)
			} else {
				spread = "sd = " + spread
			}
		}
		return "normal(" + linearMean(m, g, r) + ", " + spread + ")"
	})
}

// linearMean writes configuration r's mean: the number, or with real
// parents the intercept and the terms whose coefficients are not 0, as in
// 90 + 0.6 * Age - Weight. Read back, it lowers to the same numbers: each
// term is the coefficient, or its negation, times 1.
func linearMean(m *view, g *ir.Gaussian, r int) string {
	return affineText(m, g.Mean[r], g.Real, g.Coef[r*len(g.Real):(r+1)*len(g.Real)])
}

// affineText writes c0 + Σ coef[j]·real[j], the terms whose coefficients
// are 0 left out: a linear Gaussian density's mean, a softmax's score.
func affineText(m *view, c0 float64, real []ir.VarID, coef []float64) string {
	mean := ir.FormatFloat(c0)
	if len(real) == 0 {
		return mean
	}
	var s strings.Builder
	if c0 != 0 {
		s.WriteString(mean)
	}
	for j, p := range real {
		c := coef[j]
		if c == 0 {
			continue
		}
		name := m.term(p)
		switch {
		case s.Len() == 0 && c < 0:
			s.WriteString("-")
		case s.Len() > 0 && c < 0:
			s.WriteString(" - ")
		case s.Len() > 0:
			s.WriteString(" + ")
		}
		if a := math.Abs(c); a != 1 {
			s.WriteString(ir.FormatFloat(a) + " * ")
		}
		s.WriteString(name)
	}
	if s.Len() == 0 {
		return mean
	}
	return s.String()
}

// writeSoftmax writes P(X | parents) = logistic(A) or softmax(A1, ...,
// Ak), or one per configuration of the discrete parents, each score
// affine in the real parents (affineText); the title lists the discrete
// parents, then the real.
func writeSoftmax(b io.StringWriter, m *view, d *ir.Softmax) {
	title := m.title(d.Child, append(append([]ir.VarID(nil), d.Parents...), d.Real...))
	k, nr := d.K, len(d.Real)
	writeDensities(b, m, title, d.Parents, d.Configs(), func(u int) string {
		score := func(s int) string {
			return affineText(m, d.Bias[u*k+s], d.Real, d.Coef[(u*k+s)*nr:(u*k+s+1)*nr])
		}
		if d.IsLogistic(u) {
			return "logistic(" + score(0) + ")"
		}
		args := make([]string, k)
		for s := range k {
			args[s] = score(s)
		}
		return "softmax(" + strings.Join(args, ", ") + ")"
	})
}

// writeMultiNormal writes P(X, Y | parents) = normal([MEANS], COV), or one
// per parent configuration; COV as it was written (or learned): a matrix,
// its diagonal, or one variance.
func writeMultiNormal(b io.StringWriter, m *view, d *ir.MultiNormal) {
	n := len(d.Children)
	names := make([]string, n)
	for i, c := range d.Children {
		names[i] = m.name(c)
	}
	title := "P(" + strings.Join(names, ", ")
	if len(d.Parents) > 0 {
		ps := make([]string, len(d.Parents))
		for i, p := range d.Parents {
			ps[i] = m.name(p)
		}
		title += " | " + strings.Join(ps, ", ")
	}
	title += ")"
	writeDensities(b, m, title, d.Parents, len(d.Mean), func(r int) string {
		c := d.Cov[r]
		named := d.SpreadOf(r)
		// The variances, as standard deviations if so named: the square
		// root of a float64's square (in range) is that float64 again.
		diag := make([]float64, n)
		for i := range n {
			diag[i] = c[i*n+i]
			if named == ir.SpreadSD {
				diag[i] = math.Sqrt(diag[i])
			}
		}
		var cov string
		switch {
		case d.FormOf(r) == ir.SphericalCov:
			cov = ir.FormatFloat(diag[0])
		case d.FormOf(r) == ir.DiagCov:
			cov = vector(diag)
		case (named == ir.SpreadSD || named == ir.SpreadVar) && diagonal(c, n):
			// A row named sd = or var = in a density with a full matrix
			// elsewhere: its diagonal, so named.
			cov = vector(diag)
		default:
			rows := make([]string, n)
			for i := range n {
				rows[i] = vector(c[i*n : (i+1)*n])
			}
			cov = "[" + strings.Join(rows, ", ") + "]"
			if named != ir.SpreadCov {
				named = ir.SpreadPositional // a matrix is a covariance, by position
			}
		}
		if named != ir.SpreadPositional {
			cov = named.String() + " = " + cov
		}
		return "normal(" + vector(d.Mean[r]) + ", " + cov + ")"
	})
}

// diagonal reports whether the n×n row-major matrix c is diagonal.
func diagonal(c []float64, n int) bool {
	for i := range n {
		for j := range n {
			if i != j && c[i*n+j] != 0 {
				return false
			}
		}
	}
	return true
}

// writeDensities writes title = VALUE for no parents, else one aligned row
// per parent configuration, in row-major order, value(r) giving row r's.
func writeDensities(b io.StringWriter, m *view, title string, parents []ir.VarID, rows int, value func(r int) string) {
	b.WriteString(title + " = ")
	if len(parents) == 0 {
		b.WriteString(value(0) + "\n")
		return
	}
	b.WriteString("{\n")
	card := make([]int, len(parents))
	width := make([]int, len(parents))
	for i, p := range parents {
		card[i] = len(m.Vars[p].States)
		for _, s := range m.Vars[p].States {
			width[i] = max(width[i], utf8.RuneCountInString(ir.Quote(s)))
		}
	}
	a := make([]int, len(parents))
	for r := range rows {
		b.WriteString("    ")
		for i, p := range parents {
			sep := ","
			if i == len(parents)-1 {
				sep = ":"
			}
			s := ir.Quote(m.Vars[p].States[a[i]]) + sep
			b.WriteString(s)
			b.WriteString(strings.Repeat(" ", width[i]+2-utf8.RuneCountInString(s)))
		}
		b.WriteString(value(r) + "\n")
		for i := len(a) - 1; i >= 0; i-- {
			if a[i]++; a[i] < card[i] {
				break
			}
			a[i] = 0
		}
	}
	b.WriteString("}\n")
}

// observedPath returns the file of an observed declaration as the file
// written must name it: the declared path is relative to the directory
// of the file that declared it, which need not be the written file's, so
// a relative path is made absolute (the one path that names the same
// file from any directory).
func observedPath(o *ir.Observed) string {
	if filepath.IsAbs(o.Path) || o.Pos.File == "" {
		return o.Path
	}
	p := filepath.Join(filepath.Dir(o.Pos.File), o.Path)
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// declName returns a variable's name as its declaration writes it: quoted
// where ir.Quote leaves a slice's name bare (var Rain[3] would declare a
// slice of a time-indexed variable; var "Rain[3]" declares the name).
func declName(name string) string {
	if grammar.IsSliceName(name) {
		return strconv.Quote(name)
	}
	return ir.Quote(name)
}
