package learn

import "testing"

// TestProvenance checks the comment pbl learn and pbl-beam open a learned
// model with: the data argument as given (a glob of shards keeps its
// directory: issue 27 item 15), "-" as stdin, the model's base name.
func TestProvenance(t *testing.T) {
	for _, tc := range []struct{ tool, data, model, method, want string }{
		{"pbl learn", "rows/*.csv", "dir/m.pbl", "--method mle", "Learned by pbl learn from rows/*.csv (structure of m.pbl), --method mle."},
		{"pbl-beam", "rows/*.csv", "m.pbl", "--method em", "Learned by pbl-beam from rows/*.csv (structure of m.pbl), --method em."},
		{"pbl learn", "-", "m.pbl", "--method bayes --alpha 1", "Learned by pbl learn from stdin (structure of m.pbl), --method bayes --alpha 1."},
		{"pbl learn", "/data/d.csv", "/models/m.bif", "--method mle", "Learned by pbl learn from /data/d.csv (structure of m.bif), --method mle."},
	} {
		if got := Provenance(tc.tool, tc.data, tc.model, tc.method); got != tc.want {
			t.Errorf("Provenance(%q, %q, %q, %q) = %q, want %q", tc.tool, tc.data, tc.model, tc.method, got, tc.want)
		}
	}
}
