package flagargs

import (
	"flag"
	"io"
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		args      []string
		dash      Dash
		pos       []string
		json, err bool
		n         int
	}{
		{[]string{"m.pbl", "P(X)", "--json"}, DashEnds, []string{"m.pbl", "P(X)"}, true, false, 0},
		{[]string{"--json", "m.pbl", "-n", "3", "P(X)"}, DashEnds, []string{"m.pbl", "P(X)"}, true, false, 3},
		{[]string{"m.pbl", "--", "-n", "--json"}, DashEnds, []string{"m.pbl", "-n", "--json"}, false, false, 0},
		{[]string{"m.pbl", "--", "-n", "4", "--json", "x"}, DashSkipped, []string{"m.pbl", "x"}, true, false, 4},
		{[]string{"--", "a"}, DashSkipped, []string{"a"}, false, false, 0},
		{[]string{}, DashEnds, nil, false, false, 0},
		{[]string{"m.pbl", "--bogus"}, DashEnds, nil, false, true, 0},
		{[]string{"m.pbl", "--", "--bogus"}, DashSkipped, nil, false, true, 0},
	}
	for _, tc := range tests {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		json := fs.Bool("json", false, "")
		n := fs.Int("n", 0, "")
		pos, err := Parse(fs, tc.args, tc.dash)
		if (err != nil) != tc.err {
			t.Errorf("%q (dash %d): error %v, want error %v", tc.args, tc.dash, err, tc.err)
			continue
		}
		if tc.err {
			continue
		}
		if !slices.Equal(pos, tc.pos) || *json != tc.json || *n != tc.n {
			t.Errorf("%q (dash %d): %q, json %v, n %d; want %q, %v, %d", tc.args, tc.dash, pos, *json, *n, tc.pos, tc.json, tc.n)
		}
	}
}
