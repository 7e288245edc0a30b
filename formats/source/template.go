package source

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/ir"
)

// This file writes a time-indexed model (ir.Model.Time) as its template:
// var Rain[t]: ..., the arcs and distributions of the template written
// once with t and t-k, the initial slices' own distributions, P(Rain[0])
// = .... Read back, it lowers to the same slices, each with the same
// parents and numbers (unrolled to the slices its order needs, and
// further by the queries that name later ones).

// slot is where a variable is in a time-indexed model: the index of its
// time-indexed variable in Time.Vars and its slice, or tv -1 for a
// static variable.
type slot struct{ tv, s int }

// template returns the text of m, a time-indexed model, as its template
// (without a header), or why it cannot be written so: a model whose
// slices are not tied (a template distribution with other numbers, or
// other parents, at some slice after its first), and the few kinds the
// language writes for slices only (a compact table, a mean or a score
// naming a time-indexed variable, a joint normal).
func template(m *ir.Model) (text, why string) {
	t := m.Time
	if len(m.Utilities) > 0 || len(m.Bidirected) > 0 || m.Observed != nil {
		return "", "a template with utilities, confounders or an observed distribution is not written yet"
	}
	where := make([]slot, len(m.Vars))
	for i := range where {
		where[i].tv = -1
	}
	for i, tv := range t.Vars {
		if len(tv.Slices) != t.Horizon+1 {
			return "", fmt.Sprintf("%s[t] has %d slices, not %d", ir.Quote(tv.Name), len(tv.Slices), t.Horizon+1)
		}
		for s, v := range tv.Slices {
			where[v] = slot{i, s}
		}
	}
	for _, v := range m.Vars {
		if v.Decision || v.Latent {
			return "", "a template with decisions or latent variables is not written yet"
		}
		if m.MultiNormal(v.ID) != nil && where[v.ID].tv >= 0 {
			return "", fmt.Sprintf("%s has a joint normal distribution, which is not written as a template yet", ir.Quote(v.Name))
		}
		for _, p := range m.Parents[v.ID] {
			if where[v.ID].tv < 0 && where[p].tv >= 0 {
				return "", fmt.Sprintf("the static variable %s has the time-indexed parent %s", ir.Quote(v.Name), ir.Quote(m.Vars[p].Name))
			}
		}
	}
	sliceNames := map[ir.VarID]tname{}
	for _, tv := range t.Vars {
		for s, v := range tv.Slices {
			sliceNames[v] = tname{tv.Name, strconv.Itoa(s)}
		}
	}
	w := &templateWriter{m: m, where: where, plain: &view{Model: m, slices: sliceNames}}
	fams := make([]templateFamily, len(t.Vars))
	var edges strings.Builder
	for _, v := range m.Vars {
		switch at := where[v.ID]; {
		case at.tv < 0:
			if ps := m.Parents[v.ID]; m.Dists[v.ID] == nil && len(ps) > 0 {
				edges.WriteString(w.arc(w.plain, ps, v.ID))
			}
		case at.s == 0:
			f, why := w.family(&t.Vars[at.tv])
			if why != "" {
				return "", why
			}
			fams[at.tv] = f
			edges.WriteString(f.arcs)
		}
	}
	var b strings.Builder
	// Declarations: runs of static variables, or of time-indexed ones,
	// with equal domains.
	var run []string
	for i, v := range m.Vars {
		at := where[i]
		if at.s > 0 {
			continue
		}
		name := declName(v.Name)
		if at.tv >= 0 {
			name = ir.Quote(t.Vars[at.tv].Name) + "[t]"
		}
		run = append(run, name)
		next := i + 1
		for next < len(m.Vars) && where[next].s > 0 {
			next++
		}
		if next == len(m.Vars) || (where[next].tv < 0) != (at.tv < 0) || !sameDomain(v, m.Vars[next]) {
			fmt.Fprintf(&b, "var %s: %s\n", strings.Join(run, ", "), v.Domain())
			run = run[:0]
		}
	}
	if edges.Len() > 0 {
		b.WriteString("\n" + edges.String())
	}
	for i := range m.Vars {
		switch at := where[i]; {
		case at.tv < 0:
			writeFamily(&b, w.plain, ir.VarID(i), "\n")
		case at.s == 0:
			for _, d := range fams[at.tv].dists {
				b.WriteString("\n" + d)
			}
		}
	}
	return b.String(), ""
}

// templateWriter holds what template needs to write one variable's
// family.
type templateWriter struct {
	m     *ir.Model
	where []slot
	plain *view // the variables by their names
}

// templateFamily is how a time-indexed variable is written: the edge
// lines into its slices and its distributions, the initial slices' then
// the template's.
type templateFamily struct {
	arcs  string
	dists []string
}

// relative returns a view naming the variable at slice s of tv and its
// parents as the template does there (Rain[t], Rain[t-1]; static parents
// by their names), and the largest lag of a parent.
func (w *templateWriter) relative(tv *ir.TimeVar, s int) (*view, int) {
	v := tv.Slices[s]
	r := &view{Model: w.m, tmpl: map[ir.VarID]tname{v: {tv.Name, "t"}}}
	lag := 0
	for _, p := range w.m.Parents[v] {
		at := w.where[p]
		if at.tv < 0 {
			continue
		}
		k := s - at.s
		index := "t"
		if k > 0 {
			index = "t-" + strconv.Itoa(k)
		}
		r.tmpl[p] = tname{w.m.Time.Vars[at.tv].Name, index}
		lag = max(lag, k)
	}
	return r, lag
}

// signature returns the text of the template's family at slice s of tv:
// the parents, then the distribution, both named as the template names
// them. Two slices of one template have the same, and a number written
// alike is the same float64 (each is written in its shortest round-trip
// form).
func (w *templateWriter) signature(tv *ir.TimeVar, s int) (sig, dist string, unnamed bool) {
	r, _ := w.relative(tv, s)
	var b strings.Builder
	writeFamily(&b, r, tv.Slices[s], "")
	names := make([]string, len(w.m.Parents[tv.Slices[s]]))
	for i, p := range w.m.Parents[tv.Slices[s]] {
		names[i] = r.name(p)
	}
	return strings.Join(names, ", ") + "\n" + b.String(), b.String(), r.unnamed
}

// family returns how tv is written, or why it cannot be as a template.
// The template is its last slice's family, which names every lag: it
// holds from the first slice where its parents exist, f (its largest
// lag), and every slice from f on must have it; the slices before f are
// written as they are.
func (w *templateWriter) family(tv *ir.TimeVar) (templateFamily, string) {
	m, last := w.m, len(tv.Slices)-1
	with := 0
	for _, v := range tv.Slices {
		if m.Dists[v] != nil {
			with++
		}
	}
	base := ir.Quote(tv.Name)
	if with == 0 {
		return w.structure(tv)
	}
	if with < len(tv.Slices) {
		return templateFamily{}, fmt.Sprintf("some slices of %s[t] have a distribution and some have none", base)
	}
	_, f := w.relative(tv, last)
	sig, dist, unnamed := w.signature(tv, f)
	if unnamed {
		return templateFamily{}, fmt.Sprintf("the distribution of %s[t] names a time-indexed variable in a compact table, a mean or a score, which the language writes for slices only", base)
	}
	for s := f + 1; s <= last; s++ {
		if other, _, _ := w.signature(tv, s); other != sig {
			return templateFamily{}, fmt.Sprintf("%s's parents or numbers are not %s's: the slices of %s[t] are not tied", ir.Quote(ir.SliceName(tv.Name, s)), ir.Quote(ir.SliceName(tv.Name, f)), base)
		}
	}
	var fam templateFamily
	for s := range f {
		var b strings.Builder
		writeFamily(&b, w.plain, tv.Slices[s], "")
		fam.dists = append(fam.dists, b.String())
	}
	fam.dists = append(fam.dists, dist)
	fam.arcs = w.templateArcs(tv, f)
	return fam, ""
}

// templateArcs returns the arc line of tv's template, P1, P2 -> X[t],
// and, for an initial slice whose distribution has parents the template's
// arcs do not give it, arcs from those into it: Y[0] -> X[1]. The arcs
// of a template hold at the initial slices where their parents exist,
// and a slice with arcs into it has only those parents: a template whose
// arcs would give an initial slice a parent its distribution does not
// list gets no arc line (its distributions give the parents).
func (w *templateWriter) templateArcs(tv *ir.TimeVar, f int) string {
	m, last := w.m, len(tv.Slices)-1
	ps := m.Parents[tv.Slices[last]]
	if len(ps) == 0 {
		return ""
	}
	r, _ := w.relative(tv, last)
	arcs := w.arc(r, ps, tv.Slices[last])
	for s := range f {
		var given []ir.VarID // the template's arcs at slice s
		for _, p := range ps {
			at := w.where[p]
			switch {
			case at.tv < 0:
				given = append(given, p)
			case at.s >= last-s:
				given = append(given, m.Time.Vars[at.tv].Slices[at.s-(last-s)])
			}
		}
		if len(given) == 0 {
			continue
		}
		own := m.Parents[tv.Slices[s]]
		var more []ir.VarID
		for _, p := range own {
			if !slices.Contains(given, p) {
				more = append(more, p)
			}
		}
		if len(own)-len(more) != len(given) {
			return "" // a parent the distribution does not list
		}
		if len(more) > 0 {
			arcs += w.arc(w.plain, more, tv.Slices[s])
		}
	}
	return arcs
}

// structure returns how tv, whose slices have no distributions (a
// structure to learn), is written: the arcs into its last slice, named
// as the template names them, if they give every slice its parents.
func (w *templateWriter) structure(tv *ir.TimeVar) (templateFamily, string) {
	m, last := w.m, len(tv.Slices)-1
	r, _ := w.relative(tv, last)
	for s := range tv.Slices {
		rs, _ := w.relative(tv, s)
		var want, got []string
		for _, p := range m.Parents[tv.Slices[last]] {
			if at := w.where[p]; at.tv < 0 || at.s >= last-s {
				want = append(want, r.name(p))
			}
		}
		for _, p := range m.Parents[tv.Slices[s]] {
			got = append(got, rs.name(p))
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(want, got) {
			return templateFamily{}, fmt.Sprintf("the parents of %s are not those of %s[t]'s template", ir.Quote(ir.SliceName(tv.Name, s)), ir.Quote(tv.Name))
		}
	}
	if len(m.Parents[tv.Slices[last]]) == 0 {
		return templateFamily{}, ""
	}
	return templateFamily{arcs: w.arc(r, m.Parents[tv.Slices[last]], tv.Slices[last])}, ""
}

// arc returns the edge line from parents into child, named by r.
func (w *templateWriter) arc(r *view, parents []ir.VarID, child ir.VarID) string {
	names := make([]string, len(parents))
	for i, p := range parents {
		names[i] = r.name(p)
	}
	return strings.Join(names, ", ") + " -> " + r.name(child) + "\n"
}
