package ir_test

import (
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n          int
		noun, want string
	}{
		{1, "cell", "1 cell"},
		{0, "cell", "0 cells"},
		{2, "cell", "2 cells"},
		{1, "entry", "1 entry"},
		{3, "entry", "3 entries"},
		{2, "probability", "2 probabilities"},
		{2, "key", "2 keys"},
		{1, "more error", "1 more error"},
		{4, "parent configuration", "4 parent configurations"},
	} {
		if got := ir.Plural(tc.n, tc.noun); got != tc.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
}

func TestStateHint(t *testing.T) {
	m := lower(t, `var Rain: bool
var Count: 0..3
var Big: 1..100
var Sky: {clear, "partly cloudy", dark}
var Many: {s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11}
`)
	v := func(name string) *ir.Variable {
		x, ok := m.Lookup(name)
		if !ok {
			t.Fatalf("no variable %s", name)
		}
		return x
	}
	for _, tc := range []struct {
		v, name, want string
	}{
		{"Rain", "ture", ` (did you mean "true"?)`},
		{"Rain", "T", ` (its states are true, false)`}, // one character: no guess
		{"Rain", "TRUE", ` (did you mean "true"?)`},    // case only
		{"Count", "4", ` (its states are 0, 1, 2, 3)`}, // not "did you mean "0"?"
		{"Big", "x", ` (its states are 1..100)`},       // a long range as a range
		{"Sky", "partly", ` (its states are clear, "partly cloudy", dark)`},
		{"Many", "s", ` (its 12 states are s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, ...)`},
		{"Many", "s100", ` (did you mean "s10"?)`},
	} {
		if got := ir.StateHint(v(tc.v), tc.name); got != tc.want {
			t.Errorf("StateHint(%s, %q) = %q, want %q", tc.v, tc.name, got, tc.want)
		}
	}
}
