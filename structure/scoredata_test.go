package structure

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// TestReadCSVMaxVars checks that a file of more than MaxVars columns is
// refused at its header, as a positioned error, before its rows are read
// (50,000 columns crashed pbl structure, out of memory); and that
// MaxVars columns are read.
func TestReadCSVMaxVars(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, cols int, rows int) string {
		var b strings.Builder
		for j := range cols {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString("v")
			b.WriteString(strings.Repeat("x", j%3))
			b.WriteString(strconv.Itoa(j))
		}
		b.WriteByte('\n')
		for i := range rows {
			for j := range cols {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteByte(byte('a' + (i+j)%2))
			}
			b.WriteByte('\n')
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, cols := range []int{MaxVars + 1, 50000} {
		p := write("wide.csv", cols, 3)
		_, err := ReadCSV(p)
		var e *ir.Error
		if !errors.As(err, &e) || e.Pos.File != p || e.Pos.Line != 1 || !strings.Contains(e.Msg, "at most "+strconv.Itoa(MaxVars)+" variables") {
			t.Errorf("%d columns: error %v, want one at %s:1 giving the limit", cols, err, p)
		}
	}
	d, err := ReadCSV(write("ok.csv", MaxVars, 3))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Names) != MaxVars || d.N != 3 {
		t.Errorf("%d columns and %d rows, want %d and 3", len(d.Names), d.N, MaxVars)
	}
}
