package spell

import "testing"

func TestNearest(t *testing.T) {
	cands := []string{"Storm", "BusTourGroup", "Lightning", "Campfire", "Thunder", "ForestFire"}
	for _, tc := range []struct{ x, want string }{
		{"Strom", "Storm"},
		{"storm", "Storm"},
		{"campfire", "Campfire"},
		{"Lightnin", "Lightning"},
		{"Rain", ""},
		{"X", ""},
		{"Storm", ""},
	} {
		if got := Nearest(tc.x, cands); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.x, got, tc.want)
		}
	}
	cands = []string{"smoke", "lung", "Storm", "medium"}
	for _, tc := range []struct{ x, want string }{
		{"smoker", "smoke"},
		{"lng", "lung"},
		{"meduim", "medium"},
		{"zebra", ""},
		{"smoke", ""}, // an exact match is not a suggestion
	} {
		if got := Nearest(tc.x, cands); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.x, got, tc.want)
		}
	}
	// Names of one or two characters get only a difference in case.
	cands = []string{"A", "B", "Bb", "x1"}
	for _, tc := range []struct{ x, want string }{
		{"C", ""},
		{"a", "A"},
		{"Cb", ""},
		{"X1", "x1"},
		{"x2", ""},
	} {
		if got := Nearest(tc.x, cands); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.x, got, tc.want)
		}
	}
}
