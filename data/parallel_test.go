package data

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/pbl-lang/pbl/ir"
)

// readEvery reads every row of src with opt in batches of size rows and
// returns the rows dumped, the open variables' states and the error text.
func readEvery(m *ir.Model, src io.Reader, opt Options, size int) (rows, states, errText string) {
	r, err := NewReader("data.csv", src, m, opt)
	if err != nil {
		return "", "", err.Error()
	}
	return readAll(m, r, size)
}

// dumpIndices is dump, with an open variable's cells as their state
// indices (the model has no names for them).
func dumpIndices(m *ir.Model, b *Batch) string {
	var s strings.Builder
	for i := range b.N {
		fmt.Fprintf(&s, "%d:", b.Lines[i])
		for j, v := range b.Vars {
			switch {
			case b.Reals[j] != nil:
				fmt.Fprint(&s, " ", b.Reals[j][i])
			case b.Cols[j][i] == Missing:
				s.WriteString(" _")
			case m.Vars[v].Open:
				fmt.Fprint(&s, " #", b.Cols[j][i])
			default:
				fmt.Fprintf(&s, " %q", m.Vars[v].States[b.Cols[j][i]])
			}
		}
		s.WriteByte('\n')
	}
	return s.String()
}

// quotedCSV returns n rows of Outlook, Path and an ignored note column
// whose quoted fields hold line breaks, commas and doubled quotes, so that
// chunk boundaries fall inside quoted fields; some rows end in CRLF, some
// lines are blank, and an open variable takes its states late.
func quotedCSV(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	var b bytes.Buffer
	b.WriteString("Outlook,note,Path,Color\n")
	notes := []string{`"a` + "\n" + `b"`, `""`, `"x,""y""` + "\n\n" + `z"`, "plain", `"` + strings.Repeat("\n", 9) + `"`, ""}
	outlooks := []string{"sunny", `"rain"`, "", "maybe", `"over` + `cast"`}
	paths := []string{`"a b"`, `"x,y"`, `"q""uote"`, "NA", "ünï", `" pad "`, `"?"`}
	for i := range n {
		fmt.Fprintf(&b, "%s,%s,%s,c%d", outlooks[rng.IntN(len(outlooks))], notes[rng.IntN(len(notes))], paths[rng.IntN(len(paths))], rng.IntN(1+i/8))
		switch rng.IntN(5) {
		case 0:
			b.WriteString("\r\n")
		case 1:
			b.WriteString("\n\n")
		default:
			b.WriteString("\n")
		}
	}
	return b.Bytes()
}

// withOpen returns testModel with an open variable Color.
func withOpen(tb testing.TB) *ir.Model {
	m := testModel(tb)
	b := ir.NewBuilder("model.pbl")
	pos := ir.Pos{File: "model.pbl", Line: 1, Col: 1}
	for _, v := range m.Vars {
		id, _ := b.AddVar(pos, v.Name, v.Kind, v.States, 0)
		if v.Kind != ir.Real {
			vals := make([]float64, len(v.States))
			for i := range vals {
				vals[i] = 1 / float64(len(vals))
			}
			b.SetCPT(pos, id, nil, vals, nil)
		}
	}
	b.AddOpenVar(pos, "Color")
	out, err := b.Finish()
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestParallelSameAsSequential: parsing on several workers, in chunks
// small enough that boundaries fall inside quoted fields, inside CRLFs and
// inside rows longer than a chunk, gives the rows, line numbers, states of
// open variables and errors of one reader, for every test input.
func TestParallelSameAsSequential(t *testing.T) {
	m := withOpen(t)
	type input struct {
		name string
		csv  []byte
		opt  Options
	}
	var inputs []input
	for _, tc := range parseTests {
		inputs = append(inputs, input{"parse/" + tc.name, []byte(tc.csv), tc.opt})
	}
	for i, tc := range errorTests {
		if len(tc.csv) < 1<<16 {
			inputs = append(inputs, input{fmt.Sprintf("error/%d", i), []byte(tc.csv), tc.opt})
		}
	}
	inputs = append(inputs,
		input{"generated", genCSV(testModel(t), 3000, 3), Options{}},
		input{"quoted", quotedCSV(2000, 5), Options{IgnoreUnknownColumns: true}},
		input{"quoted-bad-late", append(quotedCSV(500, 6), "sunny,x,NA,c1\nmabye,,NA,c2\n"...), Options{IgnoreUnknownColumns: true}},
		input{"unterminated-late", append(quotedCSV(300, 7), "sunny,\"x,NA,c1\nrain,,NA,c2\n"...), Options{IgnoreUnknownColumns: true}},
		input{"bare-quote-late", append(quotedCSV(300, 8), "sunny,x\"y,NA,c1\nrain,\"\n\",NA,c2\n"...), Options{IgnoreUnknownColumns: true}},
		input{"no-final-newline", quotedCSV(300, 9)[:len(quotedCSV(300, 9))-1], Options{IgnoreUnknownColumns: true}},
	)
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			seq := in.opt
			seq.Workers = 1
			wantRows, wantStates, wantErr := readEvery(m, bytes.NewReader(in.csv), seq, 100)
			for _, w := range []int{2, 3} {
				for _, chunk := range []int{7, 64, 1000} {
					par := in.opt
					par.Workers, par.chunkSize = w, chunk
					for _, src := range []struct {
						name string
						r    io.Reader
					}{
						{"whole", bytes.NewReader(in.csv)},
						{"trickle", iotest.HalfReader(bytes.NewReader(in.csv))},
					} {
						rows, states, errText := readEvery(m, src.r, par, 37)
						if rows != wantRows {
							t.Errorf("%d workers, chunks of %d, %s: rows\n%s\none reader's\n%s", w, chunk, src.name, rows, wantRows)
						}
						if states != wantStates {
							t.Errorf("%d workers, chunks of %d, %s: states %s, one reader's %s", w, chunk, src.name, states, wantStates)
						}
						if errText != wantErr {
							t.Errorf("%d workers, chunks of %d, %s: error %q, one reader's %q", w, chunk, src.name, errText, wantErr)
						}
					}
				}
			}
		})
	}
}

// TestRowEnd: a chunk is cut after its last line feed outside quotes.
func TestRowEnd(t *testing.T) {
	tests := []struct {
		buf  string
		want int
	}{
		{"", 0},
		{"abc", 0},
		{"a\n", 2},
		{"a\nb", 2},
		{"a\nb\nc", 4},
		{"a,\"x\ny", 0},         // the only line feed is inside quotes
		{"a\nb,\"x\ny", 2},      // the last line feed is inside quotes
		{"a,\"x\ny\"\nz", 8},    // the quote closed: the last line feed is outside
		{"\"\n\"\"\n\"\"\n", 0}, // doubled quotes inside a quoted field: still open
		{"\"\n\"\"\n\"\n", 7},   // closed after a doubled quote
		{"\"\n\n\n", 0},         // every line feed inside an open quote
		{"a\r\nb\r\n", 6},
	}
	for _, tc := range tests {
		if got := rowEnd([]byte(tc.buf)); got != tc.want {
			t.Errorf("rowEnd(%q) = %d, want %d", tc.buf, got, tc.want)
		}
	}
}

// TestParallelStopsEarly: a reader dropped or closed in the middle of a
// large input stops its goroutines; Close after an error is fine.
func TestParallelStopsEarly(t *testing.T) {
	m := testModel(t)
	src := genCSV(m, 20000, 1)
	r, err := NewReader("data.csv", bytes.NewReader(src), m, Options{Workers: 2, chunkSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	b := r.NewBatch(10)
	if err := r.Read(b); err != nil || b.N != 10 {
		t.Fatalf("Read: %d rows, %v", b.N, err)
	}
	if r.pipe == nil {
		t.Fatal("the reader did not go parallel")
	}
	r.Close()
	select {
	case <-r.pipe.stop:
	default:
		t.Error("Close did not stop the pipeline")
	}
}

// TestReadParallel: ReadParallel hands every row to fn once (in any order,
// from several workers), and returns the error one reader would; with an
// open variable it numbers states as Read does.
func TestReadParallel(t *testing.T) {
	plain, open := testModel(t), withOpen(t)
	tests := []struct {
		name string
		m    *ir.Model
		csv  []byte
		opt  Options
	}{
		{"generated", plain, genCSV(plain, 3000, 4), Options{}},
		{"quoted", plain, quotedCSV(2000, 5), Options{IgnoreUnknownColumns: true}},
		{"quoted-open", open, quotedCSV(2000, 5), Options{IgnoreUnknownColumns: true}},
		{"bad-late", plain, append(quotedCSV(800, 6), "sunny,x,NA,c1\nmabye,,NA,c2\n"...), Options{IgnoreUnknownColumns: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			seq := tc.opt
			seq.Workers = 1
			wantRows, wantStates, wantErr := readEvery(tc.m, bytes.NewReader(tc.csv), seq, 100)
			for _, w := range []int{1, 2, 3} {
				opt := tc.opt
				opt.Workers, opt.chunkSize = w, 300
				r, err := NewReader("data.csv", bytes.NewReader(tc.csv), tc.m, opt)
				if err != nil {
					t.Fatal(err)
				}
				var mu sync.Mutex
				var rows []string
				seen := make([]bool, w)
				err = r.ReadParallel(func(worker int, b *Batch) error {
					mu.Lock()
					defer mu.Unlock()
					seen[worker] = true
					for _, line := range strings.SplitAfter(dumpIndices(tc.m, b), "\n") {
						if line != "" {
							rows = append(rows, line)
						}
					}
					return nil
				})
				errText := ""
				if err != nil {
					errText = err.Error()
				}
				if errText != wantErr {
					t.Errorf("%d workers: error %q, Read's %q", w, errText, wantErr)
				}
				if err == nil {
					sort.Strings(rows)
					want := strings.SplitAfter(wantRows, "\n")
					want = want[:len(want)-1]
					sort.Strings(want)
					if strings.Join(rows, "") != strings.Join(want, "") {
						t.Errorf("%d workers: %d rows, Read's %d, or other rows", w, len(rows), len(want))
					}
					if r.Rows() != len(want) {
						t.Errorf("%d workers: Rows() = %d, want %d", w, r.Rows(), len(want))
					}
				}
				if states := fmt.Sprint(r.States()); states != wantStates {
					t.Errorf("%d workers: states %s, Read's %s", w, states, wantStates)
				}
				r.Close()
			}
		})
	}
}

// TestParallelReadError: an error reading the input after some rows gives
// those rows, then the error one reader gives.
func TestParallelReadError(t *testing.T) {
	m := testModel(t)
	csv := genCSV(m, 2000, 2)
	src := func() io.Reader {
		return io.MultiReader(bytes.NewReader(csv[:len(csv)-37]), iotest.ErrReader(errors.New("disk on fire")))
	}
	wantRows, _, wantErr := readEvery(m, src(), Options{Workers: 1}, 64)
	if !strings.Contains(wantErr, "read error: disk on fire") {
		t.Fatalf("one reader: %q", wantErr)
	}
	for _, w := range []int{2, 3} {
		rows, _, errText := readEvery(m, src(), Options{Workers: w, chunkSize: 1000}, 64)
		if rows != wantRows || errText != wantErr {
			t.Errorf("%d workers: %d rows and %q, one reader's %d and %q", w, strings.Count(rows, "\n"), errText, strings.Count(wantRows, "\n"), wantErr)
		}
	}
}

// withData returns data followed by err: in one Read with the last bytes
// if together, or in a Read of its own.
type withData struct {
	data     []byte
	err      error
	together bool
}

func (r *withData) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	if len(r.data) == 0 && r.together {
		return n, r.err
	}
	return n, nil
}

// TestReadErrorSameWhateverWorkers: input that ends in a read error (gzip
// data cut short or with a bad checksum, a source that fails, alone or
// with its last bytes) gives the rows and the error of one reader, for
// every number of workers, chunk size and way the source splits its
// reads: a bad row before the error, even one the error cuts short, is
// reported; a row the error cuts short, and that has nothing wrong in
// what came of it, is the read error (FuzzReadParallel found a gzip input
// whose cut row held a bare quote, reported by one reader and not by three
// workers).
func TestReadErrorSameWhateverWorkers(t *testing.T) {
	m := withOpen(t)
	opt := Options{IgnoreUnknownColumns: true}
	csv := append(quotedCSV(40, 11), "sunny,x\"y,NA,c1\nrain,,NA,c2\n"...)
	type input struct {
		name string
		src  func() io.Reader
	}
	var inputs []input
	zipped := []byte(gz(string(csv)))
	for cut := 10; cut < len(zipped); cut += 3 {
		z := zipped[:cut]
		inputs = append(inputs, input{fmt.Sprintf("gzip-cut-%d", cut), func() io.Reader { return bytes.NewReader(z) }})
	}
	for cut := len(csv) - 60; cut <= len(csv); cut += 2 {
		// A whole gzip member, and then bytes that are not another.
		z := append([]byte(gz(string(csv[:cut]))), "junk"...)
		inputs = append(inputs, input{fmt.Sprintf("gzip-junk-%d", cut), func() io.Reader { return bytes.NewReader(z) }})
	}
	// Over 32 KiB of data, which a gzip reader hands out in pieces before
	// its error.
	long := append(quotedCSV(3000, 12), "sunny,x\"y,NA,c1\nrain,,NA,c2"...)
	for _, cut := range []int{len(long) - 10, len(long)} {
		z := append([]byte(gz(string(long[:cut]))), "junk"...)
		inputs = append(inputs, input{fmt.Sprintf("gzip-long-junk-%d", cut), func() io.Reader { return bytes.NewReader(z) }})
	}
	badSum := bytes.Clone(zipped)
	badSum[len(badSum)-5] ^= 1
	inputs = append(inputs, input{"gzip-checksum", func() io.Reader { return bytes.NewReader(badSum) }})
	fail := errors.New("disk on fire")
	for cut := len(csv) - 60; cut <= len(csv); cut += 2 {
		for _, together := range []bool{false, true} {
			c := csv[:cut]
			inputs = append(inputs, input{fmt.Sprintf("fail-%d-%v", cut, together), func() io.Reader {
				return &withData{data: c, err: fail, together: together}
			}})
		}
	}
	sawBare := false
	for _, in := range inputs {
		seq := opt
		seq.Workers = 1
		wantRows, wantStates, wantErr := readEvery(m, in.src(), seq, 100)
		if wantErr == "" {
			t.Fatalf("%s: no error", in.name)
		}
		sawBare = sawBare || strings.Contains(wantErr, "bare")
		for _, w := range []int{1, 2, 3} {
			for _, chunk := range []int{7, 64, 1000} {
				par := opt
				par.Workers, par.chunkSize = w, chunk
				for _, split := range []struct {
					name string
					wrap func(io.Reader) io.Reader
				}{
					{"whole", func(r io.Reader) io.Reader { return r }},
					{"half", iotest.HalfReader},
					{"bytes", iotest.OneByteReader},
				} {
					rows, states, errText := readEvery(m, split.wrap(in.src()), par, 37)
					if rows != wantRows || states != wantStates || errText != wantErr {
						t.Fatalf("%s, %d workers, chunks of %d, %s reads: %d rows, %q; one reader: %d rows, %q",
							in.name, w, chunk, split.name, strings.Count(rows, "\n"), errText, strings.Count(wantRows, "\n"), wantErr)
					}
				}
			}
		}
	}
	if !sawBare {
		t.Errorf("no input gave the bare quote before the read error: the test does not test it")
	}
}

// FuzzReadParallel: any input parsed in small chunks on several workers
// gives the rows, states and error of one reader.
func FuzzReadParallel(f *testing.F) {
	for _, tc := range parseTests {
		f.Add([]byte(tc.csv), uint8(5))
	}
	for _, tc := range errorTests {
		if len(tc.csv) < 1<<12 {
			f.Add([]byte(tc.csv), uint8(9))
		}
	}
	f.Add(quotedCSV(40, 1), uint8(3))
	m := withOpen(f)
	f.Fuzz(func(t *testing.T, src []byte, chunk uint8) {
		opt := Options{IgnoreUnknownColumns: true, Workers: 1}
		wantRows, wantStates, wantErr := readEvery(m, bytes.NewReader(src), opt, 7)
		opt.Workers, opt.chunkSize = 3, 1+int(chunk)
		rows, states, errText := readEvery(m, bytes.NewReader(src), opt, 5)
		if rows != wantRows || states != wantStates || errText != wantErr {
			t.Fatalf("in chunks of %d on 3 workers:\n%s%s %q\none reader:\n%s%s %q", opt.chunkSize, rows, states, errText, wantRows, wantStates, wantErr)
		}
		// A missing cell as an error (Options.Required): the same error.
		opt.Required = true
		rows, states, errText = readEvery(m, bytes.NewReader(src), opt, 5)
		opt.Workers = 1
		wantRows, wantStates, wantErr = readEvery(m, bytes.NewReader(src), opt, 7)
		if rows != wantRows || states != wantStates || errText != wantErr {
			t.Fatalf("with Required, in chunks of %d on 3 workers:\n%s%s %q\none reader:\n%s%s %q", opt.chunkSize, rows, states, errText, wantRows, wantStates, wantErr)
		}
	})
}
