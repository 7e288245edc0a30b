package learn_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// mergeRandomly merges the parts into one, two random ones at a time (the
// second into the first), so that every order and grouping of merges may
// happen, and returns it.
func mergeRandomly[T any](parts []T, rng *rand.Rand, merge func(into, from T)) T {
	for len(parts) > 1 {
		i, j := rng.IntN(len(parts)), rng.IntN(len(parts)-1)
		if j >= i {
			j++
		}
		merge(parts[i], parts[j])
		parts = append(parts[:j], parts[j+1:]...)
	}
	return parts[0]
}

// TestCountsShardInvariance: counts of any partition of the rows, merged
// in any order and grouping (some after a trip through MarshalBinary),
// estimate the tables of the counts of all the rows to the last bit, and
// the Gaussians to 1e-12; an open variable's tables grow in some parts
// and not in others.
func TestCountsShardInvariance(t *testing.T) {
	tests := []struct {
		name, src string
		csv       []byte
		opt       learn.Options
	}{
		{"gaussian-nb-mle", gaussModel, gaussCSV(5000, 3, 0.05), learn.Options{}},
		{"gaussian-nb-bayes", gaussModel, gaussCSV(3000, 4, 0.2), learn.Options{Method: learn.Bayes, Alpha: 1}},
		{"open-vars", "naive_bayes C given A, B\nvar D: {d1, d2}\nC -> D\n", randomCSV(rand.New(rand.NewPCG(9, 9)), 4000), learn.Options{Method: learn.Bayes, ESS: 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := loadModel(t, tc.src)
			all, err := data.ReadAll("d.csv", bytes.NewReader(tc.csv), m, data.Options{})
			if err != nil {
				t.Fatal(err)
			}
			whole := learn.NewCounts(m, tc.opt)
			whole.Add(all)
			settled := m.WithStates(all.States)
			want, err := learn.Estimate(settled, whole, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(4, 4))
			for _, parts := range []int{1, 2, 7, 40} {
				var cs []*learn.Counts
				for k, r := range randomParts(all.N, parts, rng) {
					c := learn.NewCounts(m, tc.opt)
					c.Add(subBatch(all, r[0], r[1]))
					if k%2 == 1 { // through the wire
						p, err := c.MarshalBinary()
						if err != nil {
							t.Fatal(err)
						}
						c = new(learn.Counts)
						if err := c.UnmarshalBinary(p); err != nil {
							t.Fatal(err)
						}
					}
					cs = append(cs, c)
				}
				c := mergeRandomly(cs, rng, (*learn.Counts).Merge)
				if c.Rows() != all.N || c.Err() != nil {
					t.Fatalf("%d parts: %d rows (want %d), error %v", parts, c.Rows(), all.N, c.Err())
				}
				got, err := learn.Estimate(settled, c, tc.opt)
				if err != nil {
					t.Fatal(err)
				}
				for v := range got.Vars {
					switch d := got.Dist(ir.VarID(v)).(type) {
					case *ir.Gaussian:
						w := want.Dist(ir.VarID(v)).(*ir.Gaussian)
						for u := range d.Mean {
							if !(math.Abs(d.Mean[u]-w.Mean[u]) <= 1e-12*math.Max(math.Abs(w.Mean[u]), w.SD[u])) || !(math.Abs(d.SD[u]-w.SD[u]) <= 1e-12*w.SD[u]) {
								t.Errorf("%d parts: %s given %d: normal(%v, %v), all rows' normal(%v, %v)", parts, got.Vars[v].Name, u, d.Mean[u], d.SD[u], w.Mean[u], w.SD[u])
							}
						}
					case *ir.CPT:
						g, w := d.Factor.Vals, want.Factor(ir.VarID(v)).Vals
						if len(g) != len(w) {
							t.Fatalf("%d parts: %s has %d entries, want %d", parts, got.Vars[v].Name, len(g), len(w))
						}
						for i := range g {
							if g[i] != w[i] {
								t.Errorf("%d parts: %s entry %d is %v, all rows' %v (not bit-exact)", parts, got.Vars[v].Name, i, g[i], w[i])
							}
						}
					}
				}
			}
		})
	}
}

// TestCountsMergeKeepsArgument: merging o into c leaves o as it was, even
// when the two count different numbers of an open variable's states.
func TestCountsMergeKeepsArgument(t *testing.T) {
	m := loadModel(t, "naive_bayes C given A\n")
	read := func(csv string) *data.Batch {
		b, err := data.ReadAll("d.csv", bytes.NewReader([]byte(csv)), m, data.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b := learn.NewCounts(m, learn.Options{}), learn.NewCounts(m, learn.Options{})
	a.Add(read("C,A\nc1,a1\nc2,a2\nc3,a3\n"))
	b.Add(read("C,A\nc1,a1\n"))
	before, _ := b.MarshalBinary()
	a.Merge(b)
	after, _ := b.MarshalBinary()
	if !bytes.Equal(before, after) {
		t.Error("Merge changed its argument")
	}
	if a.Rows() != 4 {
		t.Errorf("merged %d rows, want 4", a.Rows())
	}
}

// TestAddReaderWorkers: counting a file large enough to be parsed in
// chunks on several workers gives the counts of one worker: the tables to
// the last bit, the Gaussians to 1e-12; with an open variable too.
func TestAddReaderWorkers(t *testing.T) {
	src := gaussCSV(400000, 11, 0.05) // about 16 MB: several chunks
	for _, model := range []string{gaussModel, "var X, Y: real\nvar C: {a, b, c}\nvar D: {u, v}\nnaive_bayes C given X, D, Y\n"} {
		m := loadModel(t, model)
		var want *ir.Model
		for _, w := range []int{1, 2, 3} {
			got, rep, err := learn.Learn(m, func(m *ir.Model) (*data.Reader, error) {
				return data.NewReader("g.csv", bytes.NewReader(src), m, data.Options{Workers: w})
			}, learn.Options{Method: learn.Bayes, Alpha: 1})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Rows != 400000 {
				t.Fatalf("%d workers: %d rows", w, rep.Rows)
			}
			if want == nil {
				want = got
				continue
			}
			for v := range got.Vars {
				switch d := got.Dist(ir.VarID(v)).(type) {
				case *ir.Gaussian:
					g := want.Dist(ir.VarID(v)).(*ir.Gaussian)
					for u := range d.Mean {
						if !(math.Abs(d.Mean[u]-g.Mean[u]) <= 1e-12*math.Max(math.Abs(g.Mean[u]), g.SD[u])) || !(math.Abs(d.SD[u]-g.SD[u]) <= 1e-12*g.SD[u]) {
							t.Errorf("%d workers: %s: normal(%v, %v), one worker's normal(%v, %v)", w, got.Vars[v].Name, d.Mean[u], d.SD[u], g.Mean[u], g.SD[u])
						}
					}
				case *ir.CPT:
					if a, b := fmt.Sprint(d.Factor.Vals), fmt.Sprint(want.Factor(ir.VarID(v)).Vals); a != b || got.Vars[v].States == nil {
						t.Errorf("%d workers: %s: %s, one worker's %s", w, got.Vars[v].Name, a, b)
					}
				}
			}
		}
	}
}

// wireCounts returns counts of several kinds, for the encoding's tests
// and the fuzzer's seeds: each with the model it counts for (nil for the
// zero Counts) and whether Estimate can use it.
func wireCounts(t testing.TB) []struct {
	name     string
	m        *ir.Model
	states   map[ir.VarID][]string // the states the data settled, for Estimate
	c        *learn.Counts
	estimate bool
} {
	type wire = struct {
		name     string
		m        *ir.Model
		states   map[ir.VarID][]string
		c        *learn.Counts
		estimate bool
	}
	count := func(name, src string, csv []byte, opt learn.Options) wire {
		m := loadModel(t, src)
		c := learn.NewCounts(m, opt)
		if csv == nil {
			return wire{name, m, nil, c, false}
		}
		b, err := data.ReadAll("d.csv", bytes.NewReader(csv), m, data.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c.Add(b)
		return wire{name, m, b.States, c, c.Err() == nil}
	}
	var wide bytes.Buffer // two open variables of 4097 states: a table over MaxCountEntries
	wide.WriteString("C,A\n")
	for i := range 4097 {
		fmt.Fprintf(&wide, "c%d,a%d\n", i, i)
	}
	return []wire{
		{"zero", nil, nil, new(learn.Counts), false},
		count("no rows", "naive_bayes C given A, B\nvar D: {d1, d2}\nC -> D\n", nil, learn.Options{}),
		count("discrete", "var C: {c1, c2, c3}\nvar A, B: {a, b}\nC -> A\nC -> B\n", []byte("C,A,B\nc1,a,b\nc2,,a\nc3,b,b\nc1,a,\n"), learn.Options{}),
		count("open", "naive_bayes C given A, B\nvar D: {d1, d2}\nC -> D\n", randomCSV(rand.New(rand.NewPCG(9, 9)), 300), learn.Options{}),
		count("gaussian", gaussModel, gaussCSV(500, 3, 0.05), learn.Options{}),
		count("too large", "naive_bayes C given A\n", wide.Bytes(), learn.Options{}),
	}
}

// TestCountsWire: counts come back from MarshalBinary and UnmarshalBinary
// as they were: encoded again, the same bytes; their rows and error the
// same; their estimates the same to the last bit; and nothing of them
// shares memory with the bytes they were decoded from.
func TestCountsWire(t *testing.T) {
	cases := wireCounts(t)
	if c := cases[len(cases)-1].c; c.Err() == nil {
		t.Fatal("the too large case counted without an error")
	}
	for _, tc := range cases {
		p, err := tc.c.MarshalBinary()
		if err != nil {
			t.Fatalf("%s: MarshalBinary: %v", tc.name, err)
		}
		saved := bytes.Clone(p)
		got := new(learn.Counts)
		if err := got.UnmarshalBinary(p); err != nil {
			t.Fatalf("%s: UnmarshalBinary: %v", tc.name, err)
		}
		for i := range p {
			p[i] = 0xff
		}
		again, err := got.MarshalBinary()
		if err != nil || !bytes.Equal(again, saved) {
			t.Errorf("%s: encoded again, %d bytes (%v), first %d bytes", tc.name, len(again), err, len(saved))
		}
		if got.Rows() != tc.c.Rows() {
			t.Errorf("%s: %d rows, want %d", tc.name, got.Rows(), tc.c.Rows())
		}
		if g, w := fmt.Sprint(got.Err()), fmt.Sprint(tc.c.Err()); g != w {
			t.Errorf("%s: error %s, want %s", tc.name, g, w)
		}
		if !tc.estimate {
			continue
		}
		settled := tc.m.WithStates(tc.states)
		want, err := learn.Estimate(settled, tc.c, learn.Options{})
		if err != nil {
			t.Fatal(err)
		}
		est, err := learn.Estimate(settled, got, learn.Options{})
		if err != nil {
			t.Fatalf("%s: Estimate from the decoded counts: %v", tc.name, err)
		}
		for v := range est.Vars {
			switch d := est.Dist(ir.VarID(v)).(type) {
			case *ir.Gaussian:
				w := want.Dist(ir.VarID(v)).(*ir.Gaussian)
				for u := range d.Mean {
					if math.Float64bits(d.Mean[u]) != math.Float64bits(w.Mean[u]) || math.Float64bits(d.SD[u]) != math.Float64bits(w.SD[u]) {
						t.Errorf("%s: %s given %d: normal(%v, %v), want normal(%v, %v)", tc.name, est.Vars[v].Name, u, d.Mean[u], d.SD[u], w.Mean[u], w.SD[u])
					}
				}
			case *ir.CPT:
				if g, w := fmt.Sprint(d.Factor.Vals), fmt.Sprint(want.Factor(ir.VarID(v)).Vals); g != w {
					t.Errorf("%s: %s: %s, want %s", tc.name, est.Vars[v].Name, g, w)
				}
			}
		}
	}
}

// wire writes the encoding of counts by hand: a uint64 as a uvarint, a
// byte as itself, a string with its length, a float64 as its bits.
func wire(parts ...any) []byte {
	var p []byte
	for _, x := range parts {
		switch x := x.(type) {
		case uint64:
			p = binary.AppendUvarint(p, x)
		case int:
			p = binary.AppendUvarint(p, uint64(x))
		case byte:
			p = append(p, x)
		case []byte:
			p = append(p, x...)
		case string:
			p = append(binary.AppendUvarint(p, uint64(len(x))), x...)
		case float64:
			p = binary.LittleEndian.AppendUint64(p, math.Float64bits(x))
		default:
			panic(fmt.Sprintf("wire: %T", x))
		}
	}
	return p
}

// TestCountsUnmarshalCorrupt: input that MarshalBinary did not write is an
// error of the kind ErrCorruptCounts, which leaves the counts as they were:
// every truncation of real encodings, and hand-made encodings each wrong
// in one way (a length too large to allocate among them).
func TestCountsUnmarshalCorrupt(t *testing.T) {
	// One variable A, not open, of two states; 7 rows, counts 3 and 4.
	head := func(open byte) []byte { return wire(byte(0xc1), 7, 0, 0, "", 1, open, 1, "A") }
	valid := wire(head(0), 1, byte(0), 1, 0, 2, 3.0, 4.0)
	var c learn.Counts
	if err := c.UnmarshalBinary(valid); err != nil || c.Rows() != 7 {
		t.Fatalf("the hand-made encoding: %v, %d rows", err, c.Rows())
	}
	tests := []struct {
		name string
		in   []byte
	}{
		{"empty", nil},
		{"another version", append([]byte{0xc2}, valid[1:]...)},
		{"a gob stream", []byte{0x3b, 0xff, 0x81, 0x03, 0x01, 0x01, 0x0a}},
		{"a byte after", append(bytes.Clone(valid), 0)},
		{"overlong number", wire(byte(0xc1), []byte{0x87, 0x00}, 0, 0, "", 0, 0, 0)},
		{"number out of range", wire(byte(0xc1), uint64(math.MaxUint64), 0, 0, "", 0, 0, 0)},
		{"huge error length", wire(byte(0xc1), 7, 0, 0, uint64(1)<<62)},
		{"huge variable count", wire(byte(0xc1), 7, 0, 0, "", uint64(1)<<60)},
		{"huge name count", wire(byte(0xc1), 7, 0, 0, "", 1, byte(0), uint64(1)<<60)},
		{"huge family count", wire(head(0), uint64(1)<<60)},
		{"open bit past the variables", wire(head(2), 1, byte(0), 1, 0, 2, 3.0, 4.0)},
		{"names and variables differ", wire(byte(0xc1), 7, 0, 0, "", 1, byte(0), 2, "A", "B", 0)},
		{"unknown flag", wire(head(0), 1, byte(4), 1, 0, 2, 3.0, 4.0)},
		{"no variables", wire(head(0), 1, byte(0), 0)},
		{"huge variable list", wire(head(0), 1, byte(0), uint64(1)<<60)},
		{"variable out of range", wire(head(0), 1, byte(0), 1, 1, 2, 3.0, 4.0)},
		{"table shorter than its sizes", wire(head(0), 1, byte(0), 1, 0, 3, 3.0, 4.0)},
		{"table longer than its sizes", wire(head(0), 1, byte(0), 1, 0, 1, 3.0, 4.0)},
		{"huge dimension", wire(head(0), 1, byte(0), 1, 0, uint64(1)<<40, 3.0, 4.0)},
		{"huge dimension beside an empty one", wire(byte(0xc1), 7, 0, 0, "", 2, byte(3), 2, "A", "B", 1, byte(0), 2, 0, 1, 0, uint64(1)<<40)},
		{"real child of two states", wire(head(0), 1, byte(1), 1, 0, 2, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)},
		{"real child without moments", wire(head(0), 1, byte(1), 1, 0, 1, 3.0)},
	}
	for _, enc := range wireCounts(t) {
		p, err := enc.c.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		step := max(1, len(p)/1000) // a big one at a thousand places, the last byte too
		for i := 0; i < len(p); i = min(i+step, max(i+1, len(p)-1)) {
			tests = append(tests, struct {
				name string
				in   []byte
			}{fmt.Sprintf("%s cut at %d of %d", enc.name, i, len(p)), p[:i]})
		}
	}
	for _, tt := range tests {
		got := c // a copy: its tables are shared, and must not change
		err := got.UnmarshalBinary(tt.in)
		if !errors.Is(err, learn.ErrCorruptCounts) {
			t.Errorf("%s: UnmarshalBinary = %v, want an ErrCorruptCounts", tt.name, err)
		}
		if after, _ := got.MarshalBinary(); !bytes.Equal(after, valid) {
			t.Errorf("%s: the counts changed", tt.name)
		}
	}
}

// FuzzCountsUnmarshal: UnmarshalBinary never panics and never accepts
// what MarshalBinary would not write: an input it accepts encodes again to
// itself, and the counts merge with a copy of themselves. Other input is
// an ErrCorruptCounts. Seeds: real encodings of every kind.
func FuzzCountsUnmarshal(f *testing.F) {
	for _, enc := range wireCounts(f) {
		p, err := enc.c.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var c learn.Counts
		err := c.UnmarshalBinary(in)
		if err != nil {
			if !errors.Is(err, learn.ErrCorruptCounts) {
				t.Fatalf("UnmarshalBinary = %v, not an ErrCorruptCounts", err)
			}
			return
		}
		out, err := c.MarshalBinary()
		if err != nil || !bytes.Equal(out, in) {
			t.Fatalf("accepted %x, which encodes again to %x (%v)", in, out, err)
		}
		var d learn.Counts
		if err := d.UnmarshalBinary(in); err != nil {
			t.Fatal(err)
		}
		c.Merge(&d)
	})
}
