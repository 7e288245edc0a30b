package learn

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/pbl-lang/pbl/ir"
)

// This file makes the sufficient statistics travel: Counts encode to bytes
// and back, so that a pipeline (an Apache Beam combiner) can carry them
// between workers and machines. EMStats (emshard.go), and package
// mixture's KMeansStats and GMMStats, are structs of exported fields and
// travel as they are.
//
// The statistics, and how each merges (see the package doc):
//
//	Counts       counts of discrete families: sums of whole numbers, exact;
//	             Gaussians' moments: Chan–Golub–LeVeque, to rounding
//	EMStats      expected counts, densities' weighted sums, log-likelihood: sums, to rounding
//	mixture.KMeansStats  rows per centre (exact), sums of rows, inertia
//	mixture.GMMStats     responsibilities' sums, weighted sums and scatters about the current means

// The encoding of Counts, version 1: a version byte, then uvarints
// (encoding/binary) for the whole numbers, and each float64 as the 8 bytes
// of its bits, little-endian, so that it comes back bit for bit:
//
//	countsV1
//	rows missing partial               uvarints
//	err                                string: uvarint length, bytes ("" for nil)
//	len(open)  open                    uvarint, then a bit per variable, 8 to a byte, low bit first
//	len(names) names...                uvarint, then strings
//	len(fams)  family...               uvarint, then per family:
//	  flags                            byte: 1 real, 2 dead, 4 linear
//	  len(vars) vars... card...        uvarint, then uvarints (the child last)
//	  ndisc                            linear only: uvarint, the discrete parents (the real ones follow)
//	  n...                             float64s, one per entry of the table (the product of card)
//	  shift... mean... m2...           real only: float64s, as n
//	  all.n all.shift all.mean all.m2  real only: float64s
//	  lin...                           linear only: float64s, linLen(len(vars) − ndisc) per entry
//
// It replaces encoding/gob, whose package initialisation every run of pbl
// paid for (issue 16).
const countsV1 = 0xc1 // C for counts, 1

// ErrCorruptCounts is the kind of error of UnmarshalBinary's input that
// MarshalBinary did not write: truncated, of another version, or whose
// tables do not agree with their sizes.
var ErrCorruptCounts = errors.New("learn: corrupt encoded counts")

const (
	flagReal = 1 << iota
	flagDead
	flagLinear
)

// MarshalBinary encodes c (encoding.BinaryMarshaler), bit for bit.
func (c *Counts) MarshalBinary() ([]byte, error) {
	p := []byte{countsV1}
	p = binary.AppendUvarint(p, uint64(c.rows))
	p = binary.AppendUvarint(p, uint64(c.missing))
	p = binary.AppendUvarint(p, uint64(c.partial))
	msg := ""
	if c.err != nil {
		msg = c.err.Error()
	}
	p = appendString(p, msg)
	p = binary.AppendUvarint(p, uint64(len(c.open)))
	bits := make([]byte, (len(c.open)+7)/8)
	for v, o := range c.open {
		if o {
			bits[v/8] |= 1 << (v % 8)
		}
	}
	p = append(p, bits...)
	p = binary.AppendUvarint(p, uint64(len(c.names)))
	for _, s := range c.names {
		p = appendString(p, s)
	}
	p = binary.AppendUvarint(p, uint64(len(c.fams)))
	for _, f := range c.fams {
		var flags byte
		if f.real {
			flags |= flagReal
		}
		if f.dead {
			flags |= flagDead
		}
		if f.lin != nil {
			flags |= flagLinear
		}
		p = append(p, flags)
		p = binary.AppendUvarint(p, uint64(len(f.vars)))
		for _, v := range f.vars {
			p = binary.AppendUvarint(p, uint64(v))
		}
		for _, k := range f.card {
			p = binary.AppendUvarint(p, uint64(k))
		}
		if f.lin != nil {
			p = binary.AppendUvarint(p, uint64(f.ndisc))
		}
		p = appendFloats(p, f.n)
		if f.real {
			p = appendFloats(p, f.shift)
			p = appendFloats(p, f.mean)
			p = appendFloats(p, f.m2)
			p = appendFloats(p, []float64{f.all.n, f.all.shift, f.all.mean, f.all.m2})
		}
		p = appendFloats(p, f.lin)
	}
	return p, nil
}

func appendString(p []byte, s string) []byte {
	return append(binary.AppendUvarint(p, uint64(len(s))), s...)
}

func appendFloats(p []byte, xs []float64) []byte {
	for _, x := range xs {
		p = binary.LittleEndian.AppendUint64(p, math.Float64bits(x))
	}
	return p
}

// UnmarshalBinary decodes counts that MarshalBinary encoded into c
// (encoding.BinaryUnmarshaler), replacing what c held. Input that
// MarshalBinary did not write is an error of the kind ErrCorruptCounts,
// and c is then left as it was; no length in it makes UnmarshalBinary
// allocate more than a few times the input's size.
func (c *Counts) UnmarshalBinary(p []byte) error {
	if len(p) == 0 || p[0] != countsV1 {
		return fmt.Errorf("%w: the first byte is not %#x", ErrCorruptCounts, countsV1)
	}
	d := countsDecoder{p: p[1:]}
	var o Counts
	o.rows, o.missing, o.partial = d.int(), d.int(), d.int()
	if msg := d.string(); msg != "" {
		o.err = errors.New(msg)
	}
	if nv := d.len(1.0 / 8); nv > 0 {
		bits := d.bytes((nv + 7) / 8)
		if r := nv % 8; d.err == nil && r != 0 && bits[len(bits)-1]>>r != 0 {
			d.fail("bits set past the last variable")
		}
		if d.err == nil {
			o.open = make([]bool, nv)
			for v := range o.open {
				o.open[v] = bits[v/8]&(1<<(v%8)) != 0
			}
		}
	}
	if nn := d.len(1); nn > 0 {
		o.names = make([]string, nn)
		for i := range o.names {
			o.names[i] = d.string()
		}
	}
	for range d.len(4) { // flags, the number of variables, one, its size
		f, err := d.family(len(o.open))
		if err != nil {
			return err
		}
		o.fams = append(o.fams, f)
	}
	switch {
	case d.err != nil:
		return d.err
	case len(d.p) > 0:
		return fmt.Errorf("%w: %d bytes after the counts", ErrCorruptCounts, len(d.p))
	case len(o.names) != len(o.open):
		return fmt.Errorf("%w: %d names of %d variables", ErrCorruptCounts, len(o.names), len(o.open))
	}
	*c = o
	return nil
}

// A countsDecoder reads what MarshalBinary wrote. Its first error sticks:
// every read after it returns zero.
type countsDecoder struct {
	p   []byte
	err error
}

func (d *countsDecoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: "+format, append([]any{ErrCorruptCounts}, args...)...)
	}
	d.p = nil
}

// uvarint reads a uvarint written in the fewest bytes, as MarshalBinary
// writes them: one input has one decoding and one encoding.
func (d *countsDecoder) uvarint() uint64 {
	x, k := binary.Uvarint(d.p)
	var buf [binary.MaxVarintLen64]byte
	if k <= 0 || k != binary.PutUvarint(buf[:], x) {
		d.fail("a truncated or overlong number")
		return 0
	}
	d.p = d.p[k:]
	return x
}

// int reads a whole number that fits an int.
func (d *countsDecoder) int() int {
	x := d.uvarint()
	if x > math.MaxInt {
		d.fail("number %d out of range", x)
		return 0
	}
	return int(x)
}

// len reads the length of a sequence whose elements take at least per
// bytes each: a length the rest of the input cannot hold is an error, so
// that a corrupt one allocates nothing.
func (d *countsDecoder) len(per float64) int {
	n := d.int()
	if float64(n)*per > float64(len(d.p)) {
		d.fail("a length of %d with %d bytes left", n, len(d.p))
		return 0
	}
	return n
}

func (d *countsDecoder) bytes(n int) []byte {
	if n > len(d.p) {
		d.fail("truncated")
		return nil
	}
	b := d.p[:n]
	d.p = d.p[n:]
	return b
}

func (d *countsDecoder) string() string { return string(d.bytes(d.len(1))) }

func (d *countsDecoder) floats(dst []float64) {
	b := d.bytes(8 * len(dst))
	if b == nil {
		return
	}
	for i := range dst {
		dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
}

// family reads a family of counts over nv variables, checking what Add,
// Merge and Estimate take for granted: the child is the last variable, a
// real child's dimension has size 1, every variable is one of the nv, no
// dimension is larger than ir.MaxTableSize, and the tables have the size
// that the dimensions make.
func (d *countsDecoder) family(nv int) (*family, error) {
	flags := d.bytes(1)
	nvars := d.len(2) // a variable and its size
	if d.err != nil {
		return nil, d.err
	}
	if flags[0]&^(flagReal|flagDead|flagLinear) != 0 || nvars == 0 || flags[0]&flagLinear != 0 && flags[0]&flagReal == 0 {
		d.fail("a family with flags %#x and %d variables", flags[0], nvars)
		return nil, d.err
	}
	f := &family{real: flags[0]&flagReal != 0, dead: flags[0]&flagDead != 0,
		vars: make([]ir.VarID, nvars), card: make([]int, nvars)}
	for k := range f.vars {
		v := d.int()
		if v >= nv {
			d.fail("variable %d of %d", v, nv)
		}
		f.vars[k] = ir.VarID(v)
	}
	for k := range f.card {
		f.card[k] = d.int()
	}
	if d.err != nil {
		return nil, d.err
	}
	f.child = f.vars[nvars-1]
	f.ndisc = nvars - 1
	linear := flags[0]&flagLinear != 0
	if linear {
		f.ndisc = d.int()
		if d.err == nil && f.ndisc >= nvars-1 {
			d.fail("a linear family with %d discrete parents of %d variables", f.ndisc, nvars)
		}
		for k := f.ndisc; d.err == nil && k < nvars; k++ {
			if f.card[k] != 1 {
				d.fail("a linear family's real dimension of size %d", f.card[k])
			}
		}
		if d.err != nil {
			return nil, d.err
		}
	}
	size, ok := tableSize(f.card)
	for _, k := range f.card { // an empty dimension can grow: the others must fit
		ok = ok && k <= ir.MaxTableSize
	}
	per := 8
	if f.real {
		per = 4 * 8
	}
	if linear {
		per += 8 * linLen(nvars-f.ndisc)
	}
	switch {
	case f.real && f.card[nvars-1] != 1:
		d.fail("a real child's dimension of size %d", f.card[nvars-1])
	case !ok || size > len(d.p)/per:
		d.fail("a table of %v with %d bytes left", f.card, len(d.p))
	}
	if d.err != nil {
		return nil, d.err
	}
	f.alloc(size)
	d.floats(f.n)
	if f.real {
		d.floats(f.shift)
		d.floats(f.mean)
		d.floats(f.m2)
		var all [4]float64
		d.floats(all[:])
		f.all = moments{all[0], all[1], all[2], all[3]}
	}
	if linear {
		d.floats(f.lin)
	}
	return f, d.err
}

// Err returns the error that stopped some family's counting (a table that
// grew too large), or nil. Learn reports it; a pipeline that counts with
// Add and Merge checks it before Estimate.
func (c *Counts) Err() error { return c.err }
