package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestHellinger(t *testing.T) {
	for _, c := range []struct {
		p, q []float64
		want float64
	}{
		{[]float64{1, 0}, []float64{1, 0}, 0},
		{[]float64{1, 0}, []float64{0, 1}, 1},
		// H² = 1 − Σ_s sqrt(p_s q_s), by hand.
		{[]float64{0.5, 0.5}, []float64{0.9, 0.1}, math.Sqrt(1 - math.Sqrt(0.45) - math.Sqrt(0.05))},
	} {
		if got := hellinger(c.p, c.q); !(math.Abs(got-c.want) <= 1e-12) {
			t.Errorf("hellinger(%v, %v) = %v, want %v", c.p, c.q, got, c.want)
		}
	}
}

func TestReadDai(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.exact")
	if err := os.WriteFile(path, []byte("logz 2.302585092994046 seconds 1 build 0\n0.25 0.75\n\n1 0 0\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	m, lz, err := readDai(path)
	if err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(lz-1) <= 1e-12) || len(m) != 2 || len(m[0]) != 2 || m[0][1] != 0.75 || len(m[1]) != 3 {
		t.Errorf("readDai = %v, %v", m, lz)
	}
	if err := os.WriteFile(path, []byte("logz 0\n0.5 x\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readDai(path); err == nil {
		t.Error("a bad number read without error")
	}
}
