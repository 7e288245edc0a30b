package figure

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand/v2"
	"testing"
)

// TestEncodePNG encodes random images, opaque and translucent, smooth and
// noisy (so that every filter gets chosen), decodes them with image/png
// and compares every pixel with the original's non-premultiplied colour.
func TestEncodePNG(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var filters [5]int // how many rows each filter was chosen for
	defer func() {
		for f, n := range filters {
			if n == 0 {
				t.Errorf("filter %d was never chosen (counts %v): the test does not check it", f, filters)
			}
		}
	}()
	for trial := range 24 {
		w, h := 1+rng.IntN(40), 1+rng.IntN(30)
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		opaque := trial%2 == 0
		for y := range h {
			for x := range w {
				var c [4]uint8
				switch trial % 3 {
				case 0: // noise
					for i := range c {
						c[i] = uint8(rng.IntN(256))
					}
				case 1: // gradients
					c = [4]uint8{uint8(3 * x), uint8(5 * y), uint8(x * y), uint8(255 - 2*x)}
				case 2: // flat with spots
					c = [4]uint8{200, 40, 90, 128}
					if rng.IntN(10) == 0 {
						c[0] = uint8(rng.IntN(256))
					}
				}
				if opaque {
					c[3] = 0xff
				}
				for i := range 3 { // premultiplied
					c[i] = uint8(uint32(c[i]) * uint32(c[3]) / 0xff)
				}
				img.SetRGBA(x, y, color.RGBA{c[0], c[1], c[2], c[3]})
			}
		}
		var buf bytes.Buffer
		if err := encodePNG(&buf, img); err != nil {
			t.Fatal(err)
		}
		if ct := buf.Bytes()[25]; opaque && ct != 2 || !opaque && ct != 6 {
			t.Errorf("trial %d: colour type %d for an image that is opaque: %v", trial, ct, opaque)
		}
		for f, n := range filterCounts(t, buf.Bytes(), 1+(3+1-btoi(opaque))*w) {
			filters[f] += n
		}
		got, err := png.Decode(&buf)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if got.Bounds() != img.Bounds() {
			t.Fatalf("trial %d: bounds %v, want %v", trial, got.Bounds(), img.Bounds())
		}
		for y := range h {
			for x := range w {
				want := color.NRGBAModel.Convert(img.At(x, y))
				if g := color.NRGBAModel.Convert(got.At(x, y)); g != want {
					t.Fatalf("trial %d: pixel (%d, %d) decodes as %v, want %v", trial, x, y, g, want)
				}
			}
		}
	}
}

// filterCounts inflates the IDAT data of the PNG file b, whose rows are
// rowLen bytes with their filter byte, and counts the rows of each filter.
func filterCounts(t *testing.T, b []byte, rowLen int) [5]int {
	t.Helper()
	var idat []byte
	for p := 8; p+8 <= len(b); {
		n := int(binary.BigEndian.Uint32(b[p:]))
		if string(b[p+4:p+8]) == "IDAT" {
			idat = append(idat, b[p+8:p+8+n]...)
		}
		p += 12 + n
	}
	z, err := zlib.NewReader(bytes.NewReader(idat))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	var counts [5]int
	for i := 0; i < len(raw); i += rowLen {
		if f := raw[i]; f < 5 {
			counts[f]++
		} else {
			t.Fatalf("row %d has filter %d", i/rowLen, f)
		}
	}
	return counts
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestEncodePNGEmpty checks that an image without pixels is an error, as
// PNG has no such image.
func TestEncodePNGEmpty(t *testing.T) {
	for _, r := range []image.Rectangle{image.Rect(0, 0, 0, 0), image.Rect(0, 0, 0, 5), image.Rect(0, 0, 5, 0)} {
		var buf bytes.Buffer
		if err := encodePNG(&buf, image.NewRGBA(r)); err == nil {
			t.Errorf("%v: no error", r)
		}
		if buf.Len() != 0 {
			t.Errorf("%v: wrote %d bytes", r, buf.Len())
		}
	}
}

// TestEncodePNGSize checks that the filters do their work: a plot encodes
// to no more than 10% above what image/png makes of it.
func TestEncodePNGSize(t *testing.T) {
	c := NewPNG(600, 300, 110)
	c.Fill([]Point{{0, 0}, {600, 0}, {600, 300}, {0, 300}}, color.White)
	p := &Plot{Title: "size", X: Axis{Label: "x"}, Y: Axis{Label: "y"}}
	var pts []XY
	for i := range 200 {
		pts = append(pts, XY{float64(i), float64(i * i % 97)})
	}
	p.Add(&Scatter{XY: pts, Glyph: GlyphStyle{Color: red, Radius: 3}})
	p.Draw(c, Rect{Min: Point{10, 10}, Max: Point{590, 290}})
	var ours, theirs bytes.Buffer
	if err := encodePNG(&ours, c.Image()); err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(&theirs, c.Image()); err != nil {
		t.Fatal(err)
	}
	if !(float64(ours.Len()) <= 1.1*float64(theirs.Len())) {
		t.Errorf("encoded in %d bytes, image/png in %d", ours.Len(), theirs.Len())
	}
}
