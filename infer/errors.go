package infer

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// The kinds of error the engines return. Each comes back as the Err field
// of an *ir.Error (whose Msg is what the user reads), so that programs test
// for it with errors.Is or errors.As rather than by reading the message.
var (
	// ErrImpossible is the kind of error of a question that conditions on
	// evidence of probability 0.
	ErrImpossible = errors.New("impossible evidence: its probability is 0")

	// ErrUnderflow is the kind of error of a query for P(e) whose value is
	// possible but below the smallest normal float64; the message gives
	// ln P(e).
	ErrUnderflow = errors.New("the probability of the evidence underflows float64")

	// ErrRange is the kind of error of real values beyond what float64
	// holds: a density whose logarithm underflows (density(x=1e300)
	// under normal(0, 1): ln = −5e599), or likelihoods that lift a
	// configuration of their densities' parents that the discrete
	// evidence makes less likely than e^−700 to the weight of others,
	// which float64 cannot hold beside it.
	ErrRange = errors.New("real-valued evidence beyond the range of float64")

	// ErrCanceled is the kind of error of a computation stopped through
	// [Options].Cancel.
	ErrCanceled = errors.New("inference canceled")
)

// UnderflowError is the kind of error of a query for P(e) whose value is
// possible but below the smallest normal float64. It carries the logarithms
// the answer would have had, and errors.Is(err, ErrUnderflow) holds for
// it.
type UnderflowError struct {
	LogP float64 // ln P(e), finite
	LogZ float64 // ln Σ_{x ⊨ e} Π φ(x), the partition function with the evidence (see Evidence.LogZ)
}

func (e *UnderflowError) Error() string { return ErrUnderflow.Error() }

// Is reports whether target is ErrUnderflow.
func (e *UnderflowError) Is(target error) bool { return target == ErrUnderflow }

// canceled returns the error of a computation canceled at pos.
func canceled(pos ir.Pos) error {
	return &ir.Error{Pos: pos, Msg: "inference canceled", Err: ErrCanceled}
}

// Oversize names what a [TooLargeError] refuses to build.
type Oversize int

const (
	OversizeTable  Oversize = iota // an intermediate table of variable elimination, in entries (Options.MaxTable)
	OversizeClique                 // the largest clique of a junction tree, in entries (Options.MaxTable)
	OversizeMemory                 // a whole junction tree, or the tables of variable elimination at their peak, in bytes (Options.MaxMemory)
	OversizeEnum                   // the assignments enumeration would visit ([MaxEnum])
	OversizeRows                   // the rows of a table answer (Options.MaxRows)
)

func (o Oversize) String() string {
	switch o {
	case OversizeTable:
		return "table"
	case OversizeClique:
		return "clique"
	case OversizeMemory:
		return "memory"
	case OversizeEnum:
		return "enumeration"
	case OversizeRows:
		return "rows"
	}
	return "?"
}

// TooLargeError is the kind of error (see [ir.Error]) of a refusal to
// allocate a table, a junction tree or an enumeration beyond the limits of
// [Options] or [MaxEnum], or to build a table answer of more rows than
// Options.MaxRows. Nothing has been allocated when it is returned.
type TooLargeError struct {
	What  Oversize
	Vars  []ir.VarID // the table's variables, the largest clique's, the unobserved variables enumerated, or the answer's given and target variables
	Size  float64    // entries, bytes, assignments or rows, exact below 2^53
	Limit int64      // the limit exceeded, in the same unit
	// Instead is the engine that may answer without the refused table
	// (VE for a junction tree or an enumeration too large), which the
	// message advises as "use variable elimination"; "" when none.
	Instead string
	msg     string
}

// Error returns the message the user reads, which names the variables.
func (e *TooLargeError) Error() string { return e.msg }

// at returns e as a user error at pos.
func (e *TooLargeError) at(pos ir.Pos) *ir.Error {
	return &ir.Error{Pos: pos, Msg: e.msg, Err: e}
}

// at returns err, an *ir.Error or a kind of error, as a user error at pos,
// keeping its kind.
func at(pos ir.Pos, err error) *ir.Error {
	var e *ir.Error
	if errors.As(err, &e) {
		return &ir.Error{Pos: pos, Msg: e.Msg, Err: e.Err}
	}
	return &ir.Error{Pos: pos, Msg: err.Error(), Err: err}
}

// culprit returns err, the error of the query q on m, where it says that
// q's evidence is impossible and q has do(...), likelihood or real-valued
// evidence: the engines answer such a query without them, on a derived
// model, so that their message names only the discrete evidence, which may
// be possible by itself (P(lung | either~[0, 1], tub=yes) said P(tub=yes)
// = 0, where it is 0.0104). culprit names the part of the evidence that
// blame finds impossible. The kind, ErrImpossible, is kept; err is
// returned as it is if the parts cannot be answered.
func culprit(m *ir.Model, q *query, opt Options, err error) error {
	if !errors.Is(err, ErrImpossible) || len(q.Do) == 0 && len(q.Soft) == 0 && len(q.Real) == 0 {
		return err
	}
	b, ok := blame(m, q, opt)
	if !ok {
		return err
	}
	fail := func(format string, args ...any) error {
		return &ir.Error{Pos: q.Pos, Msg: "impossible evidence: " + fmt.Sprintf(format, args...), Err: ErrImpossible}
	}
	cond := evidenceText(m, q.Evidence)
	if len(q.Do) > 0 {
		cond = strings.TrimSuffix(cond, ")") + " | " + doList(m, q.Do) + ")"
	}
	rest := ""
	switch {
	case len(q.Evidence) == 0 && len(q.Do) > 0:
		rest = " under " + doList(m, q.Do)
	case len(q.Evidence) > 0:
		rest = fmt.Sprintf(" where %s, which is possible (%s = %s)", strings.TrimSuffix(strings.TrimPrefix(evidenceText(m, q.Evidence), "P("), ")"), cond, probText(b.logP))
	}
	switch b.part {
	case blameHard:
		return fail("%s = 0", cond)
	case blameSoft:
		return fail("the likelihood evidence %s gives weight 0 to every assignment%s", softList(m, b.soft), rest)
	case blameReal:
		return fail("the real-valued evidence %s has density 0 wherever the rest of the evidence is possible", realList(m, q.Real))
	}
	return err
}

// The parts of a query's evidence that blame may find impossible.
const (
	blameNone = iota // none alone: the model itself (a Markov network of weight 0 everywhere)
	blameHard        // the discrete evidence, given the interventions
	blameSoft        // likelihood evidence (blamed.soft), with the discrete evidence
	blameReal        // the real-valued evidence, with the rest
)

// blamed is what blame finds: the part of the evidence that is
// impossible, the likelihood evidence it names, and ln P(e | do(x)) of
// the discrete evidence (where that is possible).
type blamed struct {
	part int
	soft []ir.SoftObs
	logP float64
}

// blame finds the part of q's evidence, which is impossible on m, that
// is impossible by itself: the discrete evidence given the interventions,
// if it is; else the likelihood evidence of one variable with it, the
// first that is; else all the likelihood evidence with it; else the
// real-valued evidence with the rest. It reports false if a part cannot
// be answered.
func blame(m *ir.Model, q *query, opt Options) (blamed, bool) {
	md, hard := m, q.Evidence
	if len(q.Do) > 0 {
		if !m.IsBayesNet() {
			return blamed{}, false
		}
		var err error
		if md, err = m.WithDo(q.Do); err != nil {
			return blamed{}, false
		}
		hard = slices.Clip(hard)
		for _, d := range q.Do {
			if !slices.ContainsFunc(q.Evidence, func(o ir.Obs) bool { return o.Var == d.Var }) {
				hard = append(hard, d)
			}
		}
	}
	lp, ok := logWeight(md, q.Pos, hard, opt)
	if !ok {
		return blamed{}, false
	}
	if math.IsInf(lp, -1) {
		if len(q.Evidence) == 0 {
			return blamed{part: blameNone}, true
		}
		return blamed{part: blameHard}, true
	}
	if len(q.Soft) > 0 {
		sets := [][]ir.SoftObs{q.Soft}
		if len(q.Soft) > 1 {
			sets = nil
			for i := range q.Soft {
				sets = append(sets, q.Soft[i:i+1])
			}
			sets = append(sets, q.Soft)
		}
		for _, s := range sets {
			ls, ok := logWeight(md.WithLikelihoods(s), q.Pos, hard, opt)
			if !ok {
				return blamed{}, false
			}
			if math.IsInf(ls, -1) {
				return blamed{part: blameSoft, soft: s, logP: lp}, true
			}
		}
	}
	if len(q.Real) > 0 {
		return blamed{part: blameReal, logP: lp}, true
	}
	return blamed{part: blameNone, logP: lp}, true
}

// logWeight returns ln P(ev) on m (the weight of the assignments that
// agree with ev over the model's partition function), −Inf when it is
// 0, and false if it cannot be answered.
func logWeight(m *ir.Model, pos ir.Pos, ev []ir.Obs, opt Options) (float64, bool) {
	a := &answerer{m: m, q: &query{Pos: pos, Kind: kindProb, Conditions: ir.Conditions{Evidence: ev}, Text: evidenceText(m, ev)}, opt: opt}
	if a.setup() != nil {
		return 0, false
	}
	defer a.release()
	pe, err := peOf(a.eng)
	if err != nil {
		return 0, false
	}
	if pe.M == 0 {
		return math.Inf(-1), true
	}
	z, err := a.z()
	if err != nil {
		return 0, false
	}
	return min(0, pe.Log()-z.Log()), true
}

// probText writes the probability whose natural log is lp with three
// digits, as exp(lp) where it underflows float64.
func probText(lp float64) string {
	if p := math.Exp(lp); p >= factor.MinNormal {
		return strconv.FormatFloat(p, 'g', 3, 64)
	}
	return "exp(" + strconv.FormatFloat(lp, 'g', 6, 64) + ")"
}

// doList renders interventions as do(A=a, B=b).
func doList(m *ir.Model, do []ir.Obs) string {
	return "do(" + assignmentText(m, do) + ")"
}

// softList renders likelihood evidence as A~[1, 0.5], B~[0, 1].
func softList(m *ir.Model, soft []ir.SoftObs) string {
	parts := make([]string, len(soft))
	for i, s := range soft {
		ls := make([]string, len(s.Lambda))
		for j, l := range s.Lambda {
			ls[j] = ir.FormatFloat(l)
		}
		parts[i] = ir.Quote(m.Vars[s.Var].Name) + "~[" + strings.Join(ls, ", ") + "]"
	}
	return strings.Join(parts, ", ")
}
