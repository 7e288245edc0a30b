package pbl

import (
	"fmt"
	"io"
	"strings"

	"github.com/pbl-lang/pbl/formats/bif"
	"github.com/pbl-lang/pbl/formats/dot"
	"github.com/pbl-lang/pbl/formats/hugin"
	"github.com/pbl-lang/pbl/formats/source"
	"github.com/pbl-lang/pbl/formats/uai"
	"github.com/pbl-lang/pbl/formats/xmlbif"
	"github.com/pbl-lang/pbl/ir"
)

// writers are the formats Write writes, by file extension, in the order
// of WriteFormats. An array rather than a map, so that nothing is built
// at start-up.
var writers = [...]struct {
	ext   string
	write func(io.Writer, *ir.Model) error
}{
	{".bif", bif.Write},
	{".dot", dot.Write},
	{".net", hugin.Write},
	{".pbl", func(w io.Writer, m *ir.Model) error { return source.Write(w, m, "") }},
	{".uai", uai.Write},
	{".xml", xmlbif.Write},
	{".xmlbif", xmlbif.Write},
}

// WriteFormats lists the formats Write writes, by file extension, sorted.
var WriteFormats = []string{".bif", ".dot", ".net", ".pbl", ".uai", ".xml", ".xmlbif"}

// Write writes m to w in the format a file extension names (in any case;
// WriteFormats lists them): .pbl, the language (a file that re-loads to
// the same model); .bif; .xml and .xmlbif, XMLBIF 0.3; .net, Hugin NET;
// .uai; .dot, the graph for Graphviz. Every number is written exactly.
func Write(w io.Writer, m *ir.Model, format string) error {
	ext := strings.ToLower(format)
	for _, wr := range writers {
		if wr.ext == ext {
			return wr.write(w, m)
		}
	}
	return fmt.Errorf("cannot write the format %q (pbl writes %s)", format, strings.Join(WriteFormats, ", "))
}
