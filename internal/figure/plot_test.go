package figure

import (
	"image/color"
	"math"
	"testing"
)

// TestRanges checks the ranges of plots: the data padded, a point
// widened, no data [0, 1], the values that are not finite left out, and
// an axis's own range kept.
func TestRanges(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		name   string
		xy     []XY
		axis   Axis
		wx, wy [2]float64
	}{
		{"data", []XY{{0, 10}, {100, 20}}, Axis{}, [2]float64{-3, 103}, [2]float64{9.7, 20.3}},
		{"a point", []XY{{5, 0}}, Axis{}, [2]float64{4, 6}, [2]float64{-1, 1}},
		{"a large point", []XY{{50, -50}}, Axis{}, [2]float64{45, 55}, [2]float64{-55, -45}},
		{"none", nil, Axis{}, [2]float64{0, 1}, [2]float64{0, 1}},
		{"not finite", []XY{{nan, 1}, {1, inf}, {0, 10}, {100, 20}}, Axis{}, [2]float64{-3, 103}, [2]float64{9.7, 20.3}},
		{"own range", []XY{{0, 10}, {100, 20}}, Axis{Min: 0, Max: 2}, [2]float64{0, 2}, [2]float64{9.7, 20.3}},
	} {
		p := &Plot{X: tc.axis}
		p.Add(&Scatter{XY: tc.xy}, &Line{})
		x, y := p.Ranges()
		for i := range 2 {
			if !(math.Abs(x[i]-tc.wx[i]) <= 1e-9 && math.Abs(y[i]-tc.wy[i]) <= 1e-9) {
				t.Errorf("%s: ranges %v, %v; want %v, %v", tc.name, x, y, tc.wx, tc.wy)
				break
			}
		}
	}
}

// TestDrawDegenerate draws plots of awkward data on both canvases: none
// may panic, and the SVG must stay well-formed.
func TestDrawDegenerate(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, xy := range [][]XY{
		nil,
		{{1, 1}},
		{{nan, nan}},
		{{0, 0}, {inf, 1}, {1, -inf}, {nan, 2}, {2, 2}},
		{{1e300, -1e300}, {-1e300, 1e300}},
		{{1, 1}, {1 + 1e-15, 1}},
	} {
		p := &Plot{Title: "t", X: Axis{Label: "x", Ticker: DefaultTicks{Max: 3}}, Y: Axis{Label: "y"}}
		p.Add(&Scatter{XY: xy, Glyph: GlyphStyle{Color: color.Black, Radius: 2, Shape: Ring}},
			&Line{XY: xy, Style: LineStyle{Color: color.Black, Width: 1, Dashes: []float64{2, 1}}})
		svg := NewSVG(300, 200)
		p.Draw(svg, Rect{Max: Point{300, 200}})
		decodeSVG(t, svg)
		png := NewPNG(300, 200, 96)
		p.Draw(png, Rect{Max: Point{300, 200}})
		if box := inkBox(png.Image()); box.Empty() {
			t.Errorf("%v: nothing drawn", xy)
		}
	}
}
