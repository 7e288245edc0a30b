package main

import (
	"bytes"
	"compress/gzip"
	"path/filepath"
	"strings"
	"testing"
)

// TestCSVDialect feeds the same tricky CSV files to every command that
// reads CSV, which all read it with package data's reader: they accept
// the same files (a byte order mark, quoted fields with a comma and a
// doubled quote, CRLF line ends, gzip), report a syntax error (a bare
// quote, a ragged row, a quote never closed, in the header or a row) in
// the same words at the same file:line:col, and a missing cell, where a
// command needs a value, at its line and column. pbl structure, pbl
// cluster and a hypothesis space's data read CSV with encoding/csv, in
// part or whole, which said `bare " in non-quoted-field` and "wrong
// number of fields", counted columns in bytes, and placed a missing
// cell of pbl cluster at its line only.
func TestCSVDialect(t *testing.T) {
	dir := t.TempDir()
	write := fileWriter(t, dir)
	net := write("net.pbl", "var x: {0, 1}\nvar y: {0, 1}\nx -> y\nP(x) = normalize [1, 1]\nP(y | x) = { 0: [0.5, 0.5]  1: [0.5, 0.5] }\n")
	space := write("space.pbl", "space H {\n    w in -2 .. 2 by 0.5\n    y ~ normal(w * x, 1)\n}\ndata D = \"none.csv\"\n")
	train := write("train.csv", "x,y\n0,1\n1,0\n1,1\n0,0\n0.5,0.5\n")
	commands := []struct {
		name string
		args func(csv string) []string
	}{
		{"learn", func(f string) []string {
			return []string{"learn", net, "--data", f, "--ignore-unknown-columns", "-o", filepath.Join(dir, "out.pbl")}
		}},
		{"classify", func(f string) []string {
			return []string{"classify", net, "--target", "y", "--data", f, "--ignore-unknown-columns"}
		}},
		{"score", func(f string) []string { return []string{"score", net, "--data", f, "--ignore-unknown-columns"} }},
		{"query --batch", func(f string) []string {
			return []string{"query", net, "--batch", f, "--ignore-unknown-columns", "P(y)"}
		}},
		{"cluster", func(f string) []string { return []string{"cluster", f, "-k", "1", "--columns", "x,y"} }},
		{"cluster --anomaly", func(f string) []string {
			return []string{"cluster", train, "-k", "1", "--anomaly", f, "--label", "note"}
		}},
		{"structure", func(f string) []string { return []string{"structure", f} }},
		{"space data", func(f string) []string { return []string{"query", space, "ML(H | D)", "--data", "D=" + f} }},
	}
	gz := func(s string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.String()
	}
	const good = "x,y,note\r\n0,1,\"a,\"\"b\"\"\"\r\n1,0,yes\r\n1,1,\"c\"\r\n0,0,\"d\ne\"\r\n"
	for _, tc := range []struct {
		file, text string
		all        string            // every command's first line on stderr ("" for success)
		want       map[string]string // or each command's
	}{
		{file: "good.csv", text: good},
		{file: "bom.csv", text: "\uFEFF\"x\",y,note\n0,1,\"a,\"\"b\"\"\"\n1,0,yes\n1,1,c\n0,0,d\n"},
		{file: "good.csv.gz", text: gz("\uFEFF" + good)},
		{file: "bare.csv", text: "x,y,note\n0,1,a\n1,0\",b\n", all: `bare.csv:3:4: bare " in an unquoted field (quote the whole field and write a quote inside it as "")`},
		{file: "bare.csv.gz", text: gz("x,y,note\n0,1,a\n1,0\",b\n"), all: `bare.csv.gz:3:4: bare " in an unquoted field (quote the whole field and write a quote inside it as "")`},
		{file: "header.csv", text: "x,y\",note\n0,1,a\n", all: `header.csv:1:4: bare " in an unquoted field (quote the whole field and write a quote inside it as "")`},
		{file: "ragged.csv", text: "x,y,note\r\n0,1,a\r\n1,0\r\n", all: `ragged.csv:3:4: row has 2 fields, expected 3 (one per header column)`},
		{file: "long.csv", text: "x,y,note\n0,1,a\n1,0,b,c\n", all: `long.csv:3:7: row has 4 fields, expected 3 (one per header column)`},
		{file: "open.csv", text: "x,y,note\n0,1,a\n1,0,\"ünï\n", all: `open.csv:3:5: unterminated quoted field (the quote opened here is never closed)`},
		{file: "after.csv", text: "x,y,note\n0,1,\"a\"b\n", all: `after.csv:2:8: unexpected 'b' after the closing quote of a field (write a quote inside a quoted field as "")`},
		{file: "empty.csv", text: "", all: `empty.csv:1:1: empty file: expected a header row naming model variables`},
		// A missing cell (empty, ? or NA) is a missing value for every
		// command; those that need a value in every cell report it where
		// it is.
		{file: "miss.csv", text: "\"x\",y,note\n0,1,ä\n1,,b\n1,1,c\n", want: map[string]string{
			"cluster":           `miss.csv:3:3: missing value for y: pbl cluster needs a number in every cell`,
			"cluster --anomaly": `miss.csv:3:3: missing value for y`,
			"space data":        `miss.csv:3:3: missing value for y`,
		}},
		{file: "na.csv", text: "x,y,note\n0,1,a\n1,NA,b\n?,1,c\n", want: map[string]string{
			"cluster":           `na.csv:3:3: missing value for y: pbl cluster needs a number in every cell`,
			"cluster --anomaly": `na.csv:3:3: missing value for y`,
			"space data":        `na.csv:3:3: missing value for y`,
		}},
		// A header with no rows: each command says what it lacks.
		{file: "header-only.csv", text: "\uFEFFx,y,note\r\n", want: map[string]string{
			"learn":             `header-only.csv: the data has no rows to learn from`,
			"classify":          `header-only.csv: no data rows to score`,
			"score":             `header-only.csv: the data has no rows to score the graph by`,
			"cluster":           `header-only.csv:1: no data rows after the header`,
			"cluster --anomaly": `header-only.csv:1: the validation rows need anomalies (labels yes, true, 1 or anomaly) and normal rows to choose a threshold; 0 of 0 are anomalies`,
			"structure":         `header-only.csv: no data rows`,
		}},
	} {
		path := write(tc.file, tc.text)
		for _, c := range commands {
			var stdout, stderr bytes.Buffer
			code := run(c.args(path), &stdout, &stderr)
			want := tc.all
			if tc.want != nil {
				want = tc.want[c.name]
			}
			got, _, _ := strings.Cut(strings.ReplaceAll(stderr.String(), dir+string(filepath.Separator), ""), "\n")
			switch {
			case want == "" && code != exitOK:
				t.Errorf("pbl %s %s: exit %d, stderr %q; want success", c.name, tc.file, code, stderr.String())
			case want != "" && (code != exitError || got != want):
				t.Errorf("pbl %s %s: exit %d, stderr %q\nwant exit %d, %s", c.name, tc.file, code, got, exitError, want)
			}
		}
	}
}
