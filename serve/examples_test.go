//go:build !js

package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/pbl-lang/pbl"
)

// TestPageEveryModel opens every example, and ALARM, HEPAR2 and WIN95PTS
// from the corpus, clicks the first state of the first and of the last
// discrete variable, and compares every number of the page with pbl's
// answer to its query line (checkPage). A page per model, about 45 s: only
// with PBL_TEST_HEAVY=1 (CI's plain run has TestPageAsia and
// TestPageAlarmReady).
func TestPageEveryModel(t *testing.T) {
	if os.Getenv("PBL_TEST_HEAVY") != "1" {
		t.Skip("a page per model, about 45 s: only with PBL_TEST_HEAVY=1")
	}
	paths, _ := filepath.Glob(filepath.Join(repoRoot(t), "examples", "*.pbl"))
	alarm := alarmPath(t)
	for _, name := range []string{"alarm.bif", "hepar2.bif", "win95pts.bif"} {
		paths = append(paths, filepath.Join(filepath.Dir(alarm), name))
	}
	ctx := browser(t)
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			if _, err := os.Stat(path); err != nil {
				t.Skip(err)
			}
			m, err := pbl.LoadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			srv, _ := startServer(t, path)
			if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL()), chromedp.WaitVisible(readySel, chromedp.ByQuery)); err != nil {
				t.Fatal(err)
			}
			var first, last string
			for _, v := range m.Vars {
				if v.Discrete() && len(v.States) > 0 {
					if first == "" {
						first = v.Name
					}
					last = v.Name
				}
			}
			if first == "" {
				t.Skip("no discrete variable")
			}
			var errText string
			chromedp.Run(ctx, chromedp.TextContent(`[data-role="error"]`, &errText, chromedp.ByQuery))
			if _, err := pbl.Ask(m, "P(*)"); err != nil {
				// pbl cannot answer: the page must say why, and show no number.
				rows, _ := readRows(ctx)
				for _, r := range rows {
					if r.P != "" {
						t.Errorf("pbl cannot answer P(*) (%v), but the page shows P(%s=%s) = %s", err, r.Var, r.State, r.P)
					}
				}
				if strings.TrimSpace(errText) == "" {
					t.Errorf("pbl cannot answer P(*) (%v), and the page says nothing", err)
				}
				return
			}
			observed := map[string]string{}
			checkPage(t, ctx, m, observed)
			for _, name := range []string{first, last} {
				v, _ := m.Lookup(name)
				if err := clickState(ctx, name, v.States[0]); err != nil {
					t.Fatal(err)
				}
				if observed[name] == v.States[0] {
					delete(observed, name)
				} else {
					observed[name] = v.States[0]
				}
				var line string
				chromedp.Run(ctx, chromedp.Text(`[data-role="evidence"]`, &line, chromedp.ByQuery))
				var pe string
				chromedp.Run(ctx, chromedp.AttributeValue(`[data-role="pe"]`, "data-p", &pe, nil, chromedp.ByQuery))
				if pe == "0" {
					t.Logf("%s is impossible", line)
					continue
				}
				checkPage(t, ctx, m, observed)
			}
		})
	}
}
