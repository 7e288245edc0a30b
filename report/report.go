package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// Digits is the number of significant digits in text output.
const Digits = 10

// Num formats a probability for text output: 10 significant digits, no
// trailing zeros (0.4, 0.2076502732, 1.5e-12).
func Num(x float64) string { return strconv.FormatFloat(x, 'g', Digits, 64) }

// minNormal is the smallest positive normal float64, about 2.2e-308:
// below it a probability has lost digits, or is 0 though possible.
const minNormal = 0x1p-1022

// underflows reports whether the probability p, whose natural log is
// logp, is too small for a normal float64 while being possible: it must
// then be written from logp.
func underflows(p, logp float64) bool {
	return p < minNormal && !math.IsInf(logp, -1) && !math.IsNaN(logp)
}

// NumLog formats the probability p whose natural log is logp as Num does,
// except that a possible p too small for a normal float64 (below about
// 2.2e-308, where it has lost digits or become 0) is written in decimal
// from logp, to Digits significant digits: 1.234567891e-400. A possible
// answer is never printed as 0.
func NumLog(p, logp float64) string {
	if !underflows(p, logp) {
		return Num(p)
	}
	return fromLog(logp, Digits)
}

// NumDensity formats the density d whose natural log is logd as Num
// does, except that a density outside the normal range of float64 (below
// about 2.2e-308, or infinite) is written in decimal from logd: a density
// is never printed as 0 or +Inf unless it is.
func NumDensity(d, logd float64) string {
	if math.IsInf(logd, -1) || d >= minNormal && !math.IsInf(d, 1) {
		return Num(d)
	}
	return fromLog(logd, Digits)
}

// maxLog10 is the largest |log10 P| that fromLog writes as a decimal
// number: beyond it the exponent itself is uncertain in its last digits.
const maxLog10 = 1e15

// jsonFromLog is fromLog for JSON, which has no 10^x: a number beyond
// maxLog10 is written as 0 (the log field beside it carries it).
func jsonFromLog(logp float64) []byte {
	if math.Abs(logp/math.Ln10) >= maxLog10 {
		return []byte("0")
	}
	return []byte(fromLog(logp, Digits))
}

// fromLog writes exp(logp) in decimal scientific notation with the given
// number of significant digits, for a logp below the range of float64.
// The digits are those logp carries: ln P has an absolute error of about
// |ln P|·1e-16, so the mantissa's relative error is about that too.
func fromLog(logp float64, digits int) string {
	x := logp / math.Ln10
	if math.Abs(x) >= maxLog10 {
		// Not even the exponent's last digits are known: say so.
		return "10^" + strconv.FormatFloat(x, 'g', 4, 64)
	}
	// The mantissa has about 16 − log10|ln P| significant digits.
	if a := math.Abs(logp); a > 1 {
		digits = max(1, min(digits, 15-int(math.Log10(a))))
	}
	e := math.Floor(x)
	m := strconv.FormatFloat(math.Pow(10, x-e), 'f', digits-1, 64)
	if strings.HasPrefix(m, "10") { // rounded up to 10
		e++
		m = strconv.FormatFloat(math.Pow(10, x-e), 'f', digits-1, 64)
	}
	if strings.Contains(m, ".") {
		m = strings.TrimRight(strings.TrimRight(m, "0"), ".")
	}
	return m + "e" + strconv.FormatFloat(e, 'f', 0, 64)
}

// Check returns an error if a number of r that the output shows is not a
// probability (NaN, infinite, or outside [0, 1]) or, for P(e), if LogZ is
// NaN or +Inf. The engines never return such a result: an error here is a
// bug in pbl, never the user's.
func Check(r infer.Result) error {
	q := r.Head().Query.Head()
	bad := func(what string, x float64) error {
		return fmt.Errorf("report: %s: %s = %v is not a probability (a bug in pbl: please report it)", q.Text, what, x)
	}
	prob := func(x float64) bool { return x >= 0 && x <= 1 }
	switch r := r.(type) {
	case *infer.Independence:
		return nil
	case *infer.Bits:
		if !(r.Bits >= 0 && r.Bits <= math.MaxFloat64) {
			return fmt.Errorf("report: %s: %v bits is not an amount of information (a bug in pbl: please report it)", q.Text, r.Bits)
		}
	case *infer.Density:
		if math.IsNaN(r.LogDensity) || math.IsInf(r.LogDensity, 1) || math.IsNaN(r.Density) || r.Density < 0 {
			return fmt.Errorf("report: %s: density %v (log %v) is not a density (a bug in pbl: please report it)", q.Text, r.Density, r.LogDensity)
		}
	case *infer.Assignment:
		if !prob(r.P) {
			return bad("p", r.P)
		}
	case *infer.Number:
		if !prob(r.P) {
			return bad("p", r.P)
		}
	case *infer.Evidence:
		if !prob(r.P) {
			return bad("p", r.P)
		}
		if math.IsNaN(r.LogZ) || math.IsInf(r.LogZ, 1) {
			return fmt.Errorf("report: %s: log_partition = %v is not a logarithm of a partition function (a bug in pbl: please report it)", q.Text, r.LogZ)
		}
	case *infer.Marginals:
		for _, mg := range r.Marginals {
			for _, p := range mg.P {
				if !prob(p) {
					return bad("a marginal", p)
				}
			}
		}
	case *infer.Table:
		for _, row := range r.Rows {
			if !prob(row.P) {
				return bad("a row's p", row.P)
			}
		}
	case *infer.Normals:
		n := len(r.Vars)
		for _, c := range r.Components {
			if !prob(c.Weight) {
				return bad("a weight", c.Weight)
			}
			for i, x := range c.Mean {
				if v := c.Cov[i*n+i]; math.IsNaN(x) || math.IsInf(x, 0) || !(v >= 0 && v <= math.MaxFloat64) {
					return fmt.Errorf("report: %s: normal(%v, var %v) is not a normal distribution (a bug in pbl: please report it)", q.Text, x, v)
				}
			}
		}
	default:
		panic(fmt.Sprintf("report: Check: a result of type %T", r))
	}
	return nil
}

// Text writes a result for people. It panics if Check finds a number that
// is not a probability, which the engines never return.
func Text(w io.Writer, m *ir.Model, r infer.Result) { Style{}.Text(w, m, r) }

// Text writes a result for people in the style: an approximate answer
// opens with the line "approximate: ENGINE (WHY)" and gives each number
// with its error, "± ERR".
func (s Style) Text(w io.Writer, m *ir.Model, r infer.Result) {
	if err := Check(r); err != nil {
		panic(err.Error())
	}
	q := r.Head().Query.Head()
	if approximate(r) {
		s.label(w, r)
	}
	res := r
	switch r := r.(type) {
	case *infer.Independence:
		fmt.Fprintf(w, "%s = %t\n", q.Text, r.Independent)
	case *infer.Density:
		fmt.Fprintf(w, "%s = %s%s\n", q.Text, NumDensity(r.Density, r.LogDensity), pm(res, 0))
	case *infer.Bits:
		fmt.Fprintf(w, "%s = %s%s bits\n", q.Text, Num(r.Bits), pm(res, 0))
	case *infer.Assignment:
		fmt.Fprintf(w, "%s  p = %s%s\n", q.Text, NumLog(r.P, r.LogP), pm(res, 0))
		var t Table
		for _, o := range r.Assignment {
			v := m.Vars[o.Var]
			t.Add("  "+v.Name, v.States[o.State])
		}
		t.Write(w)
	case *infer.Number:
		fmt.Fprintf(w, "%s = %s%s\n", q.Text, NumLog(r.P, r.LogP), pm(res, 0))
	case *infer.Evidence:
		fmt.Fprintf(w, "%s = %s%s\n", q.Text, Num(r.P), pm(res, 0))
		logLine(w, r)
	case *infer.Marginals:
		fmt.Fprintln(w, q.Text)
		var t Table
		i := 0
		for _, mg := range r.Marginals {
			v := m.Vars[mg.Var]
			for s, p := range mg.P {
				name := ""
				if s == 0 {
					name = v.Name
				}
				if approximate(res) {
					t.Add("  "+name, v.States[s], Num(p), "± "+ErrText(errAt(res, i)))
				} else {
					t.Add("  "+name, v.States[s], Num(p))
				}
				i++
			}
		}
		t.Write(w)
	case *infer.Table:
		fmt.Fprintln(w, q.Text)
		var t Table
		head := []string{}
		for _, g := range r.Given {
			head = append(head, m.Vars[g].Name)
		}
		if len(r.Given) > 0 {
			head = append(head, "|")
		}
		for _, v := range r.Vars {
			head = append(head, m.Vars[v].Name)
		}
		head = append(head, "p")
		if approximate(res) {
			head = append(head, "±")
		}
		head[0] = "  " + head[0]
		t.Add(head...)
		for ri, row := range r.Rows {
			cells := []string{}
			for i, g := range r.Given {
				cells = append(cells, m.Vars[g].States[row.GivenValues[i]])
			}
			if len(r.Given) > 0 {
				cells = append(cells, "|")
			}
			for i, v := range r.Vars {
				cells = append(cells, m.Vars[v].States[row.Values[i]])
			}
			cells = append(cells, Num(row.P))
			if approximate(res) {
				cells = append(cells, ErrText(errAt(res, ri)))
			}
			cells[0] = "  " + cells[0]
			t.Add(cells...)
		}
		t.Write(w)
		if r.Omitted > 0 {
			fmt.Fprintf(w, "  (%s omitted: their conditioning configuration has probability 0 given the evidence)\n", ir.Plural(r.Omitted, "row"))
		}
	case *infer.Normals:
		normalsText(w, m, q.Text, r)
	default:
		panic(fmt.Sprintf("report: Text: a result of type %T", r))
	}
}

// Table aligns columns of text cells, two spaces apart, without trailing
// blanks. With Right set, every column but the first is right-aligned
// (columns of numbers).
type Table struct {
	Right bool
	rows  [][]string
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.rows = append(t.rows, cells) }

// Write writes the rows, aligned.
func (t *Table) Write(w io.Writer) {
	var width []int
	for _, r := range t.rows {
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		b.Reset()
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if t.Right && i > 0 {
				b.WriteString(pad + c)
			} else {
				b.WriteString(c + pad)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// JSON writes a result as one line of JSON in the documented schema. It
// returns Check's error, having written nothing, for a number that is not
// a probability, which the engines never return.
func JSON(w io.Writer, m *ir.Model, r infer.Result) error { return Style{}.JSON(w, m, r) }

// Object is a JSON object whose keys keep the order they were set in.
type Object struct {
	keys []string
	vals map[string]any
}

// Set sets key to v.
func (o *Object) Set(key string, v any) {
	if o.vals == nil {
		o.vals = map[string]any{}
	}
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// MarshalJSON writes the keys in order.
func (o *Object) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// Float is a float64 that marshals in its shortest round-trip form.
type Float float64

func (f Float) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return nil, fmt.Errorf("report: %v is not a probability", float64(f))
	}
	return []byte(strconv.FormatFloat(float64(f), 'g', -1, 64)), nil
}

// probLog is a probability with its natural log, which marshals as Float
// does, or, for a possible probability too small for a normal float64, as
// the decimal number exp(LogP) (1.234567891e-400), which a reader working
// in float64 reads as 0 but which says the answer is possible.
type probLog struct{ P, LogP float64 }

func (f probLog) MarshalJSON() ([]byte, error) {
	if !underflows(f.P, f.LogP) {
		return Float(f.P).MarshalJSON()
	}
	return jsonFromLog(f.LogP), nil
}

// densityLog is a density and its natural log, marshalled as the number,
// or where it is outside the normal range of float64 as the decimal
// number exp(log) (1.2e-400, 3.4e+500).
type densityLog struct{ D, Log float64 }

// DensityJSON returns the JSON form of the density d whose natural log is
// logd: the number, or where it is outside float64's normal range the
// decimal exp(logd), as a density query's "density" is written.
func DensityJSON(d, logd float64) json.Marshaler { return densityLog{d, logd} }

func (f densityLog) MarshalJSON() ([]byte, error) {
	if math.IsInf(f.Log, -1) || f.D >= minNormal && !math.IsInf(f.D, 1) {
		return Float(f.D).MarshalJSON()
	}
	return jsonFromLog(f.Log), nil
}

// JSONValue returns the JSON form of a result. P(e) on a Markov network
// has "log_partition" besides "p": ln Σ_{x ⊨ e} Π φ(x), the partition
// function with the evidence (natural log; null when it is 0).
//
// An approximate answer has "exact": false, "engine" and "why" after
// "query" ("stopped": true when it is the engine's best so far), and an
// "error" beside each number (null where the engine cannot say): a
// table's rows and "errors" beside "marginals", by variable and state;
// P(e) has "log_p", "log_p_error" and, where the engine bounds it,
// "log_p_bounds" [lo, hi] (docs/cli.md).
func JSONValue(m *ir.Model, r infer.Result) *Object { return Style{}.JSONValue(m, r) }

// JSONValue returns the JSON form of a result in the style.
func (st Style) JSONValue(m *ir.Model, r infer.Result) *Object {
	res := r
	rq := r.Head().Query
	q := rq.Head()
	c := rq.Conds()
	if c == nil {
		c = &ir.Conditions{}
	}
	o := &Object{}
	o.Set("query", q.Text)
	st.setApprox(o, r)
	names := func(vs []ir.VarID) []string {
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = m.Vars[v].Name
		}
		return out
	}
	states := func(vs []ir.VarID, ss []int) []string {
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = m.Vars[v].States[ss[i]]
		}
		return out
	}
	evidence := func() *Object {
		e := &Object{}
		for _, ob := range c.Evidence {
			e.Set(m.Vars[ob.Var].Name, m.Vars[ob.Var].States[ob.State])
		}
		for _, ob := range c.Real {
			e.Set(m.Vars[ob.Var].Name, Float(ob.Value))
		}
		return e
	}
	// setEvidence sets "evidence", and "do" and "likelihood" when the
	// query has interventions or likelihood evidence.
	setEvidence := func() {
		o.Set("evidence", evidence())
		if len(c.Do) > 0 || len(c.DoReal) > 0 {
			d := &Object{}
			for _, ob := range c.Do {
				d.Set(m.Vars[ob.Var].Name, m.Vars[ob.Var].States[ob.State])
			}
			for _, ob := range c.DoReal {
				d.Set(m.Vars[ob.Var].Name, Float(ob.Value))
			}
			o.Set("do", d)
		}
		if len(c.Soft) > 0 {
			l := &Object{}
			for _, s := range c.Soft {
				ls := make([]Float, len(s.Lambda))
				for i, x := range s.Lambda {
					ls[i] = Float(x)
				}
				l.Set(m.Vars[s.Var].Name, ls)
			}
			o.Set("likelihood", l)
		}
	}
	switch r := r.(type) {
	case *infer.Independence:
		o.Set("independent", r.Independent)
	case *infer.Bits:
		o.Set("bits", Float(r.Bits))
		setErr(o, res, 0)
	case *infer.Density:
		if dq, ok := rq.(*ir.DensityQuery); ok { // else P(e) of real values
			vs := &Object{}
			for _, ob := range dq.Values {
				vs.Set(m.Vars[ob.Var].Name, Float(ob.Value))
			}
			o.Set("values", vs)
		}
		setEvidence()
		o.Set("density", densityLog{r.Density, r.LogDensity})
		if math.IsInf(r.LogDensity, -1) {
			o.Set("log_density", nil)
		} else {
			o.Set("log_density", Float(r.LogDensity))
		}
		setErr(o, res, 0)
	case *infer.Assignment:
		a := &Object{}
		for _, ob := range r.Assignment {
			a.Set(m.Vars[ob.Var].Name, m.Vars[ob.Var].States[ob.State])
		}
		setEvidence()
		o.Set("assignment", a)
		o.Set("p", probLog{r.P, r.LogP})
		setErr(o, res, 0)
	case *infer.Number:
		o.Set("p", probLog{r.P, r.LogP})
		setErr(o, res, 0)
	case *infer.Evidence:
		setEvidence()
		o.Set("p", Float(r.P))
		setErr(o, res, 0)
		setLogP(o, r)
		if !m.IsBayesNet() {
			// The partition function with the evidence, which P(e)
			// divides by Z: null when it is 0 (JSON has no -Infinity).
			if math.IsInf(r.LogZ, -1) {
				o.Set("log_partition", nil)
			} else {
				o.Set("log_partition", Float(r.LogZ))
			}
		}
	case *infer.Marginals:
		setEvidence()
		ms, es := &Object{}, &Object{}
		i := 0
		for _, mg := range r.Marginals {
			d, e := &Object{}, &Object{}
			v := m.Vars[mg.Var]
			for s, p := range mg.P {
				d.Set(v.States[s], Float(p))
				e.Set(v.States[s], errJSON(errAt(res, i)))
				i++
			}
			ms.Set(v.Name, d)
			es.Set(v.Name, e)
		}
		o.Set("marginals", ms)
		if approximate(res) {
			o.Set("errors", es)
		}
	case *infer.Table:
		o.Set("vars", names(r.Vars))
		o.Set("given", names(r.Given))
		setEvidence()
		rows := make([]*Object, 0, len(r.Rows))
		for ri, row := range r.Rows {
			ro := &Object{}
			ro.Set("values", states(r.Vars, row.Values))
			ro.Set("given_values", states(r.Given, row.GivenValues))
			ro.Set("p", Float(row.P))
			setErr(ro, res, ri)
			rows = append(rows, ro)
		}
		o.Set("rows", rows)
	case *infer.Normals:
		o.Set("vars", names(r.Vars))
		setEvidence()
		normalsJSON(o, m, r)
	default:
		panic(fmt.Sprintf("report: JSONValue: a result of type %T", r))
	}
	return o
}
