package main

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/pbl-lang/pbl/internal/spell"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/mixture"
	"github.com/pbl-lang/pbl/report"
)

// This file draws pbl cluster --plot: the rows coloured by cluster in the
// plane of two clustered columns, with each Gaussian component's 1-σ and
// 2-σ ellipses or the k-means centres, and for a mixture the mean
// log-likelihood per EM iteration beside them. gonum.org/v1/plot is
// imported here only.

// maxDrawn is the number of rows above which a plot draws every s-th row
// only (s the smallest stride that draws at most maxDrawn), so that a
// large file still gives a small, quick figure.
const maxDrawn = 20000

// The figure's size, and the resolution of a PNG.
const (
	plotWidth  = 11 * vg.Inch
	plotHeight = 4.8 * vg.Inch
	plotDPI    = 110
)

// plotExtensions are the formats --plot writes, by extension.
var plotExtensions = []string{".png", ".svg"}

// plotFormat returns the format of the plot file path by its extension,
// "png" or "svg", and false for any other extension.
func plotFormat(path string) (string, bool) {
	ext := strings.ToLower(filepath.Ext(path))
	for _, e := range plotExtensions {
		if ext == e {
			return e[1:], true
		}
	}
	return "", false
}

// parsePlotColumns parses --plot-columns a,b: two distinct names.
func parsePlotColumns(s string) ([2]string, error) {
	a, b, ok := strings.Cut(s, ",")
	switch {
	case !ok || strings.Contains(b, ","):
		return [2]string{}, errors.New("want two column names, a,b")
	case a == "" || b == "":
		return [2]string{}, errors.New("an empty column name")
	case a == b:
		return [2]string{}, fmt.Errorf("%q is named twice: want two columns", a)
	}
	return [2]string{a, b}, nil
}

// plotColumns returns the indexes in the clustered columns names of the
// columns to plot: those want names (if it is not nil), or the first two.
func plotColumns(names []string, want []string) (cx, cy int, err error) {
	if want == nil {
		if len(names) < 2 {
			return 0, 0, fmt.Errorf("--plot draws two columns, and only %s is clustered: cluster two or more", ir.Quote(names[0]))
		}
		return 0, 1, nil
	}
	idx := [2]int{}
	for i, w := range want {
		idx[i] = -1
		for j, n := range names {
			if n == w {
				idx[i] = j
			}
		}
		if idx[i] < 0 {
			msg := fmt.Sprintf("--plot-columns: %s is not a clustered column", strconv.Quote(w))
			if h := spell.Nearest(w, names); h != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", strconv.Quote(h))
			}
			return 0, 0, errors.New(msg)
		}
	}
	return idx[0], idx[1], nil
}

// plotSpec is what a plot shows.
type plotSpec struct {
	path   string                // the data file, for the caption
	names  []string              // the clustered columns
	cx, cy int                   // the plotted columns, indexes in names
	x      *mixture.Matrix       // the clustered data
	g      *mixture.GMM          // the mixture fit, or nil
	km     *mixture.KMeansResult // the k-means fit, or nil
}

// render draws p in format ("png" or "svg") and returns the figure, to be
// written out.
func (p *plotSpec) render(format string) (io.WriterTo, error) {
	n := p.x.Rows
	stride := (n + maxDrawn - 1) / maxDrawn
	var rows []int
	for i := 0; i < n; i += stride {
		rows = append(rows, i)
	}
	var labels []int
	var k int
	if p.g != nil {
		k = p.g.K
		var err error
		if labels, err = gmmLabels(p.g, p.x, rows); err != nil {
			return nil, err
		}
	} else {
		k = p.km.K
		labels = make([]int, len(rows))
		for t, i := range rows {
			labels[t] = int(p.km.Labels[i])
		}
	}

	// The first panel: the rows by cluster, the ellipses or the centres.
	sc := plot.New()
	sc.X.Label.Text = p.names[p.cx]
	sc.Y.Label.Text = p.names[p.cy]
	sc.Add(plotter.NewGrid())
	pts := make([]plotter.XYs, k)
	for t, i := range rows {
		r := p.x.Row(i)
		pts[labels[t]] = append(pts[labels[t]], plotter.XY{X: r[p.cx], Y: r[p.cy]})
	}
	radius := vg.Points(2)
	if len(rows) > 2000 {
		radius = vg.Points(1.2)
	}
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	legend.TextStyle.Font.Size = vg.Points(11)
	legend.Padding = vg.Points(3)
	const maxLegend = 14
	for j := range k {
		s, err := plotter.NewScatter(pts[j])
		if err != nil {
			return nil, err
		}
		s.GlyphStyle = draw.GlyphStyle{Color: withAlpha(clusterColor(j), 0xb0), Radius: radius, Shape: clusterShape(j)}
		sc.Add(s)
		name := fmt.Sprintf("cluster %d", j+1)
		if p.g != nil {
			name += fmt.Sprintf(" (weight %.3g)", p.g.Weights[j])
		} else {
			name += fmt.Sprintf(" (%s)", plural(p.km.Sizes[j], "row"))
		}
		switch {
		case j < maxLegend-1 || k == maxLegend:
			thumb := *s
			thumb.GlyphStyle.Radius = vg.Points(3.5)
			legend.Add(name, &thumb)
		case j == maxLegend-1:
			legend.Add(fmt.Sprintf("… %d more clusters", k-j))
		}
	}
	var centres plotter.XYs
	if p.g != nil {
		d := p.g.D
		for j := range k {
			c := p.g.CovarianceMatrix(j)
			a, b, cc := c[p.cx*d+p.cx], c[p.cx*d+p.cy], c[p.cy*d+p.cy]
			m := p.g.Mean(j)
			for _, s := range []float64{1, 2} {
				// A white halo under a darker shade of the cluster's
				// colour keeps the ellipse visible over dense points.
				xy := ellipse(m[p.cx], m[p.cy], a, b, cc, s, 96)
				halo, err := plotter.NewLine(xy)
				if err != nil {
					return nil, err
				}
				halo.LineStyle = ellipseStyle(color.White, s)
				halo.LineStyle.Width += vg.Points(2)
				l, _ := plotter.NewLine(xy)
				l.LineStyle = ellipseStyle(darker(clusterColor(j)), s)
				sc.Add(halo, l)
			}
			centres = append(centres, plotter.XY{X: m[p.cx], Y: m[p.cy]})
		}
	} else {
		for j := range k {
			c := p.km.Center(j)
			centres = append(centres, plotter.XY{X: c[p.cx], Y: c[p.cy]})
		}
	}
	cs, err := plotter.NewScatter(centres)
	if err != nil {
		return nil, err
	}
	cs.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(5), Shape: thickCross{width: vg.Points(2.5)}}
	sc.Add(cs)
	if p.g != nil {
		legend.Add("component mean", &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: color.Black, Radius: vg.Points(4), Shape: thickCross{width: vg.Points(2)}}})
		for _, s := range []float64{1, 2} {
			legend.Add(fmt.Sprintf("%g-σ ellipse", s), &plotter.Line{LineStyle: ellipseStyle(color.Gray{Y: 0x40}, s)})
		}
		sc.Title.Text = fmt.Sprintf("Gaussian mixture, k=%d, %s covariance", k, p.g.Covariance)
	} else {
		legend.Add("centre", &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: color.Black, Radius: vg.Points(4), Shape: thickCross{width: vg.Points(2)}}})
		sc.Title.Text = fmt.Sprintf("k-means, k=%d", k)
	}

	// The second panel: the trace of the kept restart.
	var tr *plot.Plot
	if p.g != nil {
		tr = plot.New()
		tr.Title.Text = "EM, the kept restart"
		tr.X.Label.Text = "iteration"
		tr.Y.Label.Text = "mean log-likelihood per row"
		tr.Add(plotter.NewGrid())
		xy := make(plotter.XYs, len(p.g.Trace))
		for i, v := range p.g.Trace {
			xy[i] = plotter.XY{X: float64(i + 1), Y: v}
		}
		l, s, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, err
		}
		l.LineStyle.Width = vg.Points(1.5)
		l.LineStyle.Color = clusterColor(0)
		s.GlyphStyle = draw.GlyphStyle{Color: clusterColor(0), Radius: vg.Points(2), Shape: draw.CircleGlyph{}}
		tr.Add(l, s)
		if len(p.g.Trace) < 2 {
			tr.X.Min, tr.X.Max = 0, 2
		}
		tr.X.Tick.Marker = integerTicks{}
		tr.Y.Tick.Marker = preciseTicks{}
	}

	// The caption.
	rowWord := " rows"
	if n == 1 {
		rowWord = " row"
	}
	caption := fmt.Sprintf("%s: %s × %s", p.path, thousands(n)+rowWord, plural(len(p.names), "column"))
	if p.g != nil {
		state := "converged"
		if !p.g.Converged {
			state = "did not converge"
		}
		caption += fmt.Sprintf("; mean log-likelihood %s, %s after %s", report.Num(p.g.LogLikelihood), state, plural(p.g.Iterations, "iteration"))
	} else {
		caption += fmt.Sprintf("; inertia %s after %s", report.Num(p.km.Inertia), plural(p.km.Iterations, "iteration"))
	}
	if stride > 1 {
		caption += fmt.Sprintf("; drawn: every %s row, %s of %s", ordinal(stride), thousands(len(rows)), thousands(n))
	}

	var canvas vg.CanvasWriterTo
	switch format {
	case "png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(plotWidth, plotHeight), vgimg.UseDPI(plotDPI))}
	case "svg":
		canvas = vgsvg.New(plotWidth, plotHeight)
	default:
		panic("pbl: plot format " + format)
	}
	dc := draw.New(canvas)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())

	capStyle := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, 10), Handler: plot.DefaultTextHandler, XAlign: draw.XCenter}
	capHeight := vg.Points(22)
	capStyle.Font.Size = vg.Points(10)
	dc.FillText(capStyle, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Min.Y + vg.Points(7)}, caption)
	body := draw.Crop(dc, vg.Points(6), -vg.Points(10), capHeight, -vg.Points(6))

	legendWidth := legendWidth(&legend) + vg.Points(16)
	if tr == nil {
		sc.Draw(draw.Crop(body, 0, -legendWidth, 0, 0))
		legend.Draw(draw.Crop(body, body.Size().X-legendWidth+vg.Points(12), 0, 0, -vg.Points(30)))
	} else {
		panel := (body.Size().X - legendWidth) / 2
		sc.Draw(draw.Crop(body, 0, -(panel + legendWidth), 0, 0))
		legend.Draw(draw.Crop(body, panel+vg.Points(12), -panel, 0, -vg.Points(30)))
		tr.Draw(draw.Crop(body, panel+legendWidth, 0, 0, 0))
	}
	return canvas, nil
}

// legendWidth returns the width of l's widest entry with its thumbnail.
func legendWidth(l *plot.Legend) vg.Length {
	return l.Rectangle(draw.Canvas{}).Size().X
}

// ellipseAxes returns the semi-axes of the 1-σ ellipse of the 2×2
// covariance [[a b] [b c]] (the square roots of its eigenvalues, the
// larger first) and the angle of the major axis from the x axis, in
// radians. The eigenvalues of the symmetric matrix are
//
//	λ = (a+c)/2 ± √(((a-c)/2)² + b²)
//
// and the eigenvector of the larger is (cos θ, sin θ), tan 2θ = 2b/(a-c).
func ellipseAxes(a, b, c float64) (major, minor, angle float64) {
	m := (a + c) / 2
	r := math.Hypot((a-c)/2, b)
	return math.Sqrt(m + r), math.Sqrt(max(m-r, 0)), math.Atan2(2*b, a-c) / 2
}

// ellipse returns n+1 points (the first repeated last, closing the curve)
// of the s-σ ellipse of the 2×2 covariance [[a b] [b c]] around (mx, my):
// the points at Mahalanobis distance s from the mean.
func ellipse(mx, my, a, b, c, s float64, n int) plotter.XYs {
	major, minor, angle := ellipseAxes(a, b, c)
	sin, cos := math.Sincos(angle)
	xy := make(plotter.XYs, n+1)
	for i := range xy {
		u, v := math.Sincos(2 * math.Pi * float64(i%n) / float64(n))
		u, v = s*major*v, s*minor*u
		xy[i] = plotter.XY{X: mx + cos*u - sin*v, Y: my + sin*u + cos*v}
	}
	return xy
}

// gmmLabels returns the most responsible component of g for each of the
// rows of x: the j with the largest ln w_j + ln N(x; μ_j, Σ_j).
func gmmLabels(g *mixture.GMM, x *mixture.Matrix, rows []int) ([]int, error) {
	d, k := g.D, g.K
	type comp struct {
		l     []float64 // the Cholesky factor, lower, row-major
		shift float64   // ln w_j - ½ ln det Σ_j
	}
	comps := make([]comp, k)
	for j := range k {
		var ch mat.Cholesky
		if !ch.Factorize(mat.NewSymDense(d, g.CovarianceMatrix(j))) {
			return nil, fmt.Errorf("the covariance of component %d is not positive definite", j+1)
		}
		var l mat.TriDense
		ch.LTo(&l)
		lc := make([]float64, d*d)
		for a := range d {
			for b := 0; b <= a; b++ {
				lc[a*d+b] = l.At(a, b)
			}
		}
		comps[j] = comp{l: lc, shift: math.Log(g.Weights[j]) - ch.LogDet()/2}
	}
	labels := make([]int, len(rows))
	z := make([]float64, d)
	for t, i := range rows {
		r := x.Row(i)
		best, bestV := 0, math.Inf(-1)
		for j, c := range comps {
			m := g.Mean(j)
			q := 0.0
			for a := range d { // forward substitution: L z = x - μ
				s := r[a] - m[a]
				for b := range a {
					s -= c.l[a*d+b] * z[b]
				}
				z[a] = s / c.l[a*d+a]
				q += z[a] * z[a]
			}
			if v := c.shift - q/2; v > bestV {
				best, bestV = j, v
			}
		}
		labels[t] = best
	}
	return labels, nil
}

// clusterColors are Tableau's ten categorical colours, distinguishable
// in print and by most colour-blind readers.
var clusterColors = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0xd6, 0x27, 0x28, 0xff},
	{0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff}, {0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff},
	{0xbc, 0xbd, 0x22, 0xff}, {0x17, 0xbe, 0xcf, 0xff},
}

// clusterColor returns the colour of cluster j; after ten clusters the
// colours repeat, with another glyph (clusterShape).
func clusterColor(j int) color.RGBA { return clusterColors[j%len(clusterColors)] }

func clusterShape(j int) draw.GlyphDrawer {
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.BoxGlyph{}, draw.RingGlyph{}}
	return shapes[j/len(clusterColors)%len(shapes)]
}

// darker returns c at two thirds of its brightness.
func darker(c color.RGBA) color.RGBA {
	return color.RGBA{R: c.R / 3 * 2, G: c.G / 3 * 2, B: c.B / 3 * 2, A: c.A}
}

func withAlpha(c color.RGBA, a uint8) color.NRGBA {
	return color.NRGBA{R: c.R, G: c.G, B: c.B, A: a}
}

// ellipseStyle is the line of an s-σ ellipse: solid for 1 σ, dashed
// beyond.
func ellipseStyle(c color.Color, s float64) draw.LineStyle {
	st := draw.LineStyle{Color: c, Width: vg.Points(1.8)}
	if s > 1 {
		st.Width = vg.Points(1.4)
		st.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	return st
}

// thickCross is a × glyph with a wider stroke than draw.CrossGlyph's, so
// that the centres stand out from the points.
type thickCross struct{ width vg.Length }

func (t thickCross) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.Push()
	defer c.Pop()
	r := sty.Radius * math.Sqrt2 / 2
	for _, w := range []struct {
		c color.Color
		w vg.Length
	}{{color.White, t.width + vg.Points(2)}, {sty.Color, t.width}} {
		c.SetLineStyle(draw.LineStyle{Color: w.c, Width: w.w})
		var p vg.Path
		p.Move(vg.Point{X: pt.X - r, Y: pt.Y - r})
		p.Line(vg.Point{X: pt.X + r, Y: pt.Y + r})
		p.Move(vg.Point{X: pt.X - r, Y: pt.Y + r})
		p.Line(vg.Point{X: pt.X + r, Y: pt.Y - r})
		c.Stroke(p)
	}
}

// integerTicks labels whole iterations only.
type integerTicks struct{}

func (integerTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if t.Label != "" {
			if t.Value != math.Trunc(t.Value) {
				continue
			}
			t.Label = strconv.FormatFloat(t.Value, 'f', 0, 64)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// preciseTicks are plot.DefaultTicks labelled with as many decimals as
// the step between labels needs, so that the close values of a
// converging log-likelihood get distinct labels.
type preciseTicks struct{}

func (preciseTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := (plot.DefaultTicks{}).Ticks(lo, hi)
	step := math.Inf(1)
	prev := math.NaN()
	for _, t := range ticks {
		if t.Label == "" {
			continue
		}
		if d := t.Value - prev; d > 0 && d < step {
			step = d
		}
		prev = t.Value
	}
	if math.IsInf(step, 1) {
		return ticks
	}
	decimals := max(0, int(math.Ceil(-math.Log10(step)-1e-9)))
	for i, t := range ticks {
		if t.Label != "" {
			ticks[i].Label = strconv.FormatFloat(t.Value, 'f', decimals, 64)
		}
	}
	return ticks
}

// ordinal returns 2nd, 3rd, 5th, 21st, ...
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

// thousands returns n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
