//go:build js

package factor

// fastLoops is false in the WebAssembly page: CombineChecked runs the
// plain odometer (combinefast.go has the faster loops, the same numbers).
const fastLoops = false

func combineInner(k *Kernel, dst *Factor, vals [][]float64, card, str, back []int, nd int, o Op, arg []int32, check bool) {
	panic("factor: combineInner in the page")
}

func combineLong(k *Kernel, dst *Factor, vals [][]float64, card, str, back []int, nd int) {
	panic("factor: combineLong in the page")
}
