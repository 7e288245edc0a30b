package figure

import (
	"image/color"
	"math"
)

// A Point is a position on a canvas, in points from the top left corner,
// y growing downwards.
type Point struct{ X, Y float64 }

// A Rect is the rectangle of the points from Min (top left) to Max
// (bottom right).
type Rect struct{ Min, Max Point }

// Dx returns r's width.
func (r Rect) Dx() float64 { return r.Max.X - r.Min.X }

// Dy returns r's height.
func (r Rect) Dy() float64 { return r.Max.Y - r.Min.Y }

// Inset returns r with its left, top, right and bottom sides moved in by
// the given amounts.
func (r Rect) Inset(left, top, right, bottom float64) Rect {
	return Rect{Point{r.Min.X + left, r.Min.Y + top}, Point{r.Max.X - right, r.Max.Y - bottom}}
}

// A LineStyle is how a line is stroked.
type LineStyle struct {
	Color  color.Color
	Width  float64   // in points
	Dashes []float64 // the lengths of the dashes and gaps, or nil for a solid line
}

// Text alignments: the fraction of a text's width that lies before its
// anchor point.
const (
	AlignLeft   = 0
	AlignCenter = 0.5
	AlignRight  = 1
)

// A TextStyle is how a text is written.
type TextStyle struct {
	Color    color.Color // black if nil
	Size     float64     // the font size, in points
	Align    float64     // AlignLeft, AlignCenter or AlignRight, along the text
	Vertical bool        // whether the text reads upwards, turned 90° anticlockwise
}

// A Canvas is a surface to draw on, in points.
type Canvas interface {
	// Size returns the canvas's width and height.
	Size() (w, h float64)
	// Fill fills the polygon pts, closed, with c.
	Fill(pts []Point, c color.Color)
	// Circle fills the disc of radius r around ctr with c.
	Circle(ctr Point, r float64, c color.Color)
	// Stroke draws the polyline pts, closed if its first point is also
	// its last.
	Stroke(pts []Point, st LineStyle)
	// Text writes s with its baseline through at, at least until the
	// start or end that st.Align puts there.
	Text(s string, at Point, st TextStyle)
}

// circlePoints returns the n vertices of the regular polygon inscribed in
// the circle of radius r around c, anticlockwise on the screen.
func circlePoints(c Point, r float64, n int) []Point {
	pts := make([]Point, n)
	for i := range pts {
		s, co := math.Sincos(2 * math.Pi * float64(i) / float64(n))
		pts[i] = Point{c.X + r*co, c.Y - r*s}
	}
	return pts
}

// textColor returns the colour of st's text.
func textColor(st TextStyle) color.Color {
	if st.Color == nil {
		return color.Black
	}
	return st.Color
}
