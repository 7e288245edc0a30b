package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// This file prints what marks an approximate answer (docs/approximate.md):
// the line "approximate: ENGINE (WHY)" before the answer in text, "± ERR"
// after each number, and in JSON "exact": false, "engine", "why" and an
// "error" beside each number.

// Style is how results are printed: the names of the limits an
// approximate answer's reason gives (a command line names its flags). The
// zero value is the library's wording; [Text] and [JSON] print with it.
type Style struct {
	Limits infer.LimitNames
}

// approximate reports whether r is an approximate engine's answer, which
// is labelled.
func approximate(r infer.Result) bool {
	h := r.Head()
	return !h.Exact && h.Engine != ""
}

// ErrText formats an error estimate for text output: two significant
// digits, "?" where the engine cannot say (+Inf).
func ErrText(e float64) string {
	if math.IsInf(e, 1) || math.IsNaN(e) {
		return "?"
	}
	return strconv.FormatFloat(e, 'g', 2, 64)
}

// errAt returns the error of the i-th number of r, +Inf if it has none.
func errAt(r infer.Result, i int) float64 {
	es := r.Head().ErrorEstimate
	if i < len(es) {
		return es[i]
	}
	return math.Inf(1)
}

// Why says why r is approximate, in the style's words.
func (s Style) Why(r infer.Result) string {
	h := r.Head()
	why := "chosen by the caller"
	if h.Why != nil {
		why = h.Why.Phrase(s.Limits)
	}
	return why
}

// label writes the first line of an approximate answer.
func (s Style) label(w io.Writer, r infer.Result) {
	h := r.Head()
	stopped := ""
	if h.Stopped {
		stopped = ", stopped early: its best answer so far"
	}
	fmt.Fprintf(w, "approximate: %s (%s)%s\n", h.Engine, s.Why(r), stopped)
}

// pm returns " ± e" for the i-th number of an approximate r, "" otherwise.
func pm(r infer.Result, i int) string {
	if !approximate(r) {
		return ""
	}
	return " ± " + ErrText(errAt(r, i))
}

// logLine writes, for an approximate P(e), ln P(e) with its error and
// bounds.
func logLine(w io.Writer, r *infer.Evidence) {
	if !approximate(r) {
		return
	}
	fmt.Fprintf(w, "  ln P = %s ± %s", logText(r.LogP), ErrText(r.LogPErr))
	if !math.IsInf(r.LogPLo, -1) || r.LogPHi < 0 {
		fmt.Fprintf(w, ", bounds [%s, %s]", logText(r.LogPLo), logText(r.LogPHi))
	}
	fmt.Fprintln(w)
}

// errJSON is an error estimate in JSON: null where the engine cannot say.
func errJSON(e float64) any {
	if math.IsInf(e, 1) || math.IsNaN(e) {
		return nil
	}
	return Float(e)
}

// setApprox sets "exact", "engine", "why" and "stopped" of an approximate
// answer's JSON object.
func (s Style) setApprox(o *Object, r infer.Result) {
	if !approximate(r) {
		return
	}
	h := r.Head()
	o.Set("exact", false)
	o.Set("engine", h.Engine)
	o.Set("why", s.Why(r))
	if h.Stopped {
		o.Set("stopped", true)
	}
}

// setErr sets "error" to the i-th number's error of an approximate r.
func setErr(o *Object, r infer.Result, i int) {
	if approximate(r) {
		o.Set("error", errJSON(errAt(r, i)))
	}
}

// setLogP sets, for an approximate P(e), "log_p", "log_p_error" and, where
// the engine bounds it, "log_p_bounds".
func setLogP(o *Object, r *infer.Evidence) {
	if !approximate(r) {
		return
	}
	if math.IsInf(r.LogP, -1) {
		o.Set("log_p", nil)
	} else {
		o.Set("log_p", Float(r.LogP))
	}
	o.Set("log_p_error", errJSON(r.LogPErr))
	if !math.IsInf(r.LogPLo, -1) || r.LogPHi < 0 {
		o.Set("log_p_bounds", []any{errJSONLog(r.LogPLo), errJSONLog(r.LogPHi)})
	}
}

// logText is a logarithm in text, "-inf" for −Inf (a probability of 0,
// which an engine that bounds it may prove: both bounds are then −Inf).
func logText(l float64) string {
	if math.IsInf(l, -1) {
		return "-inf"
	}
	return Num(l)
}

// errJSONLog is a logarithm in JSON, null for −Inf.
func errJSONLog(l float64) any {
	if math.IsInf(l, -1) {
		return nil
	}
	return Float(l)
}

// JSON writes a result as JSON in the style (see the function JSON).
func (s Style) JSON(w io.Writer, m *ir.Model, r infer.Result) error {
	if err := Check(r); err != nil {
		return err
	}
	b, err := json.Marshal(s.JSONValue(m, r))
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}
