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

// WriteFormats lists the formats Write writes, by file extension.
var WriteFormats = []string{".bif", ".dot", ".net", ".pbl", ".uai", ".xml", ".xmlbif"}

// Write writes m to w in the format a file extension names (in any case;
// WriteFormats lists them): .pbl, the language (a file that re-loads to
// the same model); .bif; .xml and .xmlbif, XMLBIF 0.3; .net, Hugin NET;
// .uai; .dot, the graph for Graphviz. Every number is written exactly.
func Write(w io.Writer, m *ir.Model, format string) error {
	switch strings.ToLower(format) {
	case ".pbl":
		return source.Write(w, m, "")
	case ".bif":
		return bif.Write(w, m)
	case ".dot":
		return dot.Write(w, m)
	case ".net":
		return hugin.Write(w, m)
	case ".uai":
		return uai.Write(w, m)
	case ".xml", ".xmlbif":
		return xmlbif.Write(w, m)
	}
	return fmt.Errorf("cannot write the format %q (pbl writes %s)", format, strings.Join(WriteFormats, ", "))
}
