package figure

import (
	"image/color"
	"math"
)

// A Shape is the shape of a scatter glyph.
type Shape int

// The shapes.
const (
	Circle   Shape = iota // a filled disc
	Triangle              // a triangle's outline, point up
	Square                // a filled square
	Ring                  // a circle's outline
	Cross                 // a thick ×, over a white halo
)

// A GlyphStyle is how a scatter point is marked.
type GlyphStyle struct {
	Color  color.Color
	Radius float64 // in points
	Shape  Shape
	Width  float64 // the stroke of an outline or a Cross, in points, or 0 for Radius/3
}

// DrawGlyph marks the point p with g.
func DrawGlyph(c Canvas, p Point, g GlyphStyle) {
	r := g.Radius
	w := g.Width
	if w <= 0 {
		w = r / 3
	}
	switch g.Shape {
	case Circle:
		c.Circle(p, r, g.Color)
	case Triangle:
		// Equilateral, its centroid at p, the stroke inside the radius.
		h := 1.2*r - w/2
		sin, cos := math.Sincos(math.Pi / 6)
		pts := []Point{{p.X, p.Y - h}, {p.X - h*cos, p.Y + h*sin}, {p.X + h*cos, p.Y + h*sin}, {p.X, p.Y - h}}
		c.Stroke(pts, LineStyle{Color: g.Color, Width: w})
	case Square:
		s := 0.9 * r
		c.Fill([]Point{{p.X - s, p.Y - s}, {p.X - s, p.Y + s}, {p.X + s, p.Y + s}, {p.X + s, p.Y - s}}, g.Color)
	case Ring:
		pts := circlePoints(p, r-w/2, 24)
		c.Stroke(append(pts, pts[0]), LineStyle{Color: g.Color, Width: w})
	case Cross:
		a := r * math.Sqrt2 / 2
		for _, st := range []LineStyle{{Color: color.White, Width: w + 2}, {Color: g.Color, Width: w}} {
			c.Stroke([]Point{{p.X - a, p.Y - a}, {p.X + a, p.Y + a}}, st)
			c.Stroke([]Point{{p.X - a, p.Y + a}, {p.X + a, p.Y - a}}, st)
		}
	default:
		panic("figure: unknown glyph shape")
	}
}
