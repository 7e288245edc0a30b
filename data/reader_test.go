package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/pbl-lang/pbl/ir"
)

// testModel returns a model with one variable of each kind:
//
//	Outlook: {sunny, overcast, rain, maybe}
//	Windy:   bool
//	Temp:    real
//	Count:   0..3
//	Path:    {"a b", "x,y", `q"uote`, NA, "ünï", " pad ", "?"}  (awkward names, NA and ? are states)
//	Big:     s0..s11 (looked up by map)
func testModel(tb testing.TB) *ir.Model {
	tb.Helper()
	b := ir.NewBuilder("model.pbl")
	pos := ir.Pos{File: "model.pbl", Line: 1, Col: 1}
	add := func(name string, kind ir.Kind, states []string, lo int) {
		id, ok := b.AddVar(pos, name, kind, states, lo)
		if !ok {
			tb.Fatalf("AddVar %s: %v", name, b.Errs.Err())
		}
		if kind == ir.Real {
			return
		}
		n := len(b.Model().Vars[id].States)
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = 1 / float64(n)
		}
		b.SetCPT(pos, id, nil, vals, nil)
	}
	add("Outlook", ir.Enum, []string{"sunny", "overcast", "rain", "maybe"}, 0)
	add("Windy", ir.Bool, nil, 0)
	add("Temp", ir.Real, nil, 0)
	add("Count", ir.Range, ir.RangeStates(0, 3), 0)
	add("Path", ir.Enum, []string{"a b", "x,y", `q"uote`, "NA", "ünï", " pad ", "?"}, 0)
	big := make([]string, 12)
	for i := range big {
		big[i] = fmt.Sprintf("s%d", i)
	}
	add("Big", ir.Enum, big, 0)
	m, err := b.Finish()
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// dump renders a batch compactly: one row per line, cells separated by
// spaces, state names for discrete cells, numbers for real ones, and _ for
// missing cells; each row is prefixed by its line number.
func dump(m *ir.Model, b *Batch) string {
	var s strings.Builder
	for i := 0; i < b.N; i++ {
		fmt.Fprintf(&s, "%d:", b.Lines[i])
		for j, v := range b.Vars {
			s.WriteByte(' ')
			if b.Reals[j] != nil {
				if x := b.Reals[j][i]; math.IsNaN(x) {
					s.WriteString("_")
				} else {
					fmt.Fprint(&s, x)
				}
				continue
			}
			if st := b.Cols[j][i]; st == Missing {
				s.WriteString("_")
			} else {
				fmt.Fprintf(&s, "%q", m.Vars[v].States[st])
			}
		}
		s.WriteByte('\n')
	}
	return s.String()
}

func gz(s string) string {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(s))
	zw.Close()
	return buf.String()
}

// sunnyRain is the dump of the rows sunny,true and rain,false on lines 2
// and 3.
const sunnyRain = `2: "sunny" "true"
3: "rain" "false"
`

var parseTests = []struct {
	name, csv string
	opt       Options
	want      string // dump of the batch
}{
	{"simple", "Outlook,Windy\nsunny,true\nrain,false\n", Options{}, sunnyRain},
	{"no final newline", "Outlook,Windy\nsunny,true\nrain,false", Options{}, sunnyRain},
	{"column order", "Windy,Outlook\ntrue,sunny\n", Options{}, `2: "true" "sunny"
`},
	{"crlf", "Outlook,Windy\r\nsunny,true\r\nrain,false\r\n", Options{}, sunnyRain},
	{"crlf without final", "Outlook,Windy\r\nsunny,true\r\nrain,false", Options{}, sunnyRain},
	{"bom", "\uFEFFOutlook,Windy\nsunny,true\n", Options{}, `2: "sunny" "true"
`},
	{"quoted header", "\"Outlook\",\"Windy\"\n\"sunny\",true\n", Options{}, `2: "sunny" "true"
`},
	{"quoted awkward states", "Path\n\"a b\"\n\"x,y\"\n\"q\"\"uote\"\n\" pad \"\nünï\n", Options{}, `2: "a b"
3: "x,y"
4: "q\"uote"
5: " pad "
6: "ünï"
`},
	{"missing cells", "Outlook,Windy,Count\n,?,NA\n\"\",\"?\",\"NA\"\nmaybe,,3\n", Options{}, `2: _ _ _
3: _ _ _
4: "maybe" _ "3"
`},
	{"NA and ? are states of Path", "Path,Outlook\nNA,NA\n?,?\n,\n", Options{}, `2: "NA" _
3: "?" _
4: _ _
`},
	{"real column", "Temp,Windy\n1.5,true\n-2e3,false\n,true\n?,true\nNA,true\nNaN,true\n0x1p-2,true\n", Options{}, `2: 1.5 "true"
3: -2000 "false"
4: _ "true"
5: _ "true"
6: _ "true"
7: _ "true"
8: 0.25 "true"
`},
	{"range and big", "Count,Big\n0,s0\n3,s11\n2,s7\n", Options{}, `2: "0" "s0"
3: "3" "s11"
4: "2" "s7"
`},
	{"quoted newlines count as lines", "Outlook,note\nsunny,\"a\nb\r\n\"\"c\"\"\"\nrain,x\n", Options{IgnoreUnknownColumns: true}, `2: "sunny"
5: "rain"
`},
	{"multi-line quoted header", "\"Out\n\"\"x\"\"\",Outlook\nx,rain\ny,sunny\n", Options{IgnoreUnknownColumns: true}, `3: "rain"
4: "sunny"
`},
	{"ignore unknown", "id,Outlook,extra,,Windy\n1,rain,zz,,true\n2,sunny,\"q,q\",x,false\n", Options{IgnoreUnknownColumns: true}, `2: "rain" "true"
3: "sunny" "false"
`},
	{"blank lines skipped in multi-column files", "Outlook,Windy\n\nsunny,true\n\r\n\nrain,false\n\n\n", Options{}, `3: "sunny" "true"
6: "rain" "false"
`},
	{"blank line is missing in one-column files", "Outlook\nsunny\n\n\nrain\n\n\n", Options{}, `2: "sunny"
3: _
4: _
5: "rain"
`},
	{"blank lines before the first row of a one-column file", "Outlook\n\r\nrain\n", Options{}, `2: _
3: "rain"
`},
	{"header only", "Outlook,Windy\n", Options{}, ``},
	{"header only no newline", "Outlook,Windy", Options{}, ``},
	{"one column trailing empty quoted", "Outlook\nrain\n\"\"\n", Options{}, `2: "rain"
3: _
`},
	{"final empty field", "Outlook,Windy\nrain,", Options{}, `2: "rain" _
`},
	{"final CR", "Outlook,Windy\nrain,true\r", Options{}, `2: "rain" "true"
`},
	{"quoted final field at EOF", "Outlook,Windy\nrain,\"true\"", Options{}, `2: "rain" "true"
`},
	{"gzip", gz("Outlook,Windy\nsunny,true\n"), Options{}, `2: "sunny" "true"
`},
	{"gzip with bom", gz("\uFEFFOutlook\r\nsunny\r\n"), Options{}, `2: "sunny"
`},
}

func TestParse(t *testing.T) {
	m := testModel(t)
	for _, tc := range parseTests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := ReadAll("data.csv", strings.NewReader(tc.csv), m, tc.opt)
			if err != nil {
				t.Fatalf("ReadAll: %v", err)
			}
			if got := dump(m, b); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			// Streaming in batches of one row from a reader that returns
			// one byte at a time must give the same rows.
			r, err := NewReader("data.csv", iotest.OneByteReader(strings.NewReader(tc.csv)), m, tc.opt)
			if err != nil {
				t.Fatalf("NewReader: %v", err)
			}
			one := r.NewBatch(1)
			var got strings.Builder
			for {
				err := r.Read(one)
				if err == io.EOF {
					if one.N != 0 {
						t.Errorf("io.EOF with %d rows", one.N)
					}
					break
				}
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
				got.WriteString(dump(m, one))
			}
			if got.String() != tc.want {
				t.Errorf("streamed one byte at a time: got\n%s\nwant\n%s", got.String(), tc.want)
			}
			if r.Rows() != b.N {
				t.Errorf("Rows() = %d, want %d", r.Rows(), b.N)
			}
		})
	}
}

func TestBinding(t *testing.T) {
	m := testModel(t)
	r, err := NewReader("d.csv", strings.NewReader("x,\"Windy\",Temp,y,Outlook\n"), m, Options{IgnoreUnknownColumns: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(r.Vars, r.Cols, r.Header), "[1 2 0] [1 2 4] [x Windy Temp y Outlook]"; got != want {
		t.Errorf("Vars, Cols, Header = %s, want %s", got, want)
	}
	b := r.NewBatch(4)
	if b.Cols[0] == nil || b.Reals[0] != nil || b.Cols[1] != nil || b.Reals[1] == nil {
		t.Errorf("NewBatch: wrong column kinds: Cols %v, Reals %v", b.Cols, b.Reals)
	}
	if err := r.Read(b); err != io.EOF || b.N != 0 {
		t.Errorf("Read = %v with N = %d, want io.EOF with 0", err, b.N)
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// TestStreaming checks that reading in batches of every size gives the rows
// ReadAll gives, on data larger than the read buffer.
func TestStreaming(t *testing.T) {
	m := testModel(t)
	src := genCSV(m, 60000, 3)
	all, err := ReadAll("big.csv", bytes.NewReader(src), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if all.N != 60000 {
		t.Fatalf("ReadAll read %d rows, want 60000", all.N)
	}
	want := dump(m, all)
	for _, size := range []int{1, 7, 1000, 100000} {
		for _, slow := range []bool{false, true} {
			var src io.Reader = bytes.NewReader(src)
			if slow {
				src = iotest.HalfReader(src)
			}
			r, err := NewReader("big.csv", src, m, Options{})
			if err != nil {
				t.Fatal(err)
			}
			b := r.NewBatch(size)
			var got strings.Builder
			for {
				err := r.Read(b)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got.WriteString(dump(m, b))
			}
			if got.String() != want {
				t.Errorf("batch size %d (half reader %v): rows differ from ReadAll", size, slow)
			}
		}
	}
}

func TestOpen(t *testing.T) {
	m := testModel(t)
	dir := t.TempDir()
	for name, content := range map[string]string{
		"plain.csv":  "Outlook,Windy\nsunny,true\n",
		"packed.csv": gz("Outlook,Windy\nsunny,true\n"),
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
		r, err := Open(path, m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b := r.NewBatch(10)
		if err := r.Read(b); err != nil {
			t.Fatal(err)
		}
		if got, want := dump(m, b), "2: \"sunny\" \"true\"\n"; got != want {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
		if err := r.Close(); err != nil {
			t.Error(err)
		}
	}
	if _, err := Open(filepath.Join(dir, "absent.csv"), m, Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open of a missing file: %v, want a not-exist error", err)
	}
}

// genCSV generates n rows over every variable of the test model, with
// awkward values and a missing cell about every tenth cell.
func genCSV(m *ir.Model, n int, seed uint64) []byte {
	var buf bytes.Buffer
	for j, v := range m.Vars {
		if j > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(Quote(v.Name))
	}
	buf.WriteString("\r\n")
	x := seed
	rnd := func(k int) int {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return int(x % uint64(k))
	}
	for i := range n {
		for j, v := range m.Vars {
			if j > 0 {
				buf.WriteByte(',')
			}
			if rnd(10) == 0 {
				buf.WriteString([]string{"", "?", `""`}[rnd(3)])
				continue
			}
			if v.Kind == ir.Real {
				fmt.Fprintf(&buf, "%g", float64(rnd(100000))/7)
				continue
			}
			buf.WriteString(Quote(v.States[rnd(len(v.States))]))
		}
		if i%2 == 0 {
			buf.WriteString("\r\n")
		} else {
			buf.WriteString("\n")
		}
	}
	return buf.Bytes()
}
