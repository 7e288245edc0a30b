//go:build !js

package serve

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// The browser tests drive the page in headless Chromium (Debian's
// chromium package, which .ci/run installs) through the testing contract
// of docs/serve.md: data-var, data-state, data-p, data-role. They skip,
// saying so, where no Chromium is installed.

var (
	browserOnce sync.Once
	browserPath string
	allocCtx    context.Context
	allocStop   context.CancelFunc
)

func TestMain(m *testing.M) {
	code := m.Run()
	if allocStop != nil {
		allocStop()
	}
	os.Exit(code)
}

// skipWithoutBrowser skips the test where no Chromium is installed, as
// browser does, without starting one.
func skipWithoutBrowser(t testing.TB) {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if _, err := exec.LookPath(name); err == nil {
			return
		}
	}
	t.Skip("no Chromium installed (apt-get install chromium): the browser tests skip")
}

// browser returns a new tab of a headless Chromium shared by the tests.
func browser(t testing.TB) context.Context {
	t.Helper()
	browserOnce.Do(func() {
		for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
			if p, err := exec.LookPath(name); err == nil {
				browserPath = p
				break
			}
		}
		if browserPath == "" {
			return
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(browserPath),
			chromedp.NoSandbox, // as root in CI
			chromedp.DisableGPU,
			chromedp.WindowSize(1400, 900),
		)
		allocCtx, allocStop = chromedp.NewExecAllocator(context.Background(), opts...)
	})
	if browserPath == "" {
		t.Skip("no Chromium installed (apt-get install chromium): the browser tests skip")
	}
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	ctx, cancel2 := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancel2)
	if err := chromedp.Run(ctx); err != nil {
		t.Skipf("Chromium at %s does not start: %v", browserPath, err)
	}
	return ctx
}

const readySel = `[data-role="status"][data-state="ready"]`

// stateRow is a state row of the page as its data attributes give it.
type stateRow struct {
	Var, State, P string
}

// readRows returns every state row of the page.
func readRows(ctx context.Context) ([]stateRow, error) {
	var rows []stateRow
	err := chromedp.Run(ctx, chromedp.Evaluate(`[...document.querySelectorAll("[data-state][data-var].row")].map(r => ({Var: r.dataset.var, State: r.dataset.state, P: r.dataset.p ?? ""}))`, &rows))
	return rows, err
}

// clickState clicks a state row and waits until the page is ready.
func clickState(ctx context.Context, v, s string) error {
	sel := fmt.Sprintf(`.row[data-var=%q][data-state=%q]`, v, s)
	return chromedp.Run(ctx, chromedp.Click(sel, chromedp.ByQuery), chromedp.WaitVisible(readySel, chromedp.ByQuery))
}

// wantMarginals answers the query line's question by pbl's API, with
// the variable elimination engine (the page's numbers come from Auto).
func wantMarginals(t *testing.T, m *ir.Model, line string) (map[string][]float64, float64) {
	t.Helper()
	q, err := pbl.ParseQuery(m, line)
	if err != nil {
		t.Fatalf("the query line %q: %v", line, err)
	}
	a, err := pbl.AnswerQuery(m, q, pbl.AnswerOptions{Infer: infer.Options{Engine: "ve"}})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]float64{}
	for _, mg := range a.Marginals() {
		out[mg.Var] = mg.P
	}
	pe := 1.0
	if line != "P(*)" {
		q, err := pbl.ParseQuery(m, peText(line))
		if err != nil {
			t.Fatal(err)
		}
		a, err := pbl.AnswerQuery(m, q, pbl.AnswerOptions{Infer: infer.Options{Engine: "ve"}})
		if err != nil {
			t.Fatal(err)
		}
		pe = a.Infer.(*infer.Evidence).P
	}
	return out, pe
}

// checkPage compares every data-p of the page, and P(e), with pbl's
// answer to the page's query line, to 1e-9; observed variables must show
// their state with probability 1.
func checkPage(t *testing.T, ctx context.Context, m *ir.Model, observed map[string]string) {
	t.Helper()
	var line, peText string
	if err := chromedp.Run(ctx,
		chromedp.Text(`[data-role="evidence"]`, &line, chromedp.ByQuery),
		chromedp.AttributeValue(`[data-role="pe"]`, "data-p", &peText, nil, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	want, wantPE := wantMarginals(t, m, line)
	rows, err := readRows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("the page shows no state rows")
	}
	n := 0
	for _, r := range rows {
		var p float64
		if _, err := fmt.Sscan(r.P, &p); err != nil {
			t.Fatalf("%s=%s: data-p %q: %v", r.Var, r.State, r.P, err)
		}
		v, _ := m.Lookup(r.Var)
		var w float64
		if s, ok := observed[r.Var]; ok {
			if r.State == s {
				w = 1
			}
		} else {
			ps, ok := want[r.Var]
			if !ok {
				t.Fatalf("%s: no marginal in pbl's answer to %s", r.Var, line)
			}
			w = ps[indexOf(v.States, r.State)]
		}
		if !(math.Abs(p-w) <= 1e-9) {
			t.Errorf("%s: P(%s=%s) = %s on the page, %v by pbl", line, r.Var, r.State, r.P, w)
		}
		n++
	}
	var pe float64
	fmt.Sscan(peText, &pe)
	if !(math.Abs(pe-wantPE) <= 1e-9*math.Max(1, wantPE)) {
		t.Errorf("%s: P(e) = %s on the page, %v by pbl", line, peText, wantPE)
	}
	t.Logf("%s: %d rows agree, P(e) = %s", line, n, peText)
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

// openPage opens the page of a server of the model at path and waits
// until it is ready.
func openPage(t *testing.T, path string) (context.Context, *Server, *ir.Model) {
	ctx := browser(t)
	srv, s := startServer(t, path)
	m, _, err := s.current()
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL()), chromedp.WaitVisible(readySel, chromedp.ByQuery), chromedp.WaitVisible(`.row[data-p]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	return ctx, srv, m
}

// TestPageAsia clicks evidence on asia and compares every number of the
// page with pbl's answer; clicking a state again clears it; do() sets.
func TestPageAsia(t *testing.T) {
	ctx, _, m := openPage(t, filepath.Join(repoRoot(t), "examples", "asia.pbl"))
	checkPage(t, ctx, m, nil)
	if err := clickState(ctx, "asia", "yes"); err != nil {
		t.Fatal(err)
	}
	checkPage(t, ctx, m, map[string]string{"asia": "yes"})
	if err := clickState(ctx, "xray", "yes"); err != nil {
		t.Fatal(err)
	}
	checkPage(t, ctx, m, map[string]string{"asia": "yes", "xray": "yes"})
	if err := clickState(ctx, "asia", "yes"); err != nil { // again: cleared
		t.Fatal(err)
	}
	checkPage(t, ctx, m, map[string]string{"xray": "yes"})
	// do(): the toolbar's mode, then a click sets smoke=no by intervention.
	if err := chromedp.Run(ctx, chromedp.Click(`[data-role="do-mode"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if err := clickState(ctx, "lung", "no"); err != nil {
		t.Fatal(err)
	}
	var line string
	chromedp.Run(ctx, chromedp.Text(`[data-role="evidence"]`, &line, chromedp.ByQuery))
	if line != "P(* | xray=yes, do(lung=no))" {
		t.Errorf("the query line is %q", line)
	}
	checkPage(t, ctx, m, map[string]string{"xray": "yes", "lung": "no"})

	// Likelihood evidence: clear, then drag dysp=no's bar to a quarter of its width.
	if err := chromedp.Run(ctx, chromedp.Click(`[data-role="clear"]`, chromedp.ByQuery), chromedp.WaitVisible(readySel, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	var r struct{ Left, Width, Top, Height float64 }
	if err := chromedp.Run(ctx, chromedp.Evaluate(`(() => { const b = document.querySelector('.row[data-var="dysp"][data-state="no"] .bar').getBoundingClientRect(); return {Left: b.left, Width: b.width, Top: b.top, Height: b.height}; })()`, &r)); err != nil {
		t.Fatal(err)
	}
	y := r.Top + r.Height/2
	if err := chromedp.Run(ctx,
		chromedp.MouseEvent(input.MousePressed, r.Left+r.Width-1, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.MouseMoved, r.Left+r.Width*0.6, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.MouseMoved, r.Left+r.Width*0.25, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.MouseReleased, r.Left+r.Width*0.25, y, chromedp.ButtonLeft),
		chromedp.Sleep(50*time.Millisecond),
		chromedp.WaitVisible(readySel, chromedp.ByQuery),
		chromedp.Text(`[data-role="evidence"]`, &line, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	if line != "P(* | dysp~[1, 0.25])" {
		t.Errorf("after the drag, the query line is %q, want P(* | dysp~[1, 0.25])", line)
	}
	checkPage(t, ctx, m, nil)
}

// TestPageEditError types an error into the source: the page lists the
// language server's diagnostic at its line and column, keeps the graph;
// removing it redraws, keeping the evidence.
func TestPageEditError(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "examples", "asia.pbl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "asia.pbl")
	os.WriteFile(path, src, 0o644)
	ctx, _, m := openPage(t, path)
	if err := clickState(ctx, "smoke", "yes"); err != nil {
		t.Fatal(err)
	}
	// Type on line 7, which is blank, a distribution of an undeclared variable.
	typed := "P(nosuch) = [0.5, 0.5]"
	if err := chromedp.Run(ctx,
		chromedp.Click(`.cm-content .cm-line:nth-child(7)`, chromedp.ByQuery),
		chromedp.KeyEvent(typed),
		chromedp.WaitVisible(`[data-role="diagnostics"] li[data-line]`, chromedp.ByQuery),
		chromedp.WaitVisible(readySel, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	var diags []map[string]string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`[...document.querySelectorAll('[data-role="diagnostics"] li')].map(l => ({line: l.dataset.line, col: l.dataset.col, text: l.textContent}))`, &diags)); err != nil {
		t.Fatal(err)
	}
	// The language server's diagnostics of the same text.
	srcLines := strings.Split(string(src), "\n")
	if srcLines[6] != "" {
		t.Fatalf("line 7 of asia.pbl is %q, not blank", srcLines[6])
	}
	srcLines[6] = typed
	text := strings.Join(srcLines, "\n")
	d, err := newDiagnoser(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	want, err := d.Diagnose(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || len(diags) != len(want) {
		t.Fatalf("the page lists %v, the language server %v", diags, want)
	}
	for i, w := range want {
		g := diags[i]
		if g["line"] != fmt.Sprint(w.Line) || g["col"] != fmt.Sprint(w.Col) || !strings.Contains(g["text"], w.Message) {
			t.Errorf("diagnostic %d: page %v, language server %+v", i, g, w)
		}
	}
	if got := diags[0]["line"]; got != "7" {
		t.Errorf("the error is at line %s, want 7 (the typed line)", got)
	}
	// The graph and the evidence stay.
	checkPage(t, ctx, m, map[string]string{"smoke": "yes"})
	// Undo the edit: no diagnostics, the evidence kept.
	if err := chromedp.Run(ctx,
		chromedp.KeyEvent("z", chromedp.KeyModifiers(input.ModifierCtrl)), // Ctrl+Z
		chromedp.WaitNotPresent(`[data-role="diagnostics"] li`, chromedp.ByQuery),
		chromedp.WaitVisible(readySel, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	checkPage(t, ctx, m, map[string]string{"smoke": "yes"})

	// A comment typed on line 7 and saved is in the file.
	if err := chromedp.Run(ctx,
		chromedp.Click(`.cm-content .cm-line:nth-child(7)`, chromedp.ByQuery),
		chromedp.KeyEvent("// saved"),
		chromedp.WaitVisible(readySel, chromedp.ByQuery),
		chromedp.Click(`[data-role="save"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`[data-role="save"]:not(.dirty)`, chromedp.ByQuery),
		chromedp.WaitVisible(readySel, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	srcLines[6] = "// saved"
	if string(saved) != strings.Join(srcLines, "\n") {
		t.Errorf("the saved file is not the source with the comment on line 7:\n%s", saved)
	}
}

// alarmPath returns the corpus's ALARM network, skipping the test where
// the corpus is absent.
func alarmPath(t *testing.T) string {
	corpus := os.Getenv("PBL_CORPUS")
	if corpus == "" {
		corpus = filepath.Join(repoRoot(t), "..", "shared", "corpus")
	}
	alarm := filepath.Join(corpus, "bif", "alarm.bif")
	if _, err := os.Stat(alarm); err != nil {
		t.Skipf("corpus not found at %s (set PBL_CORPUS): %v", corpus, err)
	}
	return alarm
}

// TestPageAlarmReady clicks states of ALARM and measures, in the browser,
// the time from the click to data-state="ready"; every number is checked
// after each click. The figure is docs/performance.md's "pbl serve".
func TestPageAlarmReady(t *testing.T) {
	alarm := alarmPath(t)
	ctx, _, m := openPage(t, alarm)
	clickTimes(t, ctx, m, "server")
}

// clickTimes clicks states of ALARM, checking every number after each
// click, and reports the time from each click to ready, measured in the
// page (performance.now and a MutationObserver on the status). With
// PBL_SERVE_TIMING set, a click slower than 100 ms fails the test.
func clickTimes(t *testing.T, ctx context.Context, m *ir.Model, where string) {
	clicks := [][2]string{{"HISTORY", "TRUE"}, {"CVP", "HIGH"}, {"BP", "LOW"}, {"HRBP", "NORMAL"}, {"SAO2", "LOW"}, {"PAP", "HIGH"}, {"MINVOL", "ZERO"}, {"CVP", "HIGH"}}
	observed := map[string]string{}
	var times []float64
	for _, c := range clicks {
		var ms float64
		js := fmt.Sprintf(`new Promise(resolve => {
			const status = document.querySelector('[data-role="status"]');
			const row = document.querySelector('.row[data-var=%q][data-state=%q]');
			const t0 = performance.now();
			const obs = new MutationObserver(() => {
				if (status.dataset.state === "ready") { obs.disconnect(); resolve(performance.now() - t0); }
			});
			obs.observe(status, {attributes: true});
			row.click();
		})`, c[0], c[1])
		if err := chromedp.Run(ctx, chromedp.Evaluate(js, &ms, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
			t.Fatal(err)
		}
		times = append(times, ms)
		if observed[c[0]] == c[1] {
			delete(observed, c[0])
		} else {
			observed[c[0]] = c[1]
		}
		checkPage(t, ctx, m, observed)
	}
	t.Logf("ALARM (%s): click to ready in ms, in click order: %.1f", where, times)
	sort.Float64s(times)
	t.Logf("ALARM (%s): click to ready in %.1f ms (median), %.1f ms (max) over %d clicks", where, times[len(times)/2], times[len(times)-1], len(times))
	if os.Getenv("PBL_SERVE_TIMING") != "" && times[len(times)-1] > 100 {
		t.Errorf("click to ready took %.1f ms, more than 100 ms", times[len(times)-1])
	}
}
