//go:build !amd64

package mixture

// cpuHasAVX512 is false off amd64: the portable kernels run.
func cpuHasAVX512() bool { return false }

func dots4AVX512(out *float64, x0, x1, x2, x3 *float64, ct, cnorm *float64, kp, d int) {
	panic("mixture: no AVX-512 kernel on this architecture")
}

func argmin2AVX512(v *float64, kp int) (a int, b1 float64, ok bool) {
	panic("mixture: no AVX-512 kernel on this architecture")
}

func addRowsAVX512(sums, x *float64, d int, labels *int32, n, k int) {
	panic("mixture: no AVX-512 kernel on this architecture")
}
