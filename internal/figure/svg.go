package figure

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"github.com/pbl-lang/pbl/internal/xmltext"
)

// SVG is a canvas that writes SVG text.
type SVG struct {
	w, h float64
	buf  bytes.Buffer
}

// NewSVG returns a w×h SVG canvas, sizes in points.
func NewSVG(w, h float64) *SVG {
	c := &SVG{w: w, h: h}
	fmt.Fprintf(&c.buf, `<?xml version="1.0"?>
<svg width="%spt" height="%spt" viewBox="0 0 %s %s" xmlns="http://www.w3.org/2000/svg" font-family="%s">
`, num(w), num(h), num(w), num(h), fontFamily)
	return c
}

// Size returns the canvas's width and height.
func (c *SVG) Size() (w, h float64) { return c.w, c.h }

// WriteTo writes the SVG document to w.
func (c *SVG) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(c.buf.Bytes())
	if err != nil {
		return int64(n), err
	}
	m, err := io.WriteString(w, "</svg>\n")
	return int64(n + m), err
}

// Fill fills the polygon pts with col.
func (c *SVG) Fill(pts []Point, col color.Color) {
	if len(pts) < 3 {
		return
	}
	c.buf.WriteString(`<path d="`)
	c.path(pts)
	c.buf.WriteString(`Z"`)
	c.paint("fill", col)
	c.buf.WriteString("/>\n")
}

// Circle fills a disc.
func (c *SVG) Circle(ctr Point, r float64, col color.Color) {
	fmt.Fprintf(&c.buf, `<circle cx="%s" cy="%s" r="%s"`, num(ctr.X), num(ctr.Y), num(r))
	c.paint("fill", col)
	c.buf.WriteString("/>\n")
}

// Stroke draws a polyline.
func (c *SVG) Stroke(pts []Point, st LineStyle) {
	if len(pts) < 2 || !(st.Width > 0) {
		return
	}
	c.buf.WriteString(`<path d="`)
	closed := len(pts) > 2 && pts[0] == pts[len(pts)-1]
	if closed {
		pts = pts[:len(pts)-1]
	}
	c.path(pts)
	if closed {
		c.buf.WriteString("Z")
	}
	c.buf.WriteString(`" fill="none"`)
	c.paint("stroke", st.Color)
	fmt.Fprintf(&c.buf, ` stroke-width="%s" stroke-linejoin="round" stroke-linecap="butt"`, num(st.Width))
	if len(st.Dashes) > 0 {
		c.buf.WriteString(` stroke-dasharray="`)
		for i, d := range st.Dashes {
			if i > 0 {
				c.buf.WriteByte(' ')
			}
			c.buf.WriteString(num(d))
		}
		c.buf.WriteByte('"')
	}
	c.buf.WriteString("/>\n")
}

// Text writes s.
func (c *SVG) Text(s string, at Point, st TextStyle) {
	c.buf.WriteString("<text")
	switch st.Align {
	case AlignLeft:
	case AlignCenter:
		c.buf.WriteString(` text-anchor="middle"`)
	case AlignRight:
		c.buf.WriteString(` text-anchor="end"`)
	default:
		// No anchor puts a fraction of the text before the point:
		// shift it by that fraction of the measured width.
		if st.Vertical {
			at.Y += st.Align * TextWidth(s, st.Size)
		} else {
			at.X -= st.Align * TextWidth(s, st.Size)
		}
	}
	fmt.Fprintf(&c.buf, ` x="%s" y="%s" font-size="%s"`, num(at.X), num(at.Y), num(st.Size))
	if st.Vertical {
		fmt.Fprintf(&c.buf, ` transform="rotate(-90 %s %s)"`, num(at.X), num(at.Y))
	}
	if col := textColor(st); col != color.Black {
		c.paint("fill", col)
	}
	c.buf.WriteByte('>')
	c.buf.WriteString(xmltext.Escape(s))
	c.buf.WriteString("</text>\n")
}

// path writes the path data of a polyline through pts.
func (c *SVG) path(pts []Point) {
	for i, p := range pts {
		if i == 0 {
			c.buf.WriteByte('M')
		} else {
			c.buf.WriteByte('L')
		}
		c.buf.WriteString(num(p.X))
		c.buf.WriteByte(' ')
		c.buf.WriteString(num(p.Y))
	}
}

// paint writes the attribute (fill or stroke) of col, with its opacity
// unless it is opaque.
func (c *SVG) paint(attr string, col color.Color) {
	if col == nil {
		col = color.Black
	}
	n := color.NRGBAModel.Convert(col).(color.NRGBA)
	fmt.Fprintf(&c.buf, ` %s="#%02x%02x%02x"`, attr, n.R, n.G, n.B)
	if n.A != 0xff {
		fmt.Fprintf(&c.buf, ` %s-opacity="%s"`, attr, strconv.FormatFloat(float64(n.A)/0xff, 'f', 3, 64))
	}
}

// num formats a coordinate with two decimals at most.
func num(v float64) string {
	v = math.Round(v*100) / 100
	if v == 0 {
		v = 0 // no "-0"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
