package figure

import (
	"math"
	"strconv"
)

// A Tick is a mark on an axis.
type Tick struct {
	Value float64
	Label string // or "" for a minor tick
}

// A Ticker chooses the ticks of an axis over the range [lo, hi].
type Ticker interface {
	Ticks(lo, hi float64) []Tick
}

// DefaultTicks labels the multiples of a nice step, 1, 2, 2.5 or 5 times a
// power of ten, that lie in the range: the smallest step that labels at
// most Max values. Between the labels are unlabelled minor ticks, at a
// fifth of the step (a quarter for the steps of 2).
type DefaultTicks struct {
	Max int // the most labels, or 0 for 5
}

// niceSteps are the mantissas of the steps, and the minor ticks between
// two labels of each.
var niceSteps = [...]struct{ q, minor float64 }{{1, 5}, {2, 4}, {2.5, 5}, {5, 5}}

// Ticks returns the ticks over [lo, hi], labelled ones first, none if the
// range is empty or not finite.
func (t DefaultTicks) Ticks(lo, hi float64) []Tick {
	if !(lo <= hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil
	}
	if lo == hi {
		return []Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 6, 64)}}
	}
	span := hi - lo
	if math.IsInf(span, 1) || span < 1e-290 || span <= 1e-12*max(math.Abs(lo), math.Abs(hi)) {
		// Too wide for float64, or too narrow for its digits: the
		// ends alone.
		return []Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', -1, 64)}, {Value: hi, Label: strconv.FormatFloat(hi, 'g', -1, 64)}}
	}
	most := t.Max
	if most < 2 {
		most = 5
	}
	// From a step of a hundredth of the span up, so that the multiples
	// in the range are at most about 1e14: float64 counts them exactly.
	for mag := int(math.Floor(math.Log10(span))) - 2; ; mag++ {
		for _, s := range niceSteps {
			step := s.q * math.Pow10(mag)
			first, last := math.Ceil(lo/step-1e-9), math.Floor(hi/step+1e-9)
			n := int(last - first + 1)
			if n > most {
				continue
			}
			var ticks []Tick
			for i := range n {
				v := (first + float64(i)) * step
				if v == 0 {
					v = 0 // not -0
				}
				ticks = append(ticks, Tick{Value: v, Label: tickLabel(v, s.q, mag)})
			}
			minor := step / s.minor
			first = math.Ceil(lo/minor - 1e-9)
			for i := range int(math.Floor(hi/minor+1e-9)-first) + 1 {
				if k := first + float64(i); math.Mod(k, s.minor) != 0 {
					ticks = append(ticks, Tick{Value: k * minor})
				}
			}
			return ticks
		}
	}
}

// tickLabel formats v, a multiple of the step q·10^mag, with the digits
// that tell the multiples apart: in decimal notation, or with an exponent
// if v is very small or very large.
func tickLabel(v, q float64, mag int) string {
	decimals := -mag
	if q == 2.5 {
		decimals++
	}
	if v == 0 {
		return "0"
	}
	e := int(math.Floor(math.Log10(math.Abs(v))))
	if e < -4 || e >= 7 {
		return strconv.FormatFloat(v, 'e', max(e+decimals, 0), 64)
	}
	return strconv.FormatFloat(v, 'f', max(decimals, 0), 64)
}
