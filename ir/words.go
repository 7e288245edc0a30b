package ir

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pbl-lang/pbl/internal/spell"
)

// Plural returns n and the noun, singular when n is 1 and plural
// otherwise: "1 entry", "2 entries", "0 cells". The plural adds "s", or
// turns a final consonant + "y" into "ies"; noun may be a phrase whose last
// word is the one that changes ("1 more error", "2 more errors").
func Plural(n int, noun string) string {
	return strconv.Itoa(n) + " " + Noun(n, noun)
}

// Noun returns noun, in the plural unless n is 1 (see [Plural]).
func Noun(n int, noun string) string {
	if n == 1 {
		return noun
	}
	if k := len(noun); k >= 2 && noun[k-1] == 'y' && !strings.ContainsRune("aeiou", rune(noun[k-2])) {
		return noun[:k-1] + "ies"
	}
	return noun + "s"
}

// MaxListedStates is how many states a message lists in full; a variable
// with more gets a suggestion, or the first of them.
const MaxListedStates = 10

// StateHint returns what a message about the unknown state name of v adds
// in parentheses, with a leading space: the nearest state when name looks
// like a typo of it (at least three characters, or a difference in case
// only: a one-character name is one edit from any other, and a suggestion
// would be a guess), else the states themselves, all of them when they are
// few (" (its states are 0, 1, 2, 3)"), a range as lo..hi, else the first
// few. It is "" when v has no states.
func StateHint(v *Variable, name string) string {
	if len(v.States) == 0 {
		return ""
	}
	if s := spell.Nearest(name, v.States); s != "" && (utf8.RuneCountInString(name) >= 3 || strings.EqualFold(s, name)) {
		return " (did you mean " + strconv.Quote(s) + "?)"
	}
	return " (" + StateList(v) + ")"
}

// StateList says what v's states are, as StateHint does without a
// suggestion: "its states are a, b, c", "its states are 1..100", or
// "its 200 states are a, b, ..." for a long list.
func StateList(v *Variable) string {
	n := len(v.States)
	if v.Kind == Range && n > MaxListedStates {
		return "its states are " + v.Domain()
	}
	qs := make([]string, 0, min(n, MaxListedStates)+1)
	for _, s := range v.States[:min(n, MaxListedStates)] {
		qs = append(qs, Quote(s))
	}
	if n > MaxListedStates {
		return "its " + strconv.Itoa(n) + " states are " + strings.Join(qs, ", ") + ", ..."
	}
	return "its states are " + strings.Join(qs, ", ")
}
