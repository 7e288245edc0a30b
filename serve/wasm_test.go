//go:build !js

package serve

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/chromedp/chromedp"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/internal/testrun"
)

// The limits of the static build's module (issue 30): 12 MB, 4 MB
// compressed with gzip.
const (
	maxWasm     = 12_000_000
	maxWasmGzip = 4_000_000
)

// TestStaticPage builds the static site (pbl serve --export DIR, by
// go run ./cmd/pbl-serve --export DIR),
// checks the module's size, serves the folder with a plain file server
// and drives the page in Chromium: every number of asia with evidence
// equals pbl's answer, computed here by the engines of this process.
func TestStaticPage(t *testing.T) {
	if !testrun.Heavy() {
		t.Skip("builds pbl for WebAssembly: a heavy case (not with -short or -race; PBL_TEST_HEAVY=1 takes it)")
	}
	// Skip first where there is no Chromium, but take the browser's
	// context (its 60 s) after the build, which uncached takes minutes.
	skipWithoutBrowser(t)
	dir := t.TempDir()
	cmd := exec.Command("go", "run", "./cmd/pbl-serve", "--export", dir)
	cmd.Dir = repoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./cmd/pbl-serve --export: %v\n%s", err, out)
	}
	wasm, err := os.ReadFile(filepath.Join(dir, "pbl.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	gz := gzipSize(t, wasm)
	t.Logf("pbl.wasm: %d bytes, %d gzip-compressed", len(wasm), gz)
	if len(wasm) > maxWasm || gz > maxWasmGzip {
		t.Errorf("pbl.wasm is %d bytes (%d compressed), over the limits of %d (%d)", len(wasm), gz, maxWasm, maxWasmGzip)
	}
	// The site again, with ALARM among its models.
	alarm, err := os.ReadFile(alarmPath(t))
	if err != nil {
		t.Fatal(err)
	}
	exec, err := os.ReadFile(filepath.Join(dir, "wasm_exec.js"))
	if err != nil {
		t.Fatal(err)
	}
	examples := fstest.MapFS{"alarm.bif": {Data: alarm}}
	files := map[string]string{ // the site's name: the file in pbl's source
		"asia.pbl":           "examples/asia.pbl",
		"two_means.pbl":      "examples/two_means.pbl",
		"data/two_means.csv": "examples/data/two_means.csv",
		"enjoysport.pbl":     "examples/enjoysport.pbl",
		"coin.pbl":           "serve/testdata/coin.pbl",
	}
	for name, src := range files {
		b, err := os.ReadFile(filepath.Join(repoRoot(t), src))
		if err != nil {
			t.Fatal(err)
		}
		examples[name] = &fstest.MapFile{Data: b}
	}
	if err := WriteStatic(dir, Static{Wasm: wasm, WasmExec: exec, Examples: examples}); err != nil {
		t.Fatal(err)
	}
	ctx := browser(t)
	ts := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer ts.Close()
	if err := chromedp.Run(ctx, chromedp.Navigate(ts.URL+"/index.html?model=asia.pbl"),
		chromedp.WaitVisible(`.row[data-p]`, chromedp.ByQuery), chromedp.WaitVisible(readySel, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	m, err := pbl.LoadFile(filepath.Join(repoRoot(t), "examples", "asia.pbl"))
	if err != nil {
		t.Fatal(err)
	}
	checkPage(t, ctx, m, nil)
	for _, c := range [][2]string{{"dysp", "yes"}, {"smoke", "no"}} {
		if err := clickState(ctx, c[0], c[1]); err != nil {
			t.Fatal(err)
		}
	}
	checkPage(t, ctx, m, map[string]string{"dysp": "yes", "smoke": "no"})

	// A mixture (learned by EM in the browser) and hypothesis spaces.
	for _, name := range []string{"two_means.pbl", "enjoysport.pbl", "coin.pbl"} {
		if err := chromedp.Run(ctx, chromedp.Navigate(ts.URL+"/index.html?model="+name),
			chromedp.WaitVisible(`.row[data-p]`, chromedp.ByQuery), chromedp.WaitVisible(readySel, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		m, err := pbl.LoadFile(filepath.Join(repoRoot(t), files[name]))
		if err != nil {
			t.Fatal(err)
		}
		if name == "two_means.pbl" {
			checkPage(t, ctx, m, nil)
			checkMixture(t, ctx, m, "Center", []string{"x"}, 6)
		} else {
			checkSpace(t, ctx, m, "H", "D")
		}
	}

	// ALARM, read by pbl's BIF reader in the browser.
	if err := chromedp.Run(ctx, chromedp.Navigate(ts.URL+"/index.html?model=alarm.bif"),
		chromedp.WaitVisible(`.row[data-var="HISTORY"][data-p]`, chromedp.ByQuery), chromedp.WaitVisible(readySel, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	am, err := pbl.LoadFile(alarmPath(t))
	if err != nil {
		t.Fatal(err)
	}
	clickTimes(t, ctx, am, "WebAssembly")
}

func gzipSize(t *testing.T, b []byte) int {
	cw := &countingWriter{}
	w, _ := gzip.NewWriterLevel(cw, gzip.BestCompression)
	w.Write(b)
	w.Close()
	return cw.n
}

type countingWriter struct{ n int }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

var _ io.Writer = (*countingWriter)(nil)
