package hmm

import (
	"encoding/binary"
	"math"
)

// statsMagic begins the binary form of Stats, version 1.
const statsMagic = "hmmS\x01"

// MarshalBinary returns s in a binary form, for shards gathered in other
// processes: the magic "hmmS\x01", nine little-endian int64s (K, the
// lengths of Init, Trans, Count, Sum, SumSq and Center, Seqs, Steps), then
// LogLik and the arrays in that order as little-endian float64s.
func (s *Stats) MarshalBinary() ([]byte, error) {
	arrays := [][]float64{s.Init, s.Trans, s.Count, s.Sum, s.SumSq, s.Center}
	n := 1
	for _, a := range arrays {
		n += len(a)
	}
	out := make([]byte, 0, len(statsMagic)+9*8+n*8)
	out = append(out, statsMagic...)
	out = binary.LittleEndian.AppendUint64(out, uint64(s.K))
	for _, a := range arrays {
		out = binary.LittleEndian.AppendUint64(out, uint64(len(a)))
	}
	out = binary.LittleEndian.AppendUint64(out, uint64(s.Seqs))
	out = binary.LittleEndian.AppendUint64(out, uint64(s.Steps))
	out = binary.LittleEndian.AppendUint64(out, math.Float64bits(s.LogLik))
	for _, a := range arrays {
		for _, v := range a {
			out = binary.LittleEndian.AppendUint64(out, math.Float64bits(v))
		}
	}
	return out, nil
}

// UnmarshalBinary sets s from MarshalBinary's form. Data that is not that
// form (a wrong magic, lengths that disagree with the bytes) is an *Error
// of kind ErrShape, found before anything is allocated.
func (s *Stats) UnmarshalBinary(data []byte) error {
	bad := func(why string) error { return errorf(ErrShape, "not hmm statistics: %s", why) }
	if len(data) < len(statsMagic)+10*8 || string(data[:len(statsMagic)]) != statsMagic {
		return bad("no header")
	}
	p := data[len(statsMagic):]
	word := func() uint64 {
		v := binary.LittleEndian.Uint64(p)
		p = p[8:]
		return v
	}
	k := word()
	var lens [6]uint64
	total := uint64(0)
	for i := range lens {
		lens[i] = word()
		if lens[i] > uint64(len(data)) {
			return bad("an array longer than the data")
		}
		total += lens[i]
	}
	seqs, steps := word(), word()
	ll := math.Float64frombits(word())
	if total*8 != uint64(len(p)) {
		return bad("arrays of the wrong lengths")
	}
	if k > math.MaxInt32 || lens[0] != k || lens[1] != k*k || seqs > math.MaxInt64 || steps > math.MaxInt64 {
		return bad("shapes that disagree")
	}
	arrays := make([][]float64, 6)
	for i, n := range lens {
		if n == 0 && i >= 3 {
			continue // nil for a categorical emission's Sum, SumSq, Center
		}
		a := make([]float64, n)
		for j := range a {
			a[j] = math.Float64frombits(word())
		}
		arrays[i] = a
	}
	*s = Stats{K: int(k), Init: arrays[0], Trans: arrays[1], Count: arrays[2], Sum: arrays[3], SumSq: arrays[4],
		Center: arrays[5], LogLik: ll, Seqs: int64(seqs), Steps: int64(steps)}
	return nil
}
