package xmltext

import (
	"strings"
	"unicode/utf8"
)

// Escape returns s escaped as the text of an element, byte for byte as
// encoding/xml's EscapeText: quotes, &, <, >, tab, newline and carriage
// return become references, and invalid UTF-8 and the characters XML
// does not allow become U+FFFD. It returns s itself when nothing needs
// escaping.
func Escape(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		var esc string
		switch r {
		case '"':
			esc = "&#34;"
		case '\'':
			esc = "&#39;"
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '\t':
			esc = "&#x9;"
		case '\n':
			esc = "&#xA;"
		case '\r':
			esc = "&#xD;"
		default:
			if r == utf8.RuneError && n == 1 || !IsChar(r) {
				esc = "\uFFFD"
			}
		}
		if esc != "" {
			b.WriteString(s[last:i])
			b.WriteString(esc)
			last = i + n
		}
		i += n
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// IsChar reports whether r is in the Char production of XML 1.0.
func IsChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}
