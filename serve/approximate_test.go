//go:build !js

package serve

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/internal/testrun"
)

// gridModel writes an n×n grid of bool variables X_r_c, each with its
// upper and left neighbours as parents and random tables, to a .pbl file
// and returns its path: exact elimination needs tables of 2^n entries.
func gridModel(t *testing.T, n int) string {
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	var b strings.Builder
	name := func(r, c int) string { return fmt.Sprintf("X_%d_%d", r, c) }
	for r := range n {
		for c := range n {
			fmt.Fprintf(&b, "var %s: bool\n", name(r, c))
		}
	}
	row := func() string {
		p := 0.05 + 0.9*rng.Float64()
		return fmt.Sprintf("[%.3f, %.3f]", p, 1-p)
	}
	for r := range n {
		for c := range n {
			var ps []string
			if r > 0 {
				ps = append(ps, name(r-1, c))
			}
			if c > 0 {
				ps = append(ps, name(r, c-1))
			}
			switch len(ps) {
			case 0:
				fmt.Fprintf(&b, "P(%s) = %s\n", name(r, c), row())
			case 1:
				fmt.Fprintf(&b, "P(%s | %s) = { true: %s  false: %s }\n", name(r, c), ps[0], row(), row())
			default:
				fmt.Fprintf(&b, "P(%s | %s, %s) = {\n", name(r, c), ps[0], ps[1])
				for _, k := range []string{"true, true", "true, false", "false, true", "false, false"} {
					fmt.Fprintf(&b, "    %s: %s\n", k, row())
				}
				b.WriteString("}\n")
			}
		}
	}
	path := filepath.Join(t.TempDir(), "grid.pbl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// approxEvidence is evidence on the 10×10 grid for the approximate tests.
var approxEvidence = []Finding{{Var: "X_9_9", State: "true"}, {Var: "X_3_4", State: "false"}, {Var: "X_6_1", State: "true"}}

// approxLimits makes the grid's exact plans too large (the junction
// tree's 206 KiB; variable elimination in the grid's own order fits
// 48 KiB but not 32 KiB), leaving
// the approximate engines room for a few i-bounds, and bounds their time
// (five times longer under the race detector, which slows them).
var approxLimits = Limits{MaxMemory: 32 << 10, TimeLimit: 3 * time.Second * raceTimes(5)}

// raceTimes returns n under the race detector, else 1.
func raceTimes(n time.Duration) time.Duration {
	if testrun.Race {
		return n
	}
	return 1
}

// TestUpdateApproximate: with a memory limit the exact plan does not fit,
// the beliefs and P(e) are approximate, say so (engine, why) and carry an
// error per number; the exact numbers (variable elimination, without the
// limit) lie within the reported errors. Without the limit nothing is
// marked.
func TestUpdateApproximate(t *testing.T) {
	grid := gridModel(t, 10)
	s := openSession(t, grid)
	exact, err := s.Update(context.Background(), approxEvidence)
	if err != nil || exact.Error != "" {
		t.Fatalf("%v %s", err, exact.Error)
	}
	if exact.Approximate != nil || exact.PEError != 0 {
		t.Errorf("without limits: marked approximate %+v, P(e) error %v", exact.Approximate, exact.PEError)
	}
	for _, bl := range exact.Beliefs {
		if bl.Error != nil {
			t.Errorf("without limits: %s has errors %v", bl.Var, bl.Error)
		}
	}

	// A session of its own: a session's answers share one compiled
	// junction tree, which the exact session above has built.
	s = openSession(t, grid)
	s.SetLimits(approxLimits)
	b, err := s.Update(context.Background(), approxEvidence)
	if err != nil || b.Error != "" {
		t.Fatalf("%v %s", err, b.Error)
	}
	if b.Approximate == nil || b.Approximate.Engine == "" || !strings.Contains(b.Approximate.Why, "memory limit") {
		t.Fatalf("with a 32 KiB limit: marked %+v, want approximate for the memory limit", b.Approximate)
	}
	t.Logf("approximate: %s (%s)", b.Approximate.Engine, b.Approximate.Why)
	m, _, _ := s.current()
	q, err := pbl.ParseQuery(m, b.Query)
	if err != nil {
		t.Fatal(err)
	}
	a, err := pbl.AnswerQuery(m, q, pbl.AnswerOptions{Infer: infer.Options{Engine: "ve"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]float64{}
	for _, mg := range a.Infer.(*infer.Marginals).Marginals {
		want[m.Vars[mg.Var].Name] = mg.P
	}
	in, all, sumErr := 0, 0, 0.0
	for _, bl := range b.Beliefs {
		w, ok := want[bl.Var]
		if !ok {
			continue // observed
		}
		if len(bl.Error) != len(bl.P) || len(bl.P) != len(w) {
			t.Errorf("%s: %d numbers, %d errors, want %d", bl.Var, len(bl.P), len(bl.Error), len(w))
			continue
		}
		for i, p := range bl.P {
			e := bl.Error[i]
			if !(p >= 0 && p <= 1) || !(e >= 0 && e <= 1) {
				t.Errorf("%s: number %d = %v ± %v", bl.Var, i, p, e)
			}
			all++
			sumErr += e
			if math.Abs(p-w[i]) <= e+1e-9 {
				in++
			}
		}
	}
	t.Logf("%d of %d numbers within the reported error (mean %.2g)", in, all, sumErr/float64(max(all, 1)))
	if all == 0 || !(float64(in) >= 0.95*float64(all)) {
		t.Errorf("%d of %d numbers within the reported error, want 95 %%", in, all)
	}
	if !(math.Abs(b.PE-exact.PE) <= b.PEError+1e-12) {
		t.Errorf("P(e) = %v ± %v, exact %v", b.PE, b.PEError, exact.PE)
	}
}

// TestPageApproximate: the page labels approximate beliefs (the line
// "approximate: ENGINE (WHY)", ≈ before each number, its error in
// data-err) and drops the label when the answers are exact again.
func TestPageApproximate(t *testing.T) {
	ctx := browser(t)
	srv, s := startServer(t, gridModel(t, 10))
	s.SetLimits(approxLimits)
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL()), chromedp.WaitVisible(readySel, chromedp.ByQuery), chromedp.WaitVisible(`.row[data-p]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if err := clickState(ctx, "X_9_9", "true"); err != nil {
		t.Fatal(err)
	}
	var label, engine, num string
	var errs int
	if err := chromedp.Run(ctx,
		chromedp.Text(`[data-role="approximate"]`, &label, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('[data-role="approximate"]').dataset.engine || ""`, &engine),
		chromedp.Evaluate(`document.querySelectorAll('.row[data-err]').length`, &errs),
		chromedp.Text(`.row[data-var="X_0_0"][data-state="true"] .num`, &num, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(label, "approximate: "+engine+" (") || engine == "" || !strings.Contains(label, "memory limit") {
		t.Errorf("the label is %q (engine %q)", label, engine)
	}
	if errs == 0 || !strings.HasPrefix(num, "≈") {
		t.Errorf("%d rows with data-err; X_0_0=true reads %q", errs, num)
	}
	if dir := os.Getenv("PBL_SERVE_SCREENSHOTS"); dir != "" {
		var png []byte
		if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&png)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "serve-approximate.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Exact again: the label goes.
	s.SetLimits(Limits{})
	if err := clickState(ctx, "X_9_9", "true"); err != nil {
		t.Fatal(err)
	}
	var hidden bool
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`document.querySelector('[data-role="approximate"]').hidden`, &hidden),
		chromedp.Evaluate(`document.querySelectorAll('.row[data-err]').length`, &errs),
	); err != nil {
		t.Fatal(err)
	}
	if !hidden || errs != 0 {
		t.Errorf("exact again: label hidden %v, %d rows with data-err", hidden, errs)
	}
}
