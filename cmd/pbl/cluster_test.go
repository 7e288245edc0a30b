package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
