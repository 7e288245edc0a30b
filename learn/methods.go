package learn

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/internal/spell"
	"github.com/pbl-lang/pbl/ir"
)

// Method is a way of turning counts into probabilities.
type Method int

const (
	MLE       Method = iota // maximum likelihood: relative frequencies
	Bayes                   // Dirichlet pseudo-counts (Alpha) or BDeu (ESS)
	MEstimate               // Mitchell's m-estimate (n_c + m·p)/(n + m), p = 1/k
	EM                      // expectation-maximisation, for hidden variables and missing cells (em.go)
	Gradient                // gradient ascent on the log-likelihood (gradient.go)
)

// iterative reports whether m is an iterative method (EM, Gradient),
// which learns from incomplete data by inference.
func (m Method) iterative() bool { return m == EM || m == Gradient }

func (m Method) String() string {
	for _, s := range Methods {
		if s.Method == m {
			return s.Name
		}
	}
	return "Method(" + strconv.Itoa(int(m)) + ")"
}

// MethodSpec describes a learning method as every front end names it: the
// `learn ... with NAME(options)` statement, `pbl learn --method NAME
// --OPTION V`, `pbl classify --cv K --method NAME`, and the REPL's
// completion. [Methods] is the registry; [ParseOptions] validates a
// method's options the same way for all of them.
type MethodSpec struct {
	Name    string
	Method  Method
	Summary string       // one line, for help texts
	Options []OptionSpec // the options it takes, in the order help lists them

	// Exclusive lists groups of options of which at most one may be
	// given (bayes: alpha or ess).
	Exclusive [][]string
}

// OptionSpec describes one option of a method.
//
// Names are identifiers (max_iter); the command line's flags write them
// with hyphens (--max-iter).
type OptionSpec struct {
	Name     string
	Default  float64 // the value when the option is not given
	Positive bool    // the value must be > 0 (else ≥ 0)
	Integer  bool    // the value must be a whole number
	Max      float64 // the largest value; 0 means MaxOption
	Help     string  // one line

	// Choices, if not nil, are the words the option takes instead of a
	// number (init = random); the default is the empty word.
	Choices []string
}

// Flag returns the option's name as a command-line flag: max-iter.
func (o *OptionSpec) Flag() string { return strings.ReplaceAll(o.Name, "_", "-") }

// max returns the largest value the option takes.
func (o *OptionSpec) max() float64 {
	if o.Max == 0 {
		return MaxOption
	}
	return o.Max
}

// MaxOption is the largest value of a method's option: a pseudo-count or
// sample size beyond it would drown any data in the prior, and sums of it
// over a table's cells could overflow.
const MaxOption = 1e12

// Methods is the registry of learning methods, in the order help lists
// them. Its first entry is the default.
var Methods = []*MethodSpec{
	{Name: "mle", Method: MLE, Summary: "maximum likelihood: relative frequencies (a parent configuration never seen gets a uniform row)"},
	{Name: "bayes", Method: Bayes, Summary: "Dirichlet pseudo-counts: alpha added to every cell (Laplace is 1), or BDeu with equivalent sample size ess",
		Options: []OptionSpec{
			{Name: "alpha", Default: 1, Help: "the pseudo-count added to every cell of every table (1: Laplace)"},
			{Name: "ess", Positive: true, Help: "the BDeu equivalent sample size N', spread as N'/(q·k) over each table's q·k cells (replaces alpha)"},
		},
		Exclusive: [][]string{{"alpha", "ess"}}},
	{Name: "mestimate", Method: MEstimate, Summary: "Mitchell's m-estimate (n_c + m/k)/(n + m), with the prior p = 1/k",
		Options: []OptionSpec{{Name: "m", Default: 1, Help: "the equivalent sample size m"}}},
	{Name: "em", Method: EM, Summary: "expectation-maximisation: maximum likelihood with hidden variables and missing cells (MAP with alpha or ess)",
		Options: []OptionSpec{
			{Name: "alpha", Help: "a pseudo-count added to every cell's expected count (MAP); 0: maximum likelihood"},
			{Name: "ess", Positive: true, Help: "the BDeu equivalent sample size of the prior (MAP; replaces alpha)"},
			optInit, optSeed, optRestarts, maxIterOption(DefaultEMIter), optTol,
		},
		Exclusive: [][]string{{"alpha", "ess"}}},
	{Name: "gradient", Method: Gradient, Summary: "gradient ascent on the log-likelihood (Mitchell §6.11.5), with a line search that adapts the step",
		Options: []OptionSpec{
			optInit, optSeed, optRestarts, maxIterOption(DefaultGradientIter), optTol,
			{Name: "eta", Default: DefaultEta, Positive: true, Help: "the first step size η, per row and case; the line search adapts it"},
		}},
}

// The default numbers of iterations of the iterative methods.
const (
	DefaultEMIter       = 100
	DefaultGradientIter = 1000
)

// DefaultTol is the default tolerance of the iterative methods: gradient
// ascent stops when the log-likelihood changes by less than this share of
// itself, EM (see [Converged]) when also no parameter moves by more.
const DefaultTol = 1e-6

// The options of the iterative methods, which Methods lists in this order
// (init, seed, restarts, max_iter, tol). They are variables, not a
// function's result, so that Methods is laid out by the compiler rather
// than built at start-up.
var (
	optInit     = OptionSpec{Name: "init", Choices: InitNames, Help: "the start: model (the model's own tables), uniform or random (default: random with hidden variables, else model)"}
	optSeed     = OptionSpec{Name: "seed", Default: 1, Integer: true, Max: 1 << 53, Help: "the seed of random starts"}
	optRestarts = OptionSpec{Name: "restarts", Default: 1, Positive: true, Integer: true, Max: 1e6, Help: "the number of starts (the first from init, the others random); the best is kept"}
	optTol      = OptionSpec{Name: "tol", Default: DefaultTol, Help: "stop when the log-likelihood (em: plus the log prior) changes by at most this share of itself, and for em no parameter by more than this (0: run max-iter iterations)"}
)

// maxIterOption is the option max_iter of an iterative method whose
// default is maxIter.
func maxIterOption(maxIter float64) OptionSpec {
	return OptionSpec{Name: "max_iter", Default: maxIter, Positive: true, Integer: true, Max: 1e9, Help: "the most iterations of each start"}
}

// Iterative reports whether the method learns by iterating from a start
// (em, gradient), which the options max_iter, tol and the others steer.
func (s *MethodSpec) Iterative() bool { return s.Method.iterative() }

// MethodNames returns the names of the methods, in registry order.
func MethodNames() []string {
	out := make([]string, len(Methods))
	for i, s := range Methods {
		out[i] = s.Name
	}
	return out
}

// LookupMethod returns the method named name ("" is the default, mle), or
// an error suggesting the nearest name.
func LookupMethod(name string) (*MethodSpec, error) {
	if name == "" {
		return Methods[0], nil
	}
	for _, s := range Methods {
		if s.Name == name {
			return s, nil
		}
	}
	msg := "unknown learning method " + strconv.Quote(name)
	if h := spell.Nearest(name, MethodNames()); h != "" {
		return nil, fmt.Errorf("%s (did you mean %q?)", msg, h)
	}
	return nil, fmt.Errorf("%s (methods: %s)", msg, strings.Join(MethodNames(), ", "))
}

// ParseMethod returns the method named name.
func ParseMethod(name string) (Method, error) {
	s, err := LookupMethod(name)
	if err != nil {
		return 0, err
	}
	return s.Method, nil
}

// optionNames lists the option names of s for messages: "alpha, ess".
func (s *MethodSpec) optionNames() string {
	if len(s.Options) == 0 {
		return "none"
	}
	names := make([]string, len(s.Options))
	for i, o := range s.Options {
		names[i] = o.Name
	}
	return strings.Join(names, ", ")
}

// ParseOptions validates the options given to the method named method and
// returns the learning options they make. Each error is positioned at the
// option it is about (methodPos for the method itself): an unknown method
// or option (with a did-you-mean hint), an option given twice, a value
// that is not a finite number in its range, and options that exclude each
// other (bayes with both alpha and ess). The command line gives its flags
// as options with zero positions.
func ParseOptions(method string, methodPos ir.Pos, opts []ir.LearnOption) (Options, error) {
	spec, err := LookupMethod(method)
	if err != nil {
		return Options{}, ir.ErrorList{{Pos: methodPos, Msg: err.Error()}}
	}
	var errs ir.ErrorList
	o := Options{Method: spec.Method}
	values := map[string]float64{}
	words := map[string]string{}
	given := map[string]ir.Pos{}
	for _, op := range spec.Options {
		values[op.Name] = op.Default
	}
	for _, x := range opts {
		var os *OptionSpec
		for i := range spec.Options {
			if spec.Options[i].Name == x.Name {
				os = &spec.Options[i]
			}
		}
		switch _, dup := given[x.Name]; {
		case os == nil:
			names := make([]string, len(spec.Options))
			for i, op := range spec.Options {
				names[i] = op.Name
			}
			msg := fmt.Sprintf("method %s takes no option %q", spec.Name, x.Name)
			if h := spell.Nearest(x.Name, names); h != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", h)
			} else {
				msg += " (its options: " + spec.optionNames() + ")"
			}
			errs.Add(x.Pos, "%s", msg)
		case dup:
			errs.Add(x.Pos, "option %s is given twice (first at %s)", x.Name, given[x.Name])
		case os.Choices != nil:
			if !slices.Contains(os.Choices, x.Text) {
				errs.Add(x.Pos, "option %s = %s: want one of %s", x.Name, optionText(x), strings.Join(os.Choices, ", "))
			} else {
				words[x.Name] = x.Text
			}
		case math.IsNaN(x.Value) || math.IsInf(x.Value, 0) || x.Value < 0 || os.Positive && x.Value == 0 || x.Value > os.max() || os.Integer && x.Value != math.Trunc(x.Value):
			want := "a non-negative number"
			switch {
			case os.Positive && os.Integer:
				want = "a positive whole number"
			case os.Integer:
				want = "a non-negative whole number"
			case os.Positive:
				want = "a positive number"
			}
			errs.Add(x.Pos, "option %s = %s: want %s, at most %s", x.Name, optionText(x), want, ir.FormatFloat(os.max()))
		default:
			values[x.Name] = x.Value
		}
		if os != nil {
			if _, dup := given[x.Name]; !dup {
				given[x.Name] = x.Pos
			}
		}
	}
	for _, group := range spec.Exclusive {
		var set []string
		for _, name := range group {
			if _, ok := given[name]; ok {
				set = append(set, name)
			}
		}
		if len(set) > 1 {
			errs.Add(given[set[1]], "method %s takes %s, not both: they are two ways of giving the prior", spec.Name, strings.Join(set, " or "))
		}
	}
	if err := errs.Err(); err != nil {
		return Options{}, err
	}
	switch spec.Method {
	case Bayes:
		o.Alpha, o.ESS = values["alpha"], values["ess"]
		if _, ok := given["ess"]; ok {
			o.Alpha = 0
		}
	case MEstimate:
		o.M = values["m"]
	case EM, Gradient:
		o.Alpha, o.ESS, o.Eta = values["alpha"], values["ess"], values["eta"]
		o.Init, _ = parseInit(words["init"])
		o.Seed = uint64(values["seed"])
		o.Restarts = int(values["restarts"])
		o.MaxIter = int(values["max_iter"])
		o.Tol = values["tol"]
	}
	return o, nil
}

func optionText(x ir.LearnOption) string {
	if x.Text != "" {
		return x.Text
	}
	return ir.FormatFloat(x.Value)
}

// StmtOptions returns the learning options of a learn statement: its
// method and options validated by [ParseOptions], and the variables it
// names.
func StmtOptions(s *ir.LearnStmt) (Options, error) {
	o, err := ParseOptions(s.Method, s.MethodPos, s.Options)
	if err != nil {
		return Options{}, err
	}
	o.Vars = s.Vars
	return o, nil
}

// Provenance is the comment a learned .pbl model opens with, the same
// for pbl learn and pbl-beam: "Learned by TOOL from DATA (structure of
// MODEL), METHOD." DATA is the data argument as given, so that a glob of
// shards (rows/*.csv) says which files were read, and "-" is "stdin";
// MODEL is the model file's base name; method is the method and its
// options as a command line ("--method bayes --alpha 1").
func Provenance(tool, data, model, method string) string {
	if data == "-" {
		data = "stdin"
	}
	return "Learned by " + tool + " from " + data + " (structure of " + filepath.Base(model) + "), " + method + "."
}
