package ir

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/pbl-lang/pbl/grammar"
)

// Bidirected is a bidirected edge A <-> B: A and B share an unobserved
// confounder, which the model does not name.
type Bidirected struct {
	Pos  Pos
	A, B VarID
}

// Observed is `observed "FILE"` or `observed data "FILE.csv"`: the
// distribution of a causal model's observed variables (those not latent)
// comes from a model over exactly them, in any format pbl reads, or from
// the empirical joint of a CSV file's columns. Path is as written,
// relative to the directory of the file that declares it (Pos.File).
type Observed struct {
	Pos  Pos
	Path string
	Data bool
}

// ErrLatent is the kind of error of a latent variable where only
// observed ones may be: a query's term of a causal question answered from
// the observed distribution, a bidirected edge's end.
var ErrLatent = errors.New("a latent variable is not observed")

// ErrNotCausal is the kind of error of a causal query (identify, adjust,
// CF) that is not well formed or asked of a model that cannot answer it.
var ErrNotCausal = errors.New("not a causal question")

// Latents returns the model's latent variables, in declaration order.
func (m *Model) Latents() []VarID {
	var out []VarID
	for _, v := range m.Vars {
		if v.Latent {
			out = append(out, v.ID)
		}
	}
	return out
}

// NeedsIdentification reports whether a probability query on m is
// answered by causal identification on the observed distribution rather
// than by inference on the model's own tables: m has a bidirected edge, a
// latent variable without a distribution, or an observed declaration and
// a variable without one. (A model whose latent variables all have
// tables is a Bayesian network as any other: do(...) is graph surgery.)
func (m *Model) NeedsIdentification() bool {
	if len(m.Bidirected) > 0 {
		return true
	}
	for v, x := range m.Vars {
		if m.Dists[v] == nil && (x.Latent || m.Observed != nil) {
			return true
		}
	}
	return false
}

// markedOffset returns the offset of a declaration that a lean tree keeps
// (a decision or a latent declaration), or -1 for any other statement.
func markedOffset(s grammar.Stmt) int {
	switch d := s.(type) {
	case *grammar.Decision:
		return d.Pos.Offset
	case *grammar.Latent:
		return d.Pos.Offset
	}
	return -1
}

// markedDecl lowers a declaration that a lean tree keeps.
func (l *lowerer) markedDecl(s grammar.Stmt) {
	switch d := s.(type) {
	case *grammar.Decision:
		l.decisionDecl(d)
	case *grammar.Latent:
		l.latentDecl(d)
	}
}

// latentDecl lowers `latent U, V: TYPE`: discrete variables marked latent
// (bool without a type).
func (l *lowerer) latentDecl(d *grammar.Latent) {
	n := len(l.b.m.Vars)
	t := d.Type
	if t == nil {
		t = &grammar.Type{Pos: d.Pos, Bool: true}
	}
	l.varDecl(&grammar.VarDecl{Pos: d.Pos, Names: d.Names, Type: t})
	for _, v := range l.b.m.Vars[n:] {
		if !v.Discrete() {
			l.b.Errorf(pos(t.Pos), "latent %s is real-valued: a latent variable has states (bool, {states} or lo..hi)", strconv.Quote(v.Name))
		}
		v.Latent = true
	}
}

// bidirected lowers `A, B <-> C`: a bidirected edge between every name of
// one side and every name of the other, between observed variables.
func (l *lowerer) bidirected(e *grammar.Edges) {
	m := l.b.m
	side := func(list *grammar.NameList) []VarID {
		var ids []VarID
		for _, n := range list.Names {
			id, ok := l.lookup(n)
			if !ok {
				continue
			}
			if m.Vars[id].Latent {
				l.b.Errs = append(l.b.Errs, &Error{Pos: pos(n.Pos), Err: ErrLatent,
					Msg: fmt.Sprintf("%s is latent: a bidirected edge joins observed variables (a latent variable is a confounder itself: draw edges from it, %s -> ...)", strconv.Quote(m.Vars[id].Name), Quote(m.Vars[id].Name))})
				continue
			}
			ids = append(ids, id)
		}
		return ids
	}
	a, b := side(e.Lists[0]), side(e.Bidirected)
	at := pos(e.Bidirected.Pos)
	for _, x := range a {
		for _, y := range b {
			if x == y {
				l.b.Errorf(at, "bidirected edge from %s to itself", strconv.Quote(m.Vars[x].Name))
				continue
			}
			dup := false
			for _, o := range m.Bidirected {
				if o.A == x && o.B == y || o.A == y && o.B == x {
					l.b.Errorf(at, "bidirected edge %s <-> %s declared twice (first at %s)", Quote(m.Vars[x].Name), Quote(m.Vars[y].Name), o.Pos)
					dup = true
					break
				}
			}
			if !dup {
				m.Bidirected = append(m.Bidirected[:len(m.Bidirected):len(m.Bidirected)], Bidirected{Pos: at, A: x, B: y})
			}
		}
	}
}

// observed lowers `observed "FILE"`: one per model.
func (l *lowerer) observed(o *grammar.Observed) {
	m := l.b.m
	if m.Observed != nil {
		l.b.Errorf(pos(o.Pos), "second observed declaration (first at %s): the observed distribution comes from one place", m.Observed.Pos)
		return
	}
	if o.Path == "" {
		l.b.Errorf(pos(o.Pos), "observed needs a file name")
		return
	}
	m.Observed = &Observed{Pos: pos(o.Pos), Path: o.Path, Data: o.Data}
}

// ErrNotDeterministic is the kind of error of a counterfactual asked of a
// model whose mechanisms are not deterministic: an observed variable
// whose table is not 0 or 1 in every row, or with no table, or an
// unobserved confounder with no table. Its counterfactuals are not
// determined by its distribution.
var ErrNotDeterministic = errors.New("mechanisms not deterministic")
