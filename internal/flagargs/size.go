package flagargs

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseSize parses a memory size such as 512MiB, 8GiB, 2GB or 1000000
// (bytes), as the --max-memory flags of pbl, pbl-beam and pbl-serve take
// it.
func ParseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	mult, num := 1.0, s
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			num, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || !(x > 0) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("bad memory size %q (want e.g. 512MiB or 8GiB)", s)
	}
	if x*mult >= math.MaxInt64 {
		return 0, fmt.Errorf("memory size %q is too large (at most 8 EiB)", s)
	}
	return int64(x * mult), nil
}
