package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// testFlags holds the flags of pbl test.
type testFlags struct {
	update bool
	run    string
	tol    float64
}

func testFlagsFor(c *cli, fs *flag.FlagSet) {
	engineFlags(c, fs)
	fs.BoolVar(&c.test.update, "update", false, "write or rewrite each file's golden output (NAME.golden) instead of comparing")
	fs.StringVar(&c.test.run, "run", "", "test only the files whose path contains a match of this `pattern` (* ? [a-z] \\x; a|b either)")
	fs.Float64Var(&c.test.tol, "tol", 1e-9, "numbers in the output may differ from the golden file's by this much")
}

// fileResult is the outcome of testing one model file.
type fileResult struct {
	path     string
	ok       bool
	seconds  float64
	expects  int      // expect statements run
	golden   string   // "match", "differs", "missing", "updated", or "" if not reached
	failures []string // positioned messages
	diff     string   // golden differences, if any
}

// testCmd runs every model file's statements, checks its expectations and
// compares its output with its golden file.
func testCmd(c *cli, args []string) int {
	opt, err := c.options()
	if err != nil {
		return c.usageErr("test", "%v", err)
	}
	var filter pathPattern
	if c.test.run != "" {
		if filter, err = parsePathPattern(c.test.run); err != nil {
			return c.usageErr("test", "--run: %v", err)
		}
	}
	if !(c.test.tol >= 0) || math.IsInf(c.test.tol, 0) {
		return c.usageErr("test", "--tol must be a finite non-negative number")
	}
	if len(args) == 0 {
		args = []string{"."}
	}
	files, err := findModels(args)
	if err != nil {
		c.report(err)
		return exitError
	}
	var results []*fileResult
	for _, path := range files {
		if filter != nil && !filter.MatchString(path) {
			continue
		}
		r := c.testFile(path, pbl.RunOptions{Infer: opt, Top: c.top, Seed: c.seed, Style: style})
		results = append(results, r)
		c.printResult(r)
	}
	if filter != nil && len(files) > 0 && len(results) == 0 {
		// Testing nothing must not pass silently: a --run written for the
		// regular expressions it once took (^nets/.*\.pbl$) matches no path.
		fmt.Fprintf(c.stderr, "pbl test: no path of the %s found contains a match of --run %q (a glob: * ? [a-z] \\x, a|b)\n", plural(len(files), "model file"), c.test.run)
		return exitError
	}
	passed, failed := 0, 0
	for _, r := range results {
		if r.ok {
			passed++
		} else {
			failed++
		}
	}
	if c.json {
		o := &report.Object{}
		o.Set("passed", passed)
		o.Set("failed", failed)
		c.writeJSON(o)
	} else {
		if len(results) == 0 {
			fmt.Fprintln(c.stdout, "no model files to test")
		}
		if failed > 0 {
			fmt.Fprintln(c.stdout, "FAIL")
		} else {
			fmt.Fprintln(c.stdout, "PASS")
		}
		fmt.Fprintf(c.stdout, "%d passed, %d failed\n", passed, failed)
	}
	if failed > 0 {
		return exitError
	}
	return exitOK
}

// findModels lists the .pbl files named by args: files as given, and the
// .pbl files below directories, in lexical order. Like go test, it skips
// directories named testdata and those whose names begin with . or _. In a
// directory it also skips anything named .pbl that is not a regular file
// (or a symbolic link to one, or a broken link), without opening it: opening a named pipe
// nobody writes to blocks forever.
func findModels(args []string) ([]string, error) {
	var files []string
	for _, arg := range args {
		info, err := os.Stat(arg)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			files = append(files, arg)
			continue
		}
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() {
				if path != arg && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(name, ".pbl") {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				// Stat follows the link and opens nothing. A broken
				// link is kept, so that testing it reports the error.
				if info, err := os.Stat(path); err == nil && !info.Mode().IsRegular() {
					return nil
				}
			} else if !d.Type().IsRegular() {
				return nil
			}
			files = append(files, path)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(files)
	return files, nil
}

// goldenPath is the golden file of a model: NAME.golden beside NAME.pbl.
func goldenPath(path string) string { return strings.TrimSuffix(path, ".pbl") + ".golden" }

func (c *cli) testFile(path string, opt pbl.RunOptions) *fileResult {
	start := time.Now()
	r := &fileResult{path: path}
	defer func() { r.seconds = time.Since(start).Seconds() }()
	m, err := loadFileWith(path, c.loadOptions())
	if err != nil {
		r.failures = errorLines(err)
		return r
	}
	for _, s := range m.Stmts {
		if _, ok := s.(*ir.ExpectStmt); ok {
			r.expects++
		}
	}
	var out bytes.Buffer
	var lines []ir.Stmt
	opt.Lines = &lines
	fails := pbl.Run(m, &out, opt)
	for _, f := range fails {
		r.failures = append(r.failures, f.Error())
	}
	golden := goldenPath(path)
	want, err := os.ReadFile(golden)
	switch {
	case c.test.update:
		if out.Len() == 0 && errors.Is(err, fs.ErrNotExist) {
			r.golden = "missing" // nothing to record
			break
		}
		if err := writeAtomic(golden, out.Bytes()); err != nil {
			r.failures = append(r.failures, fmt.Sprintf("%s: %v", golden, err))
			break
		}
		r.golden = "updated"
	case errors.Is(err, fs.ErrNotExist):
		r.golden = "missing"
	case err != nil:
		r.failures = append(r.failures, err.Error())
	default:
		var at int
		if r.diff, at = diffLines(string(want), out.String(), c.test.tol); r.diff != "" {
			r.golden = "differs"
			// Name the statement whose output changed first.
			where, what := ir.Pos{File: path}, "the output"
			if at >= len(lines) {
				at = len(lines) - 1
			}
			if at >= 0 {
				switch s := lines[at].(type) {
				case *ir.QueryStmt:
					where, what = s.Pos, "the output of query "+s.Query.Head().Text
				}
			}
			r.failures = append(r.failures, fmt.Sprintf("%s: %s differs from %s (- golden, + now; numbers within %s are equal):",
				where, what, filepath.Base(golden), ir.FormatFloat(c.test.tol)))
		} else {
			r.golden = "match"
		}
	}
	r.ok = len(r.failures) == 0
	return r
}

// errorLines splits an error into its positioned messages.
func errorLines(err error) []string {
	var list ir.ErrorList
	if errors.As(err, &list) {
		out := make([]string, len(list))
		for i, e := range list {
			out[i] = e.Error()
		}
		return out
	}
	return []string{err.Error()}
}

func (c *cli) printResult(r *fileResult) {
	if c.json {
		o := &report.Object{}
		o.Set("file", r.path)
		o.Set("ok", r.ok)
		o.Set("seconds", report.Float(r.seconds))
		o.Set("expects", r.expects)
		o.Set("golden", r.golden)
		o.Set("failures", append([]string{}, r.failures...))
		if r.diff != "" {
			o.Set("diff", r.diff)
		}
		c.writeJSON(o)
		return
	}
	status := "ok  "
	if !r.ok {
		status = "FAIL"
	}
	note := ""
	switch r.golden {
	case "missing":
		note = "  (no golden file)"
	case "updated":
		note = "  (golden file written)"
	}
	fmt.Fprintf(c.stdout, "%s  %s  %.3fs%s\n", status, r.path, r.seconds, note)
	for _, f := range r.failures {
		fmt.Fprintf(c.stdout, "    %s\n", f)
	}
	if r.diff != "" {
		for _, line := range splitLines(r.diff) {
			fmt.Fprintf(c.stdout, "      %s\n", line)
		}
	}
}
