package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
)

// TestClusterExit checks pbl cluster's exit statuses: 2 for usage errors,
// 1 for bad data.
func TestClusterExit(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(csv, []byte("x,y\n1,2\n3,4\n5,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "g.csv")
	if err := os.WriteFile(good, []byte("x,y\n1,2\n3,4\n5,7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want int
		err  string
	}{
		{[]string{"cluster", good, "-k", "2"}, exitOK, ""},
		{[]string{"cluster", good, "-k", "2", "--method", "kmeans"}, exitOK, ""},
		{[]string{"cluster", good}, exitUsage, "-k K is required"},
		{[]string{"cluster", good, "-k", "x"}, exitUsage, "want a number of clusters"},
		{[]string{"cluster", good, "-k", "3..2"}, exitUsage, "the range is empty"},
		{[]string{"cluster", good, "-k", "2", "--method", "dbscan"}, exitUsage, "unknown --method"},
		{[]string{"cluster", good, "-k", "2", "--tol", "-1"}, exitUsage, "--tol -1"},
		{[]string{"cluster", good, "-k", "2", "--max-iter", "0"}, exitUsage, "--max-iter 0"},
		{[]string{"cluster", good, "-k", "2", "--reg-covar", "-1"}, exitUsage, "--reg-covar -1"},
		{[]string{"cluster", good, "-k", "2", "--init", "x"}, exitUsage, "unknown initialisation"},
		{[]string{"cluster", good, "-k", "2", "--columns", "x,x"}, exitUsage, "named twice"},
		{[]string{"cluster", good, good, "-k", "2"}, exitUsage, "want one CSV file"},
		{[]string{"cluster", csv, "-k", "2"}, exitError, "d.csv:4:3:"},
		{[]string{"cluster", good, "-k", "4"}, exitError, "3 rows for 4 clusters"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		if code != tc.want || !strings.Contains(stderr.String(), tc.err) {
			t.Errorf("pbl %s: exit %d, stderr %q; want exit %d, stderr containing %q", strings.Join(tc.args, " "), code, stderr.String(), tc.want, tc.err)
		}
	}
}

// TestReadMatrixWide: pbl cluster reads a file of few rows and many
// columns in time and memory linear in its size, every cell in its place
// (each column was looked for among all of them: 100,000 columns took
// 170 s), and the first of many missing cells is the error.
func TestReadMatrixWide(t *testing.T) {
	const d, n = 50_000, 3
	var b bytes.Buffer
	for j := range d {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "c%d", j)
	}
	b.WriteByte('\n')
	for i := range n {
		for j := range d {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%d", (i*d+j)%97)
		}
		b.WriteByte('\n')
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "wide.csv.gz")
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b.Bytes())
	zw.Close()
	if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	x, names, err := readMatrix(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second { // 42 s before
		t.Errorf("reading %d columns took %v", d, took)
	}
	if x.Rows != n || x.Cols != d || len(names) != d {
		t.Fatalf("%d×%d matrix with %d names, want %d×%d", x.Rows, x.Cols, len(names), n, d)
	}
	for i := range n {
		for j := range d {
			if got := x.Data[i*d+j]; !(got == float64((i*d+j)%97)) {
				t.Fatalf("cell (%d, %d) = %v, want %d", i, j, got, (i*d+j)%97)
			}
		}
	}

	// 3 rows of 20 cells, 30 missing: the first is the error, at its
	// line and column, as every command reports a missing cell where one
	// is needed (it was ten errors at their lines, and a count).
	var m bytes.Buffer
	for j := range 20 {
		fmt.Fprintf(&m, "c%d,", j)
	}
	m.Truncate(m.Len() - 1)
	m.WriteString("\n" + strings.Repeat("1,", 19) + "1\n")
	m.WriteString(strings.Repeat(",1", 10)[1:] + "," + strings.Repeat(",", 9) + "\n")
	m.WriteString(strings.Repeat(",", 19) + "\n")
	miss := filepath.Join(dir, "miss.csv")
	if err := os.WriteFile(miss, m.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = readMatrix(miss, nil)
	var e *ir.Error
	if !errors.As(err, &e) || !errors.Is(err, data.ErrMissingValue) {
		t.Fatalf("30 missing cells: %v, want an *ir.Error of kind data.ErrMissingValue", err)
	}
	if got, want := e.Error(), miss+`:3:21: missing value for c10: pbl cluster needs a number in every cell`; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
}
