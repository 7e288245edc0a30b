//go:build !js

package serve

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// densityBox is a real variable's curve as the page's data attributes
// give it.
type densityBox struct {
	X, Density string
	Comps      []struct{ State, Weight, Density string }
}

func parseFloats(t *testing.T, s string) []float64 {
	t.Helper()
	var out []float64
	for _, f := range strings.Fields(s) {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			t.Fatalf("%q: %v", f, err)
		}
		out = append(out, x)
	}
	return out
}

// askDensity is pbl's answer to density(v=x | given), as pbl query
// answers the text.
func askDensity(t *testing.T, m *ir.Model, v string, x float64, given string) float64 {
	t.Helper()
	text := "density(" + ir.Quote(v) + "=" + strconv.FormatFloat(x, 'g', -1, 64)
	if given != "" {
		text += " | " + given
	}
	text += ")"
	a, err := pbl.Ask(m, text)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return a.Infer.(*infer.Density).Density
}

// checkMixture compares a mixture's real variables' curves on the page
// with pbl's answers: every point of the density, density(v=x | e), and
// of each component, P(C=k | e) · density(v=x | C=k, e), to 1e-9 (points
// sampled every `step`); the component's bars are checked by checkPage.
func checkMixture(t *testing.T, ctx context.Context, m *ir.Model, comp string, vars []string, step int) {
	t.Helper()
	var line string
	if err := chromedp.Run(ctx, chromedp.Text(`[data-role="evidence"]`, &line, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	given := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(line, "P(*"), " | "), ")")
	want, _ := wantMarginals(t, m, line)
	cv, _ := m.Lookup(comp)
	for _, v := range vars {
		var box densityBox
		js := fmt.Sprintf(`(() => { const b = document.querySelector('.node[data-var=%q] [data-role="density"]'); return {X: b.dataset.x || "", Density: b.dataset.density || "", Comps: [...b.querySelectorAll("[data-component]")].map(c => ({State: c.dataset.component, Weight: c.dataset.weight, Density: c.dataset.density}))}; })()`, v)
		if err := chromedp.Run(ctx, chromedp.Evaluate(js, &box)); err != nil {
			t.Fatal(err)
		}
		xs, ds := parseFloats(t, box.X), parseFloats(t, box.Density)
		if len(xs) == 0 || len(xs) != len(ds) {
			t.Fatalf("%s: %d points, %d densities on the page", v, len(xs), len(ds))
		}
		n := 0
		for i := 0; i < len(xs); i += step {
			if w := askDensity(t, m, v, xs[i], given); !(math.Abs(ds[i]-w) <= 1e-9) {
				t.Errorf("%s: density(%s=%v) = %v on the page, %v by pbl", line, v, xs[i], ds[i], w)
			}
			n++
		}
		if len(box.Comps) == 0 {
			t.Fatalf("%s: no component curves on the page", v)
		}
		for _, c := range box.Comps {
			k := indexOf(cv.States, c.State)
			w, _ := strconv.ParseFloat(c.Weight, 64)
			var pk float64
			cgiven := given
			if ps, ok := want[comp]; ok {
				pk = ps[k]
				if cgiven != "" {
					cgiven += ", "
				}
				cgiven += ir.Quote(comp) + "=" + ir.Quote(c.State)
			} else { // the component observed or set: the one component
				pk = 1
			}
			if !(math.Abs(w-pk) <= 1e-9) {
				t.Errorf("%s: the weight of %s=%s is %v on the page, P(%s=%s | e) = %v by pbl", line, comp, c.State, w, comp, c.State, pk)
			}
			cd := parseFloats(t, c.Density)
			for i := 0; i < len(xs); i += step {
				if wd := pk * askDensity(t, m, v, xs[i], cgiven); !(math.Abs(cd[i]-wd) <= 1e-9) {
					t.Errorf("%s: component %s of %s at %v = %v on the page, %v by pbl", line, c.State, v, xs[i], cd[i], wd)
				}
				n++
			}
		}
		t.Logf("%s: %s: %d points agree with pbl", line, v, n)
	}
}

// TestPageMixture opens mixture_network.pbl (a mixture of length and
// weight over the hidden Species, inside a network): the component's box
// is labelled a mixture with its covariance, its bars, the densities and
// the components' curves agree with pbl's answers, before and after
// evidence is clicked.
func TestPageMixture(t *testing.T) {
	ctx, _, m := openPage(t, filepath.Join(repoRoot(t), "examples", "mixture_network.pbl"))
	var note map[string]string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`(() => { const n = document.querySelector('.node[data-var="Species"] [data-role="mixture"]'); return n ? {component: n.dataset.component, covariance: n.dataset.covariance, text: n.textContent, title: n.title} : null; })()`, &note)); err != nil {
		t.Fatal(err)
	}
	if note["component"] != "Species" || note["covariance"] != "full" || note["text"] != "mixture (covariance full)" || !strings.Contains(note["title"], "mixture of length, weight") {
		t.Errorf("the Species box's mixture label is %v", note)
	}
	checkPage(t, ctx, m, nil)
	checkMixture(t, ctx, m, "Species", []string{"length", "weight"}, 6)
	if err := clickState(ctx, "Colour", "dark"); err != nil {
		t.Fatal(err)
	}
	checkPage(t, ctx, m, map[string]string{"Colour": "dark"})
	checkMixture(t, ctx, m, "Species", []string{"length", "weight"}, 6)
	if err := clickState(ctx, "Species", "s2"); err != nil {
		t.Fatal(err)
	}
	checkPage(t, ctx, m, map[string]string{"Colour": "dark", "Species": "s2"})
	checkMixture(t, ctx, m, "Species", []string{"length", "weight"}, 10)
}

// hypRowOnPage is a hypothesis row of a space's box.
type hypRowOnPage struct {
	Hyp, P, Map, Role, Count string
}

// checkSpace compares a space's box with pbl's answers to P(H | D)
// (every hypothesis, the most probable first) and MAP(H | D): the rows
// listed are pbl's first, each P(h | D) to 1e-9, the rest counted with
// the rest's posterior mass, exactly one row marked MAP and it is pbl's.
func checkSpace(t *testing.T, ctx context.Context, m *ir.Model, space, data string) {
	t.Helper()
	var rows []hypRowOnPage
	js := fmt.Sprintf(`[...document.querySelectorAll('.node[data-space=%q][data-data=%q] [data-space][data-p]')].map(r => ({Hyp: r.dataset.hyp || "", P: r.dataset.p, Map: r.dataset.map || "", Role: r.dataset.role || "", Count: r.dataset.count || ""}))`, space, data)
	var mapHyp string
	if err := chromedp.Run(ctx, chromedp.Evaluate(js, &rows),
		chromedp.AttributeValue(fmt.Sprintf(`.node[data-space=%q] [data-role="map"]`, space), "data-hyp", &mapHyp, nil, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	post, err := pbl.Ask(m, "P("+space+" | "+data+")")
	if err != nil {
		t.Fatal(err)
	}
	mp, err := pbl.Ask(m, "MAP("+space+" | "+data+")")
	if err != nil {
		t.Fatal(err)
	}
	wantMAP := hypLabel(mp.Hyp, mp.Hyp.Hyps[0])
	if mapHyp != wantMAP {
		t.Errorf("%s: MAP %q on the page, %q by pbl", space, mapHyp, wantMAP)
	}
	hyps := post.Hyp.Hyps
	marked := 0
	listed := 0
	for i, r := range rows {
		p, err := strconv.ParseFloat(r.P, 64)
		if err != nil {
			t.Fatalf("%s: data-p %q", space, r.P)
		}
		if r.Role == "rest" {
			if i != len(rows)-1 {
				t.Errorf("%s: the rest is not the last row", space)
			}
			rest := 0.0
			for _, h := range hyps[listed:] {
				rest += math.Exp(h.LogPost)
			}
			if r.Count != strconv.Itoa(post.Hyp.Support-listed) || !(math.Abs(p-rest) <= 1e-9) {
				t.Errorf("%s: the rest is %s hypotheses of P %v on the page; pbl has %d of %v", space, r.Count, p, post.Hyp.Support-listed, rest)
			}
			continue
		}
		if listed >= len(hyps) {
			t.Fatalf("%s: more rows than pbl's %d hypotheses", space, len(hyps))
		}
		h := hyps[listed]
		if got, want := r.Hyp, hypLabel(post.Hyp, h); got != want {
			t.Errorf("%s: row %d is %q, pbl's %q", space, listed, got, want)
		}
		if w := math.Exp(h.LogPost); !(math.Abs(p-w) <= 1e-9) {
			t.Errorf("%s: P(%s | %s) = %v on the page, %v by pbl", space, r.Hyp, data, p, w)
		}
		if r.Map == "true" {
			marked++
			if r.Hyp != wantMAP {
				t.Errorf("%s: %s is marked MAP, pbl's MAP is %s", space, r.Hyp, wantMAP)
			}
		}
		listed++
	}
	if listed == 0 || marked != 1 {
		t.Errorf("%s: %d hypotheses listed, %d marked MAP", space, listed, marked)
	}
	if listed < post.Hyp.Support && (len(rows) == 0 || rows[len(rows)-1].Role != "rest") {
		t.Errorf("%s: %d of %d hypotheses listed, and no rest", space, listed, post.Hyp.Support)
	}
	t.Logf("%s | %s: %d hypotheses and MAP %s agree with pbl", space, data, listed, wantMAP)
}

// TestPageSpace opens a grid space with more hypotheses than the page
// lists (serve/testdata/coin.pbl, 19 of 21 possible) and a concept space
// (EnjoySport's version space): each box's numbers are pbl's.
func TestPageSpace(t *testing.T) {
	ctx, _, m := openPage(t, filepath.Join(repoRoot(t), "serve", "testdata", "coin.pbl"))
	checkSpace(t, ctx, m, "H", "D")
	ctx, _, m = openPage(t, filepath.Join(repoRoot(t), "examples", "enjoysport.pbl"))
	checkSpace(t, ctx, m, "H", "D")
}
