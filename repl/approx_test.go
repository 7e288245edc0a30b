package repl

import (
	"regexp"
	"testing"
)

// TestApproximateBars: an approximate answer in an interactive session
// opens with its label, and the bars stand beside the probabilities (the
// label shifts the lines report.Text writes by one).
func TestApproximateBars(t *testing.T) {
	out, errOut, _, status := session(t, campfire, true, ":engine is", "P(Campfire | Storm=true)", "P(Storm=true)")
	if errOut != "" || status != 0 {
		t.Fatalf("stderr %q, status %d", errOut, status)
	}
	for _, want := range []string{
		`(?m)^approximate: is \(chosen by the caller\)$`,
		`(?m)^  Campfire  p +±$`,
		`(?m)^  true      0\.[0-9]+ +[0-9.e-]+  █+[▏▎▍▌▋▊▉]?$`,
		`(?m)^P\(Storm=true\) = 0\.[0-9]+ ± [0-9.e-]+  █+[▏▎▍▌▋▊▉]?$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("stdout does not match %s:\n%s", want, out)
		}
	}
}
