package main

import (
	"bytes"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/formats/source"
	"github.com/pbl-lang/pbl/ir"
)

// canWrite reports whether pbl writes the format of the output file path,
// by its extension (in any case).
func canWrite(path string) bool {
	return slices.Contains(pbl.WriteFormats, strings.ToLower(filepath.Ext(path)))
}

// outputFormats lists the extensions pbl writes, for messages.
func outputFormats() string { return strings.Join(pbl.WriteFormats, ", ") }

// writeModel writes m to w in the format of the output file path's
// extension: pbl.Write, but a .pbl file begins with the comment header.
func writeModel(w io.Writer, m *ir.Model, path, header string) error {
	if strings.EqualFold(filepath.Ext(path), ".pbl") {
		return source.Write(w, m, header)
	}
	return pbl.Write(w, m, filepath.Ext(path))
}

// convertCmd reads a model in one format and writes it in another, chosen
// by the output file's extension. The output is written atomically.
func convertCmd(c *cli, args []string) int {
	if len(args) != 2 {
		return c.usageErr("convert", "want an input and an output file, got %s", plural(len(args), "argument"))
	}
	in, out := args[0], args[1]
	if !canWrite(out) {
		return c.usageErr("convert", "cannot write %q: unknown output format (pbl writes %s)", out, outputFormats())
	}
	if err := checkOutput(out, in); err != nil {
		c.report(err)
		return exitError
	}
	m, err := loadFile(in)
	if err != nil {
		c.report(err)
		return exitError
	}
	if len(m.Spaces) > 0 {
		c.report(fileErrorf(in, "declares hypothesis space %s: convert writes the network, and a space is not part of one (keep the .pbl file)", strconv.Quote(m.Spaces[0].Name)))
		return exitError
	}
	var buf bytes.Buffer
	if err := writeModel(&buf, m, out, "Converted from "+filepath.Base(in)+" by pbl convert."); err != nil {
		c.report(fileErrorf(out, "%v", err))
		return exitError
	}
	if err := writeAtomic(out, buf.Bytes()); err != nil {
		c.report(err)
		return exitError
	}
	if c.json {
		o := map[string]any{"input": in, "output": out, "variables": len(m.Vars)}
		c.writeJSON(o)
	}
	return exitOK
}
