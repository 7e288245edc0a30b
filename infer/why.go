package infer

import (
	"fmt"
	"time"
)

// Why is the reason an answer is approximate: the facts, which a command
// line phrases in terms of its flags (rule 4 of docs/design.md: the
// library's text names none).
type Why struct {
	// Caller reports that the caller asked for the engine by name
	// (Options.Engine); the other fields are then unset.
	Caller bool
	// TooLarge is the exact engines' refusal, when it was the reason: the
	// junction tree or variable elimination's tables over MaxMemory or
	// MaxTable, or an enumeration too long.
	TooLarge *TooLargeError
	// Hybrid reports that the model has a discrete variable with a
	// real-valued parent, which the exact engines do not answer
	// (ErrDiscreteChildOfReal); the other fields are then unset.
	Hybrid bool
	// Need and Limit are the exact plan's estimated time and the time
	// allowed, when time was the reason (Need is 0 when the exact engine
	// was stopped at its share of the time rather than refused by its
	// estimate).
	Need, Limit time.Duration
}

// String says why in the library's terms: "the exact plan needs
// 3.2 GiB, more than the memory limit of 64 MiB".
func (w *Why) String() string {
	return w.Phrase(LimitNames{})
}

// LimitNames are how [Why.Phrase] names the limits, each followed by the
// limit's value; an empty field is the library's name ("the memory limit
// of", "the table limit of", "the time limit of", "chosen by the
// caller"). A command line names its flags ("--max-memory's").
type LimitNames struct {
	Memory, Table, Time, Caller string
}

// Phrase says why, naming the limits as names does: a command line gives
// its flags' names ("--max-memory's").
func (w *Why) Phrase(names LimitNames) string {
	or := func(s, def string) string {
		if s == "" {
			return def
		}
		return s
	}
	switch {
	case w.Caller:
		return or(names.Caller, "chosen by the caller")
	case w.Hybrid:
		return "a discrete variable has a real-valued parent, which the exact engines do not answer"
	case w.TooLarge != nil:
		e := w.TooLarge
		switch e.What {
		case OversizeMemory:
			return fmt.Sprintf("the exact plan needs %s, more than %s %s", bytesString(e.Size), or(names.Memory, "the memory limit of"), bytesString(float64(e.Limit)))
		case OversizeTable, OversizeClique:
			return fmt.Sprintf("the exact plan needs a table of %s entries, more than %s %d", sizeFloat(e.Size), or(names.Table, "the table limit of"), e.Limit)
		case OversizeEnum:
			return fmt.Sprintf("enumeration would visit %s assignments, more than its limit of %d", sizeFloat(e.Size), e.Limit)
		}
		return e.Error()
	case w.Need > 0:
		return fmt.Sprintf("the exact plan needs ≈ %s, more than %s %s", durationString(w.Need), or(names.Time, "the time limit of"), durationString(w.Limit))
	}
	return fmt.Sprintf("the exact engines did not finish in half of %s %s", or(names.Time, "the time limit of"), durationString(w.Limit))
}

// durationString renders d with three significant digits.
func durationString(d time.Duration) string {
	return nsString(float64(d))
}
