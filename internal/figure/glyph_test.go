package figure

import (
	"image"
	"image/color"
	"testing"
)

// TestGlyphs draws each shape on a canvas of one pixel a point and checks
// that its ink lies around the point, within about its radius, and that
// the filled shapes cover the point while the outlines leave it blank.
func TestGlyphs(t *testing.T) {
	for _, tc := range []struct {
		shape  Shape
		filled bool
	}{
		{Circle, true},
		{Square, true},
		{Triangle, false},
		{Ring, false},
		{Cross, true},
	} {
		c := NewPNG(60, 60, 72)
		DrawGlyph(c, Point{30, 30}, GlyphStyle{Color: red, Radius: 10, Shape: tc.shape})
		img := c.Image()
		box := inkBox(img)
		if !box.In(image.Rect(16, 16, 44, 44)) || box.Dx() < 14 || box.Dy() < 14 {
			t.Errorf("shape %d: ink in %v, want about the radius around (30, 30)", tc.shape, box)
		}
		if got := img.RGBAAt(30, 30); (got == red) != tc.filled {
			t.Errorf("shape %d: centre %v, filled %v", tc.shape, got, tc.filled)
		}
	}
	defer func() {
		if recover() == nil {
			t.Errorf("an unknown shape did not panic")
		}
	}()
	DrawGlyph(NewPNG(10, 10, 72), Point{}, GlyphStyle{Color: color.Black, Radius: 1, Shape: Cross + 1})
}
