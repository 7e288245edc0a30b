package pbl

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pbl-lang/pbl/formats/bif"
	"github.com/pbl-lang/pbl/formats/hugin"
	"github.com/pbl-lang/pbl/formats/uai"
	"github.com/pbl-lang/pbl/formats/xmlbif"
	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/parser"
)

// Formats lists the model file extensions LoadFile understands.
var Formats = []string{".pbl", ".bif", ".bif.gz", ".xml", ".xmlbif", ".net", ".uai"}

// LoadFile reads a model, choosing the format by the file's extension.
func LoadFile(path string) (*ir.Model, error) {
	switch ext := modelExt(path); ext {
	case ".pbl":
		return loadPBL(path)
	case ".bif", ".bif.gz":
		return bif.ReadFile(path)
	case ".xml", ".xmlbif":
		return xmlbif.ReadFile(path)
	case ".net":
		return hugin.ReadFile(path)
	case ".uai":
		return uai.ReadFile(path)
	default:
		return nil, fmt.Errorf("%s: unknown model format %q (pbl reads %s)", path, ext, strings.Join(Formats, ", "))
	}
}

func modelExt(path string) string {
	lower := strings.ToLower(path)
	if strings.HasSuffix(lower, ".bif.gz") {
		return ".bif.gz"
	}
	return filepath.Ext(lower)
}

// Load parses and lowers .pbl source held in memory; imports are resolved
// relative to filename's directory.
func Load(filename string, src []byte) (*ir.Model, error) {
	l := &loader{state: map[string]int{}}
	l.visit(filename, src, ir.Pos{})
	if err := l.errs.Err(); err != nil {
		return nil, err
	}
	return ir.Lower(l.files...)
}

// LoadForLearning reads a model whose numbers are to be learned (pbl
// learn): like LoadFile, but a .pbl file may give structure without
// numbers (edges into variables that have no table). Other formats always
// carry numbers, which learning replaces.
func LoadForLearning(path string) (*ir.Model, error) {
	if modelExt(path) != ".pbl" {
		return LoadFile(path)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	l := &loader{state: map[string]int{}}
	l.visit(path, src, ir.Pos{})
	if err := l.errs.Err(); err != nil {
		return nil, err
	}
	return ir.LowerOpt(ir.LowerOptions{Learning: true}, l.files...)
}

func loadPBL(path string) (*ir.Model, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Load(path, src)
}

// loader collects a file and its imports in post-order (imports first).
type loader struct {
	files []*grammar.File
	state map[string]int // 1 while visiting, 2 when done
	stack []string
	errs  ir.ErrorList
}

func (l *loader) visit(path string, src []byte, from ir.Pos) {
	key := filepath.Clean(path)
	switch l.state[key] {
	case 1:
		cycle := append(append([]string(nil), l.stack[indexOf(l.stack, key):]...), key)
		l.errs.Add(from, "import cycle: %s", strings.Join(cycle, " -> "))
		return
	case 2:
		return
	}
	if src == nil {
		// Only regular files: reading /dev/zero or a FIFO would never end.
		if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
			l.errs.Add(from, "cannot import %q: not a regular file", path)
			return
		}
		var err error
		src, err = os.ReadFile(path)
		if err != nil {
			l.errs.Add(from, "cannot import %q: %v", path, unwrapPathErr(err))
			return
		}
	}
	f, err := parser.Parse(path, src)
	if err != nil {
		l.errs = append(l.errs, err.(ir.ErrorList)...)
		return
	}
	l.state[key] = 1
	l.stack = append(l.stack, key)
	for _, s := range f.Stmts {
		if imp, ok := s.(*grammar.Import); ok {
			target := imp.Path
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(path), target)
			}
			l.visit(target, nil, parser.Pos(imp.Pos))
		}
	}
	l.stack = l.stack[:len(l.stack)-1]
	l.state[key] = 2
	l.files = append(l.files, f)
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return 0
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// ParseQuery parses and validates a query against m. Errors are positioned
// in a pseudo-file named "query".
func ParseQuery(m *ir.Model, text string) (*ir.Query, error) {
	g, err := parser.ParseQuery("query", text)
	if err != nil {
		return nil, err
	}
	return ir.LowerQuery(m, g)
}
