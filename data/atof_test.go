package data

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// sameAsStrconv fails t unless parseFloat(s), where it answers, gives the
// bits strconv.ParseFloat gives, without an error from strconv.
func sameAsStrconv(t *testing.T, s string) (fast bool) {
	t.Helper()
	x, ok := parseFloat([]byte(s))
	if !ok {
		return false
	}
	want, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Errorf("parseFloat(%q) = %v, strconv: %v", s, x, err)
	} else if math.Float64bits(x) != math.Float64bits(want) {
		t.Errorf("parseFloat(%q) = %v (%#x), strconv %v (%#x)", s, x, math.Float64bits(x), want, math.Float64bits(want))
	}
	return true
}

// TestParseFloat checks the fast path against strconv.ParseFloat, bit for
// bit, on edge cases and on a million numbers written as CSV writers
// write them; and that the common forms do take it.
func TestParseFloat(t *testing.T) {
	for _, tc := range []struct {
		s    string
		fast bool
	}{
		{"0", true}, {"-0", true}, {"+0", true}, {"0.0", true}, {"-0.000", true}, {"00012", true},
		{"1", true}, {"-1.5", true}, {"+2.25", true}, {".5", true}, {"5.", true}, {"-.5e1", true},
		{"1e22", true}, {"1e23", false}, {"1e-22", true}, {"1e-23", false}, {"9007199254740992", true},
		{"9007199254740993", false}, {"1234567890123456789", false}, {"0.000000000000000000001", false}, {"0.0000000000000000001", false}, {"0.000000000000000001", true},
		{"1E5", true}, {"1e+05", true}, {"2.5E-3", true}, {"123456789012345678901", false},
		{"0e2000", true}, {"0e99999", false}, {"1e0001", true}, {"1e", false}, {"1e+", false}, {"e5", false}, {".", false}, {"-", false}, {"", false},
		{"+", false}, {"--1", false}, {"1.2.3", false}, {"1_000", false}, {"0x1p3", false}, {"inf", false},
		{"-Inf", false}, {"NaN", false}, {"1e400", false}, {"1 ", false}, {" 1", false}, {"1,", false},
		{"4.9e-324", false}, {"1.7976931348623157e308", false}, {"1e-2147483649", false},
	} {
		if got := sameAsStrconv(t, tc.s); got != tc.fast {
			t.Errorf("parseFloat(%q): fast path %v, want %v", tc.s, got, tc.fast)
		}
	}
	r := rand.New(rand.NewPCG(3, 1))
	fast := 0
	const n = 1_000_000
	for i := range n {
		x := r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
		var s string
		switch i % 6 {
		case 0:
			s = strconv.FormatFloat(x, 'g', -1, 64)
		case 1:
			s = strconv.FormatFloat(x, 'g', 1+r.IntN(17), 64)
		case 2:
			s = strconv.FormatFloat(x, 'e', r.IntN(17), 64)
		case 3:
			s = strconv.FormatFloat(x, 'f', r.IntN(12), 64)
		case 4:
			s = strconv.FormatFloat(x, 'g', 8, 64)
		default:
			s = strconv.FormatInt(r.Int64N(1<<62)-1<<61, 10)
		}
		if sameAsStrconv(t, s) {
			fast++
		}
	}
	if fast < n/2 {
		t.Errorf("only %d of %d numbers took the fast path", fast, n)
	}
}

// FuzzParseFloat checks the fast path against strconv.ParseFloat on any
// input.
func FuzzParseFloat(f *testing.F) {
	for _, s := range []string{"0", "-1.5", "1e22", ".5", "9007199254740992", "1e-22", "12345678.9e-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { sameAsStrconv(t, s) })
}
