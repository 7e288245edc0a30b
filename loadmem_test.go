package pbl_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/ir"
)

// BenchmarkLoadMemory loads a generated 23.7 MB model (the shape of
// BenchmarkFrontEnd's, 69,228 variables) and reports what the front end
// holds at its peak while loading — the largest live heap a garbage
// collection marked (runtime/metrics /gc/heap/live:bytes), in MB and as a
// multiple of the source (the target is at most 4) — the largest heap
// sampled, garbage included (peak-heap-MB), and the model's heap once
// loaded. The collector runs at GOGC=5 meanwhile, so that collections are
// frequent and the live figure follows the load closely; the heap is
// sampled every millisecond.
//
//	go test -run '^$' -bench LoadMemory -benchtime 1x .
func BenchmarkLoadMemory(b *testing.B) {
	src := generatedModel(23_700_000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	old := debug.SetGCPercent(5)
	defer debug.SetGCPercent(old)
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	live := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	for b.Loop() {
		runtime.GC()
		base, baseLive := heap(), live()
		done := make(chan [2]uint64)
		stop := make(chan struct{})
		go func() {
			var peak [2]uint64
			t := time.NewTicker(time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-stop:
					done <- peak
					return
				case <-t.C:
					peak[0] = max(peak[0], heap())
					peak[1] = max(peak[1], live())
				}
			}
		}()
		m, err := pbl.Load("big.pbl", src)
		stop <- struct{}{}
		peak := <-done
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		held := float64(peak[1] - baseLive)
		b.ReportMetric(held/1e6, "live-MB")
		b.ReportMetric(held/float64(len(src)), "live/source")
		b.ReportMetric(float64(peak[0]-base)/1e6, "peak-heap-MB")
		b.ReportMetric(float64(heap()-base)/1e6, "model-MB")
		runtime.KeepAlive(m)
	}
}

// BenchmarkLoadFilePeakRSS reports the whole process's peak resident
// memory (VmHWM, Linux) when a process loads the 23.7 MB model from a
// file, as pbl check does, in MB and as a multiple of the source (the
// target is at most 4), with the collector at GOGC=100 and at GOGC=400.
// Each load runs in a child process (this test binary, running
// TestLoadFileChild), whose memory is the load's alone; the test binary
// takes about 2 MB more than pbl. (The child reports its own peak: the
// rusage of a child counts the parent's memory at the fork.)
//
//	go test -run '^$' -bench LoadFilePeakRSS -benchtime 1x .
func BenchmarkLoadFilePeakRSS(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("needs /proc/self/status")
	}
	path := filepath.Join(b.TempDir(), "big.pbl")
	src := generatedModel(23_700_000)
	if err := os.WriteFile(path, src, 0o666); err != nil {
		b.Fatal(err)
	}
	for _, gogc := range []string{"100", "400"} {
		b.Run("GOGC="+gogc, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			var rss float64
			for b.Loop() {
				cmd := exec.Command(os.Args[0], "-test.run=^TestLoadFileChild$", "-test.v")
				cmd.Env = append(os.Environ(), "PBL_LOADFILE_CHILD="+path, "GOGC="+gogc)
				out, err := cmd.CombinedOutput()
				if err != nil {
					b.Fatalf("%v\n%s", err, out)
				}
				_, after, _ := strings.Cut(string(out), "VmHWM:") // "VmHWM:\t  86372 kB"
				f := strings.Fields(after)
				if len(f) < 2 || f[1] != "kB" {
					b.Fatalf("no VmHWM in the child's output:\n%s", out)
				}
				kb, err := strconv.Atoi(f[0])
				if err != nil {
					b.Fatal(err)
				}
				rss = max(rss, float64(kb)*1024)
			}
			b.ReportMetric(rss/1e6, "peak-RSS-MB")
			b.ReportMetric(rss/float64(len(src)), "RSS/source")
		})
	}
}

// TestLoadFileChild loads the file named by $PBL_LOADFILE_CHILD and logs
// the process's peak resident memory (the VmHWM line of
// /proc/self/status), for BenchmarkLoadFilePeakRSS; without it, it does
// nothing.
func TestLoadFileChild(t *testing.T) {
	path := os.Getenv("PBL_LOADFILE_CHILD")
	if path == "" {
		t.Skip("run by BenchmarkLoadFilePeakRSS")
	}
	if _, err := pbl.LoadFile(path); err != nil {
		t.Fatal(err)
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if strings.HasPrefix(line, "VmHWM:") {
			t.Log(strings.TrimSpace(line))
		}
	}
}

// TestLoadFileReadsAgain: a model loaded from a file, whose statements
// are read again from it (parser.ParseLeanFrom), is the model of the
// same source loaded from memory, and the memory limit in force before
// the loads is in force after them, whether they overlap or fail.
func TestLoadFileReadsAgain(t *testing.T) {
	dir := t.TempDir()
	src := generatedModel(1 << 18)
	path := filepath.Join(dir, "m.pbl")
	if err := os.WriteFile(path, src, 0o666); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.pbl")
	if err := os.WriteFile(bad, append(append([]byte(nil), src...), "P(X0) = [1]\n"...), 0o666); err != nil {
		t.Fatal(err)
	}
	const limit = 3 << 30
	old := debug.SetMemoryLimit(limit)
	defer debug.SetMemoryLimit(old)

	m, err := pbl.Load("m.pbl", src)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := pbl.Write(&b, m, ".pbl"); err != nil {
		t.Fatal(err)
	}
	fromMem := b.String()
	var wg sync.WaitGroup
	outs := make([]string, 4)
	errs := make([]error, 4)
	for i := range outs {
		wg.Go(func() {
			p := path
			if i == 3 {
				p = bad
			}
			m, err := pbl.LoadFile(p)
			if err != nil {
				errs[i] = err
				return
			}
			var b bytes.Buffer
			errs[i] = pbl.Write(&b, m, ".pbl")
			outs[i] = b.String()
		})
	}
	wg.Wait()
	for i := range 3 {
		if errs[i] != nil {
			t.Fatalf("load %d: %v", i, errs[i])
		}
		if outs[i] != fromMem {
			t.Errorf("load %d: the model loaded from the file differs from the one loaded from memory", i)
		}
	}
	var e *ir.Error
	if !errors.As(errs[3], &e) || e.Pos.File != bad {
		t.Errorf("loading a bad model: got error %v, want one in %s", errs[3], bad)
	}
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Errorf("memory limit after the loads: got %d, want %d", got, limit)
	}
}

// TestLoadKeepsNoSource: Load views its source without copying it, and
// neither the model nor what it answers refers to it afterwards: each
// example loaded from a buffer that is then overwritten runs as it does
// loaded from its file.
func TestLoadKeepsNoSource(t *testing.T) {
	names, err := filepath.Glob("examples/*.pbl")
	if err != nil || len(names) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	run := func(m *ir.Model) string {
		var b bytes.Buffer
		if errs := pbl.Run(m, &b, pbl.RunOptions{}); errs != nil {
			fmt.Fprintf(&b, "errors: %v\n", errs)
		}
		return b.String()
	}
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			if heavyExample(name) {
				t.Skip("a heavy case (see heavy)")
			}
			want, err := pbl.LoadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			m, err := pbl.Load(name, src)
			if err != nil {
				t.Fatal(err)
			}
			for i := range src {
				src[i] = 'x'
			}
			if got, want := run(m), run(want); got != want {
				t.Errorf("the model loaded from memory answers, once its source is overwritten:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}
