package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs"
	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
	"github.com/pbl-lang/pbl/mixture"
)

// The tests run the pipelines in-process with Beam's prism runner and
// compare them with pbl's local learner and scorer on the whole data:
// learning from shards gives the same CPTs, Gaussians, EM trace and
// mixture parameters (to 1e-12 relative), scoring the same predictions
// and answers, byte for byte.

const tol = 1e-12

// near reports whether got is within tol of want, relative to scale
// (at least 1); NaN is never near.
func near(got, want, scale float64) bool {
	return math.Abs(got-want) <= tol*math.Max(1, scale)
}

// shard splits the CSV file src (no quoted line breaks) into files
// dir/part-i.csv of the given numbers of rows (the rest in the last),
// each with the header, and returns the glob of the shards.
func shard(t *testing.T, src string, sizes ...int) string {
	t.Helper()
	b := mustRead(t, src)
	lines := strings.SplitAfter(strings.TrimRight(string(b), "\n")+"\n", "\n")
	lines = lines[:len(lines)-1]
	header, rows := lines[0], lines[1:]
	dir := t.TempDir()
	for i := 0; i <= len(sizes); i++ {
		n := len(rows)
		if i < len(sizes) {
			n = min(sizes[i], len(rows))
		}
		out := header + strings.Join(rows[:n], "")
		rows = rows[n:]
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d.csv", i)), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "part-*.csv")
}

// pblBeam runs pbl-beam with args and returns its stdout.
func pblBeam(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if st := run(context.Background(), args, &stdout, &stderr); st != exitOK {
		t.Fatalf("pbl-beam %s: exit %d\n%s", strings.Join(args, " "), st, stderr.String())
	}
	return stdout.String()
}

// sameTrace checks pbl-beam's EM trace against pbl's, value by value
// (near, relative to pbl's value).
func sameTrace(t *testing.T, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("trace %v, pbl's %v", got, want)
	}
	for i := range got {
		if !near(got[i], want[i], math.Abs(want[i])) {
			t.Errorf("trace[%d] = %v, pbl's %v", i, got[i], want[i])
		}
	}
}

// local learns m from the whole file as pbl learn does.
func local(t *testing.T, m *ir.Model, csv string, opt learn.Options) (*ir.Model, *learn.Report) {
	t.Helper()
	out, rep, err := learn.Learn(m, func(m *ir.Model) (*data.Reader, error) { return data.Open(csv, m, data.Options{}) }, opt)
	if err != nil {
		t.Fatal(err)
	}
	return out, rep
}

// sameModel compares the learned numbers of two models: every CPT and
// Gaussian, and the states of every variable.
func sameModel(t *testing.T, got, want *ir.Model) {
	t.Helper()
	if len(got.Vars) != len(want.Vars) {
		t.Fatalf("%d variables, want %d", len(got.Vars), len(want.Vars))
	}
	for v := range want.Vars {
		id := ir.VarID(v)
		name := want.Vars[v].Name
		if g, w := strings.Join(got.Vars[v].States, ","), strings.Join(want.Vars[v].States, ","); g != w {
			t.Errorf("%s: states %s, want %s", name, g, w)
		}
		fw, fg := want.Factor(id), got.Factor(id)
		if (fw == nil) != (fg == nil) {
			t.Errorf("%s: table %v, want %v", name, fg != nil, fw != nil)
		}
		if fw != nil && fg != nil {
			if len(fg.Vals) != len(fw.Vals) {
				t.Errorf("%s: %d entries, want %d", name, len(fg.Vals), len(fw.Vals))
				continue
			}
			for i := range fw.Vals {
				if !near(fg.Vals[i], fw.Vals[i], 1) {
					t.Errorf("%s: entry %d = %v, want %v", name, i, fg.Vals[i], fw.Vals[i])
				}
			}
		}
		gw, gg := want.Gaussian(id), got.Gaussian(id)
		if (gw == nil) != (gg == nil) {
			t.Errorf("%s: Gaussian %v, want %v", name, gg != nil, gw != nil)
		}
		if gw != nil && gg != nil {
			for u := range gw.Mean {
				if !near(gg.Mean[u], gw.Mean[u], math.Abs(gw.Mean[u])) || !near(gg.SD[u], gw.SD[u], gw.SD[u]) {
					t.Errorf("%s: configuration %d: normal(%v, %v), want normal(%v, %v)", name, u, gg.Mean[u], gg.SD[u], gw.Mean[u], gw.SD[u])
				}
			}
		}
	}
}

// learnJSON is the part of pbl-beam learn --json the tests read.
type learnJSON struct {
	Rows      int64
	Trace     []float64
	Pipelines int
}

func TestLearnCountsShards(t *testing.T) {
	dir := t.TempDir()
	// Asia's structure without numbers, and a classifier whose variables
	// take their states from the data (each shard seeing them in another
	// order) with a real feature.
	asia := filepath.Join(dir, "asia.pbl")
	os.WriteFile(asia, []byte(`var asia, tub, smoke, lung, bronc, either, xray, dysp: {yes, no}
asia -> tub
smoke -> lung, bronc
lung, tub -> either
either -> xray
bronc, either -> dysp
`), 0o644)
	nb := filepath.Join(dir, "nb.pbl")
	os.WriteFile(nb, []byte(`var size: real
naive_bayes class given colour, shape, size
`), 0o644)
	nbCSV := filepath.Join(dir, "nb.csv")
	var b strings.Builder
	b.WriteString("class,colour,shape,size\n")
	rng := rand.New(rand.NewPCG(1, 2))
	colours := []string{"red", "green", "blue", "amber", ""}
	for i := range 900 {
		c := []string{"x", "y", "z"}[rng.IntN(3)]
		if i < 300 && c == "z" {
			c = "y" // z first appears in the second shard
		}
		size := fmt.Sprintf("%.3f", 10+3*rng.NormFloat64()+float64(len(c)*i%7))
		if rng.IntN(20) == 0 {
			size = ""
		}
		fmt.Fprintf(&b, "%s,%s,%s,%s\n", c, colours[(i/250+rng.IntN(2))%5], []string{"round", "square"}[rng.IntN(2)], size)
	}
	os.WriteFile(nbCSV, []byte(b.String()), 0o644)

	asiaCSV := "../../examples/data/asia_missing.csv"
	tests := []struct {
		name, model, csv string
		sizes            []int
		args             []string
		opt              learn.Options
	}{
		{"asia-mle", asia, asiaCSV, []int{700, 1}, nil, learn.Options{Method: learn.MLE}},
		{"asia-bayes", asia, asiaCSV, []int{1000, 500}, []string{"--method", "bayes", "--alpha", "0.5"}, learn.Options{Method: learn.Bayes, Alpha: 0.5}},
		{"asia-bdeu", asia, asiaCSV, []int{300}, []string{"--method", "bayes", "--ess", "10"}, learn.Options{Method: learn.Bayes, ESS: 10}},
		{"nb-open-gaussian", nb, nbCSV, []int{300, 300}, nil, learn.Options{Method: learn.MLE}},
		{"nb-mestimate", nb, nbCSV, []int{450}, []string{"--method", "mestimate", "--m", "2"}, learn.Options{Method: learn.MEstimate, M: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mustLoad(t, tc.model)
			opt := tc.opt
			opt.VarSmoothing = learn.DefaultVarSmoothing
			want, _ := local(t, m, tc.csv, opt)
			out := filepath.Join(t.TempDir(), "out.pbl")
			glob := shard(t, tc.csv, tc.sizes...)
			args := append([]string{"learn", tc.model, "--data", glob, "-o", out, "--json"}, tc.args...)
			var rep learnJSON
			if err := json.Unmarshal([]byte(pblBeam(t, args...)), &rep); err != nil {
				t.Fatal(err)
			}
			// The data as given, as pbl learn records it (learn.Provenance).
			src, err := os.ReadFile(out)
			if want := "// Learned by pbl-beam from " + glob + " (structure of " + filepath.Base(tc.model) + "), --method "; err != nil || !strings.HasPrefix(string(src), want) {
				t.Errorf("%s starts %.80q, want %q", out, src, want)
			}
			got := mustLoad(t, out)
			sameModel(t, got, want)
		})
	}
}

func TestLearnEMShards(t *testing.T) {
	dir := t.TempDir()
	lc := filepath.Join(dir, "lc.pbl")
	os.WriteFile(lc, []byte(`var Condition: {flu, cold, allergy}
var Fever, Cough, Sneezing, ItchyEyes, Fatigue: {yes, no}
Condition -> Fever, Cough, Sneezing, ItchyEyes, Fatigue
`), 0o644)
	csv := "../../examples/data/symptoms.csv"
	tests := []struct {
		name  string
		sizes []int
		args  []string
		opt   learn.Options
	}{
		{"mle", []int{300, 400}, []string{"--seed", "22", "--max-iter", "6"}, learn.Options{Method: learn.EM, Seed: 22, MaxIter: 6}},
		{"map-restarts", []int{999}, []string{"--seed", "3", "--max-iter", "3", "--alpha", "1", "--restarts", "2"}, learn.Options{Method: learn.EM, Seed: 3, MaxIter: 3, Alpha: 1, Restarts: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mustLoad(t, lc)
			opt := tc.opt
			opt.VarSmoothing = learn.DefaultVarSmoothing
			want, wrep := local(t, m, csv, opt)
			out := filepath.Join(t.TempDir(), "out.pbl")
			args := append([]string{"learn", lc, "--data", shard(t, csv, tc.sizes...), "-o", out, "--json", "--method", "em"}, tc.args...)
			var rep learnJSON
			if err := json.Unmarshal([]byte(pblBeam(t, args...)), &rep); err != nil {
				t.Fatal(err)
			}
			sameTrace(t, rep.Trace, wrep.Trace)
			got := mustLoad(t, out)
			sameModel(t, got, want)
		})
	}
}

// TestMixtureShards runs EM iterations of a Gaussian mixture over shards,
// one pipeline each, from a given start, and compares them with package
// mixture's EM from the same start on the whole data.
func TestMixtureShards(t *testing.T) {
	csv := "../../examples/data/points.csv"
	dir := t.TempDir()
	model := filepath.Join(dir, "mix.pbl")
	for _, form := range []string{"full", "diag", "spherical", "tied"} {
		t.Run(form, func(t *testing.T) {
			os.WriteFile(model, []byte("var Cluster: {a, b, c}\nvar x, y: real\nmixture Cluster of x, y (covariance = "+form+")\n"), 0o644)
			m := mustLoad(t, model)
			f, err := os.Open(csv)
			if err != nil {
				t.Fatal(err)
			}
			all, err := data.ReadAll(csv, f, m, data.Options{})
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			vals := make([]float64, 0, 2*all.N)
			for i := range all.N {
				vals = append(vals, all.Reals[0][i], all.Reals[1][i])
			}
			x := mixture.NewMatrix(all.N, 2, vals)
			o := gmmOptions(m, learn.Options{Method: learn.EM, Seed: 1})
			o.MaxIter, o.Tol = 2, 0
			g0, err := mixture.FitGMM(mixture.NewMatrix(50, 2, vals[:100]), o) // a start
			if err != nil {
				t.Fatal(err)
			}
			const iters = 4
			ro := o
			ro.Init, ro.Given, ro.MaxIter, ro.NInit = mixture.InitGiven, g0, iters, 1
			want, err := mixture.FitGMM(x, ro)
			if err != nil {
				t.Fatal(err)
			}
			l := &learner{r: &runner{name: "prism", work: t.TempDir()}, shards: mustExpand(t, shard(t, csv, 100, 250)), path: model}
			got, err := l.iterateGMM(context.Background(), m, m.Mixtures[0].Vars, g0, iters, 0, o.RegCovar)
			if err != nil {
				t.Fatal(err)
			}
			if l.rep.Pipelines != iters+1 {
				t.Errorf("%d pipelines, want %d", l.rep.Pipelines, iters+1)
			}
			for _, c := range []struct {
				name      string
				got, want []float64
			}{
				{"trace", got.Trace, want.Trace},
				{"weights", got.Weights, want.Weights},
				{"means", got.Means, want.Means},
				{"covariances", got.Covariances, want.Covariances},
				{"log-likelihood", []float64{got.LogLikelihood}, []float64{want.LogLikelihood}},
			} {
				if len(c.got) != len(c.want) {
					t.Fatalf("%s: %d values, want %d", c.name, len(c.got), len(c.want))
				}
				for i := range c.want {
					if !near(c.got[i], c.want[i], math.Abs(c.want[i])) {
						t.Errorf("%s[%d] = %v, want %v", c.name, i, c.got[i], c.want[i])
					}
				}
			}
		})
	}
}

func mustExpand(t *testing.T, glob string) []string {
	names, err := expand(context.Background(), glob)
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// The pbl command, built once, and beside it as pbl-beam this test binary,
// which runs as pbl-beam when $PBL_BEAM_TEST_MAIN is 1 (TestMain): pbl
// finds pbl-beam beside itself.
var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// pblBinary builds the pbl command, to compare with, and returns its path.
func pblBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "pbl-beam-test-"); buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(binDir, "pbl"), "./cmd/pbl")
		cmd.Dir = "../.."
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/pbl: %v\n%s", err, out)
			return
		}
		self, err := os.Executable()
		if err != nil {
			buildErr = err
			return
		}
		buildErr = os.Symlink(self, filepath.Join(binDir, "pbl-beam"))
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, "pbl")
}

func TestMain(m *testing.M) {
	if os.Getenv("PBL_BEAM_TEST_MAIN") == "1" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	initBeam() // for the tests that build pipelines without run
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// TestHandOver runs pbl learn --runner beam, which finds pbl-beam beside
// pbl and runs it with the same arguments (and the Beam options after
// --), and compares it with pbl learn on the whole file.
func TestHandOver(t *testing.T) {
	exe := pblBinary(t)
	dir := t.TempDir()
	lc := filepath.Join(dir, "lc.pbl")
	os.WriteFile(lc, []byte("var C: {a, b}\nvar Fever, Cough, Sneezing, ItchyEyes, Fatigue: {yes, no}\nC -> Fever, Cough, Sneezing, ItchyEyes, Fatigue\n"), 0o644)
	csv := "../../examples/data/symptoms.csv"
	learnArgs := []string{"learn", lc, "--method", "em", "--seed", "5", "--max-iter", "3", "--json"}
	local := exec.Command(exe, append(learnArgs, "--data", csv, "-o", filepath.Join(dir, "local.pbl"))...)
	want, err := local.Output()
	if err != nil {
		t.Fatalf("pbl learn: %v", err)
	}
	beam := exec.Command(exe, append(learnArgs, "--data", shard(t, csv, 500), "-o", filepath.Join(dir, "beam.pbl"), "--runner", "beam", "--", "--job_name=pbl-handover")...)
	beam.Env = append(os.Environ(), "PATH=", "PBL_BEAM_TEST_MAIN=1") // pbl-beam beside pbl, not on PATH
	var stderr bytes.Buffer
	beam.Stderr = &stderr
	got, err := beam.Output()
	if err != nil {
		t.Fatalf("pbl learn --runner beam: %v\n%s", err, stderr.String())
	}
	var g, w struct {
		Rows  int
		Trace []float64
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%v: %s", err, want)
	}
	if g.Rows != w.Rows || len(g.Trace) != len(w.Trace) || len(w.Trace) != 4 {
		t.Fatalf("pbl-beam: %s\npbl: %s", got, want)
	}
	for i := range w.Trace {
		if !near(g.Trace[i], w.Trace[i], math.Abs(w.Trace[i])) {
			t.Errorf("trace[%d] = %v, pbl's %v", i, g.Trace[i], w.Trace[i])
		}
	}
	gm := mustLoad(t, filepath.Join(dir, "beam.pbl"))
	wm := mustLoad(t, filepath.Join(dir, "local.pbl"))
	sameModel(t, gm, wm)
}

// TestScoreShards scores shards with pbl-beam classify and query --batch
// and compares each shard's output with pbl's on that shard alone, and
// the combined scores with pbl classify's on the whole file.
func TestScoreShards(t *testing.T) {
	exe := pblBinary(t)
	pblRun := func(args ...string) string {
		out, err := exec.Command(exe, args...).Output()
		if err != nil {
			t.Fatalf("pbl %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	dir := t.TempDir()
	csv := "../../examples/data/asia_missing.csv"
	model := "../../examples/asia.pbl"
	glob := shard(t, csv, 800, 0, 700)
	shards := mustExpand(t, glob)

	// classify: the same scores as pbl classify on the whole file, and
	// the same predictions, shard by shard.
	for _, format := range []string{"text", "json"} {
		args := []string{"classify", model, "--target", "lung", "--data", glob, "--predictions", filepath.Join(dir, "pred.csv")}
		wargs := []string{"classify", model, "--target", "lung", "--data", csv}
		if format == "json" {
			args, wargs = append(args, "--json"), append(wargs, "--json")
		}
		got, want := pblBeam(t, args...), pblRun(wargs...)
		if format == "json" {
			var g, w map[string]any
			json.Unmarshal([]byte(got), &g)
			json.Unmarshal([]byte(want), &w)
			if !near(g["log_loss"].(float64), w["log_loss"].(float64), 1) {
				t.Errorf("log loss %v, want %v", g["log_loss"], w["log_loss"])
			}
			delete(g, "log_loss")
			delete(w, "log_loss")
			delete(g, "shards")
			gb, _ := json.Marshal(g)
			wb, _ := json.Marshal(w)
			got, want = string(gb), string(wb)
		}
		if got != want {
			t.Errorf("classify %s:\n%s\nwant (pbl classify):\n%s", format, got, want)
		}
	}
	empty := func(i int) bool { return i == 1 } // the shard of no row: pbl refuses to score it
	if g, err := os.ReadFile(shardName(filepath.Join(dir, "pred"), 1, len(shards), ".csv")); err != nil || !bytes.Equal(g, []byte("row,true,predicted,P(lung=yes),P(lung=no)\n")) {
		t.Errorf("the predictions of an empty shard: %q (%v), want the header alone", g, err)
	}
	for i, s := range shards {
		if empty(i) {
			continue
		}
		want := filepath.Join(dir, fmt.Sprintf("want-%d.csv", i))
		pblRun("classify", model, "--target", "lung", "--data", s, "--predictions", want)
		compareFiles(t, shardName(filepath.Join(dir, "pred"), i, len(shards), ".csv"), want)
	}

	// query --batch: the same answers, shard by shard.
	queries := []string{"P(lung)", "P(either=yes, bronc=yes)", "MPE()"}
	pblBeam(t, append([]string{"query", model, "--batch", glob, "-o", filepath.Join(dir, "ans")}, queries...)...)
	for i, s := range shards {
		if empty(i) {
			continue
		}
		want := filepath.Join(dir, fmt.Sprintf("want-%d.jsonl", i))
		pblRun(append([]string{"query", model, "--batch", s, "-o", want}, queries...)...)
		compareFiles(t, shardName(filepath.Join(dir, "ans"), i, len(shards), ".jsonl"), want)
	}
}

// number matches a number in the outputs.
var number = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?`)

// compareFiles fails unless the files got and want are the same but for
// the last digits of their numbers (each within 1e-12, relative): the
// engines answer a query by variable elimination or by a junction tree
// depending on whether the model's tree is compiled yet, which in a
// parallel batch depends on the schedule, and the two round differently.
func compareFiles(t *testing.T, got, want string) {
	t.Helper()
	g := mustRead(t, got)
	w := mustRead(t, want)
	if len(w) < 100 {
		t.Fatalf("%s: only %d bytes", want, len(w))
	}
	gl, wl := strings.Split(string(g), "\n"), strings.Split(string(w), "\n")
	if len(gl) != len(wl) {
		t.Fatalf("%s: %d lines, pbl's %s %d", got, len(gl), want, len(wl))
	}
	bad := 0
	for i := range wl {
		gn, wn := number.FindAllString(gl[i], -1), number.FindAllString(wl[i], -1)
		same := number.ReplaceAllString(gl[i], "#") == number.ReplaceAllString(wl[i], "#") && len(gn) == len(wn)
		for k := 0; same && k < len(wn); k++ {
			x, _ := strconv.ParseFloat(gn[k], 64)
			y, _ := strconv.ParseFloat(wn[k], 64)
			same = near(x, y, math.Abs(y))
		}
		if !same && bad < 3 {
			t.Errorf("%s line %d:\n%s\npbl's %s:\n%s", got, i+1, gl[i], want, wl[i])
		}
		if !same {
			bad++
		}
	}
}

// TestErrors checks the exit statuses and messages: a bad cell in a later
// shard is an error at its shard's line (exit 1, nothing written), a bad
// command line exit 2.
func TestErrors(t *testing.T) {
	dir := t.TempDir()
	model := "../../examples/asia.pbl"
	const header = "asia,tub,smoke,lung,bronc,either,xray,dysp\n"
	for i, rows := range []string{header + "yes,no,no,no,no,no,no,no\n", header + "no,no,yes,yes,no,yes,yes,no\nyes,no,no,maybe,no,no,no,no\n"} {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d.csv", i)), []byte(rows), 0o644)
	}
	glob := filepath.Join(dir, "part-*.csv")
	out := filepath.Join(dir, "out.pbl")
	tests := []struct {
		args   []string
		status int
		stderr string
	}{
		{[]string{"learn", model, "--data", glob, "-o", out}, exitError, "part-1.csv:3:11: unknown state \"maybe\" for lung"},
		{[]string{"classify", model, "--target", "lung", "--data", glob}, exitError, "part-1.csv:3:11: unknown state \"maybe\" for lung"},
		{[]string{"learn", model, "--data", filepath.Join(dir, "none-*.csv"), "-o", out}, exitError, "no file matches"},
		{[]string{"learn", model}, exitUsage, "--data SHARDS is required"},
		{[]string{"learn", model, "--data", glob, "--method", "gradient"}, exitUsage, "not run by pbl-beam"},
		{[]string{"learn", model, "--data", glob, "--alpha", "-1", "--method", "bayes"}, exitUsage, "alpha"},
		{[]string{"classify", model, "--target", "lung", "--data", glob, "--cv", "5"}, exitUsage, "--cv is not run by pbl-beam"},
		{[]string{"query", model, "--batch", glob, "P(lung)"}, exitUsage, "-o PREFIX is required"},
		{[]string{"frobnicate"}, exitUsage, "unknown command"},
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		st := run(context.Background(), tc.args, &stdout, &stderr)
		if st != tc.status || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("pbl-beam %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), st, stderr.String(), tc.status, tc.stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s written despite the errors", out)
	}
}

// TestBeamFilesystem reads the shards from a Beam filesystem pattern (the
// in-memory memfs, as gs:// or s3:// would be read) and leaves the
// pipelines' results and the predictions there too.
func TestBeamFilesystem(t *testing.T) {
	csv := "../../examples/data/asia_missing.csv"
	glob := shard(t, csv, 900)
	names := mustExpand(t, glob)
	for i, name := range names {
		b := mustRead(t, name)
		memfs.Write(fmt.Sprintf("memfs://rows/part-%d.csv", i), b)
	}
	dir := t.TempDir()
	model := filepath.Join(dir, "asia.pbl")
	os.WriteFile(model, []byte("var asia, tub, smoke, lung, bronc, either, xray, dysp: {yes, no}\nasia -> tub\nsmoke -> lung, bronc\nlung, tub -> either\neither -> xray\nbronc, either -> dysp\n"), 0o644)
	out := filepath.Join(dir, "out.pbl")
	pblBeam(t, "learn", model, "--data", "memfs://rows/part-*.csv", "--work", "memfs://work", "-o", out, "--method", "bayes")
	m := mustLoad(t, model)
	want, _ := local(t, m, csv, learn.Options{Method: learn.Bayes, Alpha: 1, VarSmoothing: learn.DefaultVarSmoothing})
	got := mustLoad(t, out)
	sameModel(t, got, want)

	pblBeam(t, "classify", out, "--target", "lung", "--data", "memfs://rows/part-*.csv", "--work", "memfs://work", "--predictions", "memfs://preds/p.csv")
	for i := range names {
		b, err := readFile(context.Background(), shardName("memfs://preds/p", i, len(names), ".csv"))
		if err != nil || !bytes.HasPrefix(b, []byte("row,true,predicted,P(lung=yes),P(lung=no)\n")) || bytes.Count(b, []byte("\n")) < 100 {
			t.Errorf("memfs predictions of shard %d: %d bytes, %v", i, len(b), err)
		}
	}
}

// TestMixtureMissing learns a mixture from rows with a missing value,
// which are not a Gaussian mixture's alone: pbl-beam, as pbl, learns them
// by network EM. The first shard holds every row, so that the densities
// start from the same rows as pbl's (the first shard's first rows).
func TestMixtureMissing(t *testing.T) {
	dir := t.TempDir()
	src := mustRead(t, "../../examples/data/points.csv")
	lines := strings.Split(string(src), "\n")
	lines[7] = "," // x and y missing on line 8
	csv := filepath.Join(dir, "points.csv")
	os.WriteFile(csv, []byte(strings.Join(lines, "\n")), 0o644)
	model := filepath.Join(dir, "mix.pbl")
	os.WriteFile(model, []byte("var Cluster: {a, b, c}\nvar x, y: real\nmixture Cluster of x, y (covariance = diag)\n"), 0o644)
	m := mustLoad(t, model)
	want, wrep := local(t, m, csv, learn.Options{Method: learn.EM, Seed: 1, MaxIter: 4, VarSmoothing: learn.DefaultVarSmoothing})
	out := filepath.Join(dir, "out.pbl")
	var rep learnJSON
	if err := json.Unmarshal([]byte(pblBeam(t, "learn", model, "--data", shard(t, csv, 10000), "--method", "em", "--seed", "1", "--max-iter", "4", "-o", out, "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	sameTrace(t, rep.Trace, wrep.Trace)
	got := mustLoad(t, out)
	for v := range want.Vars {
		gw, gg := want.MultiNormal(ir.VarID(v)), got.MultiNormal(ir.VarID(v))
		if (gw == nil) != (gg == nil) {
			t.Fatalf("%s: joint normal %v, pbl's %v", want.Vars[v].Name, gg != nil, gw != nil)
		}
		if gw == nil {
			continue
		}
		for u := range gw.Mean {
			for a := range gw.Mean[u] {
				if !near(gg.Mean[u][a], gw.Mean[u][a], math.Abs(gw.Mean[u][a])) {
					t.Errorf("%s: mean[%d][%d] = %v, pbl's %v", want.Vars[v].Name, u, a, gg.Mean[u][a], gw.Mean[u][a])
				}
			}
		}
	}
	if f := want.Factor(0); f != nil {
		for i, p := range f.Vals {
			if !near(got.Factor(0).Vals[i], p, 1) {
				t.Errorf("P(Cluster)[%d] = %v, pbl's %v", i, got.Factor(0).Vals[i], p)
			}
		}
	}
}

// mustLoad loads the model file path.
func mustLoad(t *testing.T, path string) *ir.Model {
	t.Helper()
	m, err := pbl.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// mustRead returns the contents of the file path.
func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
