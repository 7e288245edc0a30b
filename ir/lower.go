package ir

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/internal/spell"
)

// MaxStates is the largest number of states a variable may have.
const MaxStates = 1 << 20

// Lower lowers parsed files to one Model. files[len(files)-1] is the main
// file; the others are the files it imports (directly or not), in the order
// their declarations should come, imports first. Declarations of every file
// are merged; only the main file's statements are kept. Import statements
// are resolved by the caller (see the root package's Prepare), and ignored
// here.
//
// A discrete variable without a table is a structure whose numbers are
// still to be learned ([Model.Unlearned]); it is not an error.
func Lower(files ...*grammar.File) (*Model, error) {
	return LowerWith(LowerOptions{}, files...)
}

// LowerOptions configures LowerWith.
type LowerOptions struct {
	// Learn, if not nil, runs a learn statement: it is called for each
	// learn statement of the main file, in source order, with the model
	// learned so far, and returns the model learned from the statement's
	// data (a new Model; the one it is given is not changed). The main
	// file's queries and expectations are lowered against the last model,
	// so that they may name states that an open variable took from the
	// data. An error it returns is reported with the file's other errors,
	// positioned at the statement unless it carries positions of its own.
	// Without Learn, learn statements are lowered but not run.
	Learn func(m *Model, s *LearnStmt) (*Model, error)

	// Data binds data sets to other files, with the same columns: a data
	// table (inline or a CSV) named NAME reads Data[NAME] instead, and so
	// does a learn statement reading a CSV whose base name is NAME
	// (weather for "data/weather.csv"). A name that the main file does not
	// use is an error ([ErrUnknownData]).
	Data map[string]string

	// MaxEntries, if positive, is the most entries the tables of the
	// distributions may have together (and so each, below the limit of
	// MaxTableSize/4): a compact table of a few hundred bytes (a noisy-OR
	// of 28 parents) asks for 2^29 entries, seconds and gigabytes to
	// compute, and a few of them for more. The language server gives the
	// command line's --max-table default.
	MaxEntries int

	// Horizon is the last slice a time-indexed model is unrolled to, at
	// least (it is also unrolled to the largest slice its files name, and
	// to its order): a query given apart from the file names its slices
	// here.
	Horizon int
}

// LowerWith is Lower with options.
func LowerWith(opt LowerOptions, files ...*grammar.File) (*Model, error) {
	if len(files) == 0 {
		return nil, ErrorList{Errorf(Pos{}, "no files")}
	}
	main := files[len(files)-1]
	return newLowerer(NewBuilder(main.Pos.Filename)).lower(opt, files)
}

// Extend lowers the declarations and statements of files onto the model m,
// as if they came after m's own declarations, and returns the extended
// model, whose statements are those of the last file (the ones the caller
// is to run). files[len(files)-1] is the main file, the others what it
// imports, imports first, as for LowerWith. m is not changed. The REPL
// extends its model this way, one input at a time.
func Extend(m *Model, opt LowerOptions, files ...*grammar.File) (*Model, error) {
	if len(files) == 0 {
		return nil, ErrorList{Errorf(Pos{}, "no files")}
	}
	b := &Builder{m: m.clone(), checked: make([]bool, len(m.Vars)), cptSeen: make([]bool, len(m.Vars))}
	c := b.m
	c.Stmts = nil
	c.Potentials = append([]*Factor(nil), m.Potentials...)
	c.Tables = append([]*DataTable(nil), m.Tables...)
	c.Spaces = append([]*Space(nil), m.Spaces...)
	c.byName = make(map[string]VarID, len(m.Vars))
	for v, x := range m.Vars {
		// Lowering may give open variables states (inline tables): each
		// variable is the extension's own copy.
		nx := *x
		c.Vars[v] = &nx
		c.byName[x.Name] = VarID(v)
		b.cptSeen[v] = m.Dists[v] != nil
	}
	l := newLowerer(b)
	l.baseClassifier = m.Classifier
	l.hasEdges = make([]bool, len(m.Vars))
	for v, ps := range m.Parents {
		if d := m.Dists[v]; d != nil {
			l.setDist(VarID(v), d.Position())
		}
		for _, p := range ps {
			key := [2]VarID{p, VarID(v)}
			l.edges[key] = m.Vars[v].Pos
			l.edgeList = append(l.edgeList, key)
			l.hasEdges[v] = true
		}
	}
	for _, t := range m.Tables {
		l.tables[t.Name] = t
	}
	return l.lower(opt, files)
}

// lower lowers files (imports first, the main file last) with the
// builder, runs the learn statements with opt.Learn, and lowers the main
// file's statements against the model learned.
func (l *lowerer) lower(opt LowerOptions, files []*grammar.File) (*Model, error) {
	main := files[len(files)-1]
	l.opt = opt
	l.timePrepare(files)
	for _, f := range files {
		l.decls(f)
	}
	l.structure()
	for _, f := range files {
		l.data(f)
	}
	// The statements: learn statements first (they make the model the
	// queries are lowered against), then every statement in source order.
	// They are lowered once the declarations are valid.
	var learns []*LearnStmt
	valid := len(l.b.Errs) == 0
	for _, s := range main.Stmts {
		if g, ok := s.(*grammar.Learn); ok && valid {
			if ls := l.learnStmt(g); ls != nil {
				learns = append(learns, ls)
			}
		}
	}
	l.checkBound(main)
	if l.time != nil {
		l.b.m.Time = l.time.t
	}
	m, err := l.b.Finish()
	if err != nil {
		return nil, err
	}
	if opt.Learn != nil {
		var errs ErrorList
		for _, ls := range learns {
			learned, err := opt.Learn(m, ls)
			if err != nil {
				errs = append(errs, Positioned(ls.Pos, err)...)
				continue
			}
			m = learned
		}
		if len(errs) > 0 {
			return nil, errs.Err()
		}
	}
	stmts, errs := lowerStmts(m, main, learns)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return m.withStmts(stmts), nil
}

// lowerStmts lowers the main file's statements against m, in source
// order: the learn statements already lowered, queries and expectations.
func lowerStmts(m *Model, main *grammar.File, learns []*LearnStmt) ([]Stmt, ErrorList) {
	var stmts []Stmt
	var errs ErrorList
	next := 0
	for _, s := range main.Stmts {
		switch s := s.(type) {
		case *grammar.QueryStmt:
			if lq, qerrs := lowerQuery(m, s.Query); len(qerrs) > 0 {
				errs = append(errs, qerrs...)
			} else {
				stmts = append(stmts, &QueryStmt{Pos: pos(s.Pos), Query: lq})
			}
		case *grammar.Learn:
			if next < len(learns) && learns[next].Pos == pos(s.Pos) {
				stmts = append(stmts, learns[next])
				next++
			}
		case *grammar.Expect:
			if le, eerrs := lowerExpect(m, s); len(eerrs) > 0 {
				errs = append(errs, eerrs...)
			} else {
				stmts = append(stmts, le)
			}
		}
	}
	return stmts, errs
}

// Positioned returns err as a list of positioned errors: the errors it
// holds if it is an [ErrorList] or an [*Error], otherwise one error at pos
// (keeping err as its kind, for errors.Is and errors.As).
func Positioned(pos Pos, err error) ErrorList {
	var list ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		return list
	}
	var e *Error
	if errors.As(err, &e) {
		return ErrorList{e}
	}
	return ErrorList{{Pos: pos, Msg: err.Error(), Err: err}}
}

// newLowerer returns a lowerer building with b.
func newLowerer(b *Builder) *lowerer {
	return &lowerer{b: b, edges: map[[2]VarID]Pos{}, bad: map[string]bool{}, tables: map[string]*DataTable{}, bound: map[string]bool{}}
}

// decls lowers the declarations of f that come before the others: its
// variables and its classifier.
func (l *lowerer) decls(f *grammar.File) {
	for _, s := range f.Stmts {
		switch d := s.(type) {
		case *grammar.VarDecl:
			l.varDecl(d)
		case *grammar.Decision, *grammar.Latent:
			if f.Lazy == nil {
				l.markedDecl(d)
			}
		}
	}
	if f.Lazy != nil {
		// A lean tree (parser.ParseLean): each declaration is parsed
		// again here, and its tree dropped once lowered. The decisions
		// and latent variables, kept in the tree, are lowered among them
		// in source order.
		var decs []grammar.Stmt
		for _, s := range f.Stmts {
			if markedOffset(s) >= 0 {
				decs = append(decs, s)
			}
		}
		for d := range f.Lazy.VarDecls() {
			for len(decs) > 0 && markedOffset(decs[0]) < d.Pos.Offset {
				l.markedDecl(decs[0])
				decs = decs[1:]
			}
			l.varDecl(d)
		}
		for _, d := range decs {
			l.markedDecl(d)
		}
		l.lazyErr(f)
	}
	l.utilityNames(f)
	for _, s := range f.Stmts {
		if c, ok := s.(*grammar.Classifier); ok {
			l.classifier(c)
		}
	}
	l.files = append(l.files, f)
}

// lazyErr reports the error that stopped the iteration of f's lazy
// statements, if one did: the file could not be read again, or had
// changed (parser.ParseLeanFrom).
func (l *lowerer) lazyErr(f *grammar.File) {
	err := f.Lazy.Err()
	if err == nil {
		return
	}
	for _, x := range l.b.Errs {
		if x == err || x.Err == err {
			return // reported once, though both loops stop at it
		}
	}
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Pos: Pos{File: f.Pos.Filename}, Msg: err.Error(), Err: err}
	}
	l.b.Errs = append(l.b.Errs, e)
}

// structure lowers the edges and distributions of every file declared so
// far, and checks them against each other.
func (l *lowerer) structure() {
	for _, f := range l.files {
		for _, s := range f.Stmts {
			if e, ok := s.(*grammar.Edges); ok {
				l.edgeStmt(e)
			}
		}
	}
	for _, f := range l.files {
		for _, s := range f.Stmts {
			if d, ok := s.(*grammar.Dist); ok {
				if l.time != nil && templateOf([]*grammar.Name{d.Child}, d.More, d.Parents) {
					l.templateDist(d)
				} else {
					l.dist(d)
				}
			}
		}
		if f.Lazy != nil {
			for d := range f.Lazy.Dists() {
				l.dist(d) // parsed again, its tree dropped once lowered
			}
			l.lazyErr(f)
		}
	}
	l.checkInitial()
	l.checkEdges()
	l.edgeStructure()
	l.classifierStructure()
	l.mixtures()
	for _, f := range l.files {
		l.spaces(f)
		for _, s := range f.Stmts {
			switch s := s.(type) {
			case *grammar.Utility:
				l.utility(s)
			case *grammar.Observed:
				l.observed(s)
			}
		}
	}
}

// data lowers the inline data tables of f.
func (l *lowerer) data(f *grammar.File) {
	for _, s := range f.Stmts {
		if d, ok := s.(*grammar.Data); ok {
			l.dataTable(d)
		}
	}
}

type lowerer struct {
	b         *Builder
	edges     map[[2]VarID]Pos // declared edge (parent, child) → position
	edgeList  [][2]VarID       // declared edges in order
	hasEdges  []bool           // hasEdges[v]: some edge into v was declared
	dists     []distPos        // dists[child]: the position of its first P(child | ...), if any (a slice: a map cost a large model 87 bytes a variable)
	bad       map[string]bool  // names whose declaration was reported invalid
	tables    map[string]*DataTable
	files     []*grammar.File // the files whose declarations were read
	opt       LowerOptions
	bound     map[string]bool // the names of opt.Data used
	utilities map[string]Pos  // the utilities declared, by name (not variables)
	entries   int             // the entries of the distributions' tables so far, if opt.MaxEntries is set

	baseClassifier *Classifier // Extend: the classifier of the model extended, or nil

	time *timeLowering // a time-indexed model's, or nil

	// Buffers that dist reuses from one table to the next (see scratch).
	vals   []float64
	rowPos []Pos
	seen   []bool
}

// scratch returns n zeroed elements: from *buf, which it keeps for the
// next call, if n is small, so that a model of many small tables does not
// allocate three buffers per table; else newly allocated (a buffer that
// large is not kept while the tables after it are built).
func scratch[T any](buf *[]T, n int) []T {
	const keep = 1 << 12
	if n > keep {
		return make([]T, n)
	}
	if cap(*buf) < n {
		*buf = make([]T, n, max(n, 64))
	}
	s := (*buf)[:n]
	clear(s)
	return s
}

// distPos is where a variable's distribution was given, if it was.
type distPos struct {
	at  Pos
	set bool
}

// distAt returns where v's distribution was first given, and whether it
// was.
func (l *lowerer) distAt(v VarID) (Pos, bool) {
	if int(v) < len(l.dists) {
		return l.dists[v].at, l.dists[v].set
	}
	return Pos{}, false
}

// setDist records where v's distribution is given.
func (l *lowerer) setDist(v VarID, at Pos) {
	if int(v) >= len(l.dists) {
		grown := make([]distPos, max(int(v)+1, len(l.b.m.Vars)))
		copy(grown, l.dists)
		l.dists = grown
	}
	l.dists[v] = distPos{at, true}
}

func pos(p grammar.Position) Pos { return Pos{File: p.Filename, Line: p.Line, Col: p.Column} }

func (l *lowerer) varDecl(d *grammar.VarDecl) {
	t := d.Type
	var kind Kind
	var states []string
	lo := 0
	switch {
	case t.Bool:
		kind = Bool
	case t.Real:
		kind = Real
	case t.States != nil && len(t.States) > MaxStates:
		kind = Enum
		l.b.Errorf(pos(t.Pos), "%d states: a variable has at most %d", len(t.States), MaxStates)
	case t.States != nil:
		kind = Enum
		for _, n := range t.States {
			states = append(states, n.Text())
		}
	case t.Lo != nil:
		kind = Range
		a, err1 := strconv.Atoi(*t.Lo)
		b, err2 := strconv.Atoi(*t.Hi)
		switch {
		case errors.Is(err1, strconv.ErrRange) || errors.Is(err2, strconv.ErrRange):
			l.b.Errorf(pos(t.Pos), "range %s..%s: a bound is out of range (bounds are 64-bit integers, and a range has at most %d states)", *t.Lo, *t.Hi, MaxStates)
		case err1 != nil || err2 != nil:
			l.b.Errorf(pos(t.Pos), "a range needs integer bounds, as in 0..10")
		case b < a:
			l.b.Errorf(pos(t.Pos), "empty range %d..%d", a, b)
		case uint64(b)-uint64(a) >= MaxStates: // b ≥ a: the difference fits in a uint64
			l.b.Errorf(pos(t.Pos), "range %d..%d has more than %d states", a, b, MaxStates)
		default:
			lo, states = a, RangeStates(a, b)
		}
	}
	for _, st := range states {
		if st == "" {
			l.b.Errorf(pos(t.Pos), "empty state name")
			break
		}
	}
	for _, n := range d.Names {
		if n.Index != nil {
			if isTemplate(n) && l.time != nil && (states != nil || kind == Bool || kind == Real) {
				l.timeVarDecl(n, func(name string) (VarID, bool) { return l.b.AddVar(pos(n.Pos), name, kind, states, lo) })
			}
			continue // a slice declared alone is reported by timePrepare
		}
		if states == nil && (kind == Enum || kind == Range) {
			// The type was reported as invalid: remember the name so that
			// its uses do not each report an undefined variable.
			l.bad[n.Text()] = true
			continue
		}
		if _, ok := l.b.AddVar(pos(n.Pos), n.Text(), kind, states, lo); !ok {
			if _, declared := l.b.m.byName[n.Text()]; !declared {
				l.bad[n.Text()] = true
			}
		}
	}
	if len(l.hasEdges) < len(l.b.m.Vars) {
		l.hasEdges = append(l.hasEdges, make([]bool, len(l.b.m.Vars)-len(l.hasEdges))...)
	}
}

// lookup resolves a variable name, reporting unknown names with a hint.
// Names whose declaration was invalid are not reported again.
func (l *lowerer) lookup(n *grammar.Name) (VarID, bool) {
	if n.Index != nil {
		name, outside, ok := l.timeName(n)
		if !ok || outside || l.bad[n.Base()] {
			return 0, false
		}
		return lookupName(l.b.m, n, name, &l.b.Errs)
	}
	if l.bad[n.Text()] || !l.notUtility(n) {
		return 0, false
	}
	return lookupVar(l.b.m, n, &l.b.Errs)
}

func lookupVar(m *Model, n *grammar.Name, errs *ErrorList) (VarID, bool) {
	if isTemplate(n) {
		if m.Time != nil && m.Time.Var(n.Base()) != nil {
			errs.Add(pos(n.Index.Pos), "%s names the template: name a slice here, as %s", n.Text(), SliceName(n.Base(), 1))
			return 0, false
		}
	}
	return lookupName(m, n, n.Text(), errs)
}

// beyondMsg says why the slice that n names, name, is not a variable of
// a model unrolled to slices 0..h: not a slice number (Rain[-1],
// Rain[1e5]), beyond the most a model is unrolled to, or beyond h.
func beyondMsg(n *grammar.Name, name string, h int) string {
	s, err := strconv.Atoi(n.Index.Slice)
	switch {
	case n.Index.Var != "":
	case err != nil && errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(n.Index.Slice, "-") || err == nil && s > MaxHorizon:
		return fmt.Sprintf("%s is beyond slice %d, the last a model is unrolled to (long sequences are pbl sequence's)", name, MaxHorizon)
	case err != nil || s < 0:
		return fmt.Sprintf("%s: a slice is a whole number, 0, 1, 2, ...", name)
	}
	return fmt.Sprintf("%s is beyond the slices unrolled, 0..%d", name, h)
}

// lookupName resolves the variable name that n stands for.
func lookupName(m *Model, n *grammar.Name, name string, errs *ErrorList) (VarID, bool) {
	if id, ok := m.byName[name]; ok {
		return id, true
	}
	if n.Index != nil && m.Time != nil && m.Time.Var(n.Base()) != nil {
		*errs = append(*errs, &Error{Pos: pos(n.Pos), Err: ErrTime, Msg: beyondMsg(n, name, m.Time.Horizon)})
		return 0, false
	}
	msg := "undefined variable " + strconv.Quote(name)
	if s := spell.Nearest(name, m.Names()); s != "" {
		msg += " (did you mean " + strconv.Quote(s) + "?)"
	}
	errs.Add(pos(n.Pos), "%s", msg)
	return 0, false
}

// lookupState resolves a state of v, reporting unknown states with a hint.
func lookupState(v *Variable, n *grammar.Name, errs *ErrorList) (int, bool) {
	name := n.Text()
	if i := v.State(name); i >= 0 {
		return i, true
	}
	errs.Add(pos(n.Pos), "unknown state %s of %s%s", strconv.Quote(name), strconv.Quote(v.Name), StateHint(v, name))
	return 0, false
}

func stateList(v *Variable) string {
	qs := make([]string, len(v.States))
	for i, s := range v.States {
		qs[i] = Quote(s)
	}
	if len(qs) > 12 {
		qs = append(qs[:12], "...")
	}
	return strings.Join(qs, ", ")
}

func (l *lowerer) edgeStmt(e *grammar.Edges) {
	if e.Bidirected != nil {
		l.bidirected(e)
		return
	}
	if l.time != nil && l.time.badArc[e] {
		return
	}
	if l.time != nil && l.time.slice < 0 {
		for _, list := range e.Lists {
			if templateOf(list.Names) {
				l.eachSlice(func(int) { l.edgeStmt(e) })
				return
			}
		}
	}
	var prev []VarID
	for i, list := range e.Lists {
		var cur []VarID
		for _, n := range list.Names {
			if l.outside(n) {
				continue // X[t-1] at slice 0
			}
			if id, ok := l.lookup(n); ok {
				cur = append(cur, id)
			}
		}
		if i > 0 {
			for _, p := range prev {
				for _, c := range cur {
					key := [2]VarID{p, c}
					at := pos(list.Pos)
					if first, dup := l.edges[key]; dup {
						l.b.Errorf(at, "edge %s -> %s declared twice (first at %s)", Quote(l.b.m.Vars[p].Name), Quote(l.b.m.Vars[c].Name), first)
						continue
					}
					if p == c {
						l.b.Errorf(at, "edge from %s to itself", strconv.Quote(l.b.m.Vars[p].Name))
						continue
					}
					l.edges[key] = at
					l.edgeList = append(l.edgeList, key)
					l.hasEdges[c] = true
				}
			}
		}
		prev = cur
	}
}

// checkEdges reports declared edges into a variable whose CPT does not list
// the parent. (The reverse is reported by dist.)
func (l *lowerer) checkEdges() {
	m := l.b.m
	for _, e := range l.edgeList {
		p, c := e[0], e[1]
		if !m.Vars[p].Discrete() && m.Vars[c].Discrete() && m.Dists[c] == nil {
			// A structure to learn (a table reports it at its parent).
			l.b.Errs = append(l.b.Errs, &Error{Pos: l.edges[e], Err: ErrRealParentOfDiscrete,
				Msg: fmt.Sprintf("%s is real-valued: a discrete variable (%s) with a real-valued parent cannot be learned yet; give it logistic(A) or softmax(A1, ..., A%d) of scores affine in its real parents",
					strconv.Quote(m.Vars[p].Name), strconv.Quote(m.Vars[c].Name), len(m.Vars[c].States))})
			continue
		}
		cpt := m.Table(c)
		if cpt == nil {
			continue // a structure to learn, or a distribution with errors
		}
		found := false
		for _, q := range cpt.Parents {
			found = found || q == p
		}
		if !found {
			hint := ""
			if l.time != nil {
				hint = " (a template's arc holds in every slice where the slices it names exist, the first ones too)"
			}
			l.b.Errorf(l.edges[e], "edge %s -> %s is declared, but P(%s | ...) does not list %s as a parent%s",
				Quote(m.Vars[p].Name), Quote(m.Vars[c].Name), Quote(m.Vars[c].Name), Quote(m.Vars[p].Name), hint)
		}
	}
}

// dist lowers a CPT definition.
func (l *lowerer) dist(d *grammar.Dist) {
	m := l.b.m
	errs := len(l.b.Errs)
	child, ok := l.lookup(d.Child)
	if ok && m.Vars[child].Decision {
		l.b.Errs = append(l.b.Errs, &Error{Pos: pos(d.Pos), Err: ErrDecisionDist,
			Msg: fmt.Sprintf("%s is a decision: its state is chosen, so it has no distribution (its parents, edges into it, are what is known when it is taken)", strconv.Quote(m.Vars[child].Name))})
		return
	}
	if ok {
		if first, dup := l.distAt(child); dup {
			l.b.Errorf(pos(d.Pos), "second distribution for %s (first at %s)", strconv.Quote(m.Vars[child].Name), first)
			return
		}
		l.setDist(child, pos(d.Pos))
		// A distribution with errors is reported once, not again as
		// missing: mark it seen whatever happens below. (SetCPT, if
		// reached, has marked it already.)
		defer func() { l.b.cptSeen[child] = true }()
	}
	var parents []VarID
	for _, n := range d.Parents {
		if id, ok := l.lookup(n); ok {
			for _, q := range parents {
				if q == id {
					l.b.Errorf(pos(n.Pos), "parent %s listed twice", strconv.Quote(n.Text()))
				}
			}
			if ok && id == child {
				l.b.Errorf(pos(n.Pos), "%s cannot be its own parent", strconv.Quote(n.Text()))
			}
			parents = append(parents, id)
		}
	}
	if !ok || len(l.b.Errs) > errs || len(parents) != len(d.Parents) {
		return
	}
	cv := m.Vars[child]
	if len(d.More) > 0 {
		children := []VarID{child}
		for _, n := range d.More {
			c, ok := l.lookup(n)
			if !ok {
				return
			}
			if slices.Contains(children, c) {
				l.b.Errorf(pos(n.Pos), "%s appears twice in P(...)", strconv.Quote(n.Text()))
				return
			}
			if first, dup := l.distAt(c); dup {
				l.b.Errorf(pos(d.Pos), "second distribution for %s (first at %s)", strconv.Quote(m.Vars[c].Name), first)
				return
			}
			l.setDist(c, pos(d.Pos))
			defer func() { l.b.cptSeen[c] = true }()
			children = append(children, c)
		}
		l.multiNormal(d, children, parents)
		return
	}
	if !cv.Discrete() {
		l.gaussian(d, child, parents)
		return
	}
	if isSoftmaxBody(d.Body) {
		if !slices.ContainsFunc(parents, func(p VarID) bool { return !m.Vars[p].Discrete() }) {
			l.b.Errorf(pos(d.Body.Pos), "logistic(...) and softmax(...) give a discrete variable's distribution given real-valued parents, and %s has none: give a table", Quote(cv.Name))
			return
		}
		l.softmax(d, child, parents)
		return
	}
	for i, p := range append([]VarID{child}, parents...) {
		if !m.Vars[p].Discrete() {
			at := d.Child.Pos
			if i > 0 {
				at = d.Parents[i-1].Pos
			}
			if i > 0 {
				l.b.Errs = append(l.b.Errs, &Error{Pos: pos(at), Err: ErrRealParentOfDiscrete,
					Msg: fmt.Sprintf("%s is real-valued: a table needs discrete parents (bool, {states} or lo..hi); give %s, a discrete variable with a real-valued parent, logistic(A) or softmax(A1, ..., A%d) of scores affine in its real parents",
						strconv.Quote(m.Vars[p].Name), strconv.Quote(cv.Name), len(cv.States))})
				return
			}
			l.b.Errorf(pos(at), "%s is real-valued; a table needs discrete variables (bool, {states} or lo..hi)", strconv.Quote(m.Vars[p].Name))
			return
		}
	}
	if l.hasEdges[child] {
		for i, p := range parents {
			if _, declared := l.edges[[2]VarID{p, child}]; !declared {
				l.b.Errorf(pos(d.Parents[i].Pos), "P(%s | ...) lists parent %s, but no edge %s -> %s is declared",
					Quote(cv.Name), Quote(m.Vars[p].Name), Quote(m.Vars[p].Name), Quote(cv.Name))
			}
		}
	}
	k := len(cv.States)
	card := make([]int, len(parents))
	for i, p := range parents {
		card[i] = len(m.Vars[p].States)
	}
	limit := MaxTableSize / 4
	if l.opt.MaxEntries > 0 {
		limit = min(limit, l.opt.MaxEntries)
	}
	nrows, ok := TableSize(append(card, k))
	if !ok || nrows > limit {
		l.b.Errorf(pos(d.Pos), "the table of %s %s", strconv.Quote(cv.Name), TooLarge(append(card, k), limit))
		return
	}
	if l.opt.MaxEntries > 0 {
		if l.entries+nrows > l.opt.MaxEntries {
			l.b.Errorf(pos(d.Pos), "the table of %s (%d entries) would bring the distributions' tables to %d entries, more than the limit of %d",
				strconv.Quote(cv.Name), nrows, l.entries+nrows, l.opt.MaxEntries)
			return
		}
		l.entries += nrows
	}
	nrows /= k
	body := d.Body
	if body.Noisy != nil || body.Lookup != nil || body.Logic != nil {
		l.compact(d, child, parents)
		return
	}
	vals := scratch(&l.vals, nrows*k) // SetCPT copies it
	switch {
	case body.Value != nil && len(parents) > 0:
		l.b.Errorf(pos(body.Pos), "P(%s | ...) has parents: give one row per parent configuration, as in { %s: ... }",
			Quote(cv.Name), exampleRow(m, parents))
		return
	case body.Value != nil:
		if !l.value(body.Value, cv, d.Normalize, vals) {
			return
		}
		l.b.SetCPT(pos(d.Pos), child, parents, vals, nil)
		return
	case len(parents) == 0:
		l.b.Errorf(pos(body.Pos), "P(%s) has no parents: give a vector, as in [%s]", Quote(cv.Name), exampleVec(k))
		return
	}
	rowPos := scratch(&l.rowPos, nrows) // SetCPT checks the rows, and keeps neither
	seen := scratch(&l.seen, nrows)
	malformed := false // a row could not be placed; missing rows are then not reported
	for _, r := range body.Rows {
		idx, good := l.rowIndex(pos(r.Pos), r.States, parents, card)
		if !good {
			malformed = true
			continue
		}
		if seen[idx] {
			l.b.Errorf(pos(r.Pos), "duplicate row (%s) (first at %s)", rowText(r), rowPos[idx])
			continue
		}
		seen[idx] = true
		if l.value(r.Value, cv, d.Normalize, vals[idx*k:(idx+1)*k]) {
			rowPos[idx] = pos(r.Pos)
		}
	}
	missing := 0
	a := make([]int, len(parents))
	for idx, ok := range seen {
		if ok || malformed {
			continue
		}
		missing++
		if missing <= 3 {
			rem := idx
			for i := len(card) - 1; i >= 0; i-- {
				a[i] = rem % card[i]
				rem /= card[i]
			}
			states := make([]string, len(parents))
			for i, p := range parents {
				states[i] = Quote(m.Vars[p].States[a[i]])
			}
			l.b.Errorf(pos(d.Pos), "P(%s | %s) is missing the row (%s)", Quote(cv.Name), nameList(m, parents), strings.Join(states, ", "))
		}
	}
	if missing > 3 {
		l.b.Errorf(pos(d.Pos), "P(%s | %s) is missing %d rows in all", Quote(cv.Name), nameList(m, parents), missing)
	}
	// Rows with errors keep a zero position, so that the row checks skip
	// them; the other rows are still checked, and the child does not get a
	// second error for having no distribution.
	l.b.SetCPT(pos(d.Pos), child, parents, vals, rowPos)
}

// value lowers a number or vector into dst (one row, len = number of states).
func (l *lowerer) value(v *grammar.Value, child *Variable, normalize bool, dst []float64) bool {
	k := len(dst)
	if v.Normal != nil {
		l.b.Errorf(pos(v.Pos), "%q is discrete: normal(MEAN, SD) is for real-valued variables; give a vector [%s]", child.Name, exampleVec(k))
		return false
	}
	if v.Number != nil {
		if child.Kind != Bool {
			l.b.Errorf(pos(v.Pos), "%s has %s: give a vector [%s]; a single number is shorthand for P(%s=true) of a bool variable",
				Quote(child.Name), Plural(k, "state"), exampleVec(k), child.Name)
			return false
		}
		if normalize {
			l.b.Errorf(pos(v.Pos), "normalize needs a vector of counts or weights, not a single number")
			return false
		}
		p, ok := l.number(v.Pos, *v.Number)
		if !ok {
			return false
		}
		dst[0], dst[1] = p, 1-p
		if !(p >= 0 && p <= 1) {
			l.b.Errorf(pos(v.Pos), "probability %s is outside [0, 1]", *v.Number)
			return false
		}
		return true
	}
	if len(v.Vector) != k {
		l.b.Errorf(pos(v.Pos), "%s, expected %d (states of %s: %s)", Plural(len(v.Vector), "value"), k, strconv.Quote(child.Name), stateList(child))
		return false
	}
	sum := 0.0
	for i, s := range v.Vector {
		p, ok := l.number(v.Pos, s)
		if !ok {
			return false
		}
		dst[i] = p
		sum += p
	}
	if normalize {
		for _, p := range dst {
			if !(p >= 0) {
				l.b.Errorf(pos(v.Pos), "normalize: weight %s is negative", FormatFloat(p))
				return false
			}
		}
		if math.IsInf(sum, 1) {
			// The weights are finite, but their sum overflows: divide them
			// by the largest first (exactly, when it is a power of two).
			_, e := math.Frexp(slices.Max(dst))
			sum = 0
			for i := range dst {
				dst[i] = math.Ldexp(dst[i], -e)
				sum += dst[i]
			}
		}
		if !(sum > 0) {
			l.b.Errorf(pos(v.Pos), "normalize: the weights sum to %s; they must sum to a positive number", FormatFloat(sum))
			return false
		}
		for i := range dst {
			dst[i] /= sum
		}
	}
	return true
}

func (l *lowerer) number(p grammar.Position, s string) (float64, bool) {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(x, 0) {
		l.b.Errorf(pos(p), "number %s is out of range", s)
		return 0, false
	}
	return x, true
}

func nameList(m *Model, vs []VarID) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = Quote(m.Vars[v].Name)
	}
	return strings.Join(names, ", ")
}

func rowText(r *grammar.Row) string {
	s := make([]string, len(r.States))
	for i, n := range r.States {
		s[i] = Quote(n.Text())
	}
	return strings.Join(s, ", ")
}

func exampleRow(m *Model, parents []VarID) string {
	s := make([]string, len(parents))
	for i, p := range parents {
		s[i] = Quote(m.Vars[p].States[0])
	}
	return strings.Join(s, ", ")
}

func exampleVec(k int) string {
	s := make([]string, min(k, 4))
	for i := range s {
		s[i] = "p" + strconv.Itoa(i+1)
	}
	if k > 4 {
		s = append(s, "...")
	}
	return strings.Join(s, ", ")
}

// rowIndex returns the configuration a row of a table names by its
// parents' states (row-major, card their numbers of states, the last
// fastest), reporting, at the row or at the state, a row with the wrong
// number of states and unknown states; ok is false if it reported one.
func (l *lowerer) rowIndex(at Pos, states []*grammar.Name, parents []VarID, card []int) (idx int, ok bool) {
	m := l.b.m
	if len(states) != len(parents) {
		l.b.Errorf(at, "row has %s, expected %d (one for each of %s)", Plural(len(states), "state"), len(parents), nameList(m, parents))
		return 0, false
	}
	ok = true
	for i, st := range states {
		s, found := lookupState(m.Vars[parents[i]], st, &l.b.Errs)
		ok = ok && found
		idx = idx*card[i] + s
	}
	return idx, ok
}
