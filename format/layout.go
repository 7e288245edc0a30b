package format

import (
	"strings"
	"unicode/utf8"
)

const (
	indentUnit = "    " // one level of indentation
	commentGap = 2      // spaces before the trailing comments of the longest line of a run
)

// render aligns the printer's lines and returns the text: the cells of
// each alignment group padded to their column's width, then the trailing
// comments of each run of consecutive lines that have one padded to one
// two spaces after the longest of those lines.
func render(lines []*line) []byte {
	widths := columnWidths(lines)
	texts := make([]string, len(lines))
	var b strings.Builder
	for i, l := range lines {
		if l.blank {
			continue
		}
		b.Reset()
		for range l.indent {
			b.WriteString(indentUnit)
		}
		var w []int
		if l.group != 0 {
			w = widths[l.group]
		}
		col := 0
		for j := range l.cells {
			c := &l.cells[j]
			s := c.text.String()
			b.WriteString(s)
			if j < len(l.cells)-1 {
				width := 0
				for k := col; k < col+c.span && k < len(w); k++ {
					width += w[k]
				}
				width += c.span - 1
				b.WriteString(strings.Repeat(" ", max(width-utf8.RuneCountInString(s), 0)+1))
			}
			col += c.span
		}
		texts[i] = strings.TrimRight(b.String(), " ")
	}

	var out strings.Builder
	for i := 0; i < len(lines); {
		if lines[i].comment == "" {
			if !lines[i].blank {
				out.WriteString(texts[i])
			}
			out.WriteByte('\n')
			i++
			continue
		}
		// A run of lines with trailing comments.
		j, width := i, 0
		for ; j < len(lines) && lines[j].comment != ""; j++ {
			width = max(width, utf8.RuneCountInString(texts[j]))
		}
		for ; i < j; i++ {
			out.WriteString(texts[i])
			out.WriteString(strings.Repeat(" ", width-utf8.RuneCountInString(texts[i])+commentGap))
			out.WriteString(lines[i].comment)
			out.WriteByte('\n')
		}
	}
	return []byte(out.String())
}

// columnWidths returns each group's column widths: the widest cell of the
// column that is not the last of its line, cells spanning several
// columns widening the last of them if they need more room.
func columnWidths(lines []*line) map[int][]int {
	widths := map[int][]int{}
	grow := func(g, col, n int) {
		w := widths[g]
		for len(w) <= col {
			w = append(w, 0)
		}
		w[col] = max(w[col], n)
		widths[g] = w
	}
	for _, l := range lines {
		if l.group == 0 {
			continue
		}
		col := 0
		for j := 0; j < len(l.cells)-1; j++ {
			if c := &l.cells[j]; c.span == 1 {
				grow(l.group, col, utf8.RuneCountInString(c.text.String()))
			}
			col += l.cells[j].span
		}
	}
	for _, l := range lines {
		if l.group == 0 {
			continue
		}
		col := 0
		for j := 0; j < len(l.cells)-1; j++ {
			c := &l.cells[j]
			if c.span > 1 {
				w := widths[l.group]
				have := c.span - 1
				for k := col; k < col+c.span && k < len(w); k++ {
					have += w[k]
				}
				if n := utf8.RuneCountInString(c.text.String()); n > have {
					grow(l.group, col+c.span-1, n-have+safeWidth(w, col+c.span-1))
				}
			}
			col += c.span
		}
	}
	return widths
}

func safeWidth(w []int, i int) int {
	if i < len(w) {
		return w[i]
	}
	return 0
}
