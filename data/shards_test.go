package data

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// TestShards: files read one after another as one data set give the rows
// and the open variables' states of their concatenation, whatever their
// column orders, on one worker or several; a shard with other columns,
// and a bad row in a later shard, are errors positioned in that shard.
func TestShards(t *testing.T) {
	m := openModel(t)
	big := func(prefix string, n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString([]string{"red", "green", "", prefix + "x"}[i%4])
			b.WriteString(",s,c")
			b.WriteString(strings.Repeat("1", i%5))
			b.WriteByte('\n')
		}
		return b.String()
	}
	tests := []struct {
		name   string
		shards []string // each a CSV file
		want   string   // one CSV file with the same rows, or "" for an error
		err    string   // a regexp the error must match
	}{
		{"same order", []string{"Color,Size,Code\nred,s,c1\n", "Color,Size,Code\nblue,m,c2\nred,,c1\n"},
			"Color,Size,Code\nred,s,c1\nblue,m,c2\nred,,c1\n", ""},
		{"other order", []string{"Color,Size,Code\nred,s,c1\n", "Code,Color,Size\nc3,green,m\n", "Size,Code,Color\ns,c1,blue\n"},
			"Color,Size,Code\nred,s,c1\ngreen,m,c3\nblue,s,c1\n", ""},
		{"empty shard", []string{"Color,Size,Code\nred,s,c1\n", "Color,Size,Code\n", "Color,Size,Code\nblue,m,c2\n"},
			"Color,Size,Code\nred,s,c1\nblue,m,c2\n", ""},
		{"large shards", []string{"Color,Size,Code\n" + big("a", 3000), "Code,Size,Color\n" + swap(big("b", 3000))},
			"Color,Size,Code\n" + big("a", 3000) + big("b", 3000), ""},
		{"missing column", []string{"Color,Size,Code\nred,s,c1\n", "Color,Size\nblue,m\n"}, "",
			`^shard1\.csv:1:1: no column for Code, which shard0\.csv has`},
		{"extra column", []string{"Color,Size\nred,s\n", "Color,Size,Code\nblue,m,c1\n"}, "",
			`^shard1\.csv:1:1: column "Code" names a variable that shard0\.csv has no column for`},
		{"bad row later", []string{"Color,Size,Code\nred,s,c1\n", "Color,Size,Code\nred,s,c1\nblue,xl,c2\n"}, "",
			`^shard1\.csv:3:6: unknown state "xl" for Size`},
		{"bad header later", []string{"Color,Size\nred,s\n", "Color,Sise\nred,s\n"}, "",
			`^shard1\.csv:1:7: column "Sise" names no variable of the model \(did you mean "Size"\?\)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var paths []string
			for i, s := range tc.shards {
				p := filepath.Join(dir, "shard"+string(rune('0'+i))+".csv")
				if err := os.WriteFile(p, []byte(s), 0o666); err != nil {
					t.Fatal(err)
				}
				paths = append(paths, p)
			}
			for _, w := range []int{1, 2} {
				opt := Options{Workers: w, chunkSize: 512}
				r, err := OpenShards(paths, m, opt)
				var rows, states, errText string
				if err != nil {
					errText = err.Error()
				} else {
					rows, states, errText = readAll(m, r, 50)
				}
				errText = strings.ReplaceAll(errText, dir+string(filepath.Separator), "")
				if tc.err != "" {
					if !regexp.MustCompile(tc.err).MatchString(errText) {
						t.Errorf("%d workers: error %q, want %s", w, errText, tc.err)
					}
					continue
				}
				if errText != "" {
					t.Fatalf("%d workers: %s", w, errText)
				}
				one, err := NewReader("one.csv", bytes.NewReader([]byte(tc.want)), m, Options{Workers: 1})
				if err != nil {
					t.Fatal(err)
				}
				wantRows, wantStates, _ := readAll(m, one, 50)
				if cells(rows) != cells(wantRows) || states != wantStates {
					t.Errorf("%d workers: rows\n%s\nstates %s\nwant\n%s\nstates %s", w, rows, states, wantRows, wantStates)
				}
			}
		})
	}
}

// swap swaps the first and third fields of every row.
func swap(rows string) string {
	var b strings.Builder
	for _, row := range strings.Split(strings.TrimSuffix(rows, "\n"), "\n") {
		f := strings.Split(row, ",")
		b.WriteString(f[2] + "," + f[1] + "," + f[0] + "\n")
	}
	return b.String()
}

// readAll reads r to its end in batches of size rows, and closes it:
// the rows as dumpIndices writes them, the open variables' states, and
// the error text, to which a disagreement between Rows() and the rows
// read is added.
func readAll(m *ir.Model, r *Reader, size int) (rows, states, errText string) {
	defer r.Close()
	var out strings.Builder
	b := r.NewBatch(size)
	for {
		err := r.Read(b)
		out.WriteString(dumpIndices(m, b))
		if err == io.EOF {
			break
		}
		if err != nil {
			errText = err.Error()
			break
		}
	}
	if n := strings.Count(out.String(), "\n"); n != r.Rows() {
		errText += fmt.Sprintf(" [Rows() = %d, %d rows read]", r.Rows(), n)
	}
	return out.String(), fmt.Sprint(r.States()), errText
}

// cells drops the line numbers of dumped rows: a shard's rows are on the
// lines of its own file.
func cells(dump string) string {
	return regexp.MustCompile(`(?m)^\d+:`).ReplaceAllString(dump, "")
}
