package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/pbl-lang/pbl/format"
	"github.com/pbl-lang/pbl/internal/input"
	"github.com/pbl-lang/pbl/report"
)

const fmtArgs = "[FILE|DIR...]"

// fmtSummary is the help of pbl fmt.
const fmtSummary = "Fmt gives .pbl files their canonical layout (docs/cli.md describes it): indentation,\n" +
	"aligned table rows and data columns, spacing, blank lines; every comment is kept where\n" +
	"it was, and the model means exactly the same. With no file it formats standard input\n" +
	"to standard output; a directory stands for the .pbl files below it (as pbl test finds\n" +
	"them). By default it prints the formatted files; -w rewrites each that changes in place\n" +
	"(atomically, keeping its mode), -d prints a unified diff of the changes, -l lists the\n" +
	"files whose layout differs. A file with a syntax error is reported as file:line:col:\n" +
	"message and left alone, and the exit status is then 1."

type fmtFlags struct {
	write, diff, list bool
}

func fmtFlagsFor(c *cli, fs *flag.FlagSet) {
	fs.BoolVar(&c.fmt.write, "w", false, "rewrite the files in place instead of printing them")
	fs.BoolVar(&c.fmt.diff, "d", false, "print a unified diff of the changes instead of the files")
	fs.BoolVar(&c.fmt.list, "l", false, "list the files whose layout differs instead of printing them")
}

// fmtCmd runs pbl fmt.
func fmtCmd(c *cli, args []string) int {
	f := c.fmt
	if len(args) == 0 {
		if f.write {
			return c.usageErr("fmt", "-w needs files to rewrite (standard input has none)")
		}
		src, err := readStdin()
		if err != nil {
			c.report(err)
			return exitError
		}
		return c.fmtOne("<standard input>", src)
	}
	files, err := findModels(args)
	if err != nil {
		c.report(err)
		return exitError
	}
	status := exitOK
	for _, path := range files {
		src, err := input.ReadFile(path)
		if err != nil {
			c.report(err)
			status = exitError
			continue
		}
		if s := c.fmtOne(path, src); s != exitOK {
			status = s
		}
	}
	return status
}

// fmtOne formats one file's source and does what the flags say with it.
func (c *cli) fmtOne(path string, src []byte) int {
	f := c.fmt
	out, err := format.Source(path, src)
	if err != nil {
		c.report(err)
		return exitError
	}
	changed := !bytes.Equal(src, out)
	if f.list && changed {
		if c.json {
			o := &report.Object{}
			o.Set("file", path)
			c.writeJSON(o)
		} else if s := c.write([]byte(path + "\n")); s != exitOK {
			return s
		}
	}
	if f.diff && changed {
		if s := c.write(diff.Diff(path+".orig", src, path, out)); s != exitOK {
			return s
		}
	}
	if f.write && changed {
		if err := writeAtomic(path, out); err != nil {
			c.report(err)
			return exitError
		}
	}
	if !f.write && !f.diff && !f.list {
		return c.write(out)
	}
	return exitOK
}

// readStdin reads standard input within the input limit (--max-input).
func readStdin() ([]byte, error) {
	limit := input.MaxSize()
	b, err := io.ReadAll(io.LimitReader(os.Stdin, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading standard input: %w", err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("standard input: %w", &input.TooLargeError{What: "input", Size: -1, Limit: limit})
	}
	return b, nil
}
