package figure

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"testing"
)

// clipArea returns the area of the part of the polygon pts inside the
// rectangle [x0, x1]×[y0, y1], by Sutherland–Hodgman clipping (right for
// any simple polygon against a convex window) and the shoelace formula.
func clipArea(pts []Point, x0, y0, x1, y1 float64) float64 {
	for side := range 4 {
		inside := func(p Point) bool {
			switch side {
			case 0:
				return p.X >= x0
			case 1:
				return p.X <= x1
			case 2:
				return p.Y >= y0
			}
			return p.Y <= y1
		}
		cross := func(a, b Point) Point {
			var t float64
			switch side {
			case 0:
				t = (x0 - a.X) / (b.X - a.X)
			case 1:
				t = (x1 - a.X) / (b.X - a.X)
			case 2:
				t = (y0 - a.Y) / (b.Y - a.Y)
			default:
				t = (y1 - a.Y) / (b.Y - a.Y)
			}
			return Point{a.X + t*(b.X-a.X), a.Y + t*(b.Y-a.Y)}
		}
		var out []Point
		for i, b := range pts {
			a := pts[(i+len(pts)-1)%len(pts)]
			switch {
			case inside(b) && !inside(a):
				out = append(out, cross(a, b), b)
			case inside(b):
				out = append(out, b)
			case inside(a):
				out = append(out, cross(a, b))
			}
		}
		pts = out
	}
	a := 0.0
	for i, p := range pts {
		q := pts[(i+1)%len(pts)]
		a += p.X*q.Y - q.X*p.Y
	}
	return math.Abs(a) / 2
}

// TestRasterCoverage fills random simple polygons, star-shaped around a
// point and partly off the raster, and checks each pixel's coverage
// against the exact area of the polygon inside that pixel.
func TestRasterCoverage(t *testing.T) {
	const w, h = 24, 17
	rng := rand.New(rand.NewPCG(1, 2))
	var z raster
	for trial := range 300 {
		n := 3 + rng.IntN(9)
		c := Point{rng.Float64()*40 - 8, rng.Float64()*30 - 6}
		angles := make([]float64, n)
		for i := range angles {
			angles[i] = rng.Float64() * 2 * math.Pi
		}
		for i := 1; i < n; i++ { // sorted: the polygon is simple
			for j := i; j > 0 && angles[j] < angles[j-1]; j-- {
				angles[j], angles[j-1] = angles[j-1], angles[j]
			}
		}
		pts := make([]Point, n)
		for i, a := range angles {
			r := 0.3 + rng.Float64()*14
			pts[i] = Point{c.X + r*math.Cos(a), c.Y + r*math.Sin(a)}
		}
		if trial%2 == 1 { // the other winding
			for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
				pts[i], pts[j] = pts[j], pts[i]
			}
		}
		z.reset(w, h)
		z.moveTo(pts[0].X, pts[0].Y)
		for _, p := range pts[1:] {
			z.lineTo(p.X, p.Y)
		}
		z.closePath()
		for y := range h {
			acc := 0.0
			for x := range w {
				acc += z.delta[y*(w+2)+x]
				want := clipArea(pts, float64(x), float64(y), float64(x+1), float64(y+1))
				if got := math.Abs(acc); !(math.Abs(got-want) <= 1e-9) {
					t.Fatalf("trial %d, polygon %v: pixel (%d, %d) covered %v, want %v", trial, pts, x, y, got, want)
				}
			}
		}
	}
}

// TestRasterHostile checks that non-finite and huge coordinates neither
// panic nor spoil the pixels of the edges that are finite.
func TestRasterHostile(t *testing.T) {
	for _, pts := range [][]Point{
		{{math.NaN(), 1}, {5, 5}, {1, 8}},
		{{math.Inf(1), 1}, {5, 5}, {1, math.Inf(-1)}},
		{{-1e300, -1e300}, {1e300, 0}, {0, 1e300}},
		{{2, 2}, {2, 2}, {2, 2}},
		{{2, 0}, {8, 1e-310}, {5, 5}},               // a subnormal height
		{{-1, 1e308}, {11, -1e308}, {5, 5}},         // y overflows where the edge crosses a side
		{{5, 1e308}, {-1, -1e308}, {11, 5}},         //
		{{-1e308, 3}, {1.7e308, 4}, {1e308, 1e308}}, //
	} {
		img := image.NewRGBA(image.Rect(0, 0, 10, 10))
		var z raster
		z.reset(10, 10)
		z.moveTo(pts[0].X, pts[0].Y)
		for _, p := range pts[1:] {
			z.lineTo(p.X, p.Y)
		}
		z.closePath()
		z.draw(img, img.Bounds(), color.Black)
	}
	// A triangle far larger than the canvas covers all of it.
	c := NewPNG(10, 10, 72)
	c.Fill([]Point{{-1e300, -1e300}, {1e300, -1e300}, {0, 1e300}}, red) // no panic
	c.Fill([]Point{{2, 0}, {8, 1e-310}, {5, 5}}, red)
	c.Stroke([]Point{{0, 0}, {1.7e308, 5}, {3, 4}}, LineStyle{Color: red, Width: 1.7e308})
	c = NewPNG(10, 10, 72)
	c.Fill([]Point{{-1e7, -1e7}, {1e7, -1e7}, {0, 1e7}}, red)
	for _, p := range []image.Point{{0, 0}, {2, 2}, {9, 9}} {
		if got := c.Image().RGBAAt(p.X, p.Y); got != red {
			t.Errorf("pixel %v of a huge triangle is %v, want %v", p, got, red)
		}
	}
}

// TestFillRandomHostile fills and strokes random shapes whose coordinates
// mix ordinary values with huge, tiny, subnormal and non-finite ones: no
// call may panic, and every pixel stays a valid premultiplied colour.
func TestFillRandomHostile(t *testing.T) {
	values := []float64{0, 1, -1, 5, 9.5, 10, 11, 1e-310, -1e-310, 1e-300, 1e300, -1e300,
		math.MaxFloat64, -math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(), 0.4999999999999999}
	rng := rand.New(rand.NewPCG(5, 6))
	pick := func() float64 {
		if rng.IntN(2) == 0 {
			return values[rng.IntN(len(values))]
		}
		return rng.Float64()*30 - 10
	}
	translucent := color.RGBA{0x40, 0x20, 0, 0x80}
	for range 20000 {
		c := NewPNG(10, 10, 72)
		pts := make([]Point, 1+rng.IntN(6))
		for i := range pts {
			pts[i] = Point{pick(), pick()}
		}
		switch rng.IntN(3) {
		case 0:
			c.Fill(pts, translucent)
		case 1:
			c.Stroke(pts, LineStyle{Color: translucent, Width: pick(), Dashes: []float64{pick(), pick()}})
		default:
			c.Circle(pts[0], pick(), translucent)
		}
		pix := c.Image().Pix
		for i := 0; i < len(pix); i += 4 {
			if a := pix[i+3]; pix[i] > a || pix[i+1] > a || pix[i+2] > a {
				t.Fatalf("points %v: pixel %d is %v, not premultiplied", pts, i/4, pix[i:i+4])
			}
		}
	}
}
