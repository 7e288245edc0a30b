package sample_test

import (
	"bytes"
	"encoding/csv"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/sample"
)

var update = flag.Bool("update", false, "update golden files")

func load(t testing.TB, path string) *ir.Model {
	t.Helper()
	m, err := pbl.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func newSampler(t testing.TB, m *ir.Model) *sample.Sampler {
	t.Helper()
	s, err := sample.NewSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// writeCSV returns the CSV text of n samples.
func writeCSV(t testing.TB, s *sample.Sampler, n int, seed uint64, missing float64) string {
	t.Helper()
	var b bytes.Buffer
	if err := s.WriteCSV(&b, n, seed, missing); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// readCSV parses text with encoding/csv, checking that every record has
// the header's number of fields.
func readCSV(t testing.TB, text string) [][]string {
	t.Helper()
	r := csv.NewReader(strings.NewReader(text))
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// within reports whether the empirical frequency f of an event of
// probability p among n independent samples is within k standard errors
// of p. The standard error of the frequency is sqrt(p(1-p)/n); for an
// event of probability 0 or 1 the frequency must be exact. NaN fails.
func within(f, p float64, n, k int) bool {
	se := math.Sqrt(p * (1 - p) / float64(n))
	return math.Abs(f-p) <= float64(k)*se
}

// TestAsiaFrequencies checks that 200,000 samples of asia reproduce every
// exact marginal and some pairwise joints within 4 standard errors.
func TestAsiaFrequencies(t *testing.T) {
	m := load(t, "../examples/asia.pbl")
	s := newSampler(t, m)
	const n = 200_000
	recs := readCSV(t, writeCSV(t, s, n, 7, 0))
	if len(recs) != n+1 {
		t.Fatalf("got %d records, want %d", len(recs), n+1)
	}
	if got, want := strings.Join(recs[0], ","), strings.Join(m.Names(), ","); got != want {
		t.Fatalf("header %q, want %q", got, want)
	}
	// counts[v][s]: rows where column v is state s.
	col := map[string]int{}
	for i, name := range recs[0] {
		col[name] = i
	}
	state := func(rec []string, v ir.VarID) int {
		st := m.Vars[v].State(rec[col[m.Vars[v].Name]])
		if st < 0 {
			t.Fatalf("unknown state in %q", rec)
		}
		return st
	}

	res := answer(t, m, "P(*)")
	for _, mg := range res.(*infer.Marginals).Marginals {
		counts := make([]int, len(m.Vars[mg.Var].States))
		for _, rec := range recs[1:] {
			counts[state(rec, mg.Var)]++
		}
		for st, p := range mg.P {
			f := float64(counts[st]) / n
			if !within(f, p, n, 4) {
				t.Errorf("P(%s=%s): frequency %.5f, exact %.5f (4 SE = %.5f)", m.Vars[mg.Var].Name, m.Vars[mg.Var].States[st], f, p, 4*math.Sqrt(p*(1-p)/n))
			}
		}
	}
	if len(res.(*infer.Marginals).Marginals) != len(m.Vars) {
		t.Errorf("P(*) gave %d marginals, want %d", len(res.(*infer.Marginals).Marginals), len(m.Vars))
	}

	for _, q := range []string{"P(tub, lung)", "P(either, xray)", "P(bronc, dysp)", "P(smoke, dysp)"} {
		res := answer(t, m, q)
		x, y := res.(*infer.Table).Vars[0], res.(*infer.Table).Vars[1]
		counts := make(map[[2]int]int)
		for _, rec := range recs[1:] {
			counts[[2]int{state(rec, x), state(rec, y)}]++
		}
		for _, row := range res.(*infer.Table).Rows {
			f := float64(counts[[2]int{row.Values[0], row.Values[1]}]) / n
			if !within(f, row.P, n, 4) {
				t.Errorf("%s at (%s, %s): frequency %.5f, exact %.5f", q, m.Vars[x].States[row.Values[0]], m.Vars[y].States[row.Values[1]], f, row.P)
			}
		}
	}
}

func answer(t *testing.T, m *ir.Model, text string) infer.Result {
	t.Helper()
	q, err := pbl.ParseQuery(m, text)
	if err != nil {
		t.Fatal(err)
	}
	res, err := infer.Answer(m, q, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestManyStates checks the binary search (more than 8 states) and rows
// with zeros, first, inside and last, against exact frequencies.
func TestManyStates(t *testing.T) {
	b := ir.NewBuilder("many")
	states := ir.RangeStates(0, 11) // 12 states
	x, _ := b.AddVar(ir.Pos{}, "X", ir.Range, states, 0)
	y, _ := b.AddVar(ir.Pos{}, "Y", ir.Enum, []string{"a", "b", "c"}, 0)
	px := []float64{0, 0.05, 0.1, 0, 0.2, 0.15, 0.1, 0.05, 0.05, 0.2, 0.1, 0}
	b.SetCPT(ir.Pos{}, x, nil, px, nil)
	var py []float64
	for i := range states {
		switch i % 3 {
		case 0:
			py = append(py, 0, 0.5, 0.5)
		case 1:
			py = append(py, 1, 0, 0)
		default:
			py = append(py, 0.25, 0.75, 0)
		}
	}
	b.SetCPT(ir.Pos{}, y, []ir.VarID{x}, py, nil)
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	s := newSampler(t, m)
	const n = 100_000
	rng := rand.New(rand.NewPCG(3, 4))
	dst := make([]int32, 2)
	var cx [12]int
	var cxy [12][3]int
	for range n {
		s.Sample(rng, dst)
		cx[dst[0]]++
		cxy[dst[0]][dst[1]]++
	}
	for i, p := range px {
		if f := float64(cx[i]) / n; !within(f, p, n, 4) {
			t.Errorf("P(X=%d): frequency %.5f, exact %.5f", i, f, p)
		}
		for j := range 3 {
			pj := p * py[3*i+j]
			if f := float64(cxy[i][j]) / n; !within(f, pj, n, 4) {
				t.Errorf("P(X=%d, Y=%d): frequency %.5f, exact %.5f", i, j, f, pj)
			}
		}
	}
}

// TestMissingFraction checks that about the requested fraction of cells
// is empty, and that blanking leaves the other cells as they were drawn.
func TestMissingFraction(t *testing.T) {
	s := newSampler(t, load(t, "../examples/asia.pbl"))
	const n = 50_000
	for _, missing := range []float64{0, 0.01, 0.3, 0.9, 1} {
		recs := readCSV(t, writeCSV(t, s, n, 11, missing))
		empty, cells := 0, 0
		for _, rec := range recs[1:] {
			for _, c := range rec {
				cells++
				if c == "" {
					empty++
				}
			}
		}
		if cells != n*8 {
			t.Fatalf("missing=%v: %d cells, want %d", missing, cells, n*8)
		}
		if f := float64(empty) / float64(cells); !within(f, missing, cells, 4) {
			t.Errorf("missing=%v: %.5f of the cells are empty", missing, f)
		}
	}
}

// TestSeeds checks that a seed reproduces its output whatever GOMAXPROCS,
// and that different seeds give different output.
func TestSeeds(t *testing.T) {
	s := newSampler(t, load(t, "../examples/asia.pbl"))
	const n = 3*sample.ChunkRows + 17
	a := writeCSV(t, s, n, 1, 0.2)
	if b := writeCSV(t, s, n, 1, 0.2); a != b {
		t.Errorf("seed 1 gave two different outputs")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	if b := writeCSV(t, s, n, 1, 0.2); a != b {
		t.Errorf("seed 1 gave a different output with GOMAXPROCS=1")
	}
	runtime.GOMAXPROCS(5)
	if b := writeCSV(t, s, n, 1, 0.2); a != b {
		t.Errorf("seed 1 gave a different output with GOMAXPROCS=5")
	}
	// A prefix of the rows does not depend on n.
	if b := writeCSV(t, s, 100, 1, 0.2); !strings.HasPrefix(a, b) {
		t.Errorf("the first 100 rows of seed 1 depend on n")
	}
	if b := writeCSV(t, s, n, 2, 0.2); a == b {
		t.Errorf("seeds 1 and 2 gave the same output")
	}
	// Chunks differ from each other.
	recs := strings.Split(a, "\n")
	c0 := strings.Join(recs[1:1+200], "\n")
	c1 := strings.Join(recs[1+sample.ChunkRows:1+sample.ChunkRows+200], "\n")
	if c0 == c1 {
		t.Errorf("chunks 0 and 1 begin alike")
	}
}

// TestSampleMatchesWriteCSV checks the documented stream: Sample over
// ChunkSource(seed, c) gives chunk c's rows.
func TestSampleMatchesWriteCSV(t *testing.T) {
	m := load(t, "../examples/campfire.pbl")
	s := newSampler(t, m)
	const n = sample.ChunkRows + 10
	recs := readCSV(t, writeCSV(t, s, n, 42, 0))
	dst := make([]int32, len(m.Vars))
	for c := range 2 {
		rng := rand.New(sample.ChunkSource(42, c))
		for r := c * sample.ChunkRows; r < min(n, (c+1)*sample.ChunkRows); r++ {
			s.Sample(rng, dst)
			for i, v := range s.Columns() {
				if got, want := recs[1+r][i], m.Vars[v].States[dst[v]]; got != want {
					t.Fatalf("row %d, column %d: CSV has %q, Sample drew %q", r, i, got, want)
				}
			}
		}
	}
}

// TestGolden pins the first rows of campfire with seed 1: they must not
// change across runs, machines or versions (go test -update rewrites).
func TestGolden(t *testing.T) {
	s := newSampler(t, load(t, "../examples/campfire.pbl"))
	for _, tc := range []struct {
		file    string
		missing float64
	}{{"testdata/campfire-seed1.csv", 0}, {"testdata/campfire-seed1-missing.csv", 0.25}} {
		got := writeCSV(t, s, 12, 1, tc.missing)
		if *update {
			if err := os.WriteFile(tc.file, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.file, got, want)
		}
		// The rows are a prefix of a longer run's.
		if long := writeCSV(t, s, 10_000, 1, tc.missing); !strings.HasPrefix(long, got) {
			t.Errorf("%s: the first rows of 10000 differ", tc.file)
		}
	}
}

// TestQuoting checks that awkward variable and state names read back with
// encoding/csv exactly.
func TestQuoting(t *testing.T) {
	b := ir.NewBuilder("awkward")
	names := []string{`a,b`, `say "hi"`, ` lead`, "trail\t", "two\nlines", "plain", "cr\r"}
	states := [][]string{
		{`x,y`, `"q"`, ` s `},
		{`it's`, `""`, `a"b,c`},
		{"line\nbreak", "ok", "tab\t"},
		{",", "\"", "in\rside"}, // not "\r\n": encoding/csv reads it as "\n"
		{"one", "two", "three"},
		{"p", "q", "r"},
		{"", "-", "empty"},
	}
	for i, name := range names {
		v, ok := b.AddVar(ir.Pos{}, name, ir.Enum, states[i], 0)
		if !ok {
			t.Fatalf("AddVar %q: %v", name, b.Errs)
		}
		b.SetCPT(ir.Pos{}, v, nil, []float64{0.2, 0.3, 0.5}, nil)
	}
	r, _ := b.AddVar(ir.Pos{}, "real", ir.Real, nil, 0)
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	s := newSampler(t, m)
	for _, v := range s.Columns() {
		if v == r {
			t.Errorf("the real-valued variable is a column")
		}
	}
	const n = 500
	recs := readCSV(t, writeCSV(t, s, n, 5, 0))
	if got, want := strings.Join(recs[0], "|"), strings.Join(names, "|"); got != want {
		t.Errorf("header reads back as %q, want %q", got, want)
	}
	rng := rand.New(sample.ChunkSource(5, 0))
	dst := make([]int32, len(m.Vars))
	for i := range n {
		s.Sample(rng, dst)
		for j := range names {
			if got, want := recs[1+i][j], states[j][dst[j]]; got != want {
				t.Fatalf("row %d, column %q: read %q, want %q", i, names[j], got, want)
			}
		}
	}
}

// TestOneColumnMissing checks that a blank cell of a one-column file is
// not a blank line, which CSV readers skip.
func TestOneColumnMissing(t *testing.T) {
	b := ir.NewBuilder("one")
	v, _ := b.AddVar(ir.Pos{}, "A", ir.Bool, nil, 0)
	b.SetCPT(ir.Pos{}, v, nil, []float64{0.5, 0.5}, nil)
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	text := writeCSV(t, newSampler(t, m), 1000, 1, 0.5)
	recs := readCSV(t, text)
	if len(recs) != 1001 {
		t.Fatalf("read %d records, want 1001", len(recs))
	}
	if !strings.Contains(text, "\n\"\"\n") {
		t.Errorf("no missing cell written as \"\"")
	}
}

// TestRefused checks the models forward sampling cannot handle.
func TestRefused(t *testing.T) {
	b := ir.NewBuilder("markov.uai")
	x, _ := b.AddVar(ir.Pos{}, "X", ir.Bool, nil, 0)
	y, _ := b.AddVar(ir.Pos{}, "Y", ir.Bool, nil, 0)
	b.AddFactor(ir.Pos{}, []ir.VarID{x, y}, []float64{1, 2, 3, 4})
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sample.NewSampler(m); err == nil || !strings.Contains(err.Error(), "Markov network") {
		t.Errorf("Markov network: got error %v", err)
	}
	var w bytes.Buffer
	if err := sample.WriteCSV(&w, m, 10, 1, 0); err == nil || w.Len() != 0 {
		t.Errorf("WriteCSV of a Markov network: error %v, wrote %q", err, w.String())
	}

	b = ir.NewBuilder("real.pbl")
	b.AddVar(ir.Pos{}, "R", ir.Real, nil, 0)
	if m, err = b.Finish(); err != nil {
		t.Fatal(err)
	}
	if _, err := sample.NewSampler(m); err == nil || !strings.Contains(err.Error(), "no discrete variables") {
		t.Errorf("only real variables: got error %v", err)
	}
}

func TestBadArguments(t *testing.T) {
	s := newSampler(t, load(t, "../examples/campfire.pbl"))
	for _, missing := range []float64{-0.1, 1.5, math.NaN()} {
		if err := s.WriteCSV(&bytes.Buffer{}, 10, 1, missing); err == nil {
			t.Errorf("missing=%v accepted", missing)
		}
	}
	if err := s.WriteCSV(&bytes.Buffer{}, -1, 1, 0); err == nil {
		t.Errorf("n=-1 accepted")
	}
	if got := writeCSV(t, s, 0, 1, 0); got != "Storm,BusTourGroup,Lightning,Campfire,Thunder,ForestFire\n" {
		t.Errorf("n=0 wrote %q", got)
	}
}

// failWriter fails after a number of writes.
type failWriter struct{ left int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.left == 0 {
		return 0, os.ErrClosed
	}
	w.left--
	return len(p), nil
}

// TestWriteError checks that a write error stops WriteCSV and is
// returned, serially and in parallel.
func TestWriteError(t *testing.T) {
	s := newSampler(t, load(t, "../examples/asia.pbl"))
	for _, procs := range []int{1, 4} {
		old := runtime.GOMAXPROCS(procs)
		for _, left := range []int{0, 1, 3} {
			if err := s.WriteCSV(&failWriter{left: left}, 50*sample.ChunkRows, 1, 0); err != os.ErrClosed {
				t.Errorf("GOMAXPROCS=%d, failing after %d writes: got %v", procs, left, err)
			}
		}
		runtime.GOMAXPROCS(old)
	}
}
