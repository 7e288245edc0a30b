package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/formats/source"
	"github.com/pbl-lang/pbl/ir"
)

// writers maps an output extension to its exporter: pbl.Write, but for
// the header comment a .pbl file gets, which names the input.
var writers = func() map[string]func(w io.Writer, m *ir.Model, in string) error {
	out := map[string]func(w io.Writer, m *ir.Model, in string) error{}
	for _, ext := range pbl.WriteFormats {
		out[ext] = func(w io.Writer, m *ir.Model, _ string) error { return pbl.Write(w, m, ext) }
	}
	out[".pbl"] = func(w io.Writer, m *ir.Model, in string) error {
		return source.Write(w, m, "Converted from "+filepath.Base(in)+" by pbl convert.")
	}
	return out
}()

func outputFormats() string {
	var exts []string
	for e := range writers {
		exts = append(exts, e)
	}
	sort.Strings(exts)
	return strings.Join(exts, ", ")
}

// convertCmd reads a model in one format and writes it in another, chosen
// by the output file's extension. The output is written atomically.
func convertCmd(c *cli, args []string) int {
	if len(args) != 2 {
		return c.usageErr("convert", "want an input and an output file, got %s", plural(len(args), "argument"))
	}
	in, out := args[0], args[1]
	write, ok := writers[strings.ToLower(filepath.Ext(out))]
	if !ok {
		return c.usageErr("convert", "cannot write %q: unknown output format (pbl writes %s)", out, outputFormats())
	}
	if err := checkOutput(out, in); err != nil {
		c.report(err)
		return exitError
	}
	m, err := pbl.LoadFile(in)
	if err != nil {
		c.report(err)
		return exitError
	}
	if len(m.Spaces) > 0 {
		c.report(fmt.Errorf("%s: declares hypothesis space %s: convert writes the network, and a space is not part of one (keep the .pbl file)", in, strconv.Quote(m.Spaces[0].Name)))
		return exitError
	}
	var buf bytes.Buffer
	if err := write(&buf, m, in); err != nil {
		c.report(fmt.Errorf("%s: %v", out, err))
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
