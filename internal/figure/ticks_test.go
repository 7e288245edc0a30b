package figure

import (
	"math"
	"strconv"
	"testing"
)

// TestDefaultTicks checks that the labels are multiples of a nice step
// inside the range, covering it to within a step, at most Max of them
// and at least two, distinct, and read back as their values; and that the
// minor ticks are unlabelled, inside the range and between labels' steps.
func TestDefaultTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		max    int
		step   float64 // the step between labels
	}{
		{-3.2, 6.2, 0, 2},
		{0, 1, 0, 0.25},
		{0, 1, 11, 0.1},
		{0.34, 23.66, 0, 5},
		{-4.43, -3.13, 0, 0.25},
		{-3.1622, -3.1620, 0, 0.00005},
		{1e6, 1e6 + 3, 0, 1},
		{0, 3e9, 0, 1e9},
		{1e-7, 3e-7, 0, 5e-8},
		{-1, 1, 3, 1},
		{7, 8, 2, 1},
	} {
		ticks := DefaultTicks{Max: tc.max}.Ticks(tc.lo, tc.hi)
		var labels []Tick
		for _, tk := range ticks {
			if !(tk.Value >= tc.lo-1e-9*math.Abs(tc.lo) && tk.Value <= tc.hi+1e-9*math.Abs(tc.hi)) {
				t.Errorf("[%v, %v]: tick %v outside the range", tc.lo, tc.hi, tk.Value)
			}
			if tk.Label != "" {
				labels = append(labels, tk)
			}
		}
		most := tc.max
		if most == 0 {
			most = 5
		}
		if len(labels) < 2 || len(labels) > most {
			t.Errorf("[%v, %v]: %d labels %v; want 2 to %d", tc.lo, tc.hi, len(labels), labels, most)
			continue
		}
		step := labels[1].Value - labels[0].Value
		if !(math.Abs(step-tc.step) <= 1e-9*tc.step) {
			t.Errorf("[%v, %v]: step %v, want %v", tc.lo, tc.hi, step, tc.step)
		}
		if !(labels[0].Value-tc.lo < step && tc.hi-labels[len(labels)-1].Value < step) {
			t.Errorf("[%v, %v]: labels %v leave more than a step %v uncovered", tc.lo, tc.hi, labels, step)
		}
		seen := map[string]bool{}
		for i, l := range labels {
			if k := l.Value / step; !(math.Abs(k-math.Round(k)) <= 1e-6) {
				t.Errorf("[%v, %v]: label %v is not a multiple of the step %v", tc.lo, tc.hi, l.Value, step)
			}
			if i > 0 && !(math.Abs(l.Value-labels[i-1].Value-step) <= 1e-9*step) {
				t.Errorf("[%v, %v]: labels %v are not evenly spaced", tc.lo, tc.hi, labels)
			}
			v, err := strconv.ParseFloat(l.Label, 64)
			if err != nil || !(math.Abs(v-l.Value) <= step*1e-6) {
				t.Errorf("[%v, %v]: label %q of %v", tc.lo, tc.hi, l.Label, l.Value)
			}
			if seen[l.Label] {
				t.Errorf("[%v, %v]: label %q twice", tc.lo, tc.hi, l.Label)
			}
			seen[l.Label] = true
		}
		for _, tk := range ticks[len(labels):] {
			if tk.Label != "" {
				t.Errorf("[%v, %v]: labelled tick %v after the minor ones", tc.lo, tc.hi, tk)
			}
		}
		if minor := len(ticks) - len(labels); minor < len(labels)-1 {
			t.Errorf("[%v, %v]: %d minor ticks for %d labels", tc.lo, tc.hi, minor, len(labels))
		}
	}
}

// TestNiceStep checks that each step is 1, 2, 2.5 or 5 times a power of
// ten, over many ranges.
func TestNiceStep(t *testing.T) {
	for _, span := range []float64{1e-9, 3e-5, 0.07, 0.9, 1, 1.5, 3.3, 9.99, 42, 170, 5555, 1e12} {
		for _, lo := range []float64{-span * 3.7, -span / 2, 0, 1.234, 1e4} {
			if span < math.Abs(lo)*1e-6 {
				continue // the differences of the values lose the step's digits
			}
			ticks := DefaultTicks{}.Ticks(lo, lo+span)
			if len(ticks) < 2 || ticks[1].Label == "" {
				t.Errorf("[%v, %v]: ticks %v: want two labels", lo, lo+span, ticks)
				continue
			}
			step := ticks[1].Value - ticks[0].Value
			m := step / math.Pow10(int(math.Floor(math.Log10(step))))
			nice := false
			for _, q := range []float64{1, 2, 2.5, 5, 10} {
				nice = nice || math.Abs(m-q) <= 1e-6
			}
			if !nice {
				t.Errorf("[%v, %v]: step %v is not nice", lo, lo+span, step)
			}
		}
	}
}

// TestDegenerateTicks checks ranges that have no ticks or one.
func TestDegenerateTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		n      int
	}{
		{1, 0, 0},
		{math.NaN(), 1, 0},
		{0, math.NaN(), 0},
		{math.Inf(-1), 0, 0},
		{0, math.Inf(1), 0},
		{2.5, 2.5, 1},
		// Beyond float64's range or digits: the ends.
		{-1e308, 1e308, 2},
		{-math.MaxFloat64, math.MaxFloat64, 2},
		{1, 1 + 1e-15, 2},
		{1e20, 1e20 + 1e6, 2},
		{0, 5e-324, 2},
	} {
		got := (DefaultTicks{}).Ticks(tc.lo, tc.hi)
		if len(got) != tc.n {
			t.Errorf("[%v, %v]: %v; want %d ticks", tc.lo, tc.hi, got, tc.n)
		}
		for _, tk := range got {
			if !(tk.Value >= tc.lo && tk.Value <= tc.hi) || tk.Label == "" {
				t.Errorf("[%v, %v]: tick %v", tc.lo, tc.hi, tk)
			}
		}
	}
}
