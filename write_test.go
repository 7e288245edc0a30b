package pbl_test

import (
	"bytes"
	"testing"

	"github.com/pbl-lang/pbl"
)

// Every format Write lists is written, in either case, and the .pbl text
// re-loads; an unknown format is an error that lists them.
func TestWrite(t *testing.T) {
	m, err := pbl.Load("rain.pbl", []byte("var Rain, Wet: bool\nRain -> Wet\nP(Rain) = 0.2\nP(Wet | Rain) = { true: 0.9  false: 0.1 }\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pbl.WriteFormats) != 7 {
		t.Errorf("WriteFormats = %v", pbl.WriteFormats)
	}
	for _, ext := range append(pbl.WriteFormats, ".BIF", ".Pbl") {
		var buf bytes.Buffer
		if err := pbl.Write(&buf, m, ext); err != nil || buf.Len() == 0 {
			t.Errorf("Write %s: %v, %d bytes", ext, err, buf.Len())
		}
	}
	var buf bytes.Buffer
	if err := pbl.Write(&buf, m, ".pbl"); err != nil {
		t.Fatal(err)
	}
	if _, err := pbl.Load("back.pbl", buf.Bytes()); err != nil {
		t.Errorf("written .pbl does not load: %v\n%s", err, buf.String())
	}
	if err := pbl.Write(&buf, m, ".xyz"); err == nil {
		t.Error("Write .xyz: no error")
	}
}
