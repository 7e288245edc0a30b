package main

import (
	"errors"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestPathPattern(t *testing.T) {
	tests := []struct {
		pattern string
		match   []string
		miss    []string
	}{
		{"campfire", []string{"examples/campfire.pbl", "campfire", "x/campfire2.pbl"}, []string{"examples/camp.pbl", "Campfire.pbl", ""}},
		{"asia|alarm", []string{"nets/asia.pbl", "alarm.pbl"}, []string{"child.pbl"}},
		{"examples/*.pbl", []string{"examples/a.pbl", "examples/sub/b.pbl", "x/examples/.pbl"}, []string{"examples/a.pb", "example/a.pbl"}},
		{"a?c", []string{"abc", "xaéc", "a/c"}, []string{"ac", "abbc"}},
		{"[ab]1", []string{"a1", "zb1"}, []string{"c1", "a2"}},
		{"[a-c]x", []string{"bx", "cx"}, []string{"dx", "Ax"}},
		{"[^a-c]x", []string{"dx", "éx"}, []string{"ax", "x"}},
		{"[]]", []string{"a]b"}, []string{"ab"}},
		{`\*`, []string{"a*b"}, []string{"ab"}},
		{`\[a`, []string{"[a"}, []string{"a"}},
		{"a*b*c", []string{"abc", "a/x/b/y/c", "aabbcc"}, []string{"acb", "ab"}},
		{"", []string{"", "anything"}, nil},
		{"|x", []string{"y"}, nil}, // an empty alternative matches every path
		{"é", []string{"café.pbl"}, []string{"cafe.pbl"}},
		{`a\|b`, []string{"xa|by"}, []string{"a", "b", "ab"}},
		{"a[|]b", []string{"a|b"}, []string{"a", "b", "ab"}},
		{"[^|]x|y", []string{"ax", "y"}, []string{"|x", "x"}},
	}
	for _, test := range tests {
		p, err := parsePathPattern(test.pattern)
		if err != nil {
			t.Errorf("parsePathPattern(%q): %v", test.pattern, err)
			continue
		}
		for _, s := range test.match {
			if !p.MatchString(s) {
				t.Errorf("%q does not match %q, want a match", test.pattern, s)
			}
		}
		for _, s := range test.miss {
			if p.MatchString(s) {
				t.Errorf("%q matches %q, want none", test.pattern, s)
			}
		}
	}
}

func TestPathPatternErrors(t *testing.T) {
	for _, bad := range []string{"[", "a[b", `a\`, "ok|[", "[^", "[]"} {
		_, err := parsePathPattern(bad)
		if !errors.Is(err, errBadPattern) {
			t.Errorf("parsePathPattern(%q) = %v, want errBadPattern", bad, err)
		}
	}
}

// globRegexp translates a checked glob into the equivalent unanchored
// regular expression, for the differential test.
func globRegexp(g string) string {
	var b strings.Builder
	b.WriteString("(?s)")
	for i := 0; i < len(g); i++ {
		switch c := g[i]; c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '\\':
			i++
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
		case '[':
			end := classEnd(g, i)
			b.WriteString("[")
			body := g[i+1 : end]
			if strings.HasPrefix(body, "^") {
				b.WriteString("^")
				body = body[1:]
			}
			for j := 0; j < len(body); j++ {
				if body[j] == '\\' {
					j++
				}
				if body[j] == '-' && j > 0 && j < len(body)-1 {
					b.WriteByte('-')
					continue
				}
				b.WriteString(`\x{` + hex(body[j]) + `}`)
			}
			b.WriteString("]")
			i = end
		default:
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
		}
	}
	return b.String()
}

func hex(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

// TestPathPatternAgainstRegexp compares the glob matcher with package
// regexp on random ASCII globs and paths: the glob's meaning written as a
// regular expression must select the same paths.
func TestPathPatternAgainstRegexp(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "ab/.-"
	piece := func() string {
		switch r.IntN(9) {
		case 0:
			return "*"
		case 1:
			return "?"
		case 2:
			return `\` + string(alphabet[r.IntN(len(alphabet))])
		case 3:
			neg := ""
			if r.IntN(3) == 0 {
				neg = "^"
			}
			return "[" + neg + string(alphabet[r.IntN(2)]) + "-" + string("bz"[r.IntN(2)]) + "]"
		case 4:
			return "[" + string(alphabet[r.IntN(len(alphabet))]) + string(alphabet[r.IntN(len(alphabet))]) + "]"
		}
		return string(alphabet[r.IntN(len(alphabet))])
	}
	n := 20000
	if testing.Short() {
		n = 2000
	}
	matched := 0
	for range n {
		var g strings.Builder
		for range r.IntN(6) {
			g.WriteString(piece())
		}
		var s strings.Builder
		for range r.IntN(10) {
			s.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		p, err := parsePathPattern(g.String())
		if err != nil {
			t.Fatalf("parsePathPattern(%q): %v", g.String(), err)
		}
		rx := regexp.MustCompile(globRegexp(g.String()))
		got, want := p.MatchString(s.String()), rx.MatchString(s.String())
		if got != want {
			t.Fatalf("%q on %q: glob %v, regexp %s %v", g.String(), s.String(), got, rx, want)
		}
		if got {
			matched++
		}
	}
	if matched < n/10 || matched > n*9/10 {
		t.Errorf("%d of %d random cases match: the test does not exercise both outcomes", matched, n)
	}
}

// TestPathPatternTime checks that a hostile pattern takes time linear in
// the pattern times the path, not exponential.
func TestPathPatternTime(t *testing.T) {
	p, err := parsePathPattern(strings.Repeat("*a", 30) + "b")
	if err != nil {
		t.Fatal(err)
	}
	path := strings.Repeat("a", 2000)
	start := time.Now()
	if p.MatchString(path) {
		t.Fatal("matched a path without b")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}
