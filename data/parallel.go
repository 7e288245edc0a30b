package data

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"sync"

	"github.com/pbl-lang/pbl/ir"
)

// This file parses a large input on several goroutines (see "Parallel
// parsing" in the package doc).
//
// The workers take turns (a mutex) to read the input after the header in
// chunks of about chunkSize bytes, each cut at its last row boundary: a
// line feed outside quotes. Chunks start at row boundaries, where no
// field is open, so whether a byte of a chunk is inside quotes is the
// parity of the quotes before it in the chunk (a quote written twice
// inside a quoted field counts twice); the reader counts the chunk's
// quotes (bytes.Count, memory speed) and walks back from its end to the
// last line feed with an even number of quotes before it. A chunk without
// one (a row longer than the chunk) grows until it has one, up to the
// longest row. It also counts the chunk's line feeds, so that every chunk
// knows the line it starts on. Reading is a memory copy and two counts,
// a small part of the parse, and needs no goroutine of its own.
//
// Each worker parses the chunk it read into batches with a Reader of its
// own over the chunk's bytes (the header's binding; the same scanner and
// messages). Read delivers the chunks' rows in file order, and then a
// chunk's error, if it has one: the rows and the error are those of one
// reader of the whole input, whatever the number of workers. Each worker
// numbers an open variable's new states in its chunk; Read, taking chunks
// in order, appends each chunk's new states to the reader's lists and
// renumbers the chunk's cells, so the numbering is that of one reader.
//
// Memory is bounded: at most 2·workers+2 chunks (their bytes, then their
// batches) are in flight, whatever the size of the input.

// chunkSize is the size of the chunks a large input is cut into.
const chunkSize = 1 << 20

// parallelBatch is the number of rows per batch a worker parses a chunk
// into.
const parallelBatch = 4096

// errStopped is the parse error of a chunk whose pipeline was halted.
var errStopped = errors.New("data: reading stopped")

// errRowTooLong is what the source of a chunk without a row boundary
// returns when its row needs more: the row is longer than maxRow.
var errRowTooLong = errors.New("row too long")

// chunk is a piece of the input that ends at a row boundary (or at the end
// of the input), and, once parsed (done closed), its rows.
type chunk struct {
	buf     []byte
	line    int   // the line buf[0] is on
	maxRows int   // at most the rows in buf: its line feeds, plus one
	last    bool  // buf ends at the end of the input
	long    bool  // buf is the start of a row longer than maxRow: no boundary in it
	rerr    error // the read error after buf, which ends where the input failed, or nil
	err     error // errStopped: the pipeline was halted (buf is empty)

	done    chan struct{}
	batches []*Batch
	rows    int
	perr    error      // the parse error after the batches' rows, or nil
	states  [][]string // states[j]: the states of open column j after the chunk, as its worker numbered them
}

// pipeline is the workers of a reader in parallel mode and the input
// they share. It holds no pointer to the Reader, so that a Reader dropped
// before the end of its input can be collected, and its cleanup stop the
// goroutines.
type pipeline struct {
	queue chan *chunk // chunks in file order, to Read
	free  chan []byte // chunk buffers
	bfree chan *Batch // parsed batches, returned by Read
	stop  chan struct{}
	once  sync.Once
	wg    sync.WaitGroup // the workers

	// The input, read by one worker at a time (mu): no goroutine of its
	// own, so no hand-off between the reading and the parsing.
	mu       sync.Mutex
	src      io.Reader
	gz       bool
	file     string
	size     int    // of a chunk
	bufs     int    // buffers that may still be made
	carry    []byte // the start of the next chunk: a row cut by the last one
	line     int    // the line carry starts on
	eof      bool   // src is exhausted
	finished bool   // the last chunk has been handed out: queue is closed

	cur   *chunk // the chunk Read is delivering, or nil
	bi, i int    // its next batch, and the next row in it

	fn func(worker int, b *Batch) error // ReadParallel's: workers call it with their batches, or nil
}

// halt stops the goroutines (they exit at their next step).
func (p *pipeline) halt() { p.once.Do(func() { close(p.stop) }) }

// layout is what a worker needs of the Reader to parse a chunk.
type layout struct {
	file string
	m    *ir.Model
	nf   int
	bind []int32
	cols []column // read only: shared by the workers when none is open
	vars []ir.VarID
	open bool // some column is of an open variable
	req  bool // Options.Required
}

// startParallel puts r in parallel mode with w workers, if the input is
// large enough to gain from it (the header's first read brought in at
// least half a buffer, and there is more), in a file of several columns.
func (r *Reader) startParallel(w int) { r.startPipeline(w, nil) }

// startPipeline is startParallel, the workers handing their batches to fn
// if it is not nil (ReadParallel).
func (r *Reader) startPipeline(w int, fn func(worker int, b *Batch) error) {
	s := &r.s
	if w <= 1 || s.eof || s.rerr != nil || r.nf <= 1 || s.err != nil || s.end-s.pos < min(r.chunk, len(s.buf)/2) {
		return
	}
	depth := 2*w + 2
	p := &pipeline{
		queue: make(chan *chunk, depth),
		free:  make(chan []byte, depth),
		bfree: make(chan *Batch, 8*depth),
		stop:  make(chan struct{}),
		fn:    fn,
		src:   s.src, gz: s.gzip, file: s.file, size: r.chunk, bufs: depth,
		carry: append([]byte(nil), s.buf[s.pos:s.end]...), line: s.line,
	}
	lay := &layout{file: s.file, m: r.m, nf: r.nf, bind: r.bind, vars: r.Vars, cols: r.cols, req: r.req}
	for j, c := range r.cols {
		if c.v.Open {
			if !lay.open {
				lay.open = true
				lay.cols = append([]column(nil), r.cols...)
			}
			lay.cols[j] = column{} // made afresh per chunk (newColumn)
		}
	}
	for k := range w {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.parse(lay, k)
		}()
	}
	r.pipe = p
	s.buf, s.pos, s.end = nil, 0, 0 // the workers own the input now
	runtime.AddCleanup(r, (*pipeline).halt, p)
}

// next reads the next chunk of the input, puts it in the queue and returns
// it; nil when there are no more or the pipeline is halted. One worker at
// a time reads.
func (p *pipeline) next() *chunk {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished || p.stopped() {
		return nil
	}
	c := p.cut()
	c.done = make(chan struct{})
	select {
	case p.queue <- c:
	case <-p.stop:
		return nil
	}
	if c.last || c.long || c.rerr != nil || c.err != nil {
		p.finished = true
		close(p.queue)
	}
	return c
}

// cut reads the next chunk: the carry and as much more as fills a buffer,
// cut after its last row boundary; or, if the input fails, everything up
// to the failure, with the error: the rows before it, and the row it cuts
// short, are parsed as one reader would, which reports a bad row in them
// before the error (even one the error cuts short: a bare quote in its
// first field).
func (p *pipeline) cut() *chunk {
	var buf []byte
	select {
	case buf = <-p.free:
	default:
		if p.bufs > 0 { // buffers are made as they are needed: a small input needs few
			p.bufs--
			buf = make([]byte, 0, p.size)
			break
		}
		select {
		case buf = <-p.free:
		case <-p.stop:
			return &chunk{err: errStopped}
		}
	}
	buf = append(buf[:0], p.carry...)
	p.carry = p.carry[:0]
	cut := 0
	for {
		var err error
		buf, p.eof, err = fillChunk(p.src, buf, p.eof)
		if err != nil {
			return &chunk{buf: buf, line: p.line, maxRows: bytes.Count(buf, []byte{'\n'}) + 1, rerr: err}
		}
		if p.eof {
			break
		}
		if cut = rowEnd(buf); cut > 0 {
			break
		}
		if len(buf) >= maxRow {
			break // a row longer than maxRow: the worker says so, as one reader would
		}
		nb := make([]byte, len(buf), min(2*cap(buf), maxRow)) // a row longer than the chunk
		copy(nb, buf)
		buf = nb
	}
	c := &chunk{buf: buf, line: p.line, last: p.eof, long: !p.eof && cut == 0}
	if cut > 0 && !p.eof {
		p.carry = append(p.carry, buf[cut:]...)
		c.buf = buf[:cut]
	}
	n := bytes.Count(c.buf, []byte{'\n'})
	p.line += n
	c.maxRows = n + 1
	return c
}

// fillChunk reads from src into buf until it is full or src is exhausted.
func fillChunk(src io.Reader, buf []byte, eof bool) ([]byte, bool, error) {
	stalls := 0
	for !eof && len(buf) < cap(buf) {
		n, err := src.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, true, nil
		}
		if err != nil {
			return buf, false, err
		}
		if n == 0 {
			if stalls++; stalls == 100 {
				return buf, false, io.ErrNoProgress
			}
		}
	}
	return buf, eof, nil
}

// rowEnd returns the offset just past the last line feed of buf that is
// outside quotes, buf starting outside quotes; 0 if there is none.
func rowEnd(buf []byte) int {
	q := bytes.Count(buf, []byte{'"'})
	end := len(buf)
	for {
		i := bytes.LastIndexByte(buf[:end], '\n')
		if i < 0 {
			return 0
		}
		q -= bytes.Count(buf[i+1:end], []byte{'"'})
		if q%2 == 0 {
			return i + 1
		}
		end = i
	}
}

// parse reads and parses chunks until there are none.
func (p *pipeline) parse(lay *layout, worker int) {
	r := &Reader{m: lay.m, nf: lay.nf, bind: lay.bind, Vars: lay.vars, workers: 1, started: true, cols: lay.cols, req: lay.req}
	if lay.open { // the worker's own columns, its open ones extended by its chunks
		r.cols = make([]column, len(lay.cols))
	}
	for {
		c := p.next()
		if c == nil {
			return
		}
		if c.err == nil {
			p.parseChunk(r, lay, c, worker)
		}
		close(c.done)
	}
}

// stopped reports whether the pipeline has been halted.
func (p *pipeline) stopped() bool {
	select {
	case <-p.stop:
		return true
	default:
		return false
	}
}

// parseChunk parses c's rows into batches.
func (p *pipeline) parseChunk(r *Reader, lay *layout, c *chunk, worker int) {
	open := lay.open
	if open {
		copy(r.cols, lay.cols)
		for j, col := range lay.cols {
			if col.v == nil {
				r.cols[j] = newColumn(lay.m.Vars[lay.vars[j]])
			}
		}
	}
	r.s = scanner{file: lay.file, buf: c.buf, end: len(c.buf), line: c.line, gzip: p.gz}
	switch {
	case c.long: // a row longer than maxRow
		r.s.src = failing{errRowTooLong}
	case c.rerr != nil: // the rows before a read error: it comes after them
		r.s.src, r.s.rerr = failing{c.rerr}, c.rerr
	default: // the chunk ends at a row boundary, or at the end of the input
		r.s.src, r.s.eof = failing{io.ErrUnexpectedEOF}, true
	}
	r.rows, r.rowErr, r.pending = 0, nil, 0
	for {
		var b *Batch
		select {
		case b = <-p.bfree:
		default: // room for the chunk's rows: a chunk of a few wide rows takes a few
			b = r.NewBatch(min(parallelBatch, c.maxRows))
		}
		err := r.Read(b)
		switch {
		case b.N > 0 && p.fn != nil:
			if p.stopped() {
				err = errStopped
				break
			}
			c.rows += b.N
			if ferr := p.fn(worker, b); ferr != nil && err == nil {
				err = ferr
			}
			p.putBatch(b)
		case b.N > 0:
			c.batches = append(c.batches, b)
			c.rows += b.N
		default:
			p.putBatch(b)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			c.perr = err
			break
		}
	}
	if open {
		c.states = make([][]string, len(r.cols))
		for j, col := range r.cols {
			if col.v.Open {
				c.states[j] = col.states
			}
		}
	}
	select {
	case p.free <- c.buf[:0]:
	default:
	}
	c.buf = nil
}

// putBatch returns a parsed batch for reuse.
func (p *pipeline) putBatch(b *Batch) {
	select {
	case p.bfree <- b:
	default:
	}
}

// readParallel is Read in parallel mode.
func (r *Reader) readParallel(b *Batch) error {
	p := r.pipe
	size := len(b.Lines)
	i := 0
	for i < size {
		if p.cur == nil {
			c, ok := <-p.queue
			if !ok {
				break
			}
			<-c.done
			if c.err != nil {
				r.s.err = c.err
				break
			}
			if err := r.commit(c); err != nil {
				r.s.err = err
				break
			}
			p.cur, p.bi, p.i = c, 0, 0
		}
		c := p.cur
		if p.bi == len(c.batches) {
			p.cur = nil
			if c.perr != nil {
				r.s.err = c.perr
				break
			}
			if c.long {
				r.s.err = malformed(ir.Pos{File: r.s.file, Line: c.line + 0, Col: 1}, "a row is longer than %d MiB", maxRow>>20)
				break
			}
			continue
		}
		src := c.batches[p.bi]
		n := min(size-i, src.N-p.i)
		for j := range r.cols {
			if b.Reals[j] != nil && src.Reals[j] != nil {
				copy(b.Reals[j][i:i+n], src.Reals[j][p.i:p.i+n])
			} else {
				copy(b.Cols[j][i:i+n], src.Cols[j][p.i:p.i+n])
			}
		}
		copy(b.Lines[i:i+n], src.Lines[p.i:p.i+n])
		i += n
		p.i += n
		if p.i == src.N {
			p.putBatch(src)
			p.bi++
			p.i = 0
		}
	}
	b.N = i
	r.rows += i
	if r.s.err != nil {
		p.halt()
		return r.s.err
	}
	if i == 0 {
		return io.EOF
	}
	return nil
}

// commit takes the open variables' states of c, the next chunk in file
// order: it appends the states new to the reader's lists and renumbers
// c's cells to them.
func (r *Reader) commit(c *chunk) error {
	if c.states == nil {
		return nil
	}
	for j, local := range c.states {
		if local == nil {
			continue
		}
		col := &r.cols[j]
		remap := make([]int32, len(local))
		same := true
		for k, name := range local {
			s := col.state([]byte(name))
			if s < 0 {
				if len(col.states) >= ir.MaxStates {
					return r.tooManyStates(c, j, k)
				}
				s = col.appendState(name)
			}
			remap[k] = s
			same = same && s == int32(k)
		}
		if same {
			continue
		}
		for _, b := range c.batches {
			for i, s := range b.Cols[j][:b.N] {
				if s >= 0 {
					b.Cols[j][i] = remap[s]
				}
			}
		}
	}
	return nil
}

// tooManyStates is the error of the row of c that gives open column j its
// state local[k], one too many.
func (r *Reader) tooManyStates(c *chunk, j, k int) error {
	line := c.line
	for _, b := range c.batches {
		for i, s := range b.Cols[j][:b.N] {
			if int(s) == k {
				line = b.Lines[i]
				goto found
			}
		}
	}
found:
	v := r.cols[j].v
	return ir.Errorf(ir.Pos{File: r.s.file, Line: line}, "%s has more than %d states: is it a real-valued or identifier column?", ir.Quote(v.Name), ir.MaxStates)
}

// ReadParallel reads every row r has not delivered and calls fn with them
// in batches, from up to Options.Workers goroutines at once (worker, in
// [0, Workers), tells them apart, so that fn may add to statistics of its
// own), in no particular order; b is fn's until it returns. Parsing and
// fn run on the same goroutine, batch after batch, so a batch is used
// where it was parsed. ReadParallel returns the first error in file order
// (as Read would), or fn's first error; fn may by then have seen rows
// after the bad one. Open variables' states are numbered as by Read: a
// reader with open variables delivers its batches in order, from one
// goroutine (settle their states first, with ScanStates and MergeStates,
// to count on every core).
func (r *Reader) ReadParallel(fn func(worker int, b *Batch) error) error {
	return r.eachShard(nil, func() error { return r.readParallelOne(fn) })
}

// Workers returns the number of goroutines that parse a large input, and
// so the most that call ReadParallel's function at once: Options.Workers,
// or GOMAXPROCS.
func (r *Reader) Workers() int { return r.workers }

// readParallelOne is ReadParallel within the current file.
func (r *Reader) readParallelOne(fn func(worker int, b *Batch) error) error {
	if r.s.err != nil {
		return r.s.err
	}
	open := false
	for _, c := range r.cols {
		open = open || c.v.Open
	}
	if !r.started && !open {
		r.started = true
		r.startPipeline(r.workers, fn)
	}
	if r.pipe == nil || r.pipe.fn == nil {
		b := r.NewBatch(parallelBatch)
		for {
			err := r.readOne(b)
			if b.N > 0 {
				if ferr := fn(0, b); ferr != nil {
					return ferr
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
	p := r.pipe
	defer func() {
		p.halt()
		p.wg.Wait() // fn is not called after ReadParallel returns
	}()
	for c := range p.queue {
		<-c.done
		r.rows += c.rows
		err := c.err
		if err == nil {
			err = c.perr
		}
		if err != nil {
			r.s.err = err
			return err
		}
	}
	return nil
}
