package figure

import (
	"image"
	"image/color"
	"io"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// PNG is a canvas that rasterizes into an image and writes it as PNG.
type PNG struct {
	w, h  float64
	scale float64 // pixels per point
	img   *image.RGBA
	z     raster
	buf   sfnt.Buffer
}

// NewPNG returns a w×h canvas, sizes in points, of dpi pixels per inch.
// Its pixels start transparent.
func NewPNG(w, h, dpi float64) *PNG {
	s := dpi / 72
	return &PNG{
		w: w, h: h, scale: s,
		img: image.NewRGBA(image.Rect(0, 0, int(math.Ceil(w*s)), int(math.Ceil(h*s)))),
	}
}

// Size returns the canvas's width and height.
func (c *PNG) Size() (w, h float64) { return c.w, c.h }

// Image returns the image drawn so far.
func (c *PNG) Image() *image.RGBA { return c.img }

// WriteTo writes the image, PNG-encoded, to w.
func (c *PNG) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	err := encodePNG(cw, c.img)
	return cw.n, err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// px returns p in pixels.
func (c *PNG) px(p Point) Point { return Point{p.X * c.scale, p.Y * c.scale} }

// Fill fills the polygon pts with col.
func (c *PNG) Fill(pts []Point, col color.Color) {
	if len(pts) < 3 {
		return
	}
	px := make([]Point, len(pts))
	for i, p := range pts {
		px[i] = c.px(p)
	}
	c.fill([][]Point{px}, col)
}

// Circle fills a disc.
func (c *PNG) Circle(ctr Point, r float64, col color.Color) {
	c.fill([][]Point{circlePoints(c.px(ctr), r*c.scale, sides(r*c.scale))}, col)
}

// sides returns the number of sides of a polygon that looks like a circle
// of radius r pixels: sides of about 1.5 pixels, 8 to 96 of them.
func sides(r float64) int {
	return min(max(int(math.Ceil(2*math.Pi*r/1.5)), 8), 96)
}

// Stroke draws a polyline, as the polygons of its segments and of discs
// at its joints.
func (c *PNG) Stroke(pts []Point, st LineStyle) {
	if len(pts) < 2 || !(st.Width > 0) {
		return
	}
	px := make([]Point, len(pts))
	for i, p := range pts {
		px[i] = c.px(p)
	}
	dashes := make([]float64, len(st.Dashes))
	for i, d := range st.Dashes {
		dashes[i] = d * c.scale
	}
	hw := st.Width * c.scale / 2
	var polys [][]Point
	for _, piece := range dash(px, dashes) {
		for i := 1; i < len(piece); i++ {
			a, b := piece[i-1], piece[i]
			l := math.Hypot(b.X-a.X, b.Y-a.Y)
			if l == 0 {
				continue
			}
			n := Point{-(b.Y - a.Y) / l * hw, (b.X - a.X) / l * hw}
			polys = append(polys, []Point{
				{a.X + n.X, a.Y + n.Y}, {b.X + n.X, b.Y + n.Y},
				{b.X - n.X, b.Y - n.Y}, {a.X - n.X, a.Y - n.Y},
			})
			if i > 1 && hw > 0.6 {
				polys = append(polys, circlePoints(a, hw, sides(hw)))
			}
		}
	}
	if n := len(px); n > 2 && px[0] == px[n-1] && len(st.Dashes) == 0 && hw > 0.6 {
		polys = append(polys, circlePoints(px[0], hw, sides(hw))) // the closing joint
	}
	c.fill(polys, st.Color)
}

// maxDashRepeats is the most times dash repeats a pattern along a line.
const maxDashRepeats = 100_000

// dash cuts the polyline pts into its dashes: lengths alternately drawn
// and skipped, repeated. With no dashes, or more than maxDashRepeats
// repetitions of them, it returns pts.
func dash(pts []Point, dashes []float64) [][]Point {
	total := 0.0
	for _, d := range dashes {
		total += d
	}
	length := 0.0
	for i := 1; i < len(pts); i++ {
		length += math.Hypot(pts[i].X-pts[i-1].X, pts[i].Y-pts[i-1].Y)
	}
	// A pattern too fine for the line's length (or a length that is not
	// finite) would make dashes without bound: such a line is drawn solid.
	if !(total > 0) || !(length/total <= maxDashRepeats) {
		return [][]Point{pts}
	}
	var out [][]Point
	k, left, on := 0, dashes[0], true // dash index, length left, drawing
	cur := []Point{pts[0]}
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		l := math.Hypot(b.X-a.X, b.Y-a.Y)
		done := 0.0
		for l-done > left {
			done += left
			t := done / l
			p := Point{a.X + t*(b.X-a.X), a.Y + t*(b.Y-a.Y)}
			if on {
				if p != cur[len(cur)-1] {
					cur = append(cur, p)
				}
				out = append(out, cur)
			}
			cur = []Point{p}
			on = !on
			k = (k + 1) % len(dashes)
			left = dashes[k]
		}
		left -= l - done
		cur = append(cur, b)
	}
	if on && len(cur) > 1 {
		out = append(out, cur)
	}
	return out
}

// fill fills the union of polygons, in pixels, which must all wind the
// same way, with col, antialiased.
func (c *PNG) fill(polys [][]Point, col color.Color) {
	if col == nil {
		col = color.Black
	}
	lo, hi := Point{math.Inf(1), math.Inf(1)}, Point{math.Inf(-1), math.Inf(-1)}
	for _, poly := range polys {
		for _, p := range poly {
			lo.X, lo.Y = min(lo.X, p.X), min(lo.Y, p.Y)
			hi.X, hi.Y = max(hi.X, p.X), max(hi.Y, p.Y)
		}
	}
	if !(lo.X <= hi.X && lo.Y <= hi.Y) { // nothing, or NaN
		return
	}
	r := c.pixels(lo, hi)
	if r.Empty() {
		return
	}
	z := &c.z
	z.reset(r.Dx(), r.Dy())
	ox, oy := float64(r.Min.X), float64(r.Min.Y)
	for _, poly := range polys {
		if len(poly) < 3 {
			continue
		}
		z.moveTo(poly[0].X-ox, poly[0].Y-oy)
		for _, p := range poly[1:] {
			z.lineTo(p.X-ox, p.Y-oy)
		}
		z.closePath()
	}
	z.draw(c.img, r, col)
}

// pixels returns the pixels of the image that the box from lo to hi (in
// pixels) touches, with a pixel to spare on the right and below.
func (c *PNG) pixels(lo, hi Point) image.Rectangle {
	b := c.img.Bounds()
	clamp := func(v float64, lo, hi int) int { // as floats: huge values do not convert
		return int(min(max(v, float64(lo)), float64(hi)))
	}
	return image.Rect(
		clamp(math.Floor(lo.X), b.Min.X, b.Max.X), clamp(math.Floor(lo.Y), b.Min.Y, b.Max.Y),
		clamp(math.Ceil(hi.X)+1, b.Min.X, b.Max.X), clamp(math.Ceil(hi.Y)+1, b.Min.Y, b.Max.Y))
}

// Text writes s with the Go Regular font: each glyph's outline, at the
// font size in pixels, is filled like a polygon. As with whole-pixel
// hinting, advances and kerning are rounded to whole pixels.
func (c *PNG) Text(s string, at Point, st TextStyle) {
	f := goFont()
	if f == nil || !(st.Size > 0) {
		return
	}
	ppem := fixed.Int26_6(math.Round(st.Size * c.scale * 64))
	// Lay the glyphs out along the baseline, in 26.6 pixels from its start.
	type placed struct {
		g sfnt.GlyphIndex
		x fixed.Int26_6
	}
	var glyphs []placed
	var pen fixed.Int26_6
	prev := sfnt.GlyphIndex(0)
	for i, r := range s {
		g, err := f.GlyphIndex(&c.buf, r)
		if err != nil {
			continue
		}
		if i > 0 && prev != 0 {
			if k, err := f.Kern(&c.buf, prev, g, ppem, font.HintingFull); err == nil {
				pen += k
			}
		}
		glyphs = append(glyphs, placed{g, pen})
		if adv, err := f.GlyphAdvance(&c.buf, g, ppem, font.HintingFull); err == nil {
			pen += adv
		}
		prev = g
	}
	// The baseline's start: the anchor less the share of the width that
	// st.Align puts before it, along the text, rounded to a whole pixel
	// across it (and to 1/64 pixel along it).
	at = c.px(at)
	shift := st.Align * float64(pen) / 64
	origin := Point{math.Round((at.X-shift)*64) / 64, math.Round(at.Y)}
	if st.Vertical {
		origin = Point{math.Round(at.X), math.Round((at.Y+shift)*64) / 64}
	}
	// place maps a point of the level layout, relative to the baseline's
	// start, onto the canvas: level, or turned a quarter turn
	// anticlockwise (right becomes up, down becomes right).
	place := func(p fixed.Point26_6, x fixed.Int26_6) Point {
		u, v := float64(p.X+x)/64, float64(p.Y)/64
		if st.Vertical {
			return Point{origin.X + v, origin.Y - u}
		}
		return Point{origin.X + u, origin.Y + v}
	}
	col := textColor(st)
	for _, gl := range glyphs {
		segs, err := f.LoadGlyph(&c.buf, gl.g, ppem, nil)
		if err != nil || len(segs) == 0 {
			continue
		}
		b := segs.Bounds()
		lo, hi := place(b.Min, gl.x), place(b.Max, gl.x)
		r := c.pixels(Point{min(lo.X, hi.X), min(lo.Y, hi.Y)}, Point{max(lo.X, hi.X), max(lo.Y, hi.Y)})
		if r.Empty() {
			continue
		}
		z := &c.z
		z.reset(r.Dx(), r.Dy())
		o := Point{float64(r.Min.X), float64(r.Min.Y)}
		pt := func(p fixed.Point26_6) (float64, float64) {
			q := place(p, gl.x)
			return q.X - o.X, q.Y - o.Y
		}
		for _, sg := range segs {
			switch sg.Op {
			case sfnt.SegmentOpMoveTo:
				z.moveTo(pt(sg.Args[0]))
			case sfnt.SegmentOpLineTo:
				z.lineTo(pt(sg.Args[0]))
			case sfnt.SegmentOpQuadTo:
				ax, ay := pt(sg.Args[0])
				x, y := pt(sg.Args[1])
				z.quadTo(ax, ay, x, y)
			case sfnt.SegmentOpCubeTo:
				ax, ay := pt(sg.Args[0])
				bx, by := pt(sg.Args[1])
				x, y := pt(sg.Args[2])
				z.cubeTo(ax, ay, bx, by, x, y)
			}
		}
		z.closePath()
		z.draw(c.img, r, col)
	}
}
