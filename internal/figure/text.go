package figure

import (
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// The font: Go Regular, parsed on first use. goregular.TTF is static data,
// so linking it costs the binary's size but no time at start-up.
var (
	fontOnce   sync.Once
	fontParsed *sfnt.Font // or nil if the font does not parse
)

// fontFamily is the CSS font-family list an SVG names: Go first, the font
// measured, then sans-serif fonts of similar or smaller widths.
const fontFamily = "Go, Helvetica, Arial, sans-serif"

// Vertical metrics, as fractions of the font size: the height of the
// capitals above the baseline and the depth of the descenders below it.
const (
	capHeight = 0.72
	descent   = 0.22
)

// goFont returns the parsed Go Regular font, or nil.
func goFont() *sfnt.Font {
	fontOnce.Do(func() {
		f, err := sfnt.Parse(goregular.TTF)
		if err == nil {
			fontParsed = f
		}
	})
	return fontParsed
}

// TextWidth returns the width of s written at size points.
func TextWidth(s string, size float64) float64 {
	f := goFont()
	if f == nil {
		return 0.55 * size * float64(len([]rune(s)))
	}
	var buf sfnt.Buffer
	upem := f.UnitsPerEm()
	ppem := fixed.Int26_6(upem) // advances in font units
	var w fixed.Int26_6
	for _, r := range s {
		g, err := f.GlyphIndex(&buf, r)
		if err != nil {
			continue
		}
		adv, err := f.GlyphAdvance(&buf, g, ppem, font.HintingNone)
		if err != nil {
			continue
		}
		w += adv
	}
	return float64(w) / float64(upem) * size
}
