package hmm

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// The benchmarks of issue 32: one Baum–Welch iteration on 1,000 sequences
// of 1,000 steps, 10 states, univariate Gaussian emissions; and smoothing
// one sequence of 10^6 steps. bench/hmm_pome.py runs the first beside
// pomegranate's on the same data: it sets PBL_HMM_BENCH to a directory
// holding x.f64 (the sequences' values, float64 little-endian, one
// sequence after another) and start.json (the start), which the benchmark
// then reads instead of drawing its own.

// benchData returns the benchmark's sequences and start.
func benchData(b *testing.B) ([]Seq, *HMM) {
	const n, T, k = 1000, 1000, 10
	if dir := os.Getenv("PBL_HMM_BENCH"); dir != "" {
		raw, err := os.ReadFile(filepath.Join(dir, "x.f64"))
		if err != nil {
			b.Fatal(err)
		}
		if len(raw) != n*T*8 {
			b.Fatalf("x.f64 has %d bytes, want %d", len(raw), n*T*8)
		}
		x := make([]float64, n*T)
		for i := range x {
			x[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
		}
		seqs := make([]Seq, n)
		for i := range seqs {
			seqs[i] = Seq{X: x[i*T : (i+1)*T]}
		}
		js, err := os.ReadFile(filepath.Join(dir, "start.json"))
		if err != nil {
			b.Fatal(err)
		}
		var st struct {
			Init  []float64
			Trans [][]float64
			Mean  []float64
			Var   []float64
		}
		if err := json.Unmarshal(js, &st); err != nil {
			b.Fatal(err)
		}
		h := &HMM{K: len(st.Init), Init: st.Init, Trans: flat(st.Trans), Emit: &Gaussian{D: 1, Mean: st.Mean, Var: st.Var}}
		if err := h.Validate(); err != nil {
			b.Fatal(err)
		}
		return seqs, h
	}
	r := rand.New(rand.NewPCG(32, 1))
	truth := stickyHMM(k, 0.9)
	seqs := sampleSeqs(r, truth, n, T)
	start := stickyHMM(k, 1.0/k)
	g := start.Emit.(*Gaussian)
	for i := range g.Mean {
		g.Mean[i] += 0.3
		g.Var[i] = 1
	}
	return seqs, start
}

// stickyHMM returns a Gaussian HMM of k states: means 0..k-1, variance
// 0.25, staying in a state with probability stay, else moving to any
// other alike; the first state uniform.
func stickyHMM(k int, stay float64) *HMM {
	h := &HMM{K: k, Init: make([]float64, k), Trans: make([]float64, k*k),
		Emit: &Gaussian{D: 1, Mean: make([]float64, k), Var: make([]float64, k)}}
	g := h.Emit.(*Gaussian)
	for i := range k {
		h.Init[i] = 1 / float64(k)
		for j := range k {
			h.Trans[i*k+j] = (1 - stay) / float64(k-1)
		}
		h.Trans[i*k+i] = stay
		g.Mean[i], g.Var[i] = float64(i), 0.25
	}
	return h
}

func BenchmarkBaumWelch(b *testing.B) {
	seqs, start := benchData(b)
	for _, w := range []int{1, 0} {
		name := fmt.Sprintf("workers=%d", w)
		if w == 0 {
			name = fmt.Sprintf("workers=%d", runtime.GOMAXPROCS(0))
		}
		b.Run(name, func(b *testing.B) {
			var st *Stats
			var next *HMM
			cpu0 := cpuTime()
			for b.Loop() {
				var err error
				if st, err = start.EStep(seqs, w); err != nil {
					b.Fatal(err)
				}
				if next, err = start.MStep(st, Prior{}); err != nil {
					b.Fatal(err)
				}
			}
			cpu := cpuTime() - cpu0
			after, err := next.EStep(seqs, w)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/iter")
			b.ReportMetric(cpu.Seconds()*1e3/float64(b.N), "cpu-ms/iter")
			fmt.Printf("hmm-bench %s loglik-start %.17g loglik-after %.17g\n", name, st.LogLik, after.LogLik)
		})
	}
}

// cpuTime returns the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSmoothLong smooths one sequence of 10^6 steps of a 10-state
// Gaussian HMM, streaming (SmoothEach, O(K√T) memory) and into the T×K
// result (Smooth), and reports the bytes each call allocates (MB-alloc/op,
// an upper bound on what it adds to the heap's peak); /usr/bin/time -v on
// the test binary gives the process's peak.
func BenchmarkSmoothLong(b *testing.B) {
	const T = 1000000
	r := rand.New(rand.NewPCG(32, 2))
	h := stickyHMM(10, 0.9)
	s := sampleSeqs(r, h, 1, T)[0]
	for _, mode := range []string{"each", "all"} {
		b.Run(mode, func(b *testing.B) {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			before := ms.TotalAlloc
			sum := 0.0
			for b.Loop() {
				if mode == "each" {
					if _, err := h.SmoothEach(s, func(t int, p []float64) { sum += p[0] }); err != nil {
						b.Fatal(err)
					}
					continue
				}
				post, err := h.Smooth(s)
				if err != nil {
					b.Fatal(err)
				}
				sum += post.Prob[0]
			}
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.TotalAlloc-before)/float64(b.N)/1e6, "MB-alloc/op")
			if math.IsNaN(sum) {
				b.Fatal("NaN posterior")
			}
		})
	}
}
