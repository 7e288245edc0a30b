package figure

import (
	"bytes"
	"encoding/xml"
	"image/color"
	"io"
	"strings"
	"testing"
)

// decodeSVG decodes the SVG c writes as XML and returns the number of
// elements of each name and the text of the <text> elements.
func decodeSVG(t *testing.T, c *SVG) (map[string]int, []string) {
	t.Helper()
	var buf bytes.Buffer
	n, err := c.WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteTo: %d bytes, %v; wrote %d", n, err, buf.Len())
	}
	d := xml.NewDecoder(&buf)
	counts := map[string]int{}
	var texts []string
	depth := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if depth == 0 && (tok.Name.Local != "svg" || tok.Name.Space != "http://www.w3.org/2000/svg") {
				t.Fatalf("root element %v, want svg", tok.Name)
			}
			depth++
			counts[tok.Name.Local]++
			if tok.Name.Local == "text" {
				var s string
				if err := d.DecodeElement(&s, &tok); err != nil {
					t.Fatal(err)
				}
				texts = append(texts, s)
				depth--
			}
		case xml.EndElement:
			depth--
		}
	}
	if depth != 0 {
		t.Fatalf("depth %d at the end", depth)
	}
	return counts, texts
}

// TestSVG draws each kind of shape and checks the document's elements and
// text, escaped and read back.
func TestSVG(t *testing.T) {
	c := NewSVG(200, 100)
	if w, h := c.Size(); w != 200 || h != 100 {
		t.Errorf("Size() = %v, %v", w, h)
	}
	red := color.NRGBA{0xff, 0, 0, 0x80}
	c.Fill([]Point{{0, 0}, {10, 0}, {10, 10}}, color.White)
	c.Fill([]Point{{0, 0}, {10, 0}}, color.White) // not a polygon: nothing
	for i := range 7 {
		c.Circle(Point{float64(i), 5}, 2, red)
	}
	c.Stroke([]Point{{0, 0}, {50, 50}, {0, 50}, {0, 0}}, LineStyle{Color: color.Black, Width: 1, Dashes: []float64{5, 3}})
	c.Stroke([]Point{{0, 0}}, LineStyle{Color: color.Black, Width: 1}) // a point: nothing
	texts := []string{`a < b & "c"`, "σ × …", "right", "up"}
	c.Text(texts[0], Point{10, 10}, TextStyle{Size: 10})
	c.Text(texts[1], Point{10, 30}, TextStyle{Size: 10, Align: AlignCenter, Color: red})
	c.Text(texts[2], Point{10, 50}, TextStyle{Size: 10, Align: AlignRight})
	c.Text(texts[3], Point{10, 70}, TextStyle{Size: 10, Align: 0.25, Vertical: true})
	counts, got := decodeSVG(t, c)
	want := map[string]int{"svg": 1, "path": 2, "circle": 7, "text": 4}
	for name, n := range want {
		if counts[name] != n {
			t.Errorf("%d <%s> elements, want %d", counts[name], name, n)
		}
	}
	if len(counts) != len(want) {
		t.Errorf("elements %v, want %v", counts, want)
	}
	if strings.Join(got, "|") != strings.Join(texts, "|") {
		t.Errorf("texts %q, want %q", got, texts)
	}
}

// TestSVGPlot checks a plot's document: one glyph element per point.
func TestSVGPlot(t *testing.T) {
	c := NewSVG(400, 300)
	p := &Plot{Title: "title <1>", X: Axis{Label: "x"}, Y: Axis{Label: "y"}}
	var xy []XY
	for i := range 50 {
		xy = append(xy, XY{float64(i), float64(i * i)})
	}
	p.Add(&Scatter{XY: xy, Glyph: GlyphStyle{Color: color.Black, Radius: 2}},
		&Scatter{XY: xy[:5], Glyph: GlyphStyle{Color: color.Black, Radius: 2, Shape: Triangle}},
		&Line{XY: xy, Style: LineStyle{Color: color.Black, Width: 1}})
	p.Draw(c, Rect{Max: Point{400, 300}})
	counts, texts := decodeSVG(t, c)
	if counts["circle"] != 50 {
		t.Errorf("%d circles, want 50", counts["circle"])
	}
	if len(texts) < 3 || texts[0] != "title <1>" {
		t.Errorf("texts %q: want the title first, then the labels", texts)
	}
}
