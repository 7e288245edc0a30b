package structure

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// TestReadCSVDuplicatesCapped: a header naming columns twice gives ten
// errors and a count of the rest, not one error per column (a million
// repeated columns were a million errors).
func TestReadCSVDuplicatesCapped(t *testing.T) {
	for _, tc := range []struct {
		dups int
		last string
	}{
		{3, `column "a" appears twice`},
		{11, `and 1 more column appears twice`},
		{25, `and 15 more columns appear twice`},
	} {
		path := filepath.Join(t.TempDir(), "d.csv")
		header := "a" + strings.Repeat(",a", tc.dups) + ",b\n0" + strings.Repeat(",0", tc.dups) + ",1\n"
		if err := os.WriteFile(path, []byte(header), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadCSV(path)
		var list ir.ErrorList
		if !errors.As(err, &list) {
			t.Fatalf("%d repeats: %v, want an ir.ErrorList", tc.dups, err)
		}
		if want := min(tc.dups, 11); len(list) != want {
			t.Errorf("%d repeats: %d errors, want %d", tc.dups, len(list), want)
		}
		if got := list[len(list)-1].Msg; got != tc.last {
			t.Errorf("%d repeats: last error %q, want %q", tc.dups, got, tc.last)
		}
	}
}
