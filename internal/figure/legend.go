package figure

// A Legend lists what a figure's glyphs and lines mean.
type Legend struct {
	Entries  []LegendEntry
	TextSize float64 // in points, or 0 for 10
}

// A LegendEntry is a line of a Legend: a thumbnail and its label.
type LegendEntry struct {
	Label string
	Glyph *GlyphStyle // the glyph shown, or nil
	Line  *LineStyle  // the line shown, or nil; neither for a label alone
}

// Add appends an entry.
func (l *Legend) Add(label string, glyph *GlyphStyle, line *LineStyle) {
	l.Entries = append(l.Entries, LegendEntry{Label: label, Glyph: glyph, Line: line})
}

// thumbWidth is the width of an entry's thumbnail, and gap the space
// after it.
const (
	thumbWidth = 18
	thumbGap   = 5
)

func (l *Legend) size() float64 {
	if l.TextSize > 0 {
		return l.TextSize
	}
	return 10
}

// Size returns the width and height l takes.
func (l *Legend) Size() (w, h float64) {
	s := l.size()
	for _, e := range l.Entries {
		w = max(w, TextWidth(e.Label, s))
	}
	return thumbWidth + thumbGap + w, float64(len(l.Entries)) * s * 1.5
}

// Draw draws l with its top left corner at p.
func (l *Legend) Draw(c Canvas, p Point) {
	s := l.size()
	for i, e := range l.Entries {
		mid := p.Y + (float64(i)+0.5)*s*1.5
		if e.Line != nil {
			c.Stroke([]Point{{p.X, mid}, {p.X + thumbWidth, mid}}, *e.Line)
		}
		if e.Glyph != nil {
			DrawGlyph(c, Point{p.X + thumbWidth/2, mid}, *e.Glyph)
		}
		c.Text(e.Label, Point{p.X + thumbWidth + thumbGap, mid + capHeight*s/2}, TextStyle{Size: s})
	}
}
