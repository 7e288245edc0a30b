package data

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/pbl-lang/pbl/formats/bif"
	"github.com/pbl-lang/pbl/ir"
)

// alarmModel returns the ALARM network from the corpus, or, if the corpus
// is absent, a model of the same shape: 37 variables of 2 to 4 states.
func alarmModel(tb testing.TB) *ir.Model {
	tb.Helper()
	root := os.Getenv("PBL_CORPUS")
	if root == "" {
		root = filepath.Join("..", "..", "shared", "corpus")
	}
	if m, err := bif.ReadFile(filepath.Join(root, "bif", "alarm.bif")); err == nil {
		return m
	}
	tb.Logf("alarm.bif not found under %s: using a synthetic model of the same shape", root)
	b := ir.NewBuilder("synthetic")
	names := []string{"LOW", "NORMAL", "HIGH", "ZERO"}
	for i := range 37 {
		n := 2 + i%3
		id, _ := b.AddVar(ir.Pos{}, "V"+strconv.Itoa(i), ir.Enum, names[:n], 0)
		vals := make([]float64, n)
		for k := range vals {
			vals[k] = 1 / float64(n)
		}
		b.SetCPT(ir.Pos{}, id, nil, vals, nil)
	}
	m, err := b.Finish()
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// sample forward-samples n rows of the Bayesian network m as CSV.
func sample(m *ir.Model, n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, seed))
	// A topological order.
	var order []ir.VarID
	done := make([]bool, len(m.Vars))
	var visit func(v ir.VarID)
	visit = func(v ir.VarID) {
		if done[v] {
			return
		}
		done[v] = true
		for _, p := range m.Parents[v] {
			visit(p)
		}
		order = append(order, v)
	}
	for v := range m.Vars {
		visit(ir.VarID(v))
	}
	var buf bytes.Buffer
	for j, v := range m.Vars {
		if j > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(Quote(v.Name))
	}
	buf.WriteByte('\n')
	enc := make([][]string, len(m.Vars))
	for v, x := range m.Vars {
		for _, s := range x.States {
			enc[v] = append(enc[v], Quote(s))
		}
	}
	a := make([]int, len(m.Vars))
	for range n {
		for _, v := range order {
			f := m.Table(ir.VarID(v)).Factor
			off := 0
			for k, p := range f.Vars[:len(f.Vars)-1] {
				off += a[p] * f.Stride[k]
			}
			row := f.Vals[off : off+f.Card[len(f.Card)-1]]
			u, s := rng.Float64(), 0
			for s < len(row)-1 && u >= row[s] {
				u -= row[s]
				s++
			}
			a[v] = s
		}
		for v := range m.Vars {
			if v > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(enc[v][a[v]])
		}
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

var alarmCSV = sync.OnceValues(func() (*ir.Model, []byte) {
	m := alarmModel(&testing.T{})
	return m, sample(m, 1_000_000, 1)
})

// BenchmarkRead reads a 1,000,000-row CSV forward-sampled from ALARM (37
// columns), in batches of 4096 rows. The throughput is in bytes of CSV.
func BenchmarkRead(b *testing.B) {
	m, src := alarmCSV()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r, err := NewReader("alarm.csv", bytes.NewReader(src), m, Options{})
		if err != nil {
			b.Fatal(err)
		}
		batch := r.NewBatch(4096)
		for {
			err := r.Read(batch)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		if r.Rows() != 1_000_000 {
			b.Fatalf("read %d rows", r.Rows())
		}
	}
}

// BenchmarkReadReal reads 100,000 rows of four real-valued columns, each
// number written in the fewest digits that give it back (17 mostly).
func BenchmarkReadReal(b *testing.B) { benchReadReal(b, -1) }

// BenchmarkReadReal8 reads 100,000 rows of four real-valued columns, each
// number written with 8 significant digits (%.8g, as
// bench/linear_statsmodels.py writes them).
func BenchmarkReadReal8(b *testing.B) { benchReadReal(b, 8) }

func benchReadReal(b *testing.B, digits int) {
	ib := ir.NewBuilder("gauss")
	var buf bytes.Buffer
	buf.WriteString("x,y,z,w\n")
	for _, name := range []string{"x", "y", "z", "w"} {
		ib.AddVar(ir.Pos{}, name, ir.Real, nil, 0)
	}
	m, err := ib.Finish()
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for range 100_000 {
		for j := range 4 {
			if j > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(strconv.FormatFloat(rng.NormFloat64()*10, 'g', digits, 64))
		}
		buf.WriteByte('\n')
	}
	src := buf.Bytes()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := NewReader("gauss.csv", bytes.NewReader(src), m, Options{})
		if err != nil {
			b.Fatal(err)
		}
		batch := r.NewBatch(4096)
		for r.Read(batch) == nil {
		}
	}
}

// repeater produces a header and then copies of body until n bytes of
// body have been produced, as a file too large to hold would be read.
type repeater struct {
	header, body []byte
	n, off       int
}

func (r *repeater) Read(p []byte) (int, error) {
	if len(r.header) > 0 {
		k := copy(p, r.header)
		r.header = r.header[k:]
		return k, nil
	}
	if r.n <= 0 {
		return 0, io.EOF
	}
	k := copy(p, r.body[r.off:])
	r.off = (r.off + k) % len(r.body)
	r.n -= k
	return k, nil
}

// TestMemory streams 200 MB of CSV and checks that the heap stays small,
// and that reading a batch allocates nothing.
func TestMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 200 MB")
	}
	m := testModel(t)
	src := genCSV(m, 20000, 5)
	nl := bytes.IndexByte(src, '\n') + 1
	const total = 200 << 20
	body := src[nl:]
	rep := &repeater{header: src[:nl], body: body, n: total / len(body) * len(body)}
	runtime.GC()
	var before, ms runtime.MemStats
	runtime.ReadMemStats(&before)
	r, err := NewReader("big.csv", rep, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := r.NewBatch(4096)
	peak := uint64(0)
	for k := 0; ; k++ {
		err := r.Read(b)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if k%500 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	}
	runtime.ReadMemStats(&ms)
	peak = max(peak, ms.HeapInuse)
	t.Logf("streamed %d MB, %d rows: HeapInuse %.1f MB before, peak %.1f MB; %.1f MB allocated in all",
		total>>20, r.Rows(), float64(before.HeapInuse)/(1<<20), float64(peak)/(1<<20), float64(ms.TotalAlloc-before.TotalAlloc)/(1<<20))
	if peak > 64<<20 {
		t.Errorf("HeapInuse reached %.1f MB while streaming, want under 64 MB", float64(peak)/(1<<20))
	}
	if ms.TotalAlloc-before.TotalAlloc > 32<<20 {
		t.Errorf("streaming allocated %d MB, want under 32 MB", (ms.TotalAlloc-before.TotalAlloc)>>20)
	}

	// Steady state: a Read allocates nothing.
	rep = &repeater{header: src[:nl], body: body, n: 1 << 40}
	r, err = NewReader("big.csv", rep, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b = r.NewBatch(1024)
	r.Read(b)
	if n := testing.AllocsPerRun(100, func() {
		if err := r.Read(b); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Read allocates %v times per batch, want 0", n)
	}
}

// BenchmarkReadGzip reads 100,000 rows sampled from ALARM, gzip-compressed.
// The throughput is in bytes of decompressed CSV.
func BenchmarkReadGzip(b *testing.B) {
	m := alarmModel(b)
	src := sample(m, 100_000, 2)
	packed := []byte(gz(string(src)))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		r, err := NewReader("alarm.csv.gz", bytes.NewReader(packed), m, Options{})
		if err != nil {
			b.Fatal(err)
		}
		batch := r.NewBatch(4096)
		for r.Read(batch) == nil {
		}
		if r.Rows() != 100_000 {
			b.Fatalf("read %d rows", r.Rows())
		}
	}
}
