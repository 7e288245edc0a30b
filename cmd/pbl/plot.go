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

	"github.com/pbl-lang/pbl/internal/figure"
	"github.com/pbl-lang/pbl/internal/spell"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/mixture"
	"github.com/pbl-lang/pbl/report"
)

// This file draws pbl cluster --plot: the rows coloured by cluster in the
// plane of two clustered columns, with each Gaussian component's 1-σ and
// 2-σ ellipses or the k-means centres, and for a mixture the mean
// log-likelihood per EM iteration beside them, with internal/figure.

// maxDrawn is the number of rows above which a plot draws every s-th row
// only (s the smallest stride that draws at most maxDrawn), so that a
// large file still gives a small, quick figure.
const maxDrawn = 20000

// The figure's size, and the resolution of a PNG.
const (
	plotWidth   = 11 * 72 // points
	plotHeight  = 4.8 * 72
	plotDPI     = 110
	captionSize = 10
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
	sc := &figure.Plot{X: figure.Axis{Label: p.names[p.cx]}, Y: figure.Axis{Label: p.names[p.cy]}}
	pts := make([][]figure.XY, k)
	for t, i := range rows {
		r := p.x.Row(i)
		pts[labels[t]] = append(pts[labels[t]], figure.XY{X: r[p.cx], Y: r[p.cy]})
	}
	radius := 2.0
	if len(rows) > 2000 {
		radius = 1.2
	}
	legend := &figure.Legend{TextSize: 10}
	const maxLegend = 14
	for j := range k {
		glyph := figure.GlyphStyle{Color: withAlpha(clusterColor(j), 0xb0), Radius: radius, Shape: clusterShape(j)}
		sc.Add(&figure.Scatter{XY: pts[j], Glyph: glyph})
		name := fmt.Sprintf("cluster %d", j+1)
		if p.g != nil {
			name += fmt.Sprintf(" (weight %.3g)", p.g.Weights[j])
		} else {
			name += fmt.Sprintf(" (%s)", plural(p.km.Sizes[j], "row"))
		}
		switch {
		case j < maxLegend-1 || k == maxLegend:
			thumb := glyph
			thumb.Radius = 3.5
			legend.Add(name, &thumb, nil)
		case j == maxLegend-1:
			legend.Add(fmt.Sprintf("… %d more clusters", k-j), nil, nil)
		}
	}
	var centres []figure.XY
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
				halo := ellipseStyle(color.White, s)
				halo.Width += 2
				sc.Add(&figure.Line{XY: xy, Style: halo}, &figure.Line{XY: xy, Style: ellipseStyle(darker(clusterColor(j)), s)})
			}
			centres = append(centres, figure.XY{X: m[p.cx], Y: m[p.cy]})
		}
	} else {
		for j := range k {
			c := p.km.Center(j)
			centres = append(centres, figure.XY{X: c[p.cx], Y: c[p.cy]})
		}
	}
	sc.Add(&figure.Scatter{XY: centres, Glyph: figure.GlyphStyle{Color: color.Black, Radius: 5, Shape: figure.Cross, Width: 2.5}})
	centre := &figure.GlyphStyle{Color: color.Black, Radius: 4, Shape: figure.Cross, Width: 2}
	if p.g != nil {
		legend.Add("component mean", centre, nil)
		for _, s := range []float64{1, 2} {
			st := ellipseStyle(color.Gray{Y: 0x40}, s)
			legend.Add(fmt.Sprintf("%g-σ ellipse", s), nil, &st)
		}
		sc.Title = fmt.Sprintf("Gaussian mixture, k=%d, %s covariance", k, p.g.Covariance)
	} else {
		legend.Add("centre", centre, nil)
		sc.Title = fmt.Sprintf("k-means, k=%d", k)
	}

	// The second panel: the trace of the kept restart.
	var tr *figure.Plot
	if p.g != nil {
		tr = &figure.Plot{
			Title: "EM, the kept restart",
			X:     figure.Axis{Label: "iteration", Ticker: integerTicks{}},
			Y:     figure.Axis{Label: "mean log-likelihood per row", Ticker: preciseTicks{}},
		}
		xy := make([]figure.XY, len(p.g.Trace))
		for i, v := range p.g.Trace {
			xy[i] = figure.XY{X: float64(i + 1), Y: v}
		}
		tr.Add(&figure.Line{XY: xy, Style: figure.LineStyle{Color: clusterColor(0), Width: 1.5}},
			&figure.Scatter{XY: xy, Glyph: figure.GlyphStyle{Color: clusterColor(0), Radius: 2, Shape: figure.Circle}})
		if len(p.g.Trace) < 2 {
			tr.X.Min, tr.X.Max = 0, 2
		}
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
		caption += fmt.Sprintf("; inertia %s after %s", report.NumDensity(p.km.Inertia, p.km.LogInertia), plural(p.km.Iterations, "iteration"))
	}
	if stride > 1 {
		caption += fmt.Sprintf("; drawn: every %s row, %s of %s", ordinal(stride), thousands(len(rows)), thousands(n))
	}

	var canvas interface {
		figure.Canvas
		io.WriterTo
	}
	switch format {
	case "png":
		canvas = figure.NewPNG(plotWidth, plotHeight, plotDPI)
	case "svg":
		canvas = figure.NewSVG(plotWidth, plotHeight)
	default:
		panic("pbl: plot format " + format)
	}
	page := figure.Rect{Max: figure.Point{X: plotWidth, Y: plotHeight}}
	canvas.Fill([]figure.Point{page.Min, {X: page.Max.X, Y: 0}, page.Max, {X: 0, Y: page.Max.Y}}, color.White)
	canvas.Text(caption, figure.Point{X: plotWidth / 2, Y: plotHeight - 7}, figure.TextStyle{Size: captionSize, Align: figure.AlignCenter})
	body := page.Inset(6, 6, 10, 24)

	lw, _ := legend.Size()
	legendWidth := lw + 24
	legendTop := body.Min.Y + figure.TitleSize + 14
	if tr == nil {
		sc.Draw(canvas, body.Inset(0, 0, legendWidth, 0))
		legend.Draw(canvas, figure.Point{X: body.Max.X - legendWidth + 12, Y: legendTop})
	} else {
		panel := (body.Dx() - legendWidth) / 2
		sc.Draw(canvas, body.Inset(0, 0, panel+legendWidth, 0))
		legend.Draw(canvas, figure.Point{X: body.Min.X + panel + 12, Y: legendTop})
		tr.Draw(canvas, body.Inset(panel+legendWidth, 0, 0, 0))
	}
	return canvas, nil
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
func ellipse(mx, my, a, b, c, s float64, n int) []figure.XY {
	major, minor, angle := ellipseAxes(a, b, c)
	sin, cos := math.Sincos(angle)
	xy := make([]figure.XY, n+1)
	for i := range xy {
		u, v := math.Sincos(2 * math.Pi * float64(i%n) / float64(n))
		u, v = s*major*v, s*minor*u
		xy[i] = figure.XY{X: mx + cos*u - sin*v, Y: my + sin*u + cos*v}
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

// clusterShape returns the glyph of cluster j: circles for the first ten
// clusters, then triangles, squares and rings.
func clusterShape(j int) figure.Shape {
	shapes := [...]figure.Shape{figure.Circle, figure.Triangle, figure.Square, figure.Ring}
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
func ellipseStyle(c color.Color, s float64) figure.LineStyle {
	st := figure.LineStyle{Color: c, Width: 1.8}
	if s > 1 {
		st.Width = 1.4
		st.Dashes = []float64{5, 3}
	}
	return st
}

// integerTicks labels whole iterations only.
type integerTicks struct{}

func (integerTicks) Ticks(lo, hi float64) []figure.Tick {
	var ticks []figure.Tick
	for _, t := range (figure.DefaultTicks{}).Ticks(lo, hi) {
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

// preciseTicks are figure.DefaultTicks labelled with as many decimals as
// the step between labels needs (and never fewer than DefaultTicks
// gives), so that the close values of a converging log-likelihood get
// distinct labels.
type preciseTicks struct{}

func (preciseTicks) Ticks(lo, hi float64) []figure.Tick {
	ticks := (figure.DefaultTicks{}).Ticks(lo, hi)
	step := math.Inf(1)
	prev := math.NaN()
	given := 0
	for _, t := range ticks {
		if t.Label == "" {
			continue
		}
		if d := t.Value - prev; d > 0 && d < step {
			step = d
		}
		prev = t.Value
		if _, frac, ok := strings.Cut(t.Label, "."); ok {
			given = max(given, len(frac))
		}
	}
	if math.IsInf(step, 1) {
		return ticks
	}
	decimals := max(given, int(math.Ceil(-math.Log10(step)-1e-9)))
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
