package figure

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"testing"
)

var (
	red         = color.RGBA{0xff, 0, 0, 0xff}
	transparent = color.RGBA{}
)

// TestPNGShapes fills and strokes shapes on a canvas of one pixel a point
// and checks pixels inside, outside and between the dashes.
func TestPNGShapes(t *testing.T) {
	black := color.RGBA{0, 0, 0, 0xff}
	for _, tc := range []struct {
		name   string
		draw   func(c *PNG)
		inked  []image.Point // the shape's colour
		blank  []image.Point // untouched
		area   float64       // the inked area, in pixels, or 0
		colour color.RGBA
	}{
		{"square", func(c *PNG) { c.Fill([]Point{{10, 10}, {30, 10}, {30, 30}, {10, 30}}, red) },
			[]image.Point{{10, 10}, {20, 20}, {29, 29}}, []image.Point{{9, 20}, {30, 20}, {20, 30}, {5, 5}}, 400, red},
		{"square wound the other way", func(c *PNG) { c.Fill([]Point{{10, 10}, {10, 30}, {30, 30}, {30, 10}}, red) },
			[]image.Point{{20, 20}}, []image.Point{{9, 20}}, 400, red},
		{"circle", func(c *PNG) { c.Circle(Point{50, 25}, 10, red) },
			[]image.Point{{50, 25}, {42, 25}, {50, 33}}, []image.Point{{50, 37}, {62, 25}, {58, 33}}, math.Pi * 100, red},
		{"off the edge", func(c *PNG) { c.Circle(Point{0, 0}, 10, red) },
			[]image.Point{{0, 0}, {5, 5}}, []image.Point{{12, 0}}, math.Pi * 25, red},
		{"nowhere", func(c *PNG) { c.Circle(Point{-100, -100}, 10, red) }, nil, []image.Point{{0, 0}}, 0, red},
		{"line", func(c *PNG) { c.Stroke([]Point{{10, 25}, {90, 25}}, LineStyle{Color: black, Width: 2}) },
			[]image.Point{{10, 24}, {50, 25}, {89, 24}}, []image.Point{{50, 22}, {50, 27}, {9, 25}, {91, 25}}, 160, black},
		{"dashes", func(c *PNG) {
			c.Stroke([]Point{{10, 25}, {50, 25}, {90, 25}}, LineStyle{Color: black, Width: 2, Dashes: []float64{10, 10}})
		}, []image.Point{{15, 25}, {35, 25}, {55, 25}, {75, 25}}, []image.Point{{25, 25}, {45, 25}, {65, 25}, {85, 25}}, 80, black},
		{"doubling back", func(c *PNG) { // overlapping segments must not cancel
			c.Stroke([]Point{{10, 25}, {90, 25}, {10, 25}}, LineStyle{Color: black, Width: 2})
		}, []image.Point{{50, 25}, {50, 24}}, nil, 0, black},
		{"closed square", func(c *PNG) {
			c.Stroke([]Point{{10, 10}, {40, 10}, {40, 40}, {10, 40}, {10, 10}}, LineStyle{Color: black, Width: 4})
		}, []image.Point{{10, 10}, {40, 40}, {25, 9}, {39, 25}}, []image.Point{{25, 25}, {5, 25}}, 0, black},
	} {
		c := NewPNG(100, 50, 72)
		tc.draw(c)
		img := c.Image()
		if img.Bounds() != image.Rect(0, 0, 100, 50) {
			t.Fatalf("%s: bounds %v", tc.name, img.Bounds())
		}
		for _, p := range tc.inked {
			if got := img.RGBAAt(p.X, p.Y); got != tc.colour {
				t.Errorf("%s: pixel %v is %v, want %v", tc.name, p, got, tc.colour)
			}
		}
		for _, p := range tc.blank {
			if got := img.RGBAAt(p.X, p.Y); got != transparent {
				t.Errorf("%s: pixel %v is %v, want it untouched", tc.name, p, got)
			}
		}
		if tc.area > 0 {
			a := 0.0
			for i := 3; i < len(img.Pix); i += 4 {
				a += float64(img.Pix[i]) / 0xff
			}
			if !(math.Abs(a-tc.area) <= 0.03*tc.area) {
				t.Errorf("%s: inked area %v, want %v", tc.name, a, tc.area)
			}
		}
	}
}

// inkBox returns the smallest rectangle of r's pixels that are not
// transparent.
func inkBox(img *image.RGBA) image.Rectangle {
	var box image.Rectangle
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if img.RGBAAt(x, y).A != 0 {
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return box
}

// TestPNGText checks where text is drawn, level and turned, by its
// alignment.
func TestPNGText(t *testing.T) {
	w := TextWidth("Hello", 12)
	for _, tc := range []struct {
		st   TextStyle
		want image.Rectangle // the box the ink must be in
		min  image.Point     // its smallest size
	}{
		{TextStyle{Size: 12}, image.Rect(50, 40, 52+int(w), 62), image.Pt(int(w)-3, 8)},
		{TextStyle{Size: 12, Align: AlignRight}, image.Rect(48-int(w), 40, 52, 62), image.Pt(int(w)-3, 8)},
		{TextStyle{Size: 12, Align: AlignCenter}, image.Rect(48-int(w/2), 40, 52+int(w/2), 62), image.Pt(int(w)-3, 8)},
		{TextStyle{Size: 12, Vertical: true}, image.Rect(40, 48-int(w), 62, 52), image.Pt(8, int(w)-3)},
		{TextStyle{Size: 12, Vertical: true, Align: AlignCenter}, image.Rect(40, 48-int(w/2), 62, 52+int(w/2)), image.Pt(8, int(w)-3)},
	} {
		c := NewPNG(100, 100, 72)
		c.Text("Hello", Point{50, 50}, tc.st)
		box := inkBox(c.Image())
		if !box.In(tc.want) || box.Dx() < tc.min.X || box.Dy() < tc.min.Y {
			t.Errorf("%+v: ink in %v, want in %v and at least %v", tc.st, box, tc.want, tc.min)
		}
	}
}

// TestPNGPlot draws a plot at 110 dpi, encodes and decodes it, and checks
// its size, that it is not blank, and the colour of the pixels at the
// data points.
func TestPNGPlot(t *testing.T) {
	c := NewPNG(792, 345.6, 110)
	c.Fill([]Point{{0, 0}, {792, 0}, {792, 345.6}, {0, 345.6}}, color.White)
	p := &Plot{Title: "t", X: Axis{Label: "x"}, Y: Axis{Label: "y"}}
	blue := color.RGBA{0x1f, 0x77, 0xb4, 0xff}
	p.Add(&Scatter{XY: []XY{{-3, 10}, {6, -2}}, Glyph: GlyphStyle{Color: red, Radius: 4}},
		&Scatter{XY: []XY{{2, 4}}, Glyph: GlyphStyle{Color: blue, Radius: 4, Shape: Square}})
	area := p.Draw(c, Rect{Min: Point{10, 10}, Max: Point{400, 330}})
	xr, yr := p.Ranges()
	if !(xr[0] < -3 && xr[1] > 6 && yr[0] < -2 && yr[1] > 10) {
		t.Errorf("ranges %v, %v do not cover the data", xr, yr)
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds() != image.Rect(0, 0, 1210, 528) {
		t.Errorf("bounds %v, want 1210×528", img.Bounds())
	}
	colours := map[color.RGBA]bool{}
	for y := 0; y < 528; y += 3 {
		for x := 0; x < 1210; x += 3 {
			colours[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)] = true
		}
	}
	if len(colours) < 10 {
		t.Errorf("%d colours: blank", len(colours))
	}
	for _, tc := range []struct {
		v XY
		c color.RGBA
	}{{XY{-3, 10}, red}, {XY{6, -2}, red}, {XY{2, 4}, blue}} {
		x := area.Min.X + (tc.v.X-xr[0])/(xr[1]-xr[0])*area.Dx()
		y := area.Max.Y - (tc.v.Y-yr[0])/(yr[1]-yr[0])*area.Dy()
		px, py := int(x*110/72), int(y*110/72)
		if got := color.RGBAModel.Convert(img.At(px, py)); got != tc.c {
			t.Errorf("pixel (%d, %d) of %v is %v, want %v", px, py, tc.v, got, tc.c)
		}
	}
}
