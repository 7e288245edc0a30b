package figure

import (
	"image"
	"image/color"
	"io"
	"math"
	"sync"

	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
)

// PNG is a canvas that draws with gonum.org/v1/plot's image back end
// (vg/vgimg: antialiased paths and glyphs, by git.sr.ht/~sbinet/gg) and
// writes the image with image/png.
type PNG struct {
	w, h float64
	c    *vgimg.Canvas
}

// NewPNG returns a w×h canvas, sizes in points, of dpi pixels per inch
// (rounded to a whole number). Its pixels start transparent.
func NewPNG(w, h, dpi float64) *PNG {
	c := vgimg.NewWith(
		vgimg.UseWH(vg.Length(w), vg.Length(h)),
		vgimg.UseDPI(int(math.Round(dpi))),
		vgimg.UseBackgroundColor(color.Transparent))
	return &PNG{w: w, h: h, c: c}
}

// Size returns the canvas's width and height.
func (c *PNG) Size() (w, h float64) { return c.w, c.h }

// Image returns the image drawn so far.
func (c *PNG) Image() *image.RGBA { return c.c.Image().(*image.RGBA) }

// WriteTo writes the image, PNG-encoded, to w.
func (c *PNG) WriteTo(w io.Writer) (int64, error) {
	return vgimg.PngCanvas{Canvas: c.c}.WriteTo(w)
}

// pt returns p in vg's coordinates: from the bottom left, y upwards.
func (c *PNG) pt(p Point) vg.Point { return vg.Point{X: vg.Length(p.X), Y: vg.Length(c.h - p.Y)} }

// path returns the polyline pts as a vg.Path, closed if close.
func (c *PNG) path(pts []Point, close bool) vg.Path {
	var p vg.Path
	p.Move(c.pt(pts[0]))
	for _, q := range pts[1:] {
		p.Line(c.pt(q))
	}
	if close {
		p.Close()
	}
	return p
}

// Fill fills the polygon pts with col.
func (c *PNG) Fill(pts []Point, col color.Color) {
	if len(pts) < 3 {
		return
	}
	c.c.SetColor(col)
	c.c.Fill(c.path(pts, true))
}

// Circle fills a disc.
func (c *PNG) Circle(ctr Point, r float64, col color.Color) {
	if !(r > 0) {
		return
	}
	var p vg.Path
	o := c.pt(ctr)
	p.Move(vg.Point{X: o.X + vg.Length(r), Y: o.Y})
	p.Arc(o, vg.Length(r), 0, 2*math.Pi)
	p.Close()
	c.c.SetColor(col)
	c.c.Fill(p)
}

// Stroke draws the polyline pts, with round joins and butt ends.
func (c *PNG) Stroke(pts []Point, st LineStyle) {
	if len(pts) < 2 || !(st.Width > 0) {
		return
	}
	var dashes []vg.Length
	for _, d := range st.Dashes {
		dashes = append(dashes, vg.Length(d))
	}
	n := len(pts)
	closed := n > 2 && pts[0] == pts[n-1]
	c.c.SetLineWidth(vg.Length(st.Width))
	c.c.SetLineDash(dashes, 0)
	c.c.SetColor(st.Color)
	c.c.Stroke(c.path(pts, closed))
}

// Go Regular, as gonum/plot's font face, parsed on first use.
var (
	faceOnce sync.Once
	faceFont *opentype.Font // or nil if it does not parse
)

func goFace(size float64) (font.Face, bool) {
	faceOnce.Do(func() {
		if f, err := opentype.Parse(goregular.TTF); err == nil {
			faceFont = f
		}
	})
	if faceFont == nil {
		return font.Face{}, false
	}
	return font.Face{Font: font.Font{Typeface: "Go", Size: vg.Length(size)}, Face: faceFont}, true
}

// Text writes s with its baseline through at.
func (c *PNG) Text(s string, at Point, st TextStyle) {
	if !(st.Size > 0) || s == "" {
		return
	}
	face, ok := goFace(st.Size)
	if !ok {
		return
	}
	shift := vg.Length(st.Align * TextWidth(s, st.Size))
	c.c.SetColor(textColor(st))
	if !st.Vertical {
		p := c.pt(at)
		p.X -= shift
		c.c.FillString(face, p, s)
		return
	}
	// Turned a quarter turn anticlockwise about the anchor: reads upwards.
	c.c.Push()
	c.c.Translate(c.pt(at))
	c.c.Rotate(math.Pi / 2)
	c.c.FillString(face, vg.Point{X: -shift}, s)
	c.c.Pop()
}
