package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/formats/source"
	"github.com/pbl-lang/pbl/internal/spell"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
	"github.com/pbl-lang/pbl/mixture"
	"github.com/pbl-lang/pbl/report"
	"golang.org/x/term"
)

// clusterSummary is the help of pbl cluster.
const clusterSummary = "Cluster fits a Gaussian mixture (--method gmm, the default) or a k-means clustering\n" +
	"(--method kmeans) to the numeric columns of CSV (every column, or those --columns names;\n" +
	"read as every command reads CSV), as scikit-learn's GaussianMixture and KMeans do. A cell\n" +
	"that is not a finite number, or is missing, is an error at its line and column. -k K fits\n" +
	"K clusters; for gmm, -k A..B fits each K from A to B and keeps the lowest BIC. EM starts\n" +
	"from the labels of a k-means run (--init kmeans), from k-means++ seeds (--init k-means++)\n" +
	"or from random responsibilities (--init random), keeps the best of --n-init restarts, and\n" +
	"stops when the mean log-likelihood changes by less than --tol, or after --max-iter\n" +
	"iterations. k-means seeds by greedy k-means++ and runs Lloyd iterations until no row\n" +
	"changes cluster or the centres move less than --tol times the mean column variance,\n" +
	"keeping the lowest inertia of --n-init restarts. The result is determined by the data,\n" +
	"the flags and --seed, whatever the number of cores. --json prints one object: the fit's\n" +
	"figures and parameters. With --method gmm, --anomaly VALID.csv chooses the density\n" +
	"threshold ε below which a point is an anomaly, by the F1 score of the rows that the\n" +
	"file's --label column (default anomaly) marks yes, true, 1 or anomaly. -o OUT.pbl writes\n" +
	"the fit as a model: a component variable (--component, default Cluster) whose states c1,\n" +
	"c2, ... are the clusters, and the columns' joint normal density given it, which answers\n" +
	"P(Cluster | x=1.5, y=2) and density(x=1.5, y=2). --plot OUT.png or OUT.svg draws the rows\n" +
	"coloured by cluster in the plane of the first two clustered columns (or those\n" +
	"--plot-columns names), with each component's 1-σ and 2-σ ellipses (gmm) or the centres\n" +
	"(kmeans), and for gmm the mean log-likelihood per EM iteration; above 20,000 rows every\n" +
	"s-th row is drawn, as the caption says. On a terminal, without --json, gmm shows its\n" +
	"progress (restart, iteration, mean log-likelihood) on stderr."

// The flags of pbl cluster, bound afresh (to their defaults) by
// clusterFlags for each invocation.
var (
	clusterK        string
	clusterMethod   string
	clusterCov      string
	clusterInit     string
	clusterNInit    int
	clusterMaxIter  optInt
	clusterTol      optFloat
	clusterSeed     uint64
	clusterRegCovar float64
	clusterColumns  string
	clusterOut      string
	clusterComp     string
	clusterAnomaly  string
	clusterLabel    string
	clusterPlot     string
	clusterPlotCols string
)

// optInt and optFloat are flag values that remember whether they were set,
// for defaults that depend on the method.
type optInt struct {
	v   int
	set bool
}

func (o *optInt) String() string { return strconv.Itoa(o.v) }
func (o *optInt) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("want an integer")
	}
	o.v, o.set = v, true
	return nil
}

type optFloat struct {
	v   float64
	set bool
}

func (o *optFloat) String() string { return strconv.FormatFloat(o.v, 'g', -1, 64) }
func (o *optFloat) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return errors.New("want a number")
	}
	o.v, o.set = v, true
	return nil
}

func clusterFlags(c *cli, fs *flag.FlagSet) {
	fs.StringVar(&clusterK, "k", "", "the number of clusters `K`, or for gmm a range A..B to choose from by BIC; required")
	fs.StringVar(&clusterMethod, "method", "gmm", "gmm (Gaussian mixture by EM) or kmeans (Lloyd)")
	fs.StringVar(&clusterCov, "covariance", "full", "gmm: the covariances, full, diag, spherical or tied")
	fs.StringVar(&clusterInit, "init", "kmeans", "gmm: how each restart starts, kmeans, k-means++ or random")
	fs.IntVar(&clusterNInit, "n-init", 1, "restarts; the best is kept")
	clusterMaxIter, clusterTol = optInt{}, optFloat{}
	fs.Var(&clusterMaxIter, "max-iter", "iterations per restart (default 100 for gmm, 300 for kmeans)")
	fs.Var(&clusterTol, "tol", "convergence tolerance (default 1e-3 for gmm, 1e-4 for kmeans)")
	fs.Uint64Var(&clusterSeed, "seed", 1, "the random `seed`")
	fs.Float64Var(&clusterRegCovar, "reg-covar", 1e-6, "gmm: added to the diagonal of every covariance")
	fs.StringVar(&clusterColumns, "columns", "", "the `names` of the columns to cluster, comma-separated (default every column)")
	fs.StringVar(&clusterOut, "o", "", "gmm: write the fitted mixture to this `file` as a .pbl model, atomically")
	fs.StringVar(&clusterComp, "component", "Cluster", "gmm, with -o: the name of the component variable")
	fs.StringVar(&clusterAnomaly, "anomaly", "", "gmm: choose the density threshold ε of anomalies by F1 on this labelled validation CSV `file`")
	fs.StringVar(&clusterLabel, "label", "anomaly", "with --anomaly: the validation file's label `column` (yes, true, 1 or anomaly: an anomaly)")
	fs.StringVar(&clusterPlot, "plot", "", "draw the clusters and the fit to this `file`, .png or .svg, atomically")
	fs.StringVar(&clusterPlotCols, "plot-columns", "", "with --plot: the two clustered `columns` to draw, a,b (default the first two)")
}

// clusterCmd runs pbl cluster.
func clusterCmd(c *cli, args []string) int {
	if len(args) != 1 {
		return c.usageErr("cluster", "want one CSV file, got %s", plural(len(args), "argument"))
	}
	if clusterK == "" {
		return c.usageErr("cluster", "-k K is required: the number of clusters")
	}
	kmin, kmax, err := parseKRange(clusterK)
	if err != nil {
		return c.usageErr("cluster", "-k %s: %v", clusterK, err)
	}
	gmm := clusterMethod == "gmm"
	if !gmm && clusterMethod != "kmeans" {
		return c.usageErr("cluster", "unknown --method %q: want gmm or kmeans", clusterMethod)
	}
	if !gmm && kmin != kmax {
		return c.usageErr("cluster", "-k %s: a range of k needs --method gmm, which chooses by BIC", clusterK)
	}
	if !gmm {
		for _, name := range []string{"covariance", "init", "reg-covar"} {
			if c.fs.Lookup(name).Value.String() != c.fs.Lookup(name).DefValue {
				return c.usageErr("cluster", "--%s is for --method gmm", name)
			}
		}
	}
	cov, err := mixture.ParseCovariance(clusterCov)
	if err != nil {
		return c.usageErr("cluster", "--covariance: %v", err)
	}
	init, err := mixture.ParseInit(clusterInit)
	if err != nil {
		return c.usageErr("cluster", "--init: %v", err)
	}
	maxIter, tol := 100, 1e-3
	if !gmm {
		maxIter, tol = 300, 1e-4
	}
	if clusterMaxIter.set {
		maxIter = clusterMaxIter.v
	}
	if clusterTol.set {
		tol = clusterTol.v
	}
	switch {
	case clusterNInit < 1:
		return c.usageErr("cluster", "--n-init %d: want at least 1 restart", clusterNInit)
	case maxIter < 1:
		return c.usageErr("cluster", "--max-iter %d: want at least 1 iteration", maxIter)
	case !(tol >= 0) || math.IsInf(tol, 0):
		return c.usageErr("cluster", "--tol %v: want a finite number at least 0", tol)
	case !(clusterRegCovar >= 0) || math.IsInf(clusterRegCovar, 0):
		return c.usageErr("cluster", "--reg-covar %v: want a finite number at least 0", clusterRegCovar)
	}
	var cols []string
	if clusterColumns != "" {
		cols = strings.Split(clusterColumns, ",")
		seen := map[string]bool{}
		for _, name := range cols {
			if name == "" {
				return c.usageErr("cluster", "--columns %q: an empty column name", clusterColumns)
			}
			if seen[name] {
				return c.usageErr("cluster", "--columns: %q is named twice", name)
			}
			seen[name] = true
		}
	}

	path := args[0]
	var plotFmt string
	var plotCols []string
	if clusterPlotCols != "" {
		if clusterPlot == "" {
			return c.usageErr("cluster", "--plot-columns needs --plot")
		}
		pc, err := parsePlotColumns(clusterPlotCols)
		if err != nil {
			return c.usageErr("cluster", "--plot-columns %s: %v", clusterPlotCols, err)
		}
		plotCols = pc[:]
	}
	if clusterPlot != "" {
		var ok bool
		if plotFmt, ok = plotFormat(clusterPlot); !ok {
			return c.usageErr("cluster", "cannot draw %q: --plot writes .png or .svg files", clusterPlot)
		}
		if cols != nil {
			// The columns are known before the file is read: a
			// plot they cannot make is a usage error.
			if _, _, err := plotColumns(cols, plotCols); err != nil {
				return c.usageErr("cluster", "%v", err)
			}
		}
		if err := checkOutput(clusterPlot, path); err != nil {
			c.report(err)
			return exitError
		}
	}
	if clusterAnomaly != "" && !gmm {
		return c.usageErr("cluster", "--anomaly needs a density: use --method gmm")
	}
	if clusterOut != "" {
		if !gmm {
			return c.usageErr("cluster", "-o writes a Gaussian mixture: use --method gmm")
		}
		if ext := strings.ToLower(filepath.Ext(clusterOut)); ext != ".pbl" {
			return c.usageErr("cluster", "cannot write %q: pbl cluster writes .pbl models", clusterOut)
		}
		if err := checkOutput(clusterOut, path); err != nil {
			c.report(err)
			return exitError
		}
	}
	x, names, err := readMatrix(path, cols)
	if err != nil {
		c.report(err)
		return exitError
	}
	var plotted *plotSpec
	if clusterPlot != "" {
		cx, cy, err := plotColumns(names, plotCols)
		if err != nil {
			c.report(fileError(path, err))
			return exitError
		}
		plotted = &plotSpec{path: path, names: names, cx: cx, cy: cy, x: x}
	}
	o := &report.Object{}
	o.Set("method", clusterMethod)
	o.Set("rows", x.Rows)
	o.Set("columns", names)
	if gmm {
		opt := mixture.GMMOptions{K: kmin, Covariance: cov, Init: init, NInit: clusterNInit, MaxIter: maxIter,
			Tol: tol, RegCovar: clusterRegCovar, Seed: clusterSeed}
		var stop func()
		opt.Progress, stop = clusterProgress(c, clusterNInit)
		start := time.Now()
		var g *mixture.GMM
		var all []*mixture.GMM
		if kmin == kmax {
			g, err = mixture.FitGMM(x, opt)
		} else {
			g, all, err = mixture.SelectK(x, kmin, kmax, opt)
		}
		secs := time.Since(start).Seconds()
		stop()
		if err != nil {
			c.report(fileError(path, err))
			return exitError
		}
		gmmObject(o, g, all, secs)
		var anomaly *anomalyResult
		if clusterAnomaly != "" {
			m, err := mixtureModel(path, path, names, g)
			if err == nil {
				anomaly, err = chooseThreshold(m, clusterAnomaly, clusterLabel)
			}
			if err != nil {
				c.report(err)
				return exitError
			}
			anomalyObject(o, anomaly)
		}
		var figure io.WriterTo
		if plotted != nil {
			plotted.g = g
			if figure, err = plotted.render(plotFmt); err != nil {
				c.report(fileErrorf(clusterPlot, "%v", err))
				return exitError
			}
		}
		if clusterOut != "" && figure != nil {
			// Both outputs or neither.
			for _, out := range []string{clusterOut, clusterPlot} {
				if err := checkCreatable(out); err != nil {
					c.report(err)
					return exitError
				}
			}
		}
		if clusterOut != "" {
			if err := writeMixture(clusterOut, path, names, g); err != nil {
				c.report(err)
				return exitError
			}
			o.Set("output", clusterOut)
		}
		if figure != nil && !savePlot(c, o, figure) {
			return exitError
		}
		if c.json {
			c.writeJSON(o)
			return exitOK
		}
		gmmText(c.stdout, path, names, g, all, secs)
		if anomaly != nil {
			anomalyText(c.stdout, anomaly)
		}
		return exitOK
	}
	opt := mixture.KMeansOptions{K: kmin, NInit: clusterNInit, MaxIter: maxIter, Tol: tol, Seed: clusterSeed}
	start := time.Now()
	r, err := mixture.KMeans(x, opt)
	secs := time.Since(start).Seconds()
	if err != nil {
		c.report(fileError(path, err))
		return exitError
	}
	kmeansObject(o, r, secs)
	if plotted != nil {
		plotted.km = r
		figure, err := plotted.render(plotFmt)
		if err != nil {
			c.report(fileErrorf(clusterPlot, "%v", err))
			return exitError
		}
		if !savePlot(c, o, figure) {
			return exitError
		}
	}
	if c.json {
		c.writeJSON(o)
		return exitOK
	}
	kmeansText(c.stdout, path, names, r, secs)
	return exitOK
}

// parseKRange parses K or A..B.
func parseKRange(s string) (lo, hi int, err error) {
	a, b, isRange := strings.Cut(s, "..")
	if !isRange {
		b = a
	}
	lo, err1 := strconv.Atoi(a)
	hi, err2 := strconv.Atoi(b)
	switch {
	case err1 != nil || err2 != nil:
		return 0, 0, errors.New("want a number of clusters K or a range A..B")
	case lo < 1:
		return 0, 0, errors.New("want at least 1 cluster")
	case hi < lo:
		return 0, 0, errors.New("the range is empty")
	}
	return lo, hi, nil
}

// readMatrix reads the columns named cols (every named column if cols is
// nil) of the CSV file at path as an n×d matrix, through the data
// package's reader, as every command reads CSV: a model of one real
// variable per column, made from the header, so that a cell that is not
// a number, or is missing, is reported where it is.
func readMatrix(path string, cols []string) (*mixture.Matrix, []string, error) {
	r, err := data.OpenFunc(path, func(h *data.Header) (*ir.Model, error) {
		var err error
		if cols, err = matrixColumns(h, cols); err != nil {
			return nil, err
		}
		b := ir.NewBuilder(path)
		for _, name := range cols {
			b.AddVar(ir.Pos{File: path, Line: 1}, name, ir.Real, nil, 0)
		}
		return b.Finish()
	}, data.Options{IgnoreUnknownColumns: true, Required: true})
	if err != nil {
		return nil, nil, needNumbers(err)
	}
	defer r.Close()
	batch, err := data.ReadRest(r)
	if err != nil {
		return nil, nil, needNumbers(err)
	}
	if batch.N == 0 {
		return nil, nil, &ir.Error{Pos: ir.Pos{File: path, Line: 1}, Msg: "no data rows after the header"}
	}
	d := len(cols)
	vals := make([]float64, batch.N*d)
	for j, v := range batch.Vars {
		at := int(v) // the model's variables are cols, in order
		for i, x := range batch.Reals[j] {
			vals[i*d+at] = x
		}
	}
	return mixture.NewMatrix(batch.N, d, vals), cols, nil
}

// matrixColumns returns the columns of header h that pbl cluster reads:
// cols, each of which must be in the header, or if cols is nil every
// named column (each name once: the data package reports a duplicate
// column).
func matrixColumns(h *data.Header, cols []string) ([]string, error) {
	inHeader := map[string]bool{}
	for _, name := range h.Names {
		inHeader[name] = true
	}
	if cols != nil {
		var errs ir.ErrorList
		for _, name := range cols {
			if !inHeader[name] {
				msg := fmt.Sprintf("no column %s in the header", strconv.Quote(name))
				if near := spell.Nearest(name, h.Names); near != "" {
					msg += fmt.Sprintf(" (did you mean %s?)", strconv.Quote(near))
				}
				errs.Add(ir.Pos{File: h.File(), Line: 1}, "%s", msg)
			}
		}
		return cols, errs.Err()
	}
	seen := map[string]bool{}
	for _, name := range h.Names {
		if name != "" && !seen[name] {
			cols = append(cols, name)
			seen[name] = true
		}
	}
	if len(cols) == 0 {
		return nil, &ir.Error{Pos: ir.Pos{File: h.File(), Line: 1}, Msg: "the header names no column"}
	}
	return cols, nil
}

// needNumbers says why a missing cell is an error for pbl cluster.
func needNumbers(err error) error {
	var e *ir.Error
	if errors.Is(err, data.ErrMissingValue) && errors.As(err, &e) {
		out := *e
		out.Msg += ": pbl cluster needs a number in every cell"
		return &out
	}
	return err
}

// floats converts to report.Float, which marshals shortest.
func floats(v []float64) []report.Float {
	out := make([]report.Float, len(v))
	for i, x := range v {
		out[i] = report.Float(x)
	}
	return out
}

// rows splits v into rows of d values.
func rows(v []float64, d int) [][]report.Float {
	var out [][]report.Float
	for i := 0; i+d <= len(v); i += d {
		out = append(out, floats(v[i:i+d]))
	}
	return out
}

func seconds(s float64) report.Float { return report.Float(math.Round(s*1e6) / 1e6) }

// gmmObject sets the JSON fields of a mixture fit.
func gmmObject(o *report.Object, g *mixture.GMM, all []*mixture.GMM, secs float64) {
	d := g.D
	o.Set("k", g.K)
	o.Set("covariance", g.Covariance.String())
	o.Set("n_init", g.NInit)
	o.Set("iterations", g.Iterations)
	o.Set("converged", g.Converged)
	o.Set("log_likelihood", report.Float(g.LogLikelihood))
	o.Set("bic", report.Float(g.BIC()))
	o.Set("aic", report.Float(g.AIC()))
	o.Set("fit_seconds", seconds(secs))
	o.Set("weights", floats(g.Weights))
	o.Set("means", rows(g.Means, d))
	switch g.Covariance {
	case mixture.Full:
		var covs [][][]report.Float
		for j := range g.K {
			covs = append(covs, rows(g.Covariances[j*d*d:(j+1)*d*d], d))
		}
		o.Set("covariances", covs)
	case mixture.Tied:
		o.Set("covariance_matrix", rows(g.Covariances, d))
	case mixture.Diag:
		o.Set("variances", rows(g.Covariances, d))
	case mixture.Spherical:
		o.Set("variances", floats(g.Covariances))
	}
	o.Set("trace", floats(g.Trace))
	if all != nil {
		var by []*report.Object
		for _, h := range all {
			e := &report.Object{}
			e.Set("k", h.K)
			e.Set("log_likelihood", report.Float(h.LogLikelihood))
			e.Set("bic", report.Float(h.BIC()))
			e.Set("aic", report.Float(h.AIC()))
			by = append(by, e)
		}
		o.Set("by_k", by)
	}
}

// kmeansObject sets the JSON fields of a k-means fit.
func kmeansObject(o *report.Object, r *mixture.KMeansResult, secs float64) {
	o.Set("k", r.K)
	o.Set("n_init", r.NInit)
	o.Set("iterations", r.Iterations)
	o.Set("converged", r.Converged)
	o.Set("inertia", report.DensityJSON(r.Inertia, r.LogInertia))
	o.Set("fit_seconds", seconds(secs))
	o.Set("centers", rows(r.Centers, r.D))
	o.Set("sizes", r.Sizes)
}

// fitLine is the first lines of a text summary.
func fitLine(w io.Writer, path, what string, n int, names []string, iters int, converged bool, ninit int, secs float64) {
	fmt.Fprintf(w, "%s: %s, %s × %s (%s)\n", path, what, plural(n, "row"), plural(len(names), "column"), strings.Join(names, ", "))
	state := "converged"
	if !converged {
		state = "did not converge"
	}
	fmt.Fprintf(w, "%s after %s (best of %s), fit in %.3f s\n", state, plural(iters, "iteration"), plural(ninit, "restart"), secs)
}

// gmmText prints a mixture fit for people.
func gmmText(w io.Writer, path string, names []string, g *mixture.GMM, all []*mixture.GMM, secs float64) {
	if all != nil {
		t := &report.Table{Right: true}
		t.Add("k", "log-likelihood", "BIC", "AIC")
		for _, h := range all {
			t.Add(strconv.Itoa(h.K), report.Num(h.LogLikelihood), report.Num(h.BIC()), report.Num(h.AIC()))
		}
		t.Write(w)
		fmt.Fprintf(w, "lowest BIC: k=%d\n\n", g.K)
	}
	fitLine(w, path, fmt.Sprintf("Gaussian mixture, k=%d, %s covariances", g.K, g.Covariance), g.N, names, g.Iterations, g.Converged, g.NInit, secs)
	fmt.Fprintf(w, "mean log-likelihood %s, BIC %s, AIC %s\n\n", report.Num(g.LogLikelihood), report.Num(g.BIC()), report.Num(g.AIC()))
	d := g.D
	t := &report.Table{Right: true}
	head := []string{"component", "weight"}
	for _, n := range names {
		head = append(head, "mean "+n)
	}
	switch g.Covariance {
	case mixture.Diag:
		for _, n := range names {
			head = append(head, "var "+n)
		}
	case mixture.Spherical:
		head = append(head, "variance")
	}
	t.Add(head...)
	for j := range g.K {
		row := []string{strconv.Itoa(j + 1), report.Num(g.Weights[j])}
		for _, v := range g.Mean(j) {
			row = append(row, report.Num(v))
		}
		switch g.Covariance {
		case mixture.Diag:
			for _, v := range g.Covariances[j*d : (j+1)*d] {
				row = append(row, report.Num(v))
			}
		case mixture.Spherical:
			row = append(row, report.Num(g.Covariances[j]))
		}
		t.Add(row...)
	}
	t.Write(w)
	matrix := func(title string, m []float64) {
		fmt.Fprintf(w, "\n%s:\n", title)
		t := &report.Table{Right: true}
		t.Add(append([]string{""}, names...)...)
		for a := range d {
			row := []string{names[a]}
			for b := range d {
				row = append(row, report.Num(m[a*d+b]))
			}
			t.Add(row...)
		}
		t.Write(w)
	}
	switch g.Covariance {
	case mixture.Full:
		for j := range g.K {
			matrix(fmt.Sprintf("covariance of component %d", j+1), g.Covariances[j*d*d:(j+1)*d*d])
		}
	case mixture.Tied:
		matrix("covariance (shared)", g.Covariances)
	}
}

// kmeansText prints a k-means fit for people.
func kmeansText(w io.Writer, path string, names []string, r *mixture.KMeansResult, secs float64) {
	fitLine(w, path, fmt.Sprintf("k-means, k=%d", r.K), len(r.Labels), names, r.Iterations, r.Converged, r.NInit, secs)
	fmt.Fprintf(w, "inertia %s\n\n", report.NumDensity(r.Inertia, r.LogInertia))
	t := &report.Table{Right: true}
	t.Add(append([]string{"cluster", "rows"}, names...)...)
	for j := range r.K {
		row := []string{strconv.Itoa(j + 1), strconv.Itoa(r.Sizes[j])}
		for _, v := range r.Center(j) {
			row = append(row, report.Num(v))
		}
		t.Add(row...)
	}
	t.Write(w)
}

// writeMixture writes the fitted mixture g of the columns names of the
// data at path as a .pbl model to out.
func writeMixture(out, path string, names []string, g *mixture.GMM) error {
	m, err := mixtureModel(out, path, names, g)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	header := fmt.Sprintf("Fitted by pbl cluster to %s: %d components, covariance %s, mean log-likelihood %s.", filepath.Base(path), g.K, g.Covariance, ir.FormatFloat(g.LogLikelihood))
	if err := source.Write(&buf, m, header); err != nil {
		return fileErrorf(out, "%v", err)
	}
	return writeAtomic(out, buf.Bytes())
}

// mixtureModel returns the fitted mixture g of the columns names of the
// data at path as a model named file: the component variable
// (--component) and the columns' density given it.
func mixtureModel(file, path string, names []string, g *mixture.GMM) (*ir.Model, error) {
	for _, n := range names {
		if n == clusterComp {
			return nil, fileErrorf(path, "the component variable %q is also a column: name it otherwise with --component", clusterComp)
		}
	}
	states := make([]string, g.K)
	for j := range states {
		states[j] = "c" + strconv.Itoa(j+1)
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = ir.Quote(n)
	}
	src := fmt.Sprintf("var %s: {%s}\nvar %s: real\nmixture %s of %s (covariance = %s)\n",
		ir.Quote(clusterComp), strings.Join(states, ", "), strings.Join(quoted, ", "), ir.Quote(clusterComp), strings.Join(quoted, ", "), g.Covariance)
	m, err := loadSource(file, []byte(src))
	if err != nil {
		return nil, fileErrorf(file, "%v", err)
	}
	return learn.FromGMM(m, g)
}

// savePlot writes figure to the --plot file and records it in o; it
// reports a failure and returns false.
func savePlot(c *cli, o *report.Object, figure io.WriterTo) bool {
	if err := writeFigure(clusterPlot, figure); err != nil {
		c.report(err)
		return false
	}
	o.Set("plot", clusterPlot)
	return true
}

// writeFigure writes a rendered plot to path, atomically.
func writeFigure(path string, figure io.WriterTo) error {
	return streamAtomic(path, func(w io.Writer) error {
		_, err := figure.WriteTo(w)
		return err
	})
}

// clusterProgress returns the progress callback of a mixture fit of
// nInit restarts and a function that clears its line: on a terminal
// (stderr is one, and not --json) the restart, iteration and mean
// log-likelihood are shown on one line of stderr, at most ten times a
// second, and at every new restart; otherwise nil and a no-op.
func clusterProgress(c *cli, nInit int) (progress func(restart, iteration int, meanLogLik float64), stop func()) {
	f, ok := c.stderr.(*os.File)
	if !ok || c.json || !term.IsTerminal(int(f.Fd())) {
		return nil, func() {}
	}
	last, lastRestart, shown := time.Time{}, -1, false
	progress = func(restart, iteration int, ll float64) {
		if restart == lastRestart && time.Since(last) < 100*time.Millisecond {
			return
		}
		last, lastRestart, shown = time.Now(), restart, true
		fmt.Fprintf(f, "\rrestart %d/%d, iteration %d: mean log-likelihood %s\x1b[K", restart+1, nInit, iteration, report.Num(ll))
	}
	return progress, func() {
		if shown {
			fmt.Fprint(f, "\r\x1b[K")
		}
	}
}
