package pbl_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/hypothesis"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// TestBindingErrorKinds: the errors of data bound by LoadOptions.Data and
// of a listing over MaxTop are typed, carry their facts, and name no flag
// of the command line (cmd/pbl phrases them with --data and --top).
func TestBindingErrorKinds(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bif := write("n.bif", "network n {}\nvariable A { type discrete [ 2 ] { a, b }; }\nprobability ( A ) { table 0.5, 0.5; }\n")
	hdr := write("hdr.csv", "asia,tub,smoke,lung,bronc,either,xray,dysp\n")
	grid := write("grid.pbl", "space H {\n    w0, w1 in 0 .. 10 by 0.01\n    d ~ normal(w0 + w1, 1)\n}\ndata D = { d  1 }\n")

	var (
		ud  *ir.UnknownDataError
		bd  *pbl.BoundDataError
		top *pbl.TopError
	)
	for _, tc := range []struct {
		name string
		run  func() error
		kind error
		as   any
		fact func() bool
	}{
		{"data set the model does not name", func() error {
			_, err := pbl.LoadFileWith("examples/line_fit.pbl", pbl.LoadOptions{Data: map[string]string{"E": hdr}})
			return err
		}, ir.ErrUnknownData, &ud, func() bool { return ud.Name == "E" }},
		{"data set bound to a format with none", func() error {
			_, err := pbl.LoadFileWith(bif, pbl.LoadOptions{Data: map[string]string{"E": hdr}})
			return err
		}, ir.ErrUnknownData, &ud, func() bool { return ud.Name == "E" }},
		{"bound data with no rows", func() error {
			_, err := pbl.LoadFileWith("examples/missing_data.pbl", pbl.LoadOptions{Data: map[string]string{"asia_missing": hdr}})
			return err
		}, learn.ErrNoRows, &bd, func() bool { return bd.File == hdr }},
		{"listing over MaxTop", func() error {
			m, err := pbl.LoadFile(grid)
			if err != nil {
				return err
			}
			q, err := pbl.ParseQuery(m, "P(H | D)")
			if err != nil {
				return err
			}
			_, err = pbl.AnswerQuery(m, q, pbl.AnswerOptions{Top: 2_000_000})
			return err
		}, hypothesis.ErrTooLarge, &top, func() bool { return top.List == 1001*1001 && top.Top == 2_000_000 }},
	} {
		err := tc.run()
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if !errors.Is(err, tc.kind) {
			t.Errorf("%s: %v is not %v", tc.name, err, tc.kind)
		}
		if !errors.As(err, tc.as) {
			t.Errorf("%s: %v (%T) is not a %T", tc.name, err, err, tc.as)
		} else if !tc.fact() {
			t.Errorf("%s: %v: wrong facts %+v", tc.name, err, tc.as)
		}
		if strings.Contains(err.Error(), "--") {
			t.Errorf("%s: %q names a flag", tc.name, err)
		}
	}
}
