package ir

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/grammar"
)

// RowTolerance is how far from 1 a CPT row may sum and still be accepted.
// Rows within it are renormalised (see CPT).
const RowTolerance = 1e-6

// Builder assembles a Model and validates it. Lowering of .pbl files and
// the importers of other formats both use it, so every model is checked the
// same way. Errors are collected; Finish returns them all.
//
// A discrete variable may be left without a distribution: the model is
// then a structure whose numbers are to be learned from data
// ([Model.Unlearned]), its parents given with SetParents.
type Builder struct {
	m       *Model
	Errs    ErrorList
	checked []bool // checked[v]: v's CPT was set by SetCPT, which checked its rows
	cptSeen []bool
	fresh   []bool            // fresh[v]: v's table was set by this builder (and is to be renormalised)
	strs    map[string]string // state names, copied once: see AddVar
}

// NewBuilder returns a builder for a model read from file.
func NewBuilder(file string) *Builder {
	return &Builder{m: &Model{Source: file, byName: map[string]VarID{}}}
}

// Errorf records an error.
func (b *Builder) Errorf(pos Pos, format string, args ...any) {
	b.Errs.Add(pos, format, args...)
}

// Model returns the model being built (for lookups during construction).
func (b *Builder) Model() *Model { return b.m }

// AddVar declares a variable. For Bool the states are ignored and set to
// true, false; for Range they are lo..lo+n-1 given as decimal strings. A
// duplicate name, an empty name or a duplicate state is an error; the
// returned ok is false if the variable was not added.
func (b *Builder) AddVar(pos Pos, name string, kind Kind, states []string, lo int) (VarID, bool) {
	if name == "" {
		b.Errorf(pos, "empty variable name")
		return 0, false
	}
	if prev, dup := b.m.byName[name]; dup {
		b.Errorf(pos, "%s redeclared (first declared at %s)", strconv.Quote(name), b.m.Vars[prev].Pos)
		return prev, false
	}
	if u := b.utility(name); u != nil {
		b.Errorf(pos, "%s redeclared (first declared as a utility at %s)", strconv.Quote(name), u.Pos)
		return 0, false
	}
	switch kind {
	case Bool:
		states = []string{"true", "false"}
	case Real:
		states = nil
	default:
		if len(states) == 0 {
			b.Errorf(pos, "variable %s has no states", strconv.Quote(name))
			return 0, false
		}
		seen := make(map[string]bool, len(states))
		for _, s := range states {
			if seen[s] {
				b.Errorf(pos, "variable %s has state %s twice", strconv.Quote(name), strconv.Quote(s))
				return 0, false
			}
			seen[s] = true
		}
	}
	id := VarID(len(b.m.Vars))
	// The names are copied, and the states shared among variables: a
	// name that is a slice of the parser's source would keep the whole
	// source alive with the model.
	name = strings.Clone(name)
	own := make([]string, len(states))
	for i, st := range states {
		own[i] = b.intern(st)
	}
	b.m.Vars = append(b.m.Vars, &Variable{Pos: pos, ID: id, Name: name, Kind: kind, States: own, Lo: lo})
	b.m.byName[name] = id
	b.grow()
	return id, true
}

// intern returns a copy of the state name s, the same for every
// variable that has it.
func (b *Builder) intern(s string) string {
	if t, ok := b.strs[s]; ok {
		return t
	}
	if b.strs == nil {
		b.strs = map[string]string{}
	}
	t := strings.Clone(s)
	b.strs[t] = t
	return t
}

// grow gives the variable just added its (empty) entries.
func (b *Builder) grow() {
	b.m.Parents = append(b.m.Parents, nil)
	b.m.Dists = append(b.m.Dists, nil)
	b.checked = append(b.checked, false)
	b.cptSeen = append(b.cptSeen, false)
}

// RangeStates returns the state names of the integer range lo..hi.
func RangeStates(lo, hi int) []string {
	out := make([]string, 0, hi-lo+1)
	for i := lo; i <= hi; i++ {
		out = append(out, strconv.Itoa(i))
	}
	return out
}

// SetCPT gives child its CPT. vals is laid out over (parents..., child),
// the child fastest; rowPos, if not nil, gives the position of each row
// (one per parent configuration) for error messages; a row whose position
// is the zero Pos was already reported as malformed or missing and is not
// checked again. A second CPT for the same child is an error.
func (b *Builder) SetCPT(pos Pos, child VarID, parents []VarID, vals []float64, rowPos []Pos) {
	if b.decisionDist(pos, child) {
		b.cptSeen[child] = true
		return
	}
	if b.cptSeen[child] {
		b.Errorf(pos, "second distribution for %s (first at %s)", strconv.Quote(b.m.Vars[child].Name), b.m.Dists[child].Position())
		return
	}
	b.cptSeen[child] = true
	vars := append(append([]VarID(nil), parents...), child)
	card := make([]int, len(vars))
	for i, v := range vars {
		card[i] = len(b.m.Vars[v].States)
	}
	n, ok := TableSize(card)
	if !ok {
		b.Errorf(pos, "the table of %s %s", strconv.Quote(b.m.Vars[child].Name), TooLarge(card, MaxTableSize))
		return
	}
	if len(vals) != n {
		panic(fmt.Sprintf("ir: SetCPT: %d values for a table of %d", len(vals), n))
	}
	f := NewFactor(vars, card)
	copy(f.Vals, vals)
	c := &CPT{Pos: pos, Child: child, Parents: append([]VarID(nil), parents...), Factor: f}
	b.m.Dists[child] = c
	for len(b.fresh) <= int(child) {
		b.fresh = append(b.fresh, false)
	}
	b.fresh[child] = true
	b.m.Parents[child] = append([]VarID(nil), parents...)
	// Check the rows now, while their positions are at hand: holding
	// them until Finish cost a large model as much memory as its tables.
	checkRows(&b.Errs, b.m, c, rowPos)
	b.checked[child] = true
}

// AddFactor adds a potential: a non-negative factor over distinct discrete
// variables, vals laid out row-major (the last variable fastest). Models
// with potentials are Markov networks: their variables need no CPT.
func (b *Builder) AddFactor(pos Pos, vars []VarID, vals []float64) {
	card := make([]int, len(vars))
	for i, v := range vars {
		if !b.m.Vars[v].Discrete() {
			b.Errorf(pos, "%q is real-valued; a factor needs discrete variables", b.m.Vars[v].Name)
			return
		}
		for _, w := range vars[:i] {
			if w == v {
				b.Errorf(pos, "variable %q appears twice in a factor's scope", b.m.Vars[v].Name)
				return
			}
		}
		card[i] = len(b.m.Vars[v].States)
	}
	n, ok := TableSize(card)
	if !ok {
		b.Errorf(pos, "a factor's table %s", TooLarge(card, MaxTableSize))
		return
	}
	if len(vals) != n {
		panic(fmt.Sprintf("ir: AddFactor: %d values for a table of %d", len(vals), n))
	}
	for _, x := range vals {
		if !(x >= 0) || math.IsInf(x, 0) {
			b.Errorf(pos, "factor value %s is not a non-negative number", FormatFloat(x))
			return
		}
	}
	f := NewFactor(vars, card)
	copy(f.Vals, vals)
	b.m.Potentials = append(b.m.Potentials, f)
}

// AddOpenVar declares a variable whose states are taken from the data
// (a classifier's undeclared variable): it starts with no states, and
// AddState gives it more. An empty name is reported, and the variable
// still added, so that the caller's references to it stay valid.
func (b *Builder) AddOpenVar(pos Pos, name string) (VarID, bool) {
	if prev, dup := b.m.byName[name]; dup {
		return prev, false
	}
	if name == "" {
		b.Errorf(pos, "empty variable name")
	}
	id := VarID(len(b.m.Vars))
	b.m.Vars = append(b.m.Vars, &Variable{Pos: pos, ID: id, Name: name, Kind: Enum, Open: true})
	b.m.byName[name] = id
	b.grow()
	return id, true
}

// SetParents gives v a structure without numbers: the parents whose CPT
// is to be learned. It is ignored for a variable that has a CPT.
func (b *Builder) SetParents(v VarID, parents []VarID) {
	if !b.cptSeen[v] {
		b.m.Parents[v] = append([]VarID(nil), parents...)
	}
}

// SetGaussian gives the real variable child a normal density per
// configuration of its discrete parents. Standard deviations must be
// positive and finite, means finite.
func (b *Builder) SetGaussian(pos Pos, child VarID, parents []VarID, mean, sd []float64) {
	b.setGaussian(&Gaussian{Pos: pos, Child: child, Parents: append([]VarID(nil), parents...),
		Mean: append([]float64(nil), mean...), SD: append([]float64(nil), sd...)})
}

// SetLinearGaussian gives the real variable child a linear Gaussian
// density (conditional linear Gaussian, with discrete parents): for each
// configuration u of the discrete parents (row-major, the last fastest),
// the child is normal with mean mean[u] + Σ_j coef[u*len(real)+j]·x_j,
// x_j the value of the real parent real[j], and standard deviation sd[u].
// The discrete parents must be discrete, the real ones real, none twice
// nor the child; the numbers finite, the standard deviations positive.
// Model.Parents of child is then discrete followed by real. With no real
// parents it is SetGaussian.
func (b *Builder) SetLinearGaussian(pos Pos, child VarID, discrete, real []VarID, mean, coef, sd []float64) {
	g := &Gaussian{Pos: pos, Child: child, Parents: append([]VarID(nil), discrete...),
		Mean: append([]float64(nil), mean...), SD: append([]float64(nil), sd...)}
	if len(real) > 0 {
		g.Real = append([]VarID(nil), real...)
		g.Coef = append([]float64(nil), coef...)
	} else if len(coef) > 0 {
		b.Errorf(pos, "%d coefficients for %s, which has no real parents", len(coef), strconv.Quote(b.m.Vars[child].Name))
		return
	} else if !checkLinear(&b.Errs, b.m, g) {
		return
	}
	b.setGaussian(g)
}

// setGaussian is SetGaussian of g, which it keeps.
func (b *Builder) setGaussian(g *Gaussian) {
	m, child := b.m, g.Child
	if b.decisionDist(g.Pos, child) {
		return
	}
	if m.Dists[child] != nil {
		b.Errorf(g.Pos, "second distribution for %s (first at %s)", strconv.Quote(m.Vars[child].Name), m.Dists[child].Position())
		return
	}
	if !checkGaussian(&b.Errs, m, g) {
		return
	}
	m.Dists[child] = g
	_, m.Parents[child] = family(g)
}

// checkGaussian reports a density whose means are not finite or whose
// standard deviations are not positive and finite, and, for a linear
// Gaussian, parents of the wrong kind or listed twice, coefficients that
// are not finite and numbers that do not fit the configurations.
func checkGaussian(errs *ErrorList, m *Model, g *Gaussian) bool {
	name := strconv.Quote(m.Vars[g.Child].Name)
	if len(g.SD) != len(g.Mean) {
		errs.Add(g.Pos, "the density of %s has %d means and %d standard deviations", name, len(g.Mean), len(g.SD))
		return false
	}
	if len(g.Real) > 0 || g.Coef != nil {
		if !checkLinear(errs, m, g) {
			return false
		}
	}
	for i := range g.Mean {
		if !finite(g.Mean[i]) || !(g.SD[i] > 0) || !finite(g.SD[i]) {
			errs.Add(g.Pos, "normal(%s, %s) for %s: the mean must be finite and the standard deviation positive",
				FormatFloat(g.Mean[i]), FormatFloat(g.SD[i]), name)
			return false
		}
	}
	return true
}

// checkLinear checks a linear Gaussian density's parents and coefficients.
func checkLinear(errs *ErrorList, m *Model, g *Gaussian) bool {
	name := strconv.Quote(m.Vars[g.Child].Name)
	if m.Vars[g.Child].Discrete() {
		errs.Add(g.Pos, "%s is discrete: a normal density is for a real-valued variable", name)
		return false
	}
	card := make([]int, len(g.Parents))
	for i, p := range g.Parents {
		if !m.Vars[p].Discrete() {
			errs.Add(g.Pos, "%s, a discrete parent of %s, is real-valued", strconv.Quote(m.Vars[p].Name), name)
			return false
		}
		card[i] = len(m.Vars[p].States)
	}
	seen := map[VarID]bool{g.Child: true}
	for _, p := range append(append([]VarID(nil), g.Parents...), g.Real...) {
		if seen[p] {
			errs.Add(g.Pos, "%s is listed twice among the parents of %s, or is %s itself", strconv.Quote(m.Vars[p].Name), name, name)
			return false
		}
		seen[p] = true
	}
	for _, p := range g.Real {
		if m.Vars[p].Discrete() {
			errs.Add(g.Pos, "%s, a real parent of %s, is discrete", strconv.Quote(m.Vars[p].Name), name)
			return false
		}
	}
	n, ok := TableSize(card)
	if !ok || len(g.Mean) != n {
		errs.Add(g.Pos, "the density of %s has %d means, not one per configuration of its discrete parents", name, len(g.Mean))
		return false
	}
	if nc, ok := TableSize([]int{n, len(g.Real)}); !ok || len(g.Coef) != nc {
		errs.Add(g.Pos, "the density of %s has %d coefficients, not %d (one per real parent and configuration of the discrete parents)", name, len(g.Coef), nc)
		return false
	}
	for _, c := range g.Coef {
		if !finite(c) {
			errs.Add(g.Pos, "coefficient %s of %s's mean is not finite", FormatFloat(c), name)
			return false
		}
	}
	return true
}

// AddStmt appends a statement.
func (b *Builder) AddStmt(s Stmt) { b.m.Stmts = append(b.m.Stmts, s) }

// Finish validates the model and returns it, or the sorted list of every
// error found while building and validating.
func (b *Builder) Finish() (*Model, error) {
	m := b.m
	if len(m.Vars) == 0 && len(m.Spaces) == 0 && len(b.Errs) == 0 {
		b.Errorf(Pos{File: m.Source, Line: 1, Col: 1}, "the model declares no variables")
	}
	for v := range m.Vars {
		if c := m.CPT(VarID(v)); c != nil && !b.checked[v] {
			checkRows(&b.Errs, m, c, nil)
		}
	}
	checkCycles(&b.Errs, m)
	if err := b.Errs.Err(); err != nil {
		return nil, err
	}
	for v, fresh := range b.fresh {
		if c := m.CPT(VarID(v)); c != nil && fresh {
			c.normalize()
		}
	}
	return m, nil
}

// checkRows checks that every row of c is a probability distribution.
// rowPos, if not nil, positions each row (see SetCPT).
func checkRows(errs *ErrorList, m *Model, c *CPT, rowPos []Pos) {
	f := c.Factor
	k := f.Card[len(f.Card)-1]
	rows := len(f.Vals) / k
	a := make([]int, len(f.Vars))
	for r := 0; r < rows; r++ {
		pos := c.Pos
		if rowPos != nil {
			if !rowPos[r].IsValid() {
				continue // a row already reported as missing or malformed
			}
			pos = rowPos[r]
		}
		row := f.Vals[r*k : (r+1)*k]
		sum := 0.0
		bad := false
		for _, p := range row {
			if !(p >= 0 && p <= 1) {
				errs.Add(pos, "probability %s in %s is outside [0, 1]", FormatFloat(p), rowName(m, c, f.Assignment(a, r*k)))
				bad = true
				break
			}
			sum += p
		}
		if !bad && !(math.Abs(sum-1) <= RowTolerance) {
			errs.Add(pos, "%s sums to %s, expected 1", rowName(m, c, f.Assignment(a, r*k)), strconv.FormatFloat(sum, 'g', 10, 64))
		}
	}
}

// rowName describes the row of c at assignment a, e.g.
// `row (true, false) of P(Campfire | Storm, BusTourGroup)`.
func rowName(m *Model, c *CPT, a []int) string {
	var s strings.Builder
	if len(c.Parents) > 0 {
		s.WriteString("row (")
		for i, p := range c.Parents {
			if i > 0 {
				s.WriteString(", ")
			}
			s.WriteString(Quote(m.Vars[p].States[a[i]]))
		}
		s.WriteString(") of ")
	}
	s.WriteString("P(")
	s.WriteString(Quote(m.Vars[c.Child].Name))
	for i, p := range c.Parents {
		if i == 0 {
			s.WriteString(" | ")
		} else {
			s.WriteString(", ")
		}
		s.WriteString(Quote(m.Vars[p].Name))
	}
	s.WriteString(")")
	return s.String()
}

// checkCycles reports each directed cycle once, as A -> B -> C -> A.
//
// The depth-first search keeps its own stack: a chain of variables is as
// deep as the model is large, and recursion would grow the goroutine's
// stack (copied at each doubling) to tens of megabytes on a large model,
// or overflow it.
func checkCycles(errs *ErrorList, m *Model) {
	// The children, flat: those of v are child[start[v]:start[v+1]], in
	// the order Model.Children gives them.
	start := make([]int, len(m.Vars)+1)
	for _, ps := range m.Parents {
		for _, p := range ps {
			start[p+1]++
		}
	}
	for v := range m.Vars {
		start[v+1] += start[v]
	}
	child := make([]VarID, start[len(m.Vars)])
	fill := append([]int(nil), start[:len(m.Vars)]...)
	for v, ps := range m.Parents {
		for _, p := range ps {
			child[fill[p]] = VarID(v)
			fill[p]++
		}
	}
	fill = nil
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(m.Vars))
	type frame struct {
		v    VarID
		next int // index in child of the next child to look at
	}
	var stack []frame
	for root := range m.Vars {
		if color[root] != white {
			continue
		}
		color[root] = grey
		stack = append(stack, frame{VarID(root), start[root]})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next == start[top.v+1] {
				color[top.v] = black
				stack = stack[:len(stack)-1]
				continue
			}
			c := child[top.next]
			top.next++
			switch color[c] {
			case white:
				color[c] = grey
				stack = append(stack, frame{c, start[c]})
			case grey:
				i := len(stack) - 1
				for stack[i].v != c {
					i--
				}
				names := make([]string, 0, len(stack)-i+1)
				for _, f := range stack[i:] {
					names = append(names, Quote(m.Vars[f.v].Name))
				}
				names = append(names, Quote(m.Vars[c].Name))
				pos := m.Vars[c].Pos
				if d := m.Dists[c]; d != nil {
					pos = d.Position()
				}
				if m.Time != nil && slices.ContainsFunc(*errs, func(e *Error) bool { return e.Err == ErrCycle && e.Pos == pos }) {
					continue // a template's cycle, in every slice: reported once
				}
				*errs = append(*errs, &Error{Pos: pos, Msg: "cycle: " + strings.Join(names, " -> "), Err: ErrCycle})
			}
		}
	}
}

// FormatFloat formats x in the shortest form that reads back as x.
func FormatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// Quote returns name as written in pbl source (see [grammar.Quote]).
func Quote(name string) string { return grammar.Quote(name) }

// IsIdent reports whether s is a pbl identifier (see [grammar.IsIdent]).
func IsIdent(s string) bool { return grammar.IsIdent(s) }
