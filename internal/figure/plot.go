package figure

import (
	"image/color"
	"math"
)

// An XY is a point in data coordinates.
type XY struct{ X, Y float64 }

// An Axis is the horizontal or vertical axis of a Plot.
type Axis struct {
	Label    string
	Min, Max float64 // the range drawn, or both 0 for the items' range, padded
	Ticker   Ticker  // or nil for DefaultTicks
}

// An Item is something a Plot draws in data coordinates: a *Scatter or a
// *Line.
type Item interface {
	// bounds returns the smallest and largest finite coordinates.
	bounds() (lo, hi XY, ok bool)
	draw(c Canvas, at func(XY) Point)
}

// A Scatter marks points with a glyph.
type Scatter struct {
	XY    []XY
	Glyph GlyphStyle
}

// A Line is a polyline through its points.
type Line struct {
	XY    []XY
	Style LineStyle
}

func (s *Scatter) bounds() (lo, hi XY, ok bool) { return bounds(s.XY) }
func (l *Line) bounds() (lo, hi XY, ok bool)    { return bounds(l.XY) }

func (s *Scatter) draw(c Canvas, at func(XY) Point) {
	for _, p := range s.XY {
		if finite(p) {
			DrawGlyph(c, at(p), s.Glyph)
		}
	}
}

// draw draws the line, broken at points that are not finite.
func (l *Line) draw(c Canvas, at func(XY) Point) {
	var run []Point
	for _, p := range l.XY {
		if !finite(p) {
			c.Stroke(run, l.Style)
			run = run[:0]
			continue
		}
		run = append(run, at(p))
	}
	c.Stroke(run, l.Style)
}

func finite(p XY) bool {
	return !math.IsNaN(p.X) && !math.IsInf(p.X, 0) && !math.IsNaN(p.Y) && !math.IsInf(p.Y, 0)
}

func bounds(xy []XY) (lo, hi XY, ok bool) {
	lo, hi = XY{math.Inf(1), math.Inf(1)}, XY{math.Inf(-1), math.Inf(-1)}
	for _, p := range xy {
		if finite(p) {
			lo.X, lo.Y = min(lo.X, p.X), min(lo.Y, p.Y)
			hi.X, hi.Y = max(hi.X, p.X), max(hi.Y, p.Y)
			ok = true
		}
	}
	return lo, hi, ok
}

// A Plot is a panel: a title, axes, a grid and items.
type Plot struct {
	Title string
	X, Y  Axis
	Items []Item
}

// Add appends items to p's.
func (p *Plot) Add(items ...Item) { p.Items = append(p.Items, items...) }

// The sizes of a plot's text, in points, and of its ticks.
const (
	TitleSize = 12
	LabelSize = 11
	TickSize  = 9.5
	tickLen   = 4
)

// gridColor is the colour of the grid at the major ticks.
var gridColor = color.Gray{Y: 0xdc}

// padding is the fraction of the data's span added on each side of an
// automatic range, so that glyphs at the extremes are drawn whole.
const padding = 0.03

// Ranges returns the ranges of p's axes: those set, or the items' padded.
func (p *Plot) Ranges() (x, y [2]float64) {
	lo, hi := XY{math.Inf(1), math.Inf(1)}, XY{math.Inf(-1), math.Inf(-1)}
	for _, it := range p.Items {
		if l, h, ok := it.bounds(); ok {
			lo.X, lo.Y = min(lo.X, l.X), min(lo.Y, l.Y)
			hi.X, hi.Y = max(hi.X, h.X), max(hi.Y, h.Y)
		}
	}
	return axisRange(p.X, lo.X, hi.X), axisRange(p.Y, lo.Y, hi.Y)
}

// axisRange returns a's range: its own, or [lo, hi] padded, or [0, 1]
// with no data.
func axisRange(a Axis, lo, hi float64) [2]float64 {
	if a.Min != 0 || a.Max != 0 {
		return [2]float64{a.Min, a.Max}
	}
	switch {
	case !(lo <= hi):
		return [2]float64{0, 1}
	case lo == hi:
		d := max(math.Abs(lo)*0.1, 1)
		return [2]float64{lo - d, hi + d}
	}
	d := (hi - lo) * padding
	return [2]float64{lo - d, hi + d}
}

// ticks returns a's ticks over r.
func (a Axis) ticks(r [2]float64) []Tick {
	t := a.Ticker
	if t == nil {
		t = DefaultTicks{}
	}
	var in []Tick
	for _, tk := range t.Ticks(r[0], r[1]) {
		if tk.Value >= r[0] && tk.Value <= r[1] {
			in = append(in, tk)
		}
	}
	return in
}

// Draw draws p in the rectangle r of c: the title on top, the y axis's
// label and tick labels on the left, the x axis's below, the data in the
// rest. It returns the rectangle of the data.
func (p *Plot) Draw(c Canvas, r Rect) Rect {
	xr, yr := p.Ranges()
	xt, yt := p.X.ticks(xr), p.Y.ticks(yr)

	area := r
	if p.Title != "" {
		area.Min.Y += TitleSize + 8
	}
	if p.Y.Label != "" {
		area.Min.X += LabelSize*(1+descent) + 4
	}
	yw := 0.0
	for _, t := range yt {
		yw = max(yw, TextWidth(t.Label, TickSize))
	}
	area.Min.X += yw + tickLen + 3
	if p.X.Label != "" {
		area.Max.Y -= LabelSize + 4
	}
	area.Max.Y -= TickSize + tickLen + 3
	// The last x label is centred on its tick: leave room for its half.
	right := 4.0
	for _, t := range xt {
		right = max(right, TextWidth(t.Label, TickSize)/2-(area.Max.X-area.Min.X)*(xr[1]-t.Value)/(xr[1]-xr[0]))
	}
	area.Max.X -= right
	area.Min.Y += TickSize / 2 // the top y label is centred on its tick

	at := func(v XY) Point {
		return Point{
			area.Min.X + (v.X-xr[0])/(xr[1]-xr[0])*area.Dx(),
			area.Max.Y - (v.Y-yr[0])/(yr[1]-yr[0])*area.Dy(),
		}
	}
	if p.Title != "" {
		c.Text(p.Title, Point{(area.Min.X + area.Max.X) / 2, r.Min.Y + capHeight*TitleSize}, TextStyle{Size: TitleSize, Align: AlignCenter})
	}
	grid := LineStyle{Color: gridColor, Width: 0.6}
	axis := LineStyle{Color: color.Black, Width: 0.7}
	for _, t := range xt {
		x := at(XY{t.Value, yr[0]}).X
		n := tickLen / 2.0
		if t.Label != "" {
			n = tickLen
			c.Stroke([]Point{{x, area.Min.Y}, {x, area.Max.Y}}, grid)
			c.Text(t.Label, Point{x, area.Max.Y + tickLen + 2 + capHeight*TickSize}, TextStyle{Size: TickSize, Align: AlignCenter})
		}
		c.Stroke([]Point{{x, area.Max.Y}, {x, area.Max.Y + n}}, axis)
	}
	for _, t := range yt {
		y := at(XY{xr[0], t.Value}).Y
		n := tickLen / 2.0
		if t.Label != "" {
			n = tickLen
			c.Stroke([]Point{{area.Min.X, y}, {area.Max.X, y}}, grid)
			c.Text(t.Label, Point{area.Min.X - tickLen - 3, y + capHeight*TickSize/2}, TextStyle{Size: TickSize, Align: AlignRight})
		}
		c.Stroke([]Point{{area.Min.X - n, y}, {area.Min.X, y}}, axis)
	}
	c.Stroke([]Point{{area.Min.X, area.Min.Y}, {area.Min.X, area.Max.Y}, {area.Max.X, area.Max.Y}}, axis)
	if p.X.Label != "" {
		c.Text(p.X.Label, Point{(area.Min.X + area.Max.X) / 2, r.Max.Y - descent*LabelSize}, TextStyle{Size: LabelSize, Align: AlignCenter})
	}
	if p.Y.Label != "" {
		c.Text(p.Y.Label, Point{r.Min.X + LabelSize*(1-descent), (area.Min.Y + area.Max.Y) / 2}, TextStyle{Size: LabelSize, Align: AlignCenter, Vertical: true})
	}
	for _, it := range p.Items {
		it.draw(c, at)
	}
	return area
}
