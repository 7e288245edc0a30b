package main

import (
	"bytes"
	"encoding/xml"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/mixture"
	"gonum.org/v1/gonum/floats/scalar"
)

// TestEllipseAxes checks the semi-axes and the angle of 1-σ ellipses
// against covariances whose eigen-decomposition is known.
func TestEllipseAxes(t *testing.T) {
	for _, tc := range []struct {
		a, b, c             float64
		major, minor, angle float64
	}{
		{4, 0, 1, 2, 1, 0},                   // diagonal, wider in x
		{1, 0, 9, 3, 1, math.Pi / 2},         // diagonal, taller in y
		{2, 0, 2, math.Sqrt2, math.Sqrt2, 0}, // a circle
		// [[5 3] [3 5]] = 8 along (1,1)/√2, 2 along (1,-1)/√2.
		{5, 3, 5, math.Sqrt(8), math.Sqrt2, math.Pi / 4},
		{5, -3, 5, math.Sqrt(8), math.Sqrt2, -math.Pi / 4},
		{1, 1, 1, math.Sqrt2, 0, math.Pi / 4}, // singular: a segment
	} {
		major, minor, angle := ellipseAxes(tc.a, tc.b, tc.c)
		if !scalar.EqualWithinAbs(major, tc.major, 1e-12) || !scalar.EqualWithinAbs(minor, tc.minor, 1e-12) || !scalar.EqualWithinAbs(angle, tc.angle, 1e-12) {
			t.Errorf("ellipseAxes(%v, %v, %v) = %v, %v, %v; want %v, %v, %v", tc.a, tc.b, tc.c, major, minor, angle, tc.major, tc.minor, tc.angle)
		}
	}
}

// TestEllipse checks that every point of the s-σ ellipse is at
// Mahalanobis distance s from the mean, and that the ellipse of a
// diagonal covariance reaches mean ± s·σ along each axis.
func TestEllipse(t *testing.T) {
	for _, tc := range []struct{ mx, my, a, b, c, s float64 }{
		{0, 0, 4, 0, 1, 1},
		{1, -2, 4, 0, 1, 2},
		{3, 5, 2, 1.2, 1, 1},
		{-1, 0.5, 0.3, -0.25, 0.9, 2},
	} {
		xy := ellipse(tc.mx, tc.my, tc.a, tc.b, tc.c, tc.s, 64)
		if len(xy) != 65 || xy[0] != xy[64] {
			t.Fatalf("ellipse: %d points, first %v, last %v; want 65, closed", len(xy), xy[0], xy[len(xy)-1])
		}
		det := tc.a*tc.c - tc.b*tc.b
		for _, p := range xy {
			dx, dy := p.X-tc.mx, p.Y-tc.my
			d2 := (tc.c*dx*dx - 2*tc.b*dx*dy + tc.a*dy*dy) / det // (p-μ)ᵀ Σ⁻¹ (p-μ)
			if !scalar.EqualWithinAbsOrRel(math.Sqrt(d2), tc.s, 1e-12, 1e-12) {
				t.Errorf("%+v: point %v at Mahalanobis distance %v; want %v", tc, p, math.Sqrt(d2), tc.s)
			}
		}
	}
	// diag(4, 1), 1 σ: semi-axes 2 along x and 1 along y.
	xy := ellipse(0, 0, 4, 0, 1, 1, 4)
	want := [][2]float64{{2, 0}, {0, 1}, {-2, 0}, {0, -1}}
	for i, w := range want {
		if !scalar.EqualWithinAbs(xy[i].X, w[0], 1e-12) || !scalar.EqualWithinAbs(xy[i].Y, w[1], 1e-12) {
			t.Errorf("ellipse of diag(4, 1), point %d = %v; want %v", i, xy[i], w)
		}
	}
}

// TestComponentCov checks the D×D covariance of each form, restricted
// to the plotted columns as render does.
func TestComponentCov(t *testing.T) {
	g := &mixture.GMM{K: 2, D: 3, Covariance: mixture.Diag, Covariances: []float64{1, 2, 3, 4, 5, 6}}
	if got := g.CovarianceMatrix(1); !equal(got, []float64{4, 0, 0, 0, 5, 0, 0, 0, 6}) {
		t.Errorf("diag component 2: got %v", got)
	}
	g = &mixture.GMM{K: 2, D: 2, Covariance: mixture.Spherical, Covariances: []float64{1, 7}}
	if got := g.CovarianceMatrix(1); !equal(got, []float64{7, 0, 0, 7}) {
		t.Errorf("spherical component 2: got %v", got)
	}
	g = &mixture.GMM{K: 2, D: 2, Covariance: mixture.Tied, Covariances: []float64{2, 1, 1, 3}}
	if got := g.CovarianceMatrix(1); !equal(got, []float64{2, 1, 1, 3}) {
		t.Errorf("tied component 2: got %v", got)
	}
	g = &mixture.GMM{K: 2, D: 2, Covariance: mixture.Full, Covariances: []float64{1, 0, 0, 1, 2, 1, 1, 3}}
	if got := g.CovarianceMatrix(1); !equal(got, []float64{2, 1, 1, 3}) {
		t.Errorf("full component 2: got %v", got)
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestGMMLabels checks the most responsible component: by distance for
// equal components, and by weight and spread otherwise.
func TestGMMLabels(t *testing.T) {
	g := &mixture.GMM{K: 2, D: 2, Covariance: mixture.Spherical,
		Weights: []float64{0.5, 0.5}, Means: []float64{0, 0, 10, 0}, Covariances: []float64{1, 1}}
	x := mixture.NewMatrix(4, 2, []float64{-1, 0, 4.9, 3, 5.1, -3, 12, 1})
	got, err := gmmLabels(g, x, []int{0, 1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 0, 1, 1}; !equalInts(got, want) {
		t.Errorf("equal components: got %v, want %v", got, want)
	}
	// A wide component takes the point far from both means.
	g.Covariances = []float64{1, 25}
	got, _ = gmmLabels(g, mixture.NewMatrix(1, 2, []float64{0, 6}), []int{0})
	if got[0] != 1 {
		t.Errorf("wide component: got %v, want [1]", got)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRenderSubsample renders a fit of more than maxDrawn rows in both
// formats.
func TestRenderSubsample(t *testing.T) {
	n := maxDrawn + 5
	v := make([]float64, 2*n)
	for i := range n {
		v[2*i], v[2*i+1] = float64(i%7), float64(i%5)+float64(i%2)*10
	}
	x := mixture.NewMatrix(n, 2, v)
	g, err := mixture.FitGMM(x, mixture.DefaultGMMOptions(2))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"png", "svg"} {
		p := &plotSpec{path: "big.csv", names: []string{"a", "b"}, cx: 0, cy: 1, x: x, g: g}
		fig, err := p.render(f)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := fig.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		if f == "svg" && !bytes.Contains(buf.Bytes(), []byte("every 2nd row, 10,003 of 20,005")) {
			t.Errorf("svg: the caption does not say that every 2nd row is drawn")
		}
	}
}

// TestProgressKeepsFit checks that a progress callback sees every
// iteration of every restart, the kept restart's values being its
// Trace, and changes nothing in the fit.
func TestProgressKeepsFit(t *testing.T) {
	x := mixture.NewMatrix(8, 2, []float64{0, 0.1, 0.2, -0.1, 0.1, 0.2, -0.1, 0, 5, 5.1, 5.2, 4.9, 4.9, 5, 5.1, 5.2})
	opt := mixture.DefaultGMMOptions(2)
	opt.NInit, opt.Init, opt.Seed = 3, mixture.InitRandom, 4
	plain, err := mixture.FitGMM(x, opt)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[int][]float64{}
	opt.Progress = func(restart, iteration int, ll float64) {
		if iteration != len(calls[restart])+1 {
			t.Errorf("restart %d: iteration %d after %d", restart, iteration, len(calls[restart]))
		}
		calls[restart] = append(calls[restart], ll)
	}
	watched, err := mixture.FitGMM(x, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 3 {
		t.Errorf("progress from %d restarts; want 3", len(calls))
	}
	kept := false
	for _, lls := range calls {
		kept = kept || equal(lls, watched.Trace)
	}
	if !kept {
		t.Errorf("no restart's progress is the kept trace %v: %v", watched.Trace, calls)
	}
	if plain.LogLikelihood != watched.LogLikelihood || !equal(plain.Means, watched.Means) || !equal(plain.Trace, watched.Trace) {
		t.Errorf("with progress: log-likelihood %v, means %v; without: %v, %v", watched.LogLikelihood, watched.Means, plain.LogLikelihood, plain.Means)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 20005: "20,005", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// threeBlobs returns n rows of three clusters far apart, around (0, 0),
// (10, 0) and (0, 10), with a third column that does not matter.
func threeBlobs(n int) *mixture.Matrix {
	v := make([]float64, 3*n)
	for i := range n {
		dx, dy := float64(i%7)/7-0.5, float64(i%5)/5-0.5
		switch i % 3 {
		case 1:
			dx += 10
		case 2:
			dy += 10
		}
		v[3*i], v[3*i+1], v[3*i+2] = dx, dy, float64(i)
	}
	return mixture.NewMatrix(n, 3, v)
}

// TestRender renders mixture and k-means fits in both formats and checks
// each figure: the SVG is well-formed XML with one glyph per row and a
// legend entry per cluster, and the PNG decodes, 11 × 4.8 inches at
// 110 dpi, with pixels of each cluster's colour.
func TestRender(t *testing.T) {
	const n = 300
	x := threeBlobs(n)
	g, err := mixture.FitGMM(x, mixture.DefaultGMMOptions(3))
	if err != nil {
		t.Fatal(err)
	}
	km, err := mixture.KMeans(x, mixture.DefaultKMeansOptions(3))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		spec  plotSpec
		texts []string // in the SVG's text
	}{
		{"gmm", plotSpec{path: "blobs.csv", names: []string{"a", "b", "c"}, cx: 0, cy: 1, x: x, g: g},
			[]string{"Gaussian mixture, k=3", "EM, the kept restart", "component mean", "1-σ ellipse", "2-σ ellipse", "iteration",
				"mean log-likelihood per row", "a", "b", "blobs.csv: 300 rows × 3 columns; mean log-likelihood"}},
		{"kmeans", plotSpec{path: "blobs.csv", names: []string{"a", "b", "c"}, cx: 1, cy: 0, x: x, km: km},
			[]string{"k-means, k=3", "cluster 1 (100 rows)", "centre", "blobs.csv: 300 rows × 3 columns; inertia"}},
	} {
		// The SVG.
		fig, err := tc.spec.render("svg")
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := fig.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		glyphs, texts := 0, ""
		d := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
		for {
			tok, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: the SVG is not well-formed XML: %v", tc.name, err)
			}
			if se, ok := tok.(xml.StartElement); ok {
				for _, a := range se.Attr {
					// The points and the legend's thumbnails are the
					// translucent circles.
					if se.Name.Local == "circle" && a.Name.Local == "fill-opacity" {
						glyphs++
					}
				}
				if se.Name.Local == "text" {
					var s string
					if err := d.DecodeElement(&s, &se); err != nil {
						t.Fatal(err)
					}
					texts += s + "\n"
				}
			}
		}
		if glyphs != n+3 {
			t.Errorf("%s: %d translucent circles, want %d points and 3 in the legend", tc.name, glyphs, n)
		}
		for _, s := range tc.texts {
			if !strings.Contains(texts, s) {
				t.Errorf("%s: no %q in the texts:\n%s", tc.name, s, texts)
			}
		}
		for j := range 3 {
			if !strings.Contains(texts, "cluster "+strconv.Itoa(j+1)+" (") {
				t.Errorf("%s: no legend entry for cluster %d:\n%s", tc.name, j+1, texts)
			}
		}

		// The PNG.
		if fig, err = tc.spec.render("png"); err != nil {
			t.Fatal(err)
		}
		buf.Reset()
		if _, err := fig.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&buf)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if want := image.Rect(0, 0, 1210, 528); img.Bounds() != want {
			t.Errorf("%s: PNG of %v, want %v", tc.name, img.Bounds(), want)
		}
		// A point is its cluster's colour at alpha 0xb0 over white, or
		// over another point.
		found := make([]int, 3)
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				got := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
				for j := range found {
					c := clusterColor(j)
					over := func(v uint8) uint8 { return uint8((uint32(v)*0xb0 + 0xff*(0xff-0xb0) + 0x7f) / 0xff) }
					if near(got, color.RGBA{over(c.R), over(c.G), over(c.B), 0xff}, 3) || near(got, c, 12) {
						found[j]++
					}
				}
			}
		}
		for j, f := range found {
			if f < 20 {
				t.Errorf("%s: %d pixels of cluster %d's colour", tc.name, f, j+1)
			}
		}
	}
}

// near reports whether a and b differ by at most tol in each channel.
func near(a, b color.RGBA, tol int) bool {
	d := func(x, y uint8) bool { return int(x)-int(y) <= tol && int(y)-int(x) <= tol }
	return d(a.R, b.R) && d(a.G, b.G) && d(a.B, b.B) && d(a.A, b.A)
}

// TestTraceTicks checks the trace panel's tickers: integerTicks labels
// whole numbers only, and preciseTicks gives close values distinct
// labels with no more decimals than their step needs.
func TestTraceTicks(t *testing.T) {
	for _, tc := range []struct{ lo, hi float64 }{{0.3, 23.7}, {0, 2}, {0.9, 3.1}, {1, 1000}} {
		labels := 0
		for _, tk := range (integerTicks{}).Ticks(tc.lo, tc.hi) {
			if tk.Label == "" {
				continue
			}
			labels++
			if tk.Value != math.Trunc(tk.Value) || tk.Label != strconv.Itoa(int(tk.Value)) {
				t.Errorf("integerTicks [%v, %v]: %v", tc.lo, tc.hi, tk)
			}
		}
		if labels < 2 {
			t.Errorf("integerTicks [%v, %v]: %d labels", tc.lo, tc.hi, labels)
		}
	}
	for _, tc := range []struct {
		lo, hi   float64
		decimals int
	}{
		{-4.43, -3.13, 2},
		{-3.16218, -3.16216, 6},
		{-3.2, -3.1, 3}, // steps of 0.025
		{100, 400, 0},
	} {
		seen := map[string]bool{}
		for _, tk := range (preciseTicks{}).Ticks(tc.lo, tc.hi) {
			if tk.Label == "" {
				continue
			}
			if seen[tk.Label] {
				t.Errorf("preciseTicks [%v, %v]: label %q twice", tc.lo, tc.hi, tk.Label)
			}
			seen[tk.Label] = true
			_, frac, _ := strings.Cut(tk.Label, ".")
			v, err := strconv.ParseFloat(tk.Label, 64)
			if len(frac) != tc.decimals || err != nil || !(math.Abs(v-tk.Value) <= math.Pow10(-tc.decimals)/2) {
				t.Errorf("preciseTicks [%v, %v]: %v, want %d decimals", tc.lo, tc.hi, tk, tc.decimals)
			}
		}
		if len(seen) < 2 {
			t.Errorf("preciseTicks [%v, %v]: %d labels", tc.lo, tc.hi, len(seen))
		}
	}
}
