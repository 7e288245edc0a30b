package uai

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/formats/internal/importer"
	"github.com/pbl-lang/pbl/ir"
)

// maxStates bounds the number of states of all variables together. Each
// state becomes a string in the model, and a variable that no factor
// mentions costs one token of input however many states it has. The
// largest UAI competition instances have well under a million states.
const maxStates = 1 << 20

// maxRowPos is the largest number of CPT rows for which row positions are
// kept, for the row-sum errors of ir.Builder.Finish.
const maxRowPos = 1 << 20

// maxScope bounds the number of variables in one scope. A table of more
// than 31 variables with two or more states exceeds ir.MaxTableSize, so
// only variables with one state can make a scope longer, and checking a
// scope for repeats takes time quadratic in its length.
const maxScope = 1 << 10

// maxErrors is the number of errors after which the reader gives up.
const maxErrors = 50

// ReadFile reads the UAI model in the file at path, which may be
// gzip-compressed. An error reading the file is returned as is; errors in
// its contents are an ir.ErrorList, as for [Read].
func ReadFile(path string) (*ir.Model, error) { return importer.ReadFile(path, Read) }

// bail stops the reader at an error it cannot go past.
type bail struct{}

// Read parses a model in UAI format (see the package documentation). src
// may be gzip-compressed (recognised by its magic bytes), as competition
// instances are often distributed. Errors are an ir.ErrorList of *ir.Error
// positioned in filename; for compressed input the positions refer to the
// decompressed text.
func Read(filename string, src []byte) (m *ir.Model, err error) {
	r := &reader{s: newScanner(filename, src), b: ir.NewBuilder(filename)}
	defer func() {
		switch x := recover().(type) {
		case nil:
		case bail:
			m, err = nil, r.s.errs.Err()
		default:
			// The reader is meant never to panic; this is the last resort
			// that keeps a bug from crashing the caller.
			m = nil
			err = ir.ErrorList{ir.Errorf(ir.Pos{File: filename, Line: 1, Col: 1}, "internal error reading UAI: %v", x)}
		}
	}()
	if importer.IsGzip(src) {
		if src, err = importer.Gunzip(src); err != nil {
			return nil, ir.ErrorList{{Pos: ir.Pos{File: filename, Line: 1, Col: 1}, Msg: err.Error(), Err: err}}
		}
		r.s = newScanner(filename, src)
	}
	r.read()
	r.b.Errs = append(r.b.Errs, r.s.errs...)
	return r.b.Finish()
}

// reader reads one model file in a single pass.
type reader struct {
	s       *scanner
	b       *ir.Builder
	bayes   bool
	card    []int    // card[v]: states of Xv
	varPos  []ir.Pos // varPos[v]: position of Xv's cardinality
	states  int      // states of all variables so far
	inScope []int    // inScope[v] = i+1 while reading the scope of factor i that has Xv

	// BAYES files only:
	claimed []bool // claimed[v]: some factor, maybe a broken one, has Xv as its child
	hasCPT  []bool // hasCPT[v]: Xv was given a CPT
}

// factor is a scope read from the file.
type factor struct {
	pos  ir.Pos     // of the scope's size
	tok  token      // the scope's size
	vars []ir.VarID // the scope, as listed
	size int        // entries the table needs; -1 if the scope is broken
}

// errorf records an error at t, giving up after maxErrors.
func (r *reader) errorf(t token, format string, args ...any) {
	r.s.errorf(t, format, args...)
	if len(r.s.errs) >= maxErrors {
		r.s.errorf(t, "too many errors")
		panic(bail{})
	}
}

// fatalf records an error at t and stops.
func (r *reader) fatalf(t token, format string, args ...any) {
	r.s.errorf(t, format, args...)
	panic(bail{})
}

// count reads a non-negative integer of at most limit, described by
// what(args...); anything else stops the reader.
func (r *reader) count(limit int, what string, args ...any) (int, token) {
	t := r.s.next()
	if t.eof() || parseCount(t, limit) < 0 {
		what = fmt.Sprintf(what, args...)
	}
	if t.eof() {
		r.fatalf(t, "unexpected end of file: want %s", what)
	}
	switch n := parseCount(t, limit); n {
	case -1:
		r.fatalf(t, "want %s (a non-negative integer), found %s", what, describe(t))
	case -2:
		r.fatalf(t, "%s is %s, more than %d", what, t.text, limit)
	default:
		return n, t
	}
	panic("unreachable")
}

func (r *reader) read() {
	t := r.s.next()
	switch string(t.text) {
	case "MARKOV":
	case "BAYES":
		r.bayes = true
	default:
		switch {
		case t.eof():
			r.fatalf(t, "empty file: a UAI model begins with MARKOV or BAYES")
		case strings.EqualFold(string(t.text), "MARKOV") || strings.EqualFold(string(t.text), "BAYES"):
			r.fatalf(t, "want MARKOV or BAYES, found %s (the preamble is upper case)", describe(t))
		}
		r.fatalf(t, "want MARKOV or BAYES, found %s", describe(t))
	}

	n, nt := r.count(maxStates, "the number of variables")
	if n == 0 {
		r.fatalf(nt, "the model has no variables")
	}
	for v := 0; v < n; v++ {
		k, kt := r.count(maxStates, "the cardinality of X%d (%s)", v, ir.Plural(n, "variable"))
		if k == 0 {
			r.fatalf(kt, "X%d has cardinality 0: a variable needs at least one state", v)
		}
		r.states += k
		if r.states > maxStates {
			r.fatalf(kt, "the variables have more than %d states in all; pbl does not read models this large", maxStates)
		}
		pos := r.s.pos(kt)
		r.b.AddVar(pos, "X"+strconv.Itoa(v), ir.Range, ir.RangeStates(0, k-1), 0)
		r.card = append(r.card, k)
		r.varPos = append(r.varPos, pos)
	}
	r.inScope = make([]int, n)
	if r.bayes {
		r.claimed = make([]bool, n)
		r.hasCPT = make([]bool, n)
	}

	nf, ft := r.count(math.MaxInt, "the number of factors")
	// Each factor needs at least two tokens (its scope and table sizes).
	if nf > r.s.remaining() {
		r.fatalf(ft, "the file declares %s but is too short to hold them", ir.Plural(nf, "factor"))
	}
	fs := make([]factor, 0, nf)
	for i := 0; i < nf; i++ {
		fs = append(fs, r.scope(i, nf))
	}
	for i := range fs {
		r.table(i, &fs[i])
	}
	if t := r.s.next(); !t.eof() {
		r.fatalf(t, "unexpected %s after the last table (the file declares %s)", describe(t), ir.Plural(nf, "factor"))
	}

	switch {
	case r.bayes:
		for v, has := range r.hasCPT {
			if has {
				continue
			}
			if !r.claimed[v] && len(r.s.errs) < maxErrors {
				r.s.errs.Add(r.varPos[v], "X%d is the child (the last variable of the scope) of no factor: every variable of a BAYES file needs a CPT", v)
			}
			// A placeholder, so that Finish does not report it again.
			r.b.SetCPT(r.varPos[v], ir.VarID(v), nil, importer.Uniform(r.card[v]), nil)
		}
	case len(r.b.Model().Potentials) == 0:
		// No factors (or only broken ones, already reported): the
		// constant 1 keeps the model a Markov network.
		r.b.AddFactor(r.s.pos(ft), nil, []float64{1})
	}
}

// scope reads the scope of factor i of nf.
func (r *reader) scope(i, nf int) factor {
	n := len(r.card)
	t := r.s.next()
	if t.eof() {
		r.fatalf(t, "unexpected end of file: want the scope size of factor %d (%s)", i, ir.Plural(nf, "factor"))
	}
	k := parseCount(t, n)
	switch k {
	case -1:
		r.fatalf(t, "want the scope size of factor %d (a non-negative integer), found %s", i, describe(t))
	case -2:
		r.fatalf(t, "factor %d has a scope of %s variables, but the model has only %s", i, t.text, ir.Plural(n, "variable"))
	}
	if k > maxScope {
		r.fatalf(t, "factor %d has a scope of %d variables; pbl reads at most %d", i, k, maxScope)
	}
	f := factor{pos: r.s.pos(t), tok: t, vars: make([]ir.VarID, 0, k)}
	ok := true
	for j := 0; j < k; j++ {
		it := r.s.next()
		if it.eof() {
			r.fatalf(it, "unexpected end of file: want variable %d of %d of the scope of factor %d", j+1, k, i)
		}
		v := parseCount(it, n-1)
		switch {
		case v == -1:
			r.fatalf(it, "want a variable index in the scope of factor %d, found %s", i, describe(it))
		case v == -2:
			r.errorf(it, "variable index %s in the scope of factor %d is out of range: %s", it.text, i, varsText(n))
			ok = false
			continue
		}
		if r.inScope[v] == i+1 {
			r.errorf(it, "X%d appears twice in the scope of factor %d", v, i)
			ok = false
		}
		r.inScope[v] = i + 1
		f.vars = append(f.vars, ir.VarID(v))
	}
	if ok && r.bayes && k == 0 {
		r.errorf(t, "factor %d has an empty scope; in a BAYES file the last variable of a scope is the factor's child", i)
		ok = false
	}
	f.size = -1
	if ok {
		card := make([]int, len(f.vars))
		for j, v := range f.vars {
			card[j] = r.card[v]
		}
		size, fits := ir.TableSize(card)
		if fits {
			f.size = size
		} else {
			r.errorf(t, "the table of factor %d would have more than %d entries", i, ir.MaxTableSize)
		}
	}
	if r.bayes && len(f.vars) > 0 {
		r.claimed[f.vars[len(f.vars)-1]] = true
	}
	return f
}

// table reads the table of factor i and adds the factor to the model.
func (r *reader) table(i int, f *factor) {
	cnt, ct := r.count(math.MaxInt, "the table size of factor %d", i)
	good := f.size >= 0
	if good && cnt != f.size {
		r.errorf(ct, "the table of factor %d has %s, but its scope %s needs %d", i, ir.Plural(cnt, "entry"), r.scopeText(f.vars), f.size)
		good = false // skip the values the size announces
	}
	var vals []float64
	var rowPos []ir.Pos
	var first token // the table's first value
	zeros := true   // every value read is 0
	k := 1          // entries per row: the child's cardinality
	if good {
		vals = make([]float64, 0, min(cnt, 1<<16))
		if r.bayes {
			k = r.card[f.vars[len(f.vars)-1]]
			if cnt/k <= maxRowPos {
				rowPos = make([]ir.Pos, 0, cnt/k)
			}
		}
	}
	for j := 0; j < cnt; j++ {
		t := r.s.next()
		if t.eof() {
			r.fatalf(t, "unexpected end of file: the table of factor %d has %d of its %s", i, j, ir.Plural(cnt, "value"))
		}
		if !good {
			continue
		}
		x, msg := parseNumber(t)
		switch {
		case msg != "":
			r.errorf(t, "%s in the table of factor %d", msg, i)
			good = false
		case !(x >= 0):
			r.errorf(t, "negative value %s in the table of factor %d", t.text, i)
			good = false
		}
		if j == 0 {
			first = t
		}
		zeros = zeros && x == 0
		vals = append(vals, x)
		if rowPos != nil && j%k == 0 {
			rowPos = append(rowPos, r.s.pos(t))
		}
	}
	if !good {
		return
	}
	if !r.bayes {
		if zeros && cnt > 0 {
			// The product of the factors, and so Z, is 0 everywhere.
			r.errorf(first, "the table of factor %d is all zeros: the model gives every assignment probability 0", i)
			return
		}
		r.b.AddFactor(f.pos, f.vars, vals)
		return
	}
	// A second CPT for the same child is reported by SetCPT, which keeps
	// the first.
	child := f.vars[len(f.vars)-1]
	r.hasCPT[child] = true
	r.b.SetCPT(f.pos, child, f.vars[:len(f.vars)-1], vals, rowPos)
}

// varsText says which variables a model of n has: "the model has 3
// variables, X0 to X2".
func varsText(n int) string {
	if n == 1 {
		return "the model has 1 variable, X0"
	}
	return fmt.Sprintf("the model has %d variables, X0 to X%d", n, n-1)
}

// scopeText renders a scope as (X1, X4).
func (r *reader) scopeText(vars []ir.VarID) string {
	var b bytes.Buffer
	b.WriteByte('(')
	for i, v := range vars {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "X%d", v)
	}
	b.WriteByte(')')
	return b.String()
}
