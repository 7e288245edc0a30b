package figure

import (
	"image"
	"image/color"
	"math"
)

// A raster accumulates the exact area that closed outlines cover in each
// pixel of a w×h rectangle, for antialiased filling.
//
// Each edge adds, to every pixel of the rows it crosses, the signed area
// of the part of the pixel to the right of it, weighted by the height of
// the edge within the row: +1 per unit of height for an edge going down,
// −1 for one going up. Summed over the edges of a closed outline this is
// the outline's winding number integrated over the pixel, which is the
// covered fraction of a pixel inside a simple outline. As in
// golang.org/x/image/vector, overlapping outlines wound the same way add,
// and the coverage is the absolute value clamped to 1, so outlines drawn
// over each other (a stroke's segments and joints) do not cancel.
//
// An edge's contribution to a row is stored as differences along the row
// (delta[c] is the coverage of pixel c less that of pixel c−1), so an edge
// touches only the pixels it passes through; the coverage is their running
// sum along each row.
type raster struct {
	w, h  int
	delta []float64 // h rows of w+2: room for the differences just past the right side
	x, y  float64   // the current point
	x0    float64   // the start of the current outline
	y0    float64
}

// reset empties r and sizes it to w×h pixels.
func (r *raster) reset(w, h int) {
	r.w, r.h = w, h
	n := h * (w + 2)
	if cap(r.delta) < n {
		r.delta = make([]float64, n)
	}
	r.delta = r.delta[:n]
	clear(r.delta)
	r.x, r.y, r.x0, r.y0 = 0, 0, 0, 0
}

// moveTo closes the current outline and starts another at (x, y).
func (r *raster) moveTo(x, y float64) {
	r.closePath()
	r.x, r.y, r.x0, r.y0 = x, y, x, y
}

// lineTo adds the edge from the current point to (x, y).
func (r *raster) lineTo(x, y float64) {
	r.edge(r.x, r.y, x, y)
	r.x, r.y = x, y
}

// quadTo adds the quadratic Bézier curve from the current point through
// the control point (cx, cy) to (x, y), as lines of about a pixel or less.
func (r *raster) quadTo(cx, cy, x, y float64) {
	x0, y0 := r.x, r.y
	// The curve deviates from its chord by at most a quarter of the
	// control point's distance from the chord's midpoint.
	dev := math.Hypot(x0-2*cx+x, y0-2*cy+y) / 4
	n := min(int(math.Ceil(math.Sqrt(dev*8))), 64)
	for i := 1; i < n; i++ {
		t := float64(i) / float64(n)
		u := 1 - t
		r.lineTo(u*u*x0+2*u*t*cx+t*t*x, u*u*y0+2*u*t*cy+t*t*y)
	}
	r.lineTo(x, y)
}

// cubeTo adds the cubic Bézier curve from the current point through the
// control points (ax, ay) and (bx, by) to (x, y), as short lines.
func (r *raster) cubeTo(ax, ay, bx, by, x, y float64) {
	x0, y0 := r.x, r.y
	dev := max(math.Hypot(x0-2*ax+bx, y0-2*ay+by), math.Hypot(ax-2*bx+x, ay-2*by+y))
	n := min(int(math.Ceil(math.Sqrt(dev*6))), 64)
	for i := 1; i < n; i++ {
		t := float64(i) / float64(n)
		u := 1 - t
		r.lineTo(u*u*u*x0+3*u*u*t*ax+3*u*t*t*bx+t*t*t*x, u*u*u*y0+3*u*u*t*ay+3*u*t*t*by+t*t*t*y)
	}
	r.lineTo(x, y)
}

// closePath adds the edge back to the start of the current outline.
func (r *raster) closePath() {
	if r.x != r.x0 || r.y != r.y0 {
		r.lineTo(r.x0, r.y0)
	}
}

// edge adds the edge from (xa, ya) to (xb, yb). The parts of an edge left
// of the raster cover whole rows to their right, as a vertical edge on
// the left side would; the parts right of it cover nothing inside.
func (r *raster) edge(xa, ya, xb, yb float64) {
	if !(ya != yb) || !finite(XY{xa, ya}) || !finite(XY{xb, yb}) {
		return // horizontal edges cover nothing; non-finite ones are dropped
	}
	w := float64(r.w)
	// Cut the edge where it crosses the left and right sides, and clamp
	// each piece into [0, w].
	ts := [4]float64{0}
	n := 1
	for _, side := range [2]float64{0, w} {
		if t := (side - xa) / (xb - xa); t > 0 && t < 1 {
			ts[n] = t
			n++
		}
	}
	if n == 3 && ts[2] < ts[1] {
		ts[1], ts[2] = ts[2], ts[1]
	}
	ts[n] = 1
	px, py := xa, ya
	for i := 1; i <= n; i++ {
		t := ts[i]
		qx, qy := xa*(1-t)+xb*t, ya*(1-t)+yb*t // convex: no overflow near ±MaxFloat64
		if i == n {
			qx, qy = xb, yb
		}
		mid := (px + qx) / 2
		switch {
		case mid <= 0:
			r.clippedEdge(0, py, 0, qy)
		case mid >= w:
			// Right of the raster: nothing inside is to its right.
		default:
			r.clippedEdge(min(max(px, 0), w), py, min(max(qx, 0), w), qy)
		}
		px, py = qx, qy
	}
}

// clippedEdge adds an edge that lies within 0 ≤ x ≤ w, row by row.
func (r *raster) clippedEdge(xa, ya, xb, yb float64) {
	dir := 1.0
	if ya > yb {
		dir = -1
		xa, ya, xb, yb = xb, yb, xa, ya
	}
	if yb <= 0 || ya >= float64(r.h) {
		return
	}
	dx, dy := xb-xa, yb-ya
	row0 := int(max(math.Floor(ya), 0)) // clamped as floats: huge values do not convert
	row1 := int(min(math.Ceil(yb), float64(r.h)))
	stride := r.w + 2
	for row := row0; row < row1; row++ {
		top := max(ya, float64(row))
		bottom := min(yb, float64(row+1))
		if !(bottom > top) {
			continue
		}
		// As fractions of the height, which stay finite for a tiny dy.
		x0 := xa + dx*min((top-ya)/dy, 1)
		x1 := xa + dx*min((bottom-ya)/dy, 1)
		r.addSpan(r.delta[row*stride:(row+1)*stride], x0, x1, dir*(bottom-top))
	}
}

// addSpan adds to one row's differences an edge that goes from x0 to x1
// (in either order) while covering the height d (signed).
//
// The edge's x is spread evenly over [lo, hi] along its height, so the
// share of the height at which it is left of x is ramp(x), rising from 0
// at lo to 1 at hi, and pixel c, from c to c+1, gets d times the mean of
// ramp over the pixel: d·(R(c+1) − R(c)) where R is ramp's integral.
func (r *raster) addSpan(row []float64, x0, x1, d float64) {
	w := float64(r.w)
	lo, hi := min(max(min(x0, x1), 0), w), min(max(x0, x1), w) // within [0, w] despite rounding
	if !(lo <= hi) {
		return // NaN: cannot happen for finite edges, but must not index
	}
	if c := math.Floor(lo); hi <= c+1 && c < w {
		// Within one pixel (the common case): it gets the part of its
		// area to the right of the edge's mean x, the next pixel the rest.
		i := int(c)
		right := c + 1 - (lo+hi)/2
		row[i] += d * right
		row[i+1] += d * (1 - right)
		return
	}
	integral := func(x float64) float64 { // ∫ from lo to x of ramp
		switch {
		case x <= lo:
			return 0
		case x >= hi:
			return (hi-lo)/2 + (x - hi)
		default:
			return (x - lo) * (x - lo) / (2 * (hi - lo))
		}
	}
	first := int(math.Floor(lo))
	last := min(int(math.Floor(hi))+1, r.w) // from here on the pixels are covered fully
	prev := 0.0                             // the coverage of pixel c−1
	for c := first; c <= last; c++ {
		cov := 1.0
		if c < last || float64(c) < hi {
			cov = integral(float64(c+1)) - integral(float64(c))
		}
		row[c] += d * (cov - prev)
		prev = cov
	}
}

// draw composites col over the pixels of img in rect, which is the
// raster's rectangle placed on img, through the accumulated coverage.
func (r *raster) draw(img *image.RGBA, rect image.Rectangle, col color.Color) {
	sr, sg, sb, sa := col.RGBA()
	stride := r.w + 2
	for y := 0; y < r.h; y++ {
		row := r.delta[y*stride : y*stride+r.w]
		pix := img.Pix[img.PixOffset(rect.Min.X, rect.Min.Y+y):]
		acc := 0.0
		for x, d := range row {
			acc += d
			cov := math.Abs(acc)
			if !(cov > 1.0/0x10000) {
				continue
			}
			p := pix[4*x : 4*x+4 : 4*x+4]
			if cov >= 1 && sa == 0xffff { // covered by an opaque colour
				p[0], p[1], p[2], p[3] = uint8(sr>>8), uint8(sg>>8), uint8(sb>>8), 0xff
				continue
			}
			over(p, sr, sg, sb, sa, uint32(min(cov, 1)*0xffff))
		}
	}
}

// over composites the premultiplied 16-bit colour (sr, sg, sb, sa) at
// coverage ma (of 0xffff) over the 8-bit premultiplied pixel p, as
// Porter and Duff's "over": p = src·ma + p·(1 − sa·ma).
func over(p []byte, sr, sg, sb, sa, ma uint32) {
	const m = 0xffff
	a := (m - sa*ma/m) * 0x101 // what is left of p, scaled to 8 bits
	p[0] = uint8((uint32(p[0])*a/m + sr*ma/m) >> 8)
	p[1] = uint8((uint32(p[1])*a/m + sg*ma/m) >> 8)
	p[2] = uint8((uint32(p[2])*a/m + sb*ma/m) >> 8)
	p[3] = uint8((uint32(p[3])*a/m + sa*ma/m) >> 8)
}
