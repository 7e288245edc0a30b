package xmltext

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// TestEscape compares Escape with encoding/xml's EscapeText, whose output
// it must reproduce byte for byte.
func TestEscape(t *testing.T) {
	cases := []string{"", "plain", `a<b>&"c'd`, "tab\there\nline\rcr", "é ü 😀", "\x00\x01\x1f", "a\xffb\xc3", "\uFFFD\uFFFE\uFFFF", "\U0010FFFF", "]]>", "x\uD7FF\uE000"}
	const alphabet = "a<>&'\"\t\n\r\x01\xff\xc3\xa9\xef\xbf\xbe"
	rng := rand.New(rand.NewPCG(2, 3))
	for range 5000 {
		b := make([]byte, rng.IntN(8))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		var want bytes.Buffer
		xml.EscapeText(&want, []byte(s))
		if got := Escape(s); got != want.String() {
			t.Fatalf("Escape(%q) = %q, want %q", s, got, want.String())
		}
	}
}

// TestIsChar checks IsChar against encoding/xml, which refuses a character
// reference to a character outside XML's Char production.
func TestIsChar(t *testing.T) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			if IsChar(r) {
				t.Fatalf("IsChar(%U) for a surrogate", r)
			}
			continue
		}
		if r > 0x3000 && r < 0xF000 && r%97 != 0 || r > 0x10100 && r%4099 != 0 {
			continue // a sample of the long runs
		}
		var v struct{ S string }
		err := xml.Unmarshal(fmt.Appendf(nil, "<a><S>&#x%X;</S></a>", r), &v)
		if got, want := IsChar(r), err == nil; got != want {
			t.Fatalf("IsChar(%U) = %v, encoding/xml accepts it: %v (%v)", r, got, want, err)
		}
	}
}
