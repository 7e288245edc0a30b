package causal

import (
	"encoding/json"
	"testing"
)

func TestTreeJSON(t *testing.T) {
	g := graph(t, "X M Y", "X->M, M->Y, X<->Y")
	est, err := g.Identify(Query{Y: []string{"Y"}, X: []string{"X"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(est.Tree())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"sum","over":["M"],"args":[{"kind":"product","args":[{"kind":"P","vars":["M"],"given":["X"]},{"kind":"sum","over":["X"],"args":[{"kind":"product","args":[{"kind":"P","vars":["Y"],"given":["X","M"]},{"kind":"P","vars":["X"]}]}]}]}]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}
