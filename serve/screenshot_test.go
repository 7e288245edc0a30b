//go:build !js

package serve

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestScreenshots writes the pictures of docs/ (the page as a user sees
// it, with evidence) when PBL_SERVE_SCREENSHOTS names a folder:
//
//	PBL_SERVE_SCREENSHOTS=$PWD/docs go test -run TestScreenshots ./serve
func TestScreenshots(t *testing.T) {
	out := os.Getenv("PBL_SERVE_SCREENSHOTS")
	if out == "" {
		t.Skip("PBL_SERVE_SCREENSHOTS is not set: no pictures written")
	}
	for _, c := range []struct {
		name, path    string
		width, height int64
		clicks        [][2]string
		mpe           bool
	}{
		{"serve-asia.png", filepath.Join(repoRoot(t), "examples", "asia.pbl"), 1400, 860, [][2]string{{"asia", "yes"}, {"xray", "yes"}, {"dysp", "yes"}}, true},
		{"serve-alarm.png", alarmPath(t), 1920, 1500, [][2]string{{"HISTORY", "TRUE"}, {"BP", "LOW"}, {"CVP", "HIGH"}, {"HRBP", "NORMAL"}}, false},
		{"serve-mixture.png", filepath.Join(repoRoot(t), "examples", "mixture_network.pbl"), 1400, 860, [][2]string{{"Colour", "dark"}}, false},
		{"serve-spaces.png", filepath.Join(repoRoot(t), "examples", "line_fit.pbl"), 1400, 700, nil, false},
	} {
		ctx, _, _ := openPage(t, c.path)
		if err := chromedp.Run(ctx, chromedp.EmulateViewport(c.width, c.height)); err != nil {
			t.Fatal(err)
		}
		for _, k := range c.clicks {
			if err := clickState(ctx, k[0], k[1]); err != nil {
				t.Fatal(err)
			}
		}
		if c.mpe {
			if err := chromedp.Run(ctx, chromedp.Click(`[data-role="mpe-button"]`, chromedp.ByQuery), chromedp.WaitVisible(`[data-role="mpe"] .pair`, chromedp.ByQuery), chromedp.WaitVisible(readySel, chromedp.ByQuery)); err != nil {
				t.Fatal(err)
			}
		}
		var png []byte
		if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&png)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, c.name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
