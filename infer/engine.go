package infer

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/internal/spell"
	"github.com/pbl-lang/pbl/ir"
)

// This file is the seam between Answer and the inference algorithms: the
// exported [Engine] interface, the registry every engine joins, and the
// built-in engines' registrations. A new engine implements Engine on the
// factor package's tables and kernels, registers itself in an init
// function, and is checked by package infer/enginetest against brute-force
// enumeration; --engine and [Options.Engine] then accept its name.

// The engine names [Options.Engine] takes for the built-in engines.
const (
	Auto   = "auto" // the default: JT for P(*|e), the cheaper of VE and JT by estimated cost for one query (see [Options])
	Enum   = "enum" // enumeration of every assignment (the reference)
	VE     = "ve"   // variable elimination
	JT     = "jt"   // junction tree, compiled once per model (see [Compile])
	Search = "bnb"  // branch and bound for MPE and MAP (mpesearch.go), variable elimination for the rest
)

// Engine is an inference algorithm. Answer turns the tables and numbers an
// engine's instances return into every kind of answer (tables,
// probabilities, P(e), marginals, MPE and MAP, entropy), so an engine
// provides only the three primitives of [Instance].
//
// An engine is registered by [Register] and found by [Lookup]; the
// built-in ones are enum, ve, jt and bnb.
type Engine interface {
	// Name is the name --engine and Options.Engine take: lower-case
	// letters and digits, not "auto".
	Name() string
	// Doc says what the engine is in a few words, for --engine's help.
	Doc() string
	// Exact reports whether the engine's answers are exact (to rounding).
	// Answer copies it into Result.Exact; an engine that is not exact
	// implements [Inexact], which gives each number its error.
	Exact() bool
	// Prepare returns an instance answering on m with the evidence obs
	// (obs[v] is the observed state of variable v, or -1; len(obs) ==
	// len(m.Vars)), within opt's limits and canceled by opt.Cancel.
	// The caller does not modify obs while it uses the instance. An error
	// says why the engine cannot answer on m (too large, a variable
	// without numbers, canceled).
	Prepare(m *ir.Model, obs []int, opt Options) (Instance, error)
}

// Instance is an engine prepared for one model and one evidence set.
type Instance interface {
	// Joint returns P(keep, e) as a factor over keep (in that order)
	// times a scale: Σ Π φ over the assignments consistent with e, with
	// the variables of keep fixed. The factor may be overwritten by the
	// next call.
	Joint(keep []ir.VarID) (*factor.Factor, factor.Scaled, error)
	// Partition returns Z, the sum of Π φ over every assignment (without
	// the evidence); 1 for a Bayesian network.
	Partition() (factor.Scaled, error)
	// MaxAssign returns argmax over maxVars of P(maxVars, e) (indexed by
	// VarID, -1 elsewhere) and the maximum; maxVars are unobserved.
	MaxAssign(maxVars []ir.VarID) ([]int, factor.Scaled, error)
}

// Inexact is implemented by the instances of an engine that is not
// exact: it reports the estimated error of what its last call returned, so
// that Answer gives every number of a result its own error
// (Header.ErrorEstimate), propagated through the answer's normalisations.
type Inexact interface {
	// JointErr returns, for the last Joint, the estimated absolute error
	// of each entry of its factor once normalised (entry / sum of the
	// factor: P(keep | e)), in the factor's order, and that of ln of the
	// factor's sum times its scale (ln Σ_{x ⊨ e} Π φ(x), with the
	// variables of keep summed).
	JointErr() (cond []float64, logSum LogErr)
	// PartitionErr returns the error of ln of Partition's value.
	PartitionErr() LogErr
	// MaxErr returns the error of ln of MaxAssign's value (0 when the
	// value is that of the assignment returned, exactly).
	MaxErr() LogErr
	// Stopped reports that a computation stopped at the deadline or was
	// canceled, and answered with its best so far.
	Stopped() bool
}

// LogErr is the estimated error of a logarithm: Err, its estimated
// absolute error (a standard error or half a bound's width), and bounds
// Lo ≤ ln x ≤ Hi where the engine gives them (−Inf and +Inf where not).
type LogErr struct {
	Err, Lo, Hi float64
}

// engine is what Answer calls an engine's instance.
type engine = Instance

// engineKind is the engine Answer runs: a built-in one, which Answer
// drives with its own buffers, or another registered one.
type engineKind uint8

const (
	kindAuto engineKind = iota
	kindEnum
	kindVE
	kindJT
	kindSearch
	kindOther
)

// registry holds the registered engines by name.
var registry struct {
	sync.RWMutex
	byName map[string]Engine
}

// Register adds e to the engines that --engine and [Options.Engine] name.
// It panics if e's name is empty, not lower-case letters and digits,
// "auto", or already registered: registration happens in init functions,
// where a clash is a programming error.
func Register(e Engine) {
	name := e.Name()
	if name == "" || name == Auto || strings.TrimFunc(name, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' }) != "" {
		panic(fmt.Sprintf("infer: Register: bad engine name %q", name))
	}
	registry.Lock()
	defer registry.Unlock()
	if registry.byName == nil {
		registry.byName = make(map[string]Engine)
	}
	if _, dup := registry.byName[name]; dup || builtinNamed(name) != nil || approxNamed(name) != nil {
		panic(fmt.Sprintf("infer: Register: engine %q registered twice", name))
	}
	registry.byName[name] = e
}

// Lookup returns the engine registered under name, or an
// *[UnknownEngineError].
func Lookup(name string) (Engine, error) {
	if b := builtinNamed(name); b != nil {
		return b, nil
	}
	if e := approxNamed(name); e != nil {
		return e, nil
	}
	registry.RLock()
	e, ok := registry.byName[name]
	registry.RUnlock()
	if !ok {
		return nil, unknownEngine(name)
	}
	return e, nil
}

// Engines returns the registered engines, sorted by name.
func Engines() []Engine {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]Engine, 0, len(builtins)+len(approxEngines)+len(samplerEngines)+len(registry.byName))
	for i := range builtins {
		out = append(out, &builtins[i])
	}
	for i := range approxEngines {
		out = append(out, &approxEngines[i])
	}
	for i := range samplerEngines {
		out = append(out, &samplerEngines[i])
	}
	for _, e := range registry.byName {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b Engine) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

// engineNames returns "auto" and the registered engines' names, sorted.
func engineNames() []string {
	names := []string{Auto}
	for _, e := range Engines() {
		names = append(names, e.Name())
	}
	return names
}

// ParseEngine checks an engine name as --engine takes it: "auto" or a
// registered engine's name. It returns the name, or an
// *[UnknownEngineError].
func ParseEngine(s string) (string, error) {
	if s == Auto {
		return s, nil
	}
	if _, err := Lookup(s); err != nil {
		return "", err
	}
	return s, nil
}

// EngineHelp describes the engine names --engine takes, from the
// registry: "auto" and every registered engine with its Doc.
func EngineHelp() string {
	var b strings.Builder
	b.WriteString("inference engine: auto (exact, chosen by estimated cost; approximate when exact inference does not fit the limits)")
	for _, e := range Engines() {
		fmt.Fprintf(&b, ",\n%s (%s)", e.Name(), e.Doc())
	}
	return b.String()
}

// UnknownEngineError is the error for an engine name that is neither
// "auto" nor registered.
type UnknownEngineError struct {
	Name    string   // the name asked for
	Known   []string // "auto" and the registered names, sorted
	Suggest string   // the known name nearest to Name, or ""
}

func unknownEngine(name string) *UnknownEngineError {
	known := engineNames()
	return &UnknownEngineError{Name: name, Known: known, Suggest: spell.Nearest(name, known)}
}

func (e *UnknownEngineError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "unknown engine %q", e.Name)
	if e.Suggest != "" {
		fmt.Fprintf(&b, ": did you mean %s?", e.Suggest)
	}
	b.WriteString(" (want ")
	for i, n := range e.Known {
		switch {
		case i == 0:
		case i == len(e.Known)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(n)
	}
	b.WriteString(")")
	return b.String()
}

// resolve returns the kind of the engine name (the empty name is auto) and,
// for an engine other than the built-in ones, the engine.
func resolve(name string) (engineKind, Engine, error) {
	switch name {
	case "", Auto:
		return kindAuto, nil, nil
	}
	e, err := Lookup(name)
	if err != nil {
		return 0, nil, err
	}
	if b, ok := e.(*builtin); ok {
		return b.kind, nil, nil
	}
	return kindOther, e, nil
}

// builtin is the registration of one of the engines Answer drives itself.
type builtin struct {
	name, doc string
	kind      engineKind
}

// builtins are the engines Answer drives itself, registered from the
// start: a static table rather than Register calls in an init function,
// so that loading the package runs no code (cmd/pbl's TestInitAllocs).
var builtins = [...]builtin{
	{Enum, "enumeration of every assignment, small models: the reference", kindEnum},
	{VE, "variable elimination", kindVE},
	{JT, "junction tree, compiled once per model", kindJT},
	{Search, "branch and bound for MPE and MAP, variable elimination otherwise", kindSearch},
}

// builtinNamed returns the built-in engine called name, or nil.
func builtinNamed(name string) *builtin {
	for i := range builtins {
		if builtins[i].name == name {
			return &builtins[i]
		}
	}
	return nil
}

func (b *builtin) Name() string { return b.name }
func (b *builtin) Doc() string  { return b.doc }
func (b *builtin) Exact() bool  { return true }

// Prepare returns the engine's instance on m with the evidence obs, as
// Answer builds it (without the query's position in its errors).
func (b *builtin) Prepare(m *ir.Model, obs []int, opt Options) (Instance, error) {
	card, err := evidenceCards(m, obs)
	if err != nil {
		return nil, err
	}
	k := factor.NewKernel(opt.Cancel)
	v := &ve{m: m, opt: opt, obs: obs, card: card, k: k}
	switch b.kind {
	case kindEnum:
		return &enum{m: m, k: k, obs: obs, card: card}, nil
	case kindJT:
		t, err := cachedCompile(m, opt)
		if err != nil {
			return nil, err
		}
		return &jtEngine{t: t, w: t.get(), obs: obs, ve: v, k: k}, nil
	case kindSearch:
		return searchInstance{v}, nil
	}
	return v, nil
}

// evidenceCards checks the evidence obs against m for Prepare and returns
// the variables' cardinalities (0 for real variables).
func evidenceCards(m *ir.Model, obs []int) ([]int, error) {
	if len(obs) != len(m.Vars) {
		return nil, fmt.Errorf("infer: %d observations for a model of %d variables", len(obs), len(m.Vars))
	}
	if u := unlearned(m); len(u) > 0 {
		return nil, &ir.Error{Msg: noNumbers(m, u), Err: ir.ErrNoDistribution}
	}
	card := make([]int, len(m.Vars))
	for v := range card {
		if m.Discrete(ir.VarID(v)) {
			card[v] = len(m.Vars[v].States)
		}
		if s := obs[v]; s >= card[v] || s >= 0 && card[v] == 0 || s < -1 {
			return nil, fmt.Errorf("infer: state %d of %s is out of range", s, ir.Quote(m.Vars[v].Name))
		}
	}
	return card, nil
}

// searchInstance is the bnb engine: branch and bound for maximisation,
// variable elimination for sums and when the search gives up.
type searchInstance struct{ *ve }

func (s searchInstance) MaxAssign(maxVars []ir.VarID) ([]int, factor.Scaled, error) {
	r := s.ve
	n := 0
	for v, c := range r.card {
		if c > 0 && r.obs[v] < 0 {
			n++
		}
	}
	var best []int
	var mx factor.Scaled
	var ok bool
	var err error
	if len(maxVars) == n {
		best, mx, ok, err = searchMPE(r.m, r.obs, r.card, r.k, r.pos)
	} else {
		best, mx, ok, err = searchMAP(r.m, r.obs, r.card, maxVars, r.k, r.pos, searchOverride)
	}
	if err != nil {
		return nil, mx, err
	}
	if !ok {
		return r.MaxAssign(maxVars)
	}
	out := make([]int, len(r.card))
	for i := range out {
		out[i] = -1
	}
	for _, v := range maxVars {
		out[v] = best[v]
	}
	return out, mx, nil
}

// lazyInstance is the instance of a registered engine for Answer,
// prepared when it is first used.
type lazyInstance struct {
	e   Engine
	m   *ir.Model
	obs []int
	opt Options
	in  Instance
	err error
}

func (l *lazyInstance) get() (Instance, error) {
	if l.in == nil && l.err == nil {
		l.in, l.err = l.e.Prepare(l.m, l.obs, l.opt)
		if l.in == nil && l.err == nil {
			l.err = fmt.Errorf("infer: engine %s prepared no instance", l.e.Name())
		}
	}
	return l.in, l.err
}

func (l *lazyInstance) Joint(keep []ir.VarID) (*factor.Factor, factor.Scaled, error) {
	in, err := l.get()
	if err != nil {
		return nil, factor.Scaled{}, err
	}
	return in.Joint(keep)
}

func (l *lazyInstance) Partition() (factor.Scaled, error) {
	in, err := l.get()
	if err != nil {
		return factor.Scaled{}, err
	}
	return in.Partition()
}

func (l *lazyInstance) MaxAssign(maxVars []ir.VarID) ([]int, factor.Scaled, error) {
	in, err := l.get()
	if err != nil {
		return nil, factor.Scaled{}, err
	}
	return in.MaxAssign(maxVars)
}

// JointErr, PartitionErr, MaxErr and Stopped forward to the instance
// when it is [Inexact] (Answer reads them only then).
func (l *lazyInstance) JointErr() ([]float64, LogErr) { return l.in.(Inexact).JointErr() }
func (l *lazyInstance) PartitionErr() LogErr          { return l.in.(Inexact).PartitionErr() }
func (l *lazyInstance) MaxErr() LogErr                { return l.in.(Inexact).MaxErr() }
func (l *lazyInstance) Stopped() bool                 { return l.in.(Inexact).Stopped() }
