package textscan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// The syntaxes of the tests: one declared as a literal, as readers do,
// whose table is built on first use, one by NewSyntax.
var (
	slashes = &Syntax{Punct: "{}()[],;|", Comments: []Comment{{Open: "//"}, {Open: "/*", Close: "*/"}}}
	percent = NewSyntax("{}()=;|,", Comment{Open: "%"})
)

// tokens renders every token of src as kind@line:col, with the text of
// words and strings and a ^ for a token that begins its line, followed by
// the errors reported.
func tokens(syn *Syntax, src string) string {
	var errs []string
	s := NewScanner(syn, "f", []byte(src), func(pos ir.Pos, format string, args ...any) {
		errs = append(errs, pos.String()+": "+fmt.Sprintf(format, args...))
	})
	var out []string
	for {
		t := s.Next()
		p := s.At(t)
		str := fmt.Sprintf("%s@%d:%d", t.Kind, p.Line, p.Col)
		if t.Kind == Word || t.Kind == String {
			str = fmt.Sprintf("%s=%s", str, s.Text(t))
		}
		if t.BOL {
			str = "^" + str
		}
		out = append(out, str)
		if t.Kind == EOF {
			break
		}
	}
	return strings.Join(append(out, errs...), " ")
}

func TestNext(t *testing.T) {
	for _, test := range []struct {
		syn       *Syntax
		src, want string
	}{
		{slashes, "", `^end of file@1:1`},
		{slashes, "a{b}", `^name@1:1=a "{"@1:2 name@1:3=b "}"@1:4 end of file@1:5`},
		{slashes, "  <5 Asy/Patch >=7.5", `^name@1:3=<5 name@1:6=Asy/Patch name@1:16=>=7.5 end of file@1:21`},
		{slashes, "a//c\nb", `^name@1:1=a ^name@2:1=b end of file@2:2`},
		{slashes, "a/*c*/b", `^name@1:1=a name@1:7=b end of file@1:8`},
		{slashes, "a /* x\ny */ b\n c", `^name@1:1=a name@2:6=b ^name@3:2=c end of file@3:3`},
		{slashes, "a /* x\n", `^name@1:1=a end of file@2:1 f:1:3: unterminated comment`},
		{slashes, "a /*/", `^name@1:1=a end of file@1:6 f:1:3: unterminated comment`},
		{slashes, `"a \"b\" \\" c`, `^string@1:1=a "b" \ name@1:14=c end of file@1:15`},
		{slashes, "\"ab\ncd", `^string@1:1=ab ^name@2:1=cd end of file@2:3 f:1:1: unterminated string`},
		{slashes, "é\x01x", `^name@1:1=é character@1:2 name@1:3=x end of file@1:4`},
		{slashes, "a=b", `^name@1:1=a=b end of file@1:4`},
		{slashes, "\uFEFFa", `^name@1:1=a end of file@1:2`},
		{percent, "a=b%c\n%d\nx", `^name@1:1=a "="@1:2 name@1:3=b ^name@3:1=x end of file@3:2`},
		{percent, "a[1]/2", `^name@1:1=a[1]/2 end of file@1:7`},
		{percent, "x\r\n\t\f\vy", `^name@1:1=x ^name@2:4=y end of file@2:5`},
	} {
		if got := tokens(test.syn, test.src); got != test.want {
			t.Errorf("tokens(%q):\ngot  %s\nwant %s", test.src, got, test.want)
		}
	}
}

func TestPos(t *testing.T) {
	src := "ab\nçd\n\nxyz"
	s := NewScanner(slashes, "f", []byte(src), nil)
	for s.Next().Kind != EOF {
	}
	// Out of order, and at offsets that begin no token.
	for _, test := range []struct {
		off  int
		want string
	}{
		{9, "f:4:2"}, {1, "f:1:2"}, {5, "f:2:2"}, {3, "f:2:1"}, {7, "f:3:1"}, {0, "f:1:1"}, {10, "f:4:3"},
	} {
		if got := s.Pos(test.off).String(); got != test.want {
			t.Errorf("Pos(%d) = %s, want %s", test.off, got, test.want)
		}
	}
	s = NewScanner(slashes, "f", []byte("\uFEFFab"), nil)
	s.Next()
	if got := s.Pos(1).String(); got != "f:1:1" {
		t.Errorf("Pos inside the byte order mark = %s, want f:1:1", got)
	}
}

func TestDescribe(t *testing.T) {
	long := strings.Repeat("x", 36) + "éééé"
	for _, test := range []struct{ src, want string }{
		{"", "end of file"},
		{"{", `"{"`},
		{"0.5", `"0.5"`},
		{`"a b"`, `"a b"`},
		{"\x01", `character '\x01'`},
		{long, `"` + strings.Repeat("x", 36) + `..."`},
		{"y" + long, `"y` + strings.Repeat("x", 36) + `..."`},
	} {
		s := NewScanner(slashes, "f", []byte(test.src), nil)
		if got := s.Describe(s.Next()); got != test.want {
			t.Errorf("Describe(%q) = %s, want %s", test.src, got, test.want)
		}
	}
}

func TestIsWord(t *testing.T) {
	for _, test := range []struct {
		syn  *Syntax
		s    string
		want bool
	}{
		{slashes, "Asy/Patch", true},
		{slashes, ">=7.5", true},
		{slashes, "a//b", false},
		{slashes, "a/*b", false},
		{slashes, "", false},
		{slashes, "a b", false},
		{slashes, "a,b", false},
		{slashes, `a"b`, false},
		{slashes, "a\x7fb", false},
		{percent, "a[1]", true},
		{percent, "a%b", false},
		{percent, "a=b", false},
	} {
		if got := test.syn.IsWord(test.s); got != test.want {
			t.Errorf("IsWord(%q) = %v, want %v", test.s, got, test.want)
		}
	}
}

func TestParser(t *testing.T) {
	var p Parser
	p.Init(slashes, "f", []byte("a \x01 { b { c } d\nc } c"))
	if !p.Is("a") || p.Found() != `"a"` {
		t.Fatalf("first token %s, want a", p.Found())
	}
	at := func() bool { return p.Is("c") }
	p.SkipTo(at) // skips the illegal character, and the c inside braces on its line
	if got := p.S.At(p.Tok).String(); !p.Is("c") || got != "f:2:1" {
		t.Errorf("SkipTo stopped at %s %s, want c at f:2:1", p.Found(), got)
	}
	p.SkipTo(at) // does not move
	p.Errorf(p.Tok, "one")
	p.Errorf(p.Tok, "two") // the same token: not reported
	p.Next()
	p.SkipTo(at) // c outside any braces
	if got := p.S.At(p.Tok).String(); got != "f:2:5" {
		t.Errorf("SkipTo stopped at %s, want f:2:5", got)
	}
	p.Next()
	p.SkipTo(at)
	if p.Tok.Kind != EOF {
		t.Errorf("SkipTo stopped at %s, want the end of the file", p.Found())
	}
	var errs []string
	for _, e := range p.B.Errs {
		errs = append(errs, e.Error())
	}
	got := strings.Join(errs, "; ")
	if want := `f:1:3: unexpected character '\x01'; f:2:1: one`; got != want {
		t.Errorf("errors %s, want %s", got, want)
	}
}

// TestSkipStmt checks where a statement skipped after an error ends, with
// braces as the brackets (BIF's blocks) and with parentheses (Hugin's
// attributes): past a ";" outside the brackets, at a "}" that closes the
// block, at a word that starts a line and may start a block, or at the end.
func TestSkipStmt(t *testing.T) {
	for _, c := range []struct {
		open, close Kind
		src, want   string // want: the token the skip stops at, and its position
	}{
		{'{', '}', "a { ; } ; x", `"x" f:1:11`},
		{'{', '}', "a { b } } x", `"}" f:1:9`},
		{'{', '}', "a b\nkw x ; y", `"kw" f:2:1`},
		{'{', '}', "a kw ; y", `"y" f:1:8`},
		{'{', '}', "a ( ; ) y", `")" f:1:7`},
		{'{', '}', "a { b", `end of file f:1:6`},
		{'(', ')', "a ( ; ) ; y", `"y" f:1:11`},
		{'(', ')', "a ( } ; y", `"}" f:1:5`},
		{'(', ')', "a ) ; y", `"y" f:1:7`},
		{'(', ')', "a { ; y", `"y" f:1:7`},
		{'(', ')', "a (\nkw ; y", `"kw" f:2:1`},
	} {
		var p Parser
		p.Init(slashes, "f", []byte(c.src))
		p.SkipStmt(c.open, c.close, func() bool { return p.Is("kw") })
		if got := p.Found() + " " + p.S.At(p.Tok).String(); got != c.want {
			t.Errorf("SkipStmt(%c, %c) on %q stopped at %s, want %s", c.open, c.close, c.src, got, c.want)
		}
	}
}

func TestNewSyntaxPanics(t *testing.T) {
	for _, f := range []func(){
		func() { NewSyntax("{ ") },
		func() { NewSyntax(`"`) },
		func() { NewSyntax("{", Comment{Open: ""}) },
		func() { NewSyntax("{", Comment{Open: "{"}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("NewSyntax did not panic")
				}
			}()
			f()
		}()
	}
}

// A Syntax declared as a literal answers IsWord before any scanner has
// used it, as NewSyntax's does.
func TestSyntaxLiteral(t *testing.T) {
	lit := &Syntax{Punct: "{}=;", Comments: []Comment{{Open: "%"}, {Open: "/*", Close: "*/"}}}
	built := NewSyntax("{}=;", Comment{Open: "%"}, Comment{Open: "/*", Close: "*/"})
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"abc", true}, {"a/b", true}, {"5-12", true}, {"", false}, {"a b", false}, {"a=b", false},
		{"50%", false}, {"a/*b", false}, {`"q"`, false}, {"a\x01", false},
	} {
		if got := lit.IsWord(c.s); got != c.want {
			t.Errorf("literal IsWord(%q) = %v, want %v", c.s, got, c.want)
		}
		if got := built.IsWord(c.s); got != c.want {
			t.Errorf("NewSyntax IsWord(%q) = %v, want %v", c.s, got, c.want)
		}
	}
}
