package figure

import (
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// PNG is a canvas that rasterizes into an image and writes it as PNG.
type PNG struct {
	w, h  float64
	scale float64 // pixels per point
	img   *image.RGBA
	z     vector.Rasterizer
	faces map[float64]font.Face // by size in pixels
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
	err := png.Encode(cw, c.img)
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
	if len(pts) < 2 || st.Width <= 0 {
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

// dash cuts the polyline pts into its dashes: lengths alternately drawn
// and skipped, repeated. With no dashes, it returns pts.
func dash(pts []Point, dashes []float64) [][]Point {
	total := 0.0
	for _, d := range dashes {
		total += d
	}
	if !(total > 0) {
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
	r := image.Rect(int(math.Floor(lo.X)), int(math.Floor(lo.Y)), int(math.Ceil(hi.X))+1, int(math.Ceil(hi.Y))+1)
	r = r.Intersect(c.img.Bounds())
	if r.Empty() {
		return
	}
	z := &c.z
	z.Reset(r.Dx(), r.Dy())
	ox, oy := float64(r.Min.X), float64(r.Min.Y)
	for _, poly := range polys {
		if len(poly) < 3 {
			continue
		}
		z.MoveTo(float32(poly[0].X-ox), float32(poly[0].Y-oy))
		for _, p := range poly[1:] {
			z.LineTo(float32(p.X-ox), float32(p.Y-oy))
		}
		z.ClosePath()
	}
	z.DrawOp = draw.Over
	z.Draw(c.img, r, image.NewUniform(col), image.Point{})
}

// face returns the font face of size pixels, or nil.
func (c *PNG) face(size float64) font.Face {
	if f, ok := c.faces[size]; ok {
		return f
	}
	f := goFont()
	if f == nil {
		return nil
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return nil
	}
	if c.faces == nil {
		c.faces = make(map[float64]font.Face)
	}
	c.faces[size] = face
	return face
}

// Text writes s with the Go Regular font.
func (c *PNG) Text(s string, at Point, st TextStyle) {
	face := c.face(st.Size * c.scale)
	if face == nil {
		return
	}
	src := image.NewUniform(textColor(st))
	at = c.px(at)
	d := font.Drawer{Face: face}
	w := d.MeasureString(s)
	shift := st.Align * float64(w) / 64
	if !st.Vertical {
		d.Dst, d.Src = c.img, src
		d.Dot = fixed.Point26_6{X: fixed.Int26_6(math.Round((at.X - shift) * 64)), Y: fixed.Int26_6(math.Round(at.Y * 64))}
		d.DrawString(s)
		return
	}
	// Write the text level into a mask, then turn the mask a quarter
	// turn anticlockwise onto the image: mask pixel (u, v) goes to
	// (x0+v, y0-u).
	m := face.Metrics()
	asc, desc := m.Ascent.Ceil(), m.Descent.Ceil()
	mw := w.Ceil() + 2
	mask := image.NewAlpha(image.Rect(0, 0, mw, asc+desc))
	d.Dst, d.Src = mask, image.Opaque
	d.Dot = fixed.Point26_6{X: 64, Y: fixed.I(asc)}
	d.DrawString(s)
	turned := image.NewAlpha(image.Rect(0, 0, asc+desc, mw))
	for v := 0; v < asc+desc; v++ {
		for u := 0; u < mw; u++ {
			turned.Pix[(mw-1-u)*turned.Stride+v] = mask.Pix[v*mask.Stride+u]
		}
	}
	// The baseline's start, mask (1, asc), lands on at shifted along the
	// text.
	x0 := int(math.Round(at.X)) - asc
	y0 := int(math.Round(at.Y+shift)) - (mw - 1 - 1)
	r := image.Rect(x0, y0, x0+asc+desc, y0+mw)
	draw.DrawMask(c.img, r, src, image.Point{}, turned, image.Point{}, draw.Over)
}
