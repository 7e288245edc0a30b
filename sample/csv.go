package sample

import (
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/pbl-lang/pbl/ir"
)

// ChunkRows is the number of rows drawn from one generator. It is part of
// the output's definition: changing it changes the rows of every seed.
const ChunkRows = 4096

// ChunkSource returns the generator of chunk c (counting from 0) for seed:
// rand.NewPCG(seed, splitmix64(c)), where splitmix64 is
//
//	z := c + 0x9e3779b97f4a7c15
//	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
//	z = (z ^ z>>27) * 0x94d049bb133111eb
//	return z ^ z>>31
func ChunkSource(seed uint64, c int) *rand.PCG {
	return rand.NewPCG(seed, splitmix64(uint64(c)))
}

// ChunkRealSource returns the generator of the real values of chunk c
// for seed: rand.NewPCG(splitmix64(seed ^ 0x5265616c56616c73),
// splitmix64(c)). The real values have their own stream, so that a
// model's discrete columns are drawn the same whether or not it has real
// variables.
func ChunkRealSource(seed uint64, c int) *rand.PCG {
	return rand.NewPCG(splitmix64(seed^0x5265616c56616c73), splitmix64(uint64(c)))
}

func splitmix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// WriteCSV compiles a sampler for m and writes n samples with it: see
// [Sampler.WriteCSV].
func WriteCSV(w io.Writer, m *ir.Model, n int, seed uint64, missing float64) error {
	s, err := NewSampler(m)
	if err != nil {
		return err
	}
	return s.WriteCSV(w, n, seed, missing)
}

// WriteCSV writes a header and n sampled rows to w as CSV, leaving each
// cell empty independently with probability missing (in [0, 1]). The
// output depends only on the model, n, seed and missing (see the package
// documentation for the exact scheme). Chunks of rows are generated on
// every core and written in order, each with one call to w.Write, so w
// needs no buffering. On a write error WriteCSV stops and returns it.
func (s *Sampler) WriteCSV(w io.Writer, n int, seed uint64, missing float64) error {
	if n < 0 {
		return fmt.Errorf("sample: negative number of rows %d", n)
	}
	if !(missing >= 0 && missing <= 1) {
		return fmt.Errorf("sample: the missing fraction %v is not in [0, 1]", missing)
	}
	enc := s.encoder()
	if _, err := w.Write(enc.header); err != nil {
		return err
	}
	chunks := n / ChunkRows
	if n%ChunkRows != 0 {
		chunks++
	}
	rows := func(c int) int { return min(ChunkRows, n-c*ChunkRows) }
	miss := missingThreshold(missing)
	workers := min(runtime.GOMAXPROCS(0), chunks)
	if workers <= 1 {
		dst := make([]int32, len(s.m.Vars))
		vals := make([]float64, len(s.m.Vars))
		var buf []byte
		for c := range chunks {
			buf = s.chunk(buf[:0], enc, dst, vals, c, rows(c), seed, miss)
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
		return nil
	}
	return s.writeParallel(w, enc, chunks, rows, seed, miss, workers)
}

// job is one chunk in flight: done is closed when buf holds its rows.
type job struct {
	c    int
	buf  []byte
	done chan struct{}
}

// writeParallel generates chunks on workers goroutines and writes them in
// order. At most 2·workers chunks are in flight.
func (s *Sampler) writeParallel(w io.Writer, enc *encoder, chunks int, rows func(int) int, seed, miss uint64, workers int) error {
	inFlight := 2 * workers
	work := make(chan *job, inFlight+1)
	queue := make(chan *job, inFlight)
	free := make(chan []byte, inFlight+1)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dst := make([]int32, len(s.m.Vars))
			vals := make([]float64, len(s.m.Vars))
			for j := range work {
				j.buf = s.chunk(j.buf[:0], enc, dst, vals, j.c, rows(j.c), seed, miss)
				close(j.done)
			}
		}()
	}
	// The producer hands out chunks in order; the queue bounds how far it
	// runs ahead of the writer.
	go func() {
		defer close(work)
		defer close(queue)
		for c := range chunks {
			var buf []byte
			select {
			case buf = <-free:
			default:
			}
			j := &job{c: c, buf: buf, done: make(chan struct{})}
			select {
			case queue <- j:
			case <-quit:
				return
			}
			// Every queued job must reach a worker, even after quit, so
			// that the writer's wait on it ends; workers never block.
			work <- j
		}
	}()
	var err error
	for j := range queue {
		<-j.done
		if err == nil {
			if _, err = w.Write(j.buf); err != nil {
				close(quit)
			}
		}
		select {
		case free <- j.buf:
		default:
		}
	}
	wg.Wait()
	return err
}

// chunk appends the rows of chunk c to buf and returns it.
func (s *Sampler) chunk(buf []byte, enc *encoder, dst []int32, vals []float64, c, rows int, seed, miss uint64) []byte {
	src := ChunkSource(seed, c)
	var reals *rand.PCG
	if s.realDraws > 0 {
		reals = ChunkRealSource(seed, c)
	}
	if need := rows * enc.maxRow; cap(buf)-len(buf) < need {
		buf = append(make([]byte, 0, len(buf)+need), buf...)
	}
	for range rows {
		s.sampleRow(src, reals, dst, vals)
		buf = enc.appendRow(buf, dst, vals, src, miss)
	}
	return buf
}

// encoder holds the CSV text of every state of every column, each followed
// by a comma, in one flat array.
type encoder struct {
	header []byte
	cols   []int32 // VarIDs of the columns
	real   []bool  // real[i]: column i is real-valued, written as a number
	base   []int32 // base[i]: index in cell (or slot) of column i's first state
	cell   []span  // cell[base[i]+s]: where text holds state s of column i
	text   []byte
	empty  []byte // a missing cell with its comma
	maxRow int    // longest possible row, in bytes, plus slack for slots

	// When every cell's text fits in slotSize bytes, slot holds them
	// padded to that size, and appendRow copies whole slots.
	slot []slot
}

// span is the text of one cell, text[from:to].
type span struct{ from, to int32 }

// slotSize is the size of a slot: a cell's text padded, copied as two
// words.
const slotSize = 16

type slot struct {
	b [slotSize]byte
	n int
}

func (s *Sampler) encoder() *encoder {
	e := &encoder{cols: s.cols, empty: []byte(",")}
	if len(s.cols) == 1 {
		e.empty = []byte(`"",`)
	}
	var h strings.Builder
	short := true
	for i, v := range s.cols {
		if i > 0 {
			h.WriteByte(',')
		}
		h.WriteString(quoteField(s.m.Vars[v].Name))
		e.base = append(e.base, int32(len(e.cell)))
		real := !s.m.Vars[v].Discrete()
		e.real = append(e.real, real)
		if real {
			// The shortest decimal that reads back as the float64, at most
			// 24 bytes (-2.2250738585072014e-308), and its comma.
			e.maxRow += 25
			continue
		}
		longest := len(e.empty)
		for _, st := range s.m.Vars[v].States {
			q := quoteField(st) + ","
			e.cell = append(e.cell, span{int32(len(e.text)), int32(len(e.text) + len(q))})
			e.text = append(e.text, q...)
			longest = max(longest, len(q))
		}
		e.maxRow += longest
		short = short && longest <= slotSize
	}
	h.WriteByte('\n')
	e.header = []byte(h.String())
	if short {
		e.slot = make([]slot, len(e.cell))
		for i, c := range e.cell {
			e.slot[i].n = copy(e.slot[i].b[:], e.text[c.from:c.to])
		}
		e.maxRow += slotSize
	}
	return e
}

// appendRow appends the row dst (states indexed by VarID; vals, the real
// values) to buf, drawing
// one 63-bit number per cell from src for blanking when miss > 0. In the
// slot path buf must have room for the row plus slotSize bytes.
func (e *encoder) appendRow(buf []byte, dst []int32, vals []float64, src *rand.PCG, miss uint64) []byte {
	if e.slot != nil {
		for i, v := range e.cols {
			if miss > 0 && src.Uint64()>>1 < miss {
				buf = append(buf, e.empty...)
				continue
			}
			if e.real[i] {
				buf = append(strconv.AppendFloat(buf, vals[v], 'g', -1, 64), ',')
				continue
			}
			sl := &e.slot[int(e.base[i])+int(dst[v])]
			l := len(buf)
			*(*[slotSize]byte)(buf[l : l+slotSize]) = sl.b
			buf = buf[:l+sl.n]
		}
	} else {
		for i, v := range e.cols {
			if miss > 0 && src.Uint64()>>1 < miss {
				buf = append(buf, e.empty...)
				continue
			}
			if e.real[i] {
				buf = append(strconv.AppendFloat(buf, vals[v], 'g', -1, 64), ',')
				continue
			}
			c := e.cell[int(e.base[i])+int(dst[v])]
			buf = append(buf, e.text[c.from:c.to]...)
		}
	}
	buf[len(buf)-1] = '\n'
	return buf
}

// quoteField returns s as an RFC 4180 field: quoted if it is empty,
// contains a comma, a double quote, CR or LF, or starts or ends with a
// space or tab; inner quotes doubled.
func quoteField(s string) string {
	if s != "" && !strings.ContainsAny(s, ",\"\r\n") && !isSpace(s[0]) && !isSpace(s[len(s)-1]) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' }
