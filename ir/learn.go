package ir

import (
	"errors"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/internal/spell"
)

// Classifier is a naive Bayes or TAN classifier's structure: the class is
// a parent of every feature, and for TAN each feature also gets one other
// feature as a parent, chosen when the parameters are learned.
type Classifier struct {
	Pos      Pos
	Kind     ClassifierKind
	Class    VarID
	Features []VarID
}

// ClassifierKind says which classifier a declaration declares.
type ClassifierKind int

const (
	NaiveBayes ClassifierKind = iota // naive_bayes: the class is every feature's only parent
	TAN                              // tan: a tree over the features is learned too
)

func (k ClassifierKind) String() string {
	if k == TAN {
		return "tan"
	}
	return "naive_bayes"
}

// DataTable is a named data set: an inline table, or a CSV file (File
// set, by `data D = "file.csv"` or bound on the command line).
type DataTable struct {
	Pos  Pos
	Name string
	File string // the CSV file, relative to the current directory; "" for an inline table

	// An inline table as written: the header's column names and each
	// row's cells ("" for a missing cell, ?), with their positions.
	Header    []string
	HeaderPos []Pos
	Cells     [][]string
	CellPos   [][]Pos

	// An inline table whose columns are all variables of the model,
	// resolved: nil otherwise (a table of a hypothesis space's data
	// columns, x and d) and for a file. A real-valued variable's cells
	// are numbers, read as a CSV file's are (see package data): Reals
	// holds them, and Rows holds -1 in its column.
	Vars  []VarID     // the header's variables, in column order
	Rows  [][]int32   // Rows[i][j]: state of Vars[j] in row i, or -1 if missing or real-valued
	Reals [][]float64 // Reals[i][j]: value of the real-valued Vars[j] in row i, NaN if missing; nil if no column is real-valued
	Lines []Pos       // Lines[i]: position of row i
}

// HasReals reports whether a column of the resolved table t is a
// real-valued variable.
func (t *DataTable) HasReals() bool { return t.Reals != nil }

// LearnStmt is `learn [X, Y] from DATA [with METHOD(options)]`. The
// method and its options are as written: the learn package's registry of
// methods gives them their meaning and validates them.
type LearnStmt struct {
	Pos       Pos
	Vars      []VarID       // the variables whose distributions are learned; nil means all
	File      string        // the CSV file, relative to the current directory, or ""
	Table     *DataTable    // the inline table, or nil
	Method    string        // as written, or "" for the default
	MethodPos Pos           // the position of the method's name, or of the statement
	Options   []LearnOption // as written, in order
}

// LearnOption is one option of a learn statement's method, name = value.
type LearnOption struct {
	Pos   Pos
	Name  string
	Text  string  // the value as written
	Value float64 // the value; a text that is not a number is reported when lowered
}

func (s *LearnStmt) Position() Pos { return s.Pos }
func (*LearnStmt) stmt()           {}

// classifier lowers a naive_bayes or tan declaration, declaring the
// variables it names that have no var declaration as open variables.
func (l *lowerer) classifier(c *grammar.Classifier) {
	if l.b.m.Classifier != nil {
		l.b.Errorf(pos(c.Pos), "a second classifier declaration (the first is at %s)", l.b.m.Classifier.Pos)
		return
	}
	resolve := func(n *grammar.Name) VarID {
		if id, ok := l.b.m.byName[n.Text()]; ok {
			return id
		}
		id, _ := l.b.AddOpenVar(pos(n.Pos), n.Text())
		l.hasEdges = append(l.hasEdges, false)
		return id
	}
	cl := &Classifier{Pos: pos(c.Pos), Kind: NaiveBayes, Class: resolve(c.Class)}
	if c.Kind == "tan" {
		cl.Kind = TAN
	}
	seen := map[VarID]bool{cl.Class: true}
	for _, f := range c.Features {
		id := resolve(f)
		if seen[id] {
			l.b.Errorf(pos(f.Pos), "%q appears twice in the classifier", f.Text())
			continue
		}
		seen[id] = true
		cl.Features = append(cl.Features, id)
	}
	for _, v := range append([]VarID{cl.Class}, cl.Features...) {
		if !l.b.m.Vars[v].Discrete() && v == cl.Class {
			l.b.Errorf(pos(c.Class.Pos), "the class %q must be discrete", l.b.m.Vars[v].Name)
		}
	}
	l.b.m.Classifier = cl
}

// classifierStructure gives the classifier's variables their structure:
// the class is a root and the parent of every feature (a real feature is
// Gaussian given the class).
func (l *lowerer) classifierStructure() {
	cl := l.b.m.Classifier
	if cl == nil || cl == l.baseClassifier {
		return
	}
	for _, v := range append([]VarID{cl.Class}, cl.Features...) {
		if l.hasEdges[v] || l.b.cptSeen[v] {
			l.b.Errorf(cl.Pos, "%s declares the structure of %q: it cannot also have edges or a table", cl.Kind, l.b.m.Vars[v].Name)
		}
	}
	l.b.SetParents(cl.Class, nil)
	for _, f := range cl.Features {
		l.b.SetParents(f, []VarID{cl.Class})
	}
}

// edgeStructure gives every discrete variable without a table the parents
// its declared edges name, in declaration order.
func (l *lowerer) edgeStructure() {
	parents := make([][]VarID, len(l.b.m.Vars))
	for _, e := range l.edgeList {
		parents[e[1]] = append(parents[e[1]], e[0])
	}
	for v, ps := range parents {
		if ps != nil && !l.b.cptSeen[v] {
			l.b.SetParents(VarID(v), ps)
		}
	}
}

// dataTable lowers an inline data table. Open variables gain the states
// they meet, in order of first appearance.
func (l *lowerer) dataTable(d *grammar.Data) {
	m := l.b.m
	name := d.Name.Text()
	if prev, dup := l.tables[name]; dup {
		l.b.Errorf(pos(d.Name.Pos), "data table %q redeclared (first at %s)", name, prev.Pos)
		return
	}
	t := &DataTable{Pos: pos(d.Pos), Name: name}
	defer func() {
		l.tables[name] = t
		m.Tables = append(m.Tables, t)
	}()
	if file, bound := l.opt.Data[name]; bound {
		l.bound[name] = true
		t.File = file
		return
	}
	if d.File != nil {
		t.File = *d.File
		if !filepath.IsAbs(t.File) {
			t.File = filepath.Join(filepath.Dir(d.Pos.Filename), t.File)
		}
		return
	}
	seenCol := map[string]bool{}
	for _, h := range d.Header {
		if seenCol[h.Text()] {
			l.b.Errorf(pos(h.Pos), "column %q appears twice", h.Text())
		}
		seenCol[h.Text()] = true
		t.Header = append(t.Header, h.Text())
		t.HeaderPos = append(t.HeaderPos, pos(h.Pos))
	}
	for _, r := range d.Rows {
		cells, at := make([]string, len(r.Cells)), make([]Pos, len(r.Cells))
		for j, c := range r.Cells {
			at[j] = pos(c.Pos)
			if !c.Missing {
				cells[j] = c.State.Text()
			}
		}
		t.Cells = append(t.Cells, cells)
		t.CellPos = append(t.CellPos, at)
	}
	// A table of a space's data need not name variables: it is resolved
	// only if every column is a variable.
	if len(m.Spaces) > 0 {
		for _, h := range d.Header {
			if _, found := m.byName[h.Text()]; !found {
				for _, r := range d.Rows {
					if len(r.Cells) != len(d.Header) {
						l.b.Errorf(pos(r.Pos), "data row has %s, expected %d (one for each column)", Plural(len(r.Cells), "cell"), len(d.Header))
					}
				}
				return
			}
		}
	}
	ok := true
	seen := map[VarID]bool{}
	for _, h := range d.Header {
		id, found := l.lookup(h)
		switch {
		case !found:
			ok = false
		case seen[id]:
			ok = false
		}
		seen[id] = true
		t.Vars = append(t.Vars, id)
	}
	if !ok {
		t.Vars = nil
		return
	}
	hasReal := false
	for _, v := range t.Vars {
		hasReal = hasReal || !m.Vars[v].Discrete()
	}
	for _, r := range d.Rows {
		if len(r.Cells) != len(t.Vars) {
			l.b.Errorf(pos(r.Pos), "data row has %s, expected %d (one for each of %s)", Plural(len(r.Cells), "cell"), len(t.Vars), nameList(m, t.Vars))
			continue
		}
		row := make([]int32, len(t.Vars))
		var reals []float64
		if hasReal {
			reals = make([]float64, len(t.Vars))
		}
		good := true
		for j, c := range r.Cells {
			v := m.Vars[t.Vars[j]]
			if !v.Discrete() {
				row[j] = -1
				x, ok := l.realCell(c, v)
				reals[j] = x
				good = good && ok
				continue
			}
			if c.Missing {
				row[j] = -1
				continue
			}
			s := v.State(c.State.Text())
			if s < 0 && v.Open {
				v.States = append(v.States, c.State.Text())
				s = len(v.States) - 1
			}
			if s < 0 {
				lookupState(v, c.State, &l.b.Errs)
				good = false
				continue
			}
			row[j] = int32(s)
		}
		if good {
			t.Rows = append(t.Rows, row)
			if hasReal {
				t.Reals = append(t.Reals, reals)
			}
			t.Lines = append(t.Lines, pos(r.Pos))
		}
	}
	if hasReal && t.Reals == nil {
		t.Reals = [][]float64{} // no row, but a real-valued column
	}
}

// realCell reads a cell of the real-valued variable v in an inline data
// table as package data reads a CSV file's: a number in the syntax of
// strconv.ParseFloat; missing (NaN) when it is ?, "", NA or NaN; an
// infinity or a number out of float64's range is an error.
func (l *lowerer) realCell(c *grammar.Cell, v *Variable) (float64, bool) {
	if c.Missing {
		return math.NaN(), true
	}
	text := c.State.Text()
	if text == "" || text == "NA" {
		return math.NaN(), true
	}
	x, err := strconv.ParseFloat(text, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		l.b.Errorf(pos(c.Pos), "number %s for %s is out of range", text, Quote(v.Name))
		return 0, false
	case err != nil:
		l.b.Errorf(pos(c.Pos), "%s is not a number (%s is real-valued)", strconv.Quote(text), Quote(v.Name))
		return 0, false
	case math.IsInf(x, 0):
		l.b.Errorf(pos(c.Pos), "number %s for %s is not finite", text, Quote(v.Name))
		return 0, false
	}
	return x, true // NaN written as such is a missing value
}

// learnStmt lowers a learn statement, or reports it and returns nil.
func (l *lowerer) learnStmt(s *grammar.Learn) *LearnStmt {
	ls := &LearnStmt{Pos: pos(s.Pos), MethodPos: pos(s.Pos)}
	good := true
	seen := map[VarID]bool{}
	for _, n := range s.Vars {
		id, ok := l.lookup(n)
		switch {
		case !ok:
			good = false
		case seen[id]:
			l.b.Errorf(pos(n.Pos), "%s appears twice in the learn statement", strconv.Quote(l.b.m.Vars[id].Name))
			good = false
		default:
			seen[id] = true
			ls.Vars = append(ls.Vars, id)
		}
	}
	switch {
	case s.File != nil:
		ls.File = *s.File
		if !filepath.IsAbs(ls.File) {
			ls.File = filepath.Join(filepath.Dir(s.Pos.Filename), ls.File)
		}
		// --data NAME=FILE binds a CSV named by its base name, weather for
		// "data/weather.csv".
		base := filepath.Base(*s.File)
		base = strings.TrimSuffix(base, filepath.Ext(base))
		if file, bound := l.opt.Data[base]; bound {
			l.bound[base] = true
			ls.File = file
		}
	default:
		t, ok := l.tables[s.Table.Text()]
		if !ok {
			var names []string
			for n := range l.tables {
				names = append(names, n)
			}
			msg := "undefined data table " + strconv.Quote(s.Table.Text())
			if h := spell.Nearest(s.Table.Text(), names); h != "" {
				msg += " (did you mean " + strconv.Quote(h) + "?)"
			} else {
				msg += " (give a quoted CSV file name, or declare the table with data NAME = { ... })"
			}
			l.b.Errorf(pos(s.Table.Pos), "%s", msg)
			return nil
		}
		switch {
		case t.File != "":
			ls.File = t.File
		case t.Vars == nil:
			var bad []string
			for _, h := range t.Header {
				if _, found := l.b.m.byName[h]; !found {
					bad = append(bad, strconv.Quote(h))
				}
			}
			l.b.Errorf(pos(s.Table.Pos), "data table %q has columns that are not variables of the model (%s): learn reads variables' values", t.Name, strings.Join(bad, ", "))
			return nil
		default:
			ls.Table = t
		}
	}
	if s.Method != nil {
		ls.Method = *s.Method
	}
	for _, o := range s.Options {
		x, err := strconv.ParseFloat(o.Value, 64)
		switch {
		case err != nil && isWord(o.Value):
			// A word (init = random): the method's registry checks it.
			x = math.NaN()
		case errors.Is(err, strconv.ErrRange) && math.IsInf(x, 0):
			l.b.Errorf(pos(o.Pos), "option %s = %s: the number is out of range", o.Name, o.Value)
			good = false
		case err != nil:
			l.b.Errorf(pos(o.Pos), "option %s = %s: want a number", o.Name, o.Value)
			good = false
		}
		ls.Options = append(ls.Options, LearnOption{Pos: pos(o.Pos), Name: o.Name, Text: o.Value, Value: x})
	}
	if !good {
		return nil
	}
	return ls
}

// gaussian lowers P(X | A, B) = ... for a real-valued X: normal(MEAN, SD)
// for a root, or one row of normal(MEAN, SD) per configuration of its
// discrete parents. With real parents, each MEAN is an expression affine
// in them (lowerlinear.go): a linear Gaussian density, or a conditional
// linear Gaussian one with discrete parents too.
func (l *lowerer) gaussian(d *grammar.Dist, child VarID, parents []VarID) {
	m := l.b.m
	name := m.Vars[child].Name
	// The discrete parents choose the row; the real ones are in the mean
	// (a linear Gaussian density), each in the order listed.
	discrete, real, card := splitParents(m, parents)
	n, ok := TableSize(card)
	if !ok || n > MaxTableSize/16 {
		l.b.Errorf(pos(d.Pos), "the densities of %q (one per parent configuration) %s", name, TooLarge(card, MaxTableSize/16))
		return
	}
	if nc, ok := TableSize([]int{n, len(real) + 1}); !ok || nc > MaxTableSize/16 {
		l.b.Errorf(pos(d.Pos), "the densities of %q (one per parent configuration) %s", name, TooLarge([]int{n, len(real) + 1}, MaxTableSize/16))
		return
	}
	g := &Gaussian{Pos: pos(d.Pos), Child: child, Parents: discrete, Mean: make([]float64, n), SD: make([]float64, n)}
	if len(real) > 0 {
		g.Real, g.Coef = real, make([]float64, n*len(real))
	}
	spread := make([]Spread, n)
	variance := make([]float64, n)
	normal := func(v *grammar.Value, i int) bool {
		if v.Normal == nil {
			l.b.Errorf(pos(v.Pos), "%q is real-valued: give normal(MEAN, SD)", name)
			return false
		}
		nm := v.Normal
		if nm.Linear == nil && nm.Mean.Number == nil || nm.Spread.Number == nil {
			l.b.Errorf(pos(nm.Pos), "normal(MEAN, SD) of one variable, %q, takes two numbers (lists are for the joint density of several variables, P(x, y | ...))", name)
			return false
		}
		form, ok := l.spreadName(nm.Named, false)
		var mu float64
		ok1 := true
		if nm.Linear != nil {
			var coef []float64
			mu, coef, ok1 = l.linearMean(nm.Linear, child, discrete, real)
			if ok1 && len(real) > 0 {
				copy(g.Coef[i*len(real):], coef)
			}
		} else {
			mu, ok1 = l.number(nm.Pos, *nm.Mean.Number)
		}
		x, ok2 := l.number(nm.Pos, *nm.Spread.Number)
		if !ok || !ok1 || !ok2 || !l.positiveSpread(form, nm.Spread, x) {
			return false
		}
		if form == SpreadVar {
			variance[i], x = x, math.Sqrt(x)
		}
		g.Mean[i], g.SD[i], spread[i] = mu, x, form
		return true
	}
	body := d.Body
	switch {
	case len(discrete) == 0 && body.Value == nil && len(real) > 0:
		l.b.Errorf(pos(body.Pos), "P(%s | %s) has only real parents: give one normal(MEAN, SD), its mean affine in them, as in normal(0 + 1 * %s, 1)", Quote(name), nameList(m, real), Quote(m.Vars[real[0]].Name))
		return
	case len(discrete) == 0 && body.Value == nil:
		l.b.Errorf(pos(body.Pos), "P(%s) has no parents: give normal(MEAN, SD)", Quote(name))
		return
	case len(discrete) == 0:
		if !normal(body.Value, 0) {
			return
		}
	case body.Value != nil:
		l.b.Errorf(pos(body.Pos), "P(%s | ...) has parents: give one normal(MEAN, SD) per parent configuration, as in { %s: normal(0, 1) }", Quote(name), exampleRow(m, discrete))
		return
	default:
		if !l.densityRows(d, discrete, card, n, "P("+Quote(name), normal) {
			return
		}
	}
	for _, s := range spread {
		if s != SpreadPositional {
			g.Spread = spread
		}
		if s == SpreadVar {
			g.Var = variance
		}
	}
	l.b.setGaussian(g)
}

// densityRows lowers the rows of a density's body, one per configuration
// of the parents (card their numbers of states, n the configurations),
// each by value (its value and configuration, row-major); title names the
// density in messages, "P(x" or "P(x, y". It reports malformed, unknown,
// duplicate and missing rows, and returns whether every row lowered.
func (l *lowerer) densityRows(d *grammar.Dist, parents []VarID, card []int, n int, title string, value func(*grammar.Value, int) bool) bool {
	m := l.b.m
	errs := len(l.b.Errs)
	seen := make([]bool, n)
	for _, r := range d.Body.Rows {
		idx, good := l.rowIndex(pos(r.Pos), r.States, parents, card)
		if !good {
			continue
		}
		if seen[idx] {
			l.b.Errorf(pos(r.Pos), "duplicate row (%s)", rowText(r))
			continue
		}
		seen[idx] = true
		value(r.Value, idx)
	}
	for idx, ok := range seen {
		if !ok && len(l.b.Errs) == errs {
			l.b.Errorf(pos(d.Pos), "%s | %s) is missing a row (row %d of %d)", title, nameList(m, parents), idx+1, n)
			break
		}
	}
	return len(l.b.Errs) == errs
}

// isWord reports whether s is an identifier rather than a number.
func isWord(s string) bool {
	return s != "" && (s[0] == '_' || s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z' || s[0] >= 0x80)
}

// splitParents splits parents into the discrete ones, with their numbers
// of states, and the real ones, each in the order listed: a density's or
// a softmax's rows are over the discrete parents, the real ones are in
// their affine expressions.
func splitParents(m *Model, parents []VarID) (discrete, real []VarID, card []int) {
	for _, p := range parents {
		if m.Vars[p].Discrete() {
			discrete = append(discrete, p)
			card = append(card, len(m.Vars[p].States))
		} else {
			real = append(real, p)
		}
	}
	return discrete, real, card
}
