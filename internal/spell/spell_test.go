package spell

import "testing"

func TestNearest(t *testing.T) {
	weather := []string{"Storm", "BusTourGroup", "Lightning", "Campfire", "Thunder", "ForestFire"}
	lung := []string{"smoke", "lung", "Storm", "medium"}
	short := []string{"A", "B", "Bb", "x1"} // names of one or two characters get only a difference in case
	for _, tc := range []struct {
		cands   []string
		x, want string
	}{
		{weather, "Strom", "Storm"},
		{weather, "storm", "Storm"},
		{weather, "campfire", "Campfire"},
		{weather, "Lightnin", "Lightning"},
		{weather, "Rain", ""},
		{weather, "X", ""},
		{weather, "Storm", ""},
		{lung, "smoker", "smoke"},
		{lung, "lng", "lung"},
		{lung, "meduim", "medium"},
		{lung, "zebra", ""},
		{lung, "smoke", ""}, // an exact match is not a suggestion
		{short, "C", ""},
		{short, "a", "A"},
		{short, "Cb", ""},
		{short, "X1", "x1"},
		{short, "x2", ""},
	} {
		if got := Nearest(tc.x, tc.cands); got != tc.want {
			t.Errorf("Nearest(%q, %q) = %q, want %q", tc.x, tc.cands, got, tc.want)
		}
	}
}
