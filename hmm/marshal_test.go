package hmm

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// TestStatsBinary checks that statistics survive MarshalBinary and
// UnmarshalBinary bit for bit, still merge, and that damaged data is an
// error.
func TestStatsBinary(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, gauss := range []bool{false, true} {
		h := randHMM(r, 3, gauss, 2)
		if !gauss {
			h.Emit = &Categorical{M: 2, Prob: []float64{0.5, 0.5, 0.2, 0.8, 0.9, 0.1}}
		}
		seqs := []Seq{randSeq(r, h, 30), randSeq(r, h, 40)}
		st, err := h.EStep(seqs, 1)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := st.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var back Stats
		if err := back.UnmarshalBinary(raw); err != nil {
			t.Fatal(err)
		}
		if !statsEqual(st, &back, 0) || back.K != st.K || len(back.Center) != len(st.Center) {
			t.Errorf("gauss %v: %+v after the round trip, want %+v", gauss, back, *st)
		}
		if _, err := h.MStep(&back, Prior{}); err != nil {
			t.Errorf("gauss %v: the statistics read back: %v", gauss, err)
		}
		for _, cut := range []int{0, 3, 40, len(raw) - 1} {
			if err := back.UnmarshalBinary(raw[:cut]); !errors.Is(err, ErrShape) {
				t.Errorf("gauss %v: %d bytes of %d: error %v, want ErrShape", gauss, cut, len(raw), err)
			}
		}
		bad := append([]byte(nil), raw...)
		bad[5] = 0xff // K
		if err := back.UnmarshalBinary(bad); !errors.Is(err, ErrShape) {
			t.Errorf("gauss %v: a damaged K: error %v, want ErrShape", gauss, err)
		}
		bad = append([]byte(nil), raw...)
		bad[len(statsMagic)+8+7] = 0x7f // Init's length, huge
		if err := back.UnmarshalBinary(bad); !errors.Is(err, ErrShape) {
			t.Errorf("gauss %v: a huge length: error %v, want ErrShape", gauss, err)
		}
	}
}
