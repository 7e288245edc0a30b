package ir

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/pbl-lang/pbl/grammar"
)

// ErrTime is the kind of error of a time-indexed model that cannot be
// unrolled: an index other than t, t-k or a slice number, an arc into the
// past, a time-indexed parent of a static variable, a template name where
// a slice is needed, or a slice beyond the model's horizon.
var ErrTime = errors.New("a time-indexed model that cannot be unrolled")

// ErrNoInitial is the kind of error of a time-indexed variable whose
// first slices have no distribution: the template P(X[t] | X[t-1]) gives
// slices 1, 2, ..., and slice 0 needs its own, P(X[0]) = ....
var ErrNoInitial = errors.New("a slice with no initial distribution")

// Time is the time structure of a model declared with time-indexed
// variables (var X[t]: ...): a two-slice template (arcs from X[t-k], k ≥
// 0, into Y[t]), unrolled by the lowering into the slices 0..Horizon, each
// slice's variable named X[s]. The unrolled model is an ordinary model:
// every engine answers it. Variables without an index are static: one
// variable, a parent of every slice that names it.
type Time struct {
	Horizon int       // the last slice unrolled
	Order   int       // the largest lag of an arc (1 for a first-order model, 0 for slices that do not depend on the past)
	Vars    []TimeVar // the time-indexed variables, in declaration order
}

// TimeVar is a time-indexed variable: Slices[s] is the variable Name[s].
type TimeVar struct {
	Name   string
	Pos    Pos
	Slices []VarID
	// First is the first slice of its template distribution (the largest
	// lag of its template parents): every slice from First on has the
	// template's numbers, the slices before have their own. -1 when it
	// has no template distribution (none yet: a structure to learn).
	First int
}

// Tied returns, for a model of n variables, which are slices whose
// distribution is a copy of their template's at an earlier slice: the
// slices after First. Their numbers are not free parameters of their own.
func (t *Time) Tied(n int) []bool {
	tied := make([]bool, n)
	for _, tv := range t.Vars {
		if tv.First < 0 {
			continue
		}
		for s := tv.First + 1; s < len(tv.Slices); s++ {
			tied[tv.Slices[s]] = true
		}
	}
	return tied
}

// SliceName returns the name of the variable base at slice s: base[s].
func SliceName(base string, s int) string { return base + "[" + strconv.Itoa(s) + "]" }

// Var returns the time-indexed variable named base, or nil.
func (t *Time) Var(base string) *TimeVar {
	for i := range t.Vars {
		if t.Vars[i].Name == base {
			return &t.Vars[i]
		}
	}
	return nil
}

// MaxHorizon is the last slice the lowering unrolls to: a query naming a
// later slice is an error (about 10^5 slices of a small model is a
// model of millions of variables; long sequences are pbl sequence's,
// which never unrolls them).
const MaxHorizon = 100_000

// timeLowering is the lowerer's state for a time-indexed model.
type timeLowering struct {
	t      *Time
	vars   map[string]int          // base name → index in t.Vars
	slice  int                     // the slice a template statement is being lowered at, or -1
	firsts []templateStart         // the template distributions, where each starts
	badArc map[*grammar.Edges]bool // edge statements whose arcs were reported (not lowered)
}

// outside reports whether n, a template name, stands for a slice before 0
// at the current slice: X[t-1] at slice 0.
func (l *lowerer) outside(n *grammar.Name) bool {
	if !isTemplate(n) || l.time == nil || l.time.slice < 0 || n.Index.Var != "t" {
		return false
	}
	k, err := strconv.Atoi(n.Index.Lag)
	return err == nil && l.time.slice+k < 0
}

// SliceHorizon returns the largest slice number named in f (X[3] → 3),
// or -1 if it names none. The loader takes the horizon of a query given
// apart from the file with it. A slice beyond MaxHorizon is left out: the
// lowering reports it at its position.
func SliceHorizon(n any) int {
	h := -1
	walkNames(reflect.ValueOf(n), func(n *grammar.Name) {
		if n.Index != nil && n.Index.Var == "" {
			if s, err := strconv.Atoi(n.Index.Slice); err == nil && s > h && s <= MaxHorizon {
				h = s
			}
		}
	})
	return h
}

// walkNames calls f on every name of the syntax tree at v.
func walkNames(v reflect.Value, f func(*grammar.Name)) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return
		}
		if n, ok := v.Interface().(*grammar.Name); ok {
			f(n)
			return
		}
		walkNames(v.Elem(), f)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				walkNames(v.Field(i), f)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			walkNames(v.Index(i), f)
		}
	}
}

// lag returns the lag of a template index: 0 for t, -k for t-k; ok is
// false (reported) for anything else.
func (l *lowerer) lag(n *grammar.Name) (int, bool) {
	x := n.Index
	if x.Var != "t" {
		l.b.Errs = append(l.b.Errs, &Error{Pos: pos(x.Pos), Err: ErrTime,
			Msg: fmt.Sprintf("%s: the time index is t (t, t-1, t-2, ...) or a slice number", n.Text())})
		return 0, false
	}
	if x.Lag == "" {
		return 0, true
	}
	k, err := strconv.Atoi(x.Lag)
	if err != nil || k > 0 || k < -MaxHorizon {
		msg := fmt.Sprintf("%s: a time index names t or an earlier slice, t-1, t-2, ...", n.Text())
		if err == nil && k > 0 {
			msg = fmt.Sprintf("%s names a later slice: a slice depends on itself and the past only (write the arc from %s into %s[t])", n.Text(), n.Base()+"[t]", n.Base())
		}
		l.b.Errs = append(l.b.Errs, &Error{Pos: pos(x.Pos), Err: ErrTime, Msg: msg})
		return 0, false
	}
	return k, true
}

// isTemplate reports whether n is a template name, X[t] or X[t-k].
func isTemplate(n *grammar.Name) bool { return n.Index != nil && n.Index.Var != "" }

// timePrepare finds the time-indexed variables of files, the model's
// order and its horizon, before the declarations are lowered. It does
// nothing for a model without time indices.
func (l *lowerer) timePrepare(files []*grammar.File) {
	indexed := false
	for _, f := range files {
		indexed = indexed || f.Indexed
	}
	if !indexed {
		return
	}
	tl := &timeLowering{t: &Time{}, vars: map[string]int{}, slice: -1, badArc: map[*grammar.Edges]bool{}}
	for _, f := range files {
		if f.Lazy != nil && f.Lazy.Len() > 0 {
			// The loader parses a file with time indices in full.
			l.b.Errorf(pos(f.Pos), "a time-indexed model must be parsed in full, not lean")
			return
		}
		for _, s := range f.Stmts {
			d, ok := s.(*grammar.VarDecl)
			if !ok {
				continue
			}
			for _, n := range d.Names {
				switch {
				case n.Index == nil:
				case isTemplate(n):
					if k, ok := l.lag(n); ok && k != 0 {
						l.b.Errs = append(l.b.Errs, &Error{Pos: pos(n.Index.Pos), Err: ErrTime,
							Msg: fmt.Sprintf("declare the template, %s[t]: the slices follow from it", n.Base())})
					}
					if _, dup := tl.vars[n.Base()]; !dup {
						tl.vars[n.Base()] = len(tl.t.Vars)
						tl.t.Vars = append(tl.t.Vars, TimeVar{Name: n.Base(), Pos: pos(n.Pos), First: -1})
					}
				default:
					l.b.Errs = append(l.b.Errs, &Error{Pos: pos(n.Index.Pos), Err: ErrTime,
						Msg: fmt.Sprintf("%s declares one slice: declare the template, var %s[t], whose slices are %s[0], %s[1], ...", n.Text(), n.Base(), n.Base(), n.Base())})
				}
			}
		}
	}
	if len(tl.t.Vars) == 0 {
		return // slices' names only, declared quoted: var "Rain[3]"
	}
	l.time = tl
	// The order: the largest lag between a parent and its child, in the
	// edges and in the distributions' parents.
	h := l.opt.Horizon
	for _, f := range files {
		for _, s := range f.Stmts {
			switch s := s.(type) {
			case *grammar.Edges:
				errs := len(l.b.Errs)
				for i := 1; i < len(s.Lists); i++ {
					l.arcLags(s.Lists[i-1].Names, s.Lists[i].Names)
				}
				if len(l.b.Errs) > errs {
					tl.badArc[s] = true
				}
			case *grammar.Dist:
				l.arcLags(s.Parents, append([]*grammar.Name{s.Child}, s.More...))
			}
		}
		h = max(h, SliceHorizon(f)) // at most MaxHorizon: a later slice is an error at its name
	}
	tl.t.Horizon = max(h, tl.t.Order, 1)
}

// arcLags checks the arcs from every name of parents into every name of
// children and raises the order to their lags.
func (l *lowerer) arcLags(parents, children []*grammar.Name) {
	tl := l.time
	for _, c := range children {
		cl := 0
		if isTemplate(c) {
			k, ok := l.lag(c)
			if !ok {
				continue
			}
			cl = k
		}
		for _, p := range parents {
			if !isTemplate(p) {
				continue
			}
			pl, ok := l.lag(p)
			if !ok {
				continue
			}
			switch {
			case c.Index == nil:
				l.b.Errs = append(l.b.Errs, &Error{Pos: pos(p.Pos), Err: ErrTime,
					Msg: fmt.Sprintf("%s is static (declared without [t]) and cannot have the time-indexed parent %s: it would have one per slice", c.Text(), p.Text())})
			case !isTemplate(c):
				l.b.Errs = append(l.b.Errs, &Error{Pos: pos(p.Pos), Err: ErrTime,
					Msg: fmt.Sprintf("%s is one slice: its parents are slices too (%s[N]), or the arc is the template's, into %s[t]", c.Text(), p.Base(), c.Base())})
			case pl > cl:
				l.b.Errs = append(l.b.Errs, &Error{Pos: pos(p.Pos), Err: ErrTime,
					Msg: fmt.Sprintf("the arc from %s into %s goes into the past: a slice's parents are in the same slice or earlier ones", p.Text(), c.Text())})
			default:
				tl.t.Order = max(tl.t.Order, cl-pl)
			}
		}
	}
}

// timeVarDecl declares the slices 0..Horizon of the template variable n
// (var n[t]: ...) with add, which declares one name.
func (l *lowerer) timeVarDecl(n *grammar.Name, add func(name string) (VarID, bool)) {
	tv := &l.time.t.Vars[l.time.vars[n.Base()]]
	if tv.Slices != nil {
		l.b.Errorf(pos(n.Pos), "%s declared twice", strconv.Quote(n.Base()+"[t]"))
		return
	}
	tv.Slices = make([]VarID, 0, l.time.t.Horizon+1)
	for s := 0; s <= l.time.t.Horizon; s++ {
		id, ok := add(SliceName(n.Base(), s))
		if !ok {
			return
		}
		tv.Slices = append(tv.Slices, id)
	}
}

// timeName returns the variable name n stands for at the current slice:
// X[t-1] at slice 5 is X[4]. outside is true when that slice is before
// 0 (the arc does not exist at this slice). ok is false after an error.
func (l *lowerer) timeName(n *grammar.Name) (name string, outside, ok bool) {
	if !isTemplate(n) {
		// A slice, Rain[3], or a variable declared with that name,
		// var "Rain[3]" (as pbl convert writes a model unrolled).
		return n.Text(), false, true
	}
	if l.time == nil {
		l.b.Errs = append(l.b.Errs, &Error{Pos: pos(n.Index.Pos), Err: ErrTime,
			Msg: fmt.Sprintf("%s has a time index, but no variable is declared time-indexed (var %s[t]: ...)", n.Text(), n.Base())})
		return "", false, false
	}
	if _, tv := l.time.vars[n.Base()]; !tv {
		l.b.Errs = append(l.b.Errs, &Error{Pos: pos(n.Index.Pos), Err: ErrTime,
			Msg: fmt.Sprintf("%s has a time index, but %s is not declared time-indexed (var %s[t]: ...)", n.Text(), strconv.Quote(n.Base()), n.Base())})
		return "", false, false
	}
	if l.time.slice < 0 {
		l.b.Errs = append(l.b.Errs, &Error{Pos: pos(n.Index.Pos), Err: ErrTime,
			Msg: fmt.Sprintf("%s names the template: name a slice here, as %s", n.Text(), SliceName(n.Base(), 1))})
		return "", false, false
	}
	k, good := l.lag(n)
	if !good {
		return "", false, false
	}
	s := l.time.slice + k
	if s < 0 {
		return "", true, true
	}
	return SliceName(n.Base(), s), false, true
}

// templateOf reports whether any of the names is a template name.
func templateOf(lists ...[]*grammar.Name) bool {
	for _, ns := range lists {
		for _, n := range ns {
			if isTemplate(n) {
				return true
			}
		}
	}
	return false
}

// eachSlice calls f at every slice 0..Horizon, as the current slice,
// stopping at the first slice whose lowering reports an error (the same
// error at every slice is reported once).
func (l *lowerer) eachSlice(f func(s int)) {
	for s := 0; s <= l.time.t.Horizon; s++ {
		errs := len(l.b.Errs)
		l.time.slice = s
		f(s)
		l.time.slice = -1
		if len(l.b.Errs) > errs {
			return
		}
	}
}

// templateDist lowers the template distribution d (its child X[t]) at
// every slice where its parents exist: P(X[t] | X[t-1]) at slices 1, 2,
// .... The slices before are the initial ones, whose distributions the
// file gives apart (P(X[0]) = ...).
func (l *lowerer) templateDist(d *grammar.Dist) {
	children := append([]*grammar.Name{d.Child}, d.More...)
	first := 0
	for _, c := range children {
		if !isTemplate(c) {
			l.b.Errs = append(l.b.Errs, &Error{Pos: pos(c.Pos), Err: ErrTime,
				Msg: fmt.Sprintf("%s has time-indexed parents: it is the template's, %s[t]", c.Text(), c.Base())})
			return
		}
		if k, ok := l.lag(c); !ok {
			return
		} else if k != 0 {
			l.b.Errs = append(l.b.Errs, &Error{Pos: pos(c.Index.Pos), Err: ErrTime,
				Msg: fmt.Sprintf("a distribution's template is given at slice t: P(%s[t] | ...)", c.Base())})
			return
		}
	}
	for _, p := range d.Parents {
		if isTemplate(p) {
			k, ok := l.lag(p)
			if !ok {
				return
			}
			first = max(first, -k)
		}
	}
	l.time.firsts = append(l.time.firsts, templateStart{d: d, first: first})
	for _, c := range children {
		if tv := l.time.t.Var(c.Base()); tv != nil {
			tv.First = first
		}
	}
	l.eachSlice(func(s int) {
		if s >= first {
			l.dist(d)
		}
	})
}

// templateStart is where a template distribution starts: the slices
// before first are initial ones.
type templateStart struct {
	d     *grammar.Dist
	first int
}

// checkInitial reports the initial slices of a template distribution's
// children that have no distribution of their own.
func (l *lowerer) checkInitial() {
	if l.time == nil {
		return
	}
	for _, ts := range l.time.firsts {
		for _, c := range append([]*grammar.Name{ts.d.Child}, ts.d.More...) {
			tv := l.time.t.Var(c.Base())
			if tv == nil || tv.Slices == nil {
				continue
			}
			for s := 0; s < ts.first && s < len(tv.Slices); s++ {
				if _, has := l.distAt(tv.Slices[s]); has {
					continue
				}
				msg := fmt.Sprintf("%s has no distribution: the template P(%s[t] | ...) starts at slice %d, where its parents exist; give the first slice its own, P(%s) = ...",
					SliceName(c.Base(), s), c.Base(), ts.first, SliceName(c.Base(), s))
				if s > 0 {
					msg = fmt.Sprintf("%s has no distribution: the template P(%s[t] | ...) starts at slice %d, where its parents exist; give the slices before it their own, P(%s | %s) = ...",
						SliceName(c.Base(), s), c.Base(), ts.first, SliceName(c.Base(), s), SliceName(c.Base(), s-1))
				}
				l.b.Errs = append(l.b.Errs, &Error{Pos: pos(ts.d.Pos), Err: ErrNoInitial, Msg: msg})
				break
			}
		}
	}
}

// Unroll returns m, a time-indexed model, unrolled to the slices
// 0..h: the slices after m's horizon are copies of its last slice's
// variables, parents and distributions (the template's: the last slice
// is at least the order, where every template distribution applies),
// each parent moved as many slices on, static parents kept. The
// distributions' numbers are shared, not copied. m itself is returned if
// it already has slice h; it is not changed.
//
// A template distribution of a kind without a table (a softmax, a joint
// normal) cannot be copied: the error is ErrTime, and the file must name
// the slice for the lowering to reach it.
func Unroll(m *Model, h int) (*Model, error) {
	t := m.Time
	switch {
	case t == nil:
		return nil, fmt.Errorf("the model has no time-indexed variables: %w", ErrTime)
	case h <= t.Horizon:
		return m, nil
	case h > MaxHorizon:
		return nil, fmt.Errorf("slice %d: a model is unrolled to at most %d slices: %w", h, MaxHorizon, ErrTime)
	}
	H := t.Horizon
	where := make(map[VarID][2]int, len(t.Vars)*(H+1)) // a slice variable → (time var, slice)
	for i, tv := range t.Vars {
		for s, v := range tv.Slices {
			where[v] = [2]int{i, s}
		}
	}
	c := m.clone()
	c.byName = make(map[string]VarID, len(m.Vars)+(h-H)*len(t.Vars))
	for name, id := range m.byName {
		c.byName[name] = id
	}
	nt := &Time{Horizon: h, Order: t.Order, Vars: make([]TimeVar, len(t.Vars))}
	for i, tv := range t.Vars {
		nt.Vars[i] = TimeVar{Name: tv.Name, Pos: tv.Pos, First: tv.First, Slices: append(make([]VarID, 0, h+1), tv.Slices...)}
		if tv.First < 0 && m.Dists[tv.Slices[H]] != nil {
			return nil, fmt.Errorf("%s has no template distribution P(%s[t] | ...): its slices after %d have none to copy: %w", tv.Name, tv.Name, H, ErrTime)
		}
	}
	// The new variables first, so that a parent in the same slice has its
	// number when the distributions are moved.
	for s := H + 1; s <= h; s++ {
		for i, tv := range t.Vars {
			x := *m.Vars[tv.Slices[H]]
			x.Name = SliceName(tv.Name, s)
			id := VarID(len(c.Vars))
			x.ID = id
			c.Vars = append(c.Vars, &x)
			c.byName[x.Name] = id
			nt.Vars[i].Slices = append(nt.Vars[i].Slices, id)
		}
	}
	for s := H + 1; s <= h; s++ {
		move := func(p VarID) VarID {
			w, ok := where[p]
			if !ok {
				return p // static
			}
			return nt.Vars[w[0]].Slices[w[1]+s-H]
		}
		for i, tv := range t.Vars {
			src := tv.Slices[H]
			dst := nt.Vars[i].Slices[s]
			ps := make([]VarID, len(m.Parents[src]))
			for j, p := range m.Parents[src] {
				ps[j] = move(p)
			}
			c.Parents = append(c.Parents, ps)
			var d Dist
			switch x := m.Dists[src].(type) {
			case nil:
			case *Gaussian:
				g := *x
				g.Child = dst
				g.Parents = moveAll(x.Parents, move)
				g.Real = moveAll(x.Real, move)
				d = &g
			default:
				cpt := m.Table(src)
				if cpt == nil {
					return nil, fmt.Errorf("%s: its distribution cannot be copied to slice %d; name the slice in the model's file, and the lowering unrolls to it: %w", m.Vars[src].Name, s, ErrTime)
				}
				f := *cpt.Factor
				f.Vars = moveAll(cpt.Factor.Vars, move)
				// The numbers as written too (they are the template's), so
				// that the slices are written as one template.
				d = &CPT{Pos: cpt.Pos, Child: dst, Parents: moveAll(cpt.Parents, move), Factor: &f, written: cpt.written}
			}
			c.Dists = append(c.Dists, d)
		}
	}
	c.Time = nt
	return c, nil
}

func moveAll(vs []VarID, move func(VarID) VarID) []VarID {
	if vs == nil {
		return nil
	}
	out := make([]VarID, len(vs))
	for i, v := range vs {
		out[i] = move(v)
	}
	return out
}
