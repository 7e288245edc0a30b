//go:build amd64

package mixture

import "sync"

// dots4AVX512 is written in kernel_amd64.s.
//
//go:noescape
func dots4AVX512(out *float64, x0, x1, x2, x3 *float64, ct, cnorm *float64, kp, d int)

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

func xgetbv() (eax, edx uint32)

// hasAVX512 reports whether the processor and the operating system support
// AVX-512F and DQ, and POPCNT (the 512-bit registers are saved by the OS).
func hasAVX512() bool {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false
	}
	_, _, c1, _ := cpuid(1, 0)
	const osxsave, popcnt = 1 << 27, 1 << 23
	if c1&osxsave == 0 || c1&popcnt == 0 {
		return false
	}
	// XCR0: SSE, AVX, opmask, ZMM0-15 upper halves and ZMM16-31 enabled.
	if xcr0, _ := xgetbv(); xcr0&0xe6 != 0xe6 {
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	const avx512f, avx512dq = 1 << 16, 1 << 17
	return b7&avx512f != 0 && b7&avx512dq != 0
}

// avx512 is the answer of hasAVX512, asked at the first k-means rather
// than at start-up: under a hypervisor each CPUID traps, and the three
// cost every run of pbl about 30 µs (issue 16). (A sync.OnceValue would
// still allocate at start-up.)
var avx512 struct {
	once sync.Once
	ok   bool
}

// cpuHasAVX512 is hasAVX512, asked once.
func cpuHasAVX512() bool {
	avx512.once.Do(func() { avx512.ok = hasAVX512() })
	return avx512.ok
}

// argmin2AVX512 is written in kernel_amd64.s.
//
//go:noescape
func argmin2AVX512(v *float64, kp int) (a int, b1 float64, ok bool)

// addRowsAVX512 is written in kernel_amd64.s.
//
//go:noescape
func addRowsAVX512(sums, x *float64, d int, labels *int32, n, k int)
