package grammar

import (
	"strconv"
	"unicode"
)

// MaxExprDepth is the deepest an expression may be: the parser refuses
// more levels of nesting (parentheses, calls, unary minus, exponents), and
// lowering (package ir) a longer chain of operators (a sum of more terms),
// so that no recursive pass over an expression can exhaust the stack. It
// is a rule of the language's syntax, so it sits here, below both.
const MaxExprDepth = 10_000

// Quote returns name as written in pbl source: bare if it is an identifier
// or an integer, otherwise double-quoted.
func Quote(name string) string {
	if IsIdent(name) || isInt(name) {
		return name
	}
	return strconv.Quote(name)
}

// IsIdent reports whether s is a pbl identifier: a letter or underscore
// followed by letters, digits and underscores.
func IsIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r >= 0x80 && unicode.IsLetter(r):
		case i > 0 && ('0' <= r && r <= '9'):
		default:
			return false
		}
	}
	return true
}

// isInt reports whether s is an integer, with an optional minus sign.
func isInt(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
