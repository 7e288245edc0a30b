package importer

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"

	"github.com/pbl-lang/pbl/internal/input"
	"github.com/pbl-lang/pbl/ir"
)

func TestRecover(t *testing.T) {
	read := func() (m *ir.Model, err error) {
		defer Recover("x.bif", "BIF", &m, &err)
		panic("boom")
	}
	m, err := read()
	if m != nil || err == nil || err.Error() != "x.bif:1:1: internal error reading BIF: boom" {
		t.Errorf("got %v, %v", m, err)
	}
}

func TestGunzip(t *testing.T) {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte("network x {\n}\n"))
	w.Close()
	if !IsGzip(b.Bytes()) || IsGzip([]byte("network")) || IsGzip(nil) {
		t.Error("IsGzip is wrong")
	}
	out, err := Gunzip(b.Bytes())
	if err != nil || string(out) != "network x {\n}\n" {
		t.Errorf("Gunzip = %q, %v", out, err)
	}
	var ge *input.GzipError
	if _, err := Gunzip(b.Bytes()[:b.Len()-3]); !errors.As(err, &ge) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated input: got %v, want an *input.GzipError of io.ErrUnexpectedEOF", err)
	}
}

func TestReadFile(t *testing.T) {
	called := false
	_, err := ReadFile("/nonexistent/x.bif", func(string, []byte) (*ir.Model, error) { called = true; return nil, nil })
	if called || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("called %v, err %v", called, err)
	}
}

func TestParseNumber(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1", 1, true}, {"0.25", 0.25, true}, {".5", 0.5, true}, {"-2", -2, true}, {"+1e-05", 1e-05, true},
		{"0.000000e+00", 0, true}, {"1.", 1, true},
		{"", 0, false}, {".", 0, false}, {"e5", 0, false}, {"1e", 0, false}, {"1e+", 0, false},
		{"inf", 0, false}, {"nan", 0, false}, {"0x1p-2", 0, false}, {"1_000", 0, false}, {"1e999", 0, false}, {"1.5x", 0, false},
	} {
		got, ok := ParseNumber([]byte(tc.in))
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("ParseNumber(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestBuildHelpers(t *testing.T) {
	if got := Uniform(4); len(got) != 4 || got[0] != 0.25 || got[3] != 0.25 {
		t.Errorf("Uniform(4) = %v", got)
	}
	b := ir.NewBuilder("m")
	for _, name := range []string{"Rain", "wet grass", "Sprinkler"} {
		b.AddVar(ir.Pos{}, name, ir.Enum, []string{"y", "n"}, 0)
	}
	m := b.Model()
	for _, test := range []struct {
		parents []ir.VarID
		want    string
	}{
		{nil, `P("wet grass")`},
		{[]ir.VarID{0}, `P("wet grass" | Rain)`},
		{[]ir.VarID{0, 2}, `P("wet grass" | Rain, Sprinkler)`},
	} {
		if got := CPTTitle(m, 1, test.parents); got != test.want {
			t.Errorf("CPTTitle(%v) = %s, want %s", test.parents, got, test.want)
		}
	}
	if got, want := Hint("rain", m.Names()), ` (did you mean "Rain"?)`; got != want {
		t.Errorf("Hint(rain) = %q, want %q", got, want)
	}
	if got := Hint("cloudy", m.Names()); got != "" {
		t.Errorf("Hint(cloudy) = %q, want none", got)
	}
}

var decimal = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// parseNumberRef is ParseNumber by its definition: the decimal grammar
// checked, then strconv.ParseFloat.
func parseNumberRef(s string) (float64, bool) {
	if !decimal.MatchString(s) {
		return 0, false
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return x, true
}

// TestParseNumberExact checks the fast path against strconv, bit for bit,
// on the forms at its edges.
func TestParseNumberExact(t *testing.T) {
	for _, s := range []string{
		"-0", "-0.0", "+0", "0.1", "0.3", "0.7", "0.333333", "0.6666666666666666", "1.0000000000000002",
		"9007199254740992", "9007199254740993", "18014398509481985", "1234567890123456789", "12345678901234567890",
		"0.00000000000000000000001", "1e22", "1e23", "1e-22", "1e-23", "4.9e-324", "2e-324", "1.7976931348623157e308",
		"0.000000000000000000000000000000000000001", "123.456e-5", "00000000000000000000000001.5", "1e-99999999",
		"5e-1", ".5e1", "1.e2", "0.10000000000000000555", "3.0000000000000004440892098500626",
	} {
		got, ok := ParseNumber([]byte(s))
		want, wantOK := parseNumberRef(s)
		if ok != wantOK || math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("ParseNumber(%q) = %v (%#x), %v; want %v (%#x), %v", s, got, math.Float64bits(got), ok, want, math.Float64bits(want), wantOK)
		}
	}
}

// TestParseNumberRandom compares ParseNumber with its definition on random
// decimals of 1 to 25 digits with a point anywhere and exponents near the
// fast path's bounds.
func TestParseNumberRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		var b []byte
		if r.IntN(4) == 0 {
			b = append(b, "+-"[r.IntN(2)])
		}
		n := 1 + r.IntN(25)
		point := r.IntN(n + 1)
		for j := range n {
			if j == point {
				b = append(b, '.')
			}
			b = append(b, byte('0'+r.IntN(10)))
		}
		if r.IntN(3) == 0 {
			b = strconv.AppendInt(append(b, 'e'), int64(r.IntN(61)-30), 10)
		}
		got, ok := ParseNumber(b)
		want, wantOK := parseNumberRef(string(b))
		if ok != wantOK || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("ParseNumber(%q) = %v, %v; want %v, %v", b, got, ok, want, wantOK)
		}
	}
}

// FuzzParseNumber checks ParseNumber against its definition on any input.
func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"0.25", "-1e-05", "1e23", "9007199254740993", ".5", "1.", "inf", "0x1p-2", "1_0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseNumber([]byte(s))
		want, wantOK := parseNumberRef(s)
		if ok != wantOK || math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("ParseNumber(%q) = %v, %v; want %v, %v", s, got, ok, want, wantOK)
		}
	})
}
