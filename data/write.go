package data

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/ir"
)

// Write writes b as CSV: a header naming vars, then b.N rows, in the
// dialect NewReader reads (RFC 4180 quoting; lines end in LF). Column j of
// b holds the values of vars[j]: b.Cols[j] for a discrete variable,
// b.Reals[j] for a real one. Missing cells are written empty (as "" when
// there is a single column, where an empty line at the end of the file
// would be read as nothing). Fields that
// contain a comma, a quote, CR or LF, or that begin or end with white
// space, are quoted. A batch that does not fit vars is an error.
func Write(w io.Writer, m *ir.Model, vars []ir.VarID, b *Batch) error {
	if b.N < 0 {
		return fmt.Errorf("data: Write: the batch has %d rows", b.N)
	}
	// enc[j][s] is state s of column j as a CSV field; nil for real columns.
	enc := make([][]string, len(vars))
	for j, v := range vars {
		if v < 0 || int(v) >= len(m.Vars) {
			return fmt.Errorf("data: Write: variable %d is not in the model", v)
		}
		x := m.Vars[v]
		if !x.Discrete() {
			if j >= len(b.Reals) || len(b.Reals[j]) < b.N {
				return fmt.Errorf("data: Write: the batch has no values for %s", ir.Quote(x.Name))
			}
			continue
		}
		if j >= len(b.Cols) || len(b.Cols[j]) < b.N {
			return fmt.Errorf("data: Write: the batch has no states for %s", ir.Quote(x.Name))
		}
		enc[j] = make([]string, len(x.States))
		for s, name := range x.States {
			enc[j][s] = Quote(name)
		}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	for j, v := range vars {
		if j > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString(Quote(m.Vars[v].Name))
	}
	bw.WriteByte('\n')
	// In a one-column file an empty line at the end would be read as
	// nothing, so a missing cell is written as "" there.
	missing := ""
	if len(vars) == 1 {
		missing = `""`
	}
	var num []byte
	for i := 0; i < b.N; i++ {
		for j, v := range vars {
			if j > 0 {
				bw.WriteByte(',')
			}
			if enc[j] == nil {
				x := b.Reals[j][i]
				if math.IsNaN(x) {
					bw.WriteString(missing)
					continue
				}
				num = strconv.AppendFloat(num[:0], x, 'g', -1, 64)
				bw.Write(num)
				continue
			}
			s := b.Cols[j][i]
			if s == Missing {
				bw.WriteString(missing)
				continue
			}
			if s < 0 || int(s) >= len(enc[j]) {
				return fmt.Errorf("data: Write: row %d: state %d of %s is out of range", i, s, ir.Quote(m.Vars[v].Name))
			}
			bw.WriteString(enc[j][s])
		}
		if err := bw.WriteByte('\n'); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// Quote returns s as a CSV field: as is, or quoted with its quotes doubled
// if it contains a comma, a quote, CR or LF, or begins or ends with white
// space.
func Quote(s string) string {
	if !needsQuotes(s) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func needsQuotes(s string) bool {
	if s == "" {
		return false
	}
	if strings.ContainsAny(s, ",\"\r\n") {
		return true
	}
	return isSpace(s[0]) || isSpace(s[len(s)-1]) || strings.HasPrefix(s, "\uFEFF")
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\v' || c == '\f' }
