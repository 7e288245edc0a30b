package importer

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
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
