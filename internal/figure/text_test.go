package figure

import (
	"math"
	"testing"
)

// TestTextWidth checks the measure of text: proportional to the size and
// additive, wider letters wider, and an empty text of no width.
func TestTextWidth(t *testing.T) {
	for _, tc := range []struct {
		narrow, wide string
	}{
		{"iiii", "MMMM"},
		{"1", "11"},
		{"cluster 1", "cluster 10"},
		{"", "x"},
	} {
		if n, w := TextWidth(tc.narrow, 10), TextWidth(tc.wide, 10); !(n < w) {
			t.Errorf("TextWidth(%q) = %v, not less than TextWidth(%q) = %v", tc.narrow, n, tc.wide, w)
		}
	}
	for _, s := range []string{"mean log-likelihood per row", "σ × …", "0.25"} {
		w10, w20, ww := TextWidth(s, 10), TextWidth(s, 20), TextWidth(s+s, 10)
		if !(w10 > 0 && math.Abs(w20-2*w10) <= 1e-9*w10 && math.Abs(ww-2*w10) <= 1e-9*w10) {
			t.Errorf("%q: widths %v at 10 points, %v at 20, %v twice at 10", s, w10, w20, ww)
		}
		// Go Regular's letters are about half an em wide on average.
		if n := float64(len([]rune(s))); !(w10 > 0.3*10*n && w10 < 0.8*10*n) {
			t.Errorf("%q: width %v at 10 points for %v letters", s, w10, n)
		}
	}
}
