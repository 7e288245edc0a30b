package approx

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestDbg(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 29))
	problems := 0
	for k := 0; problems < 120; k++ {
		var p *Problem
		frac := 0.1 + 0.2*rng.Float64()
		switch k % 4 {
		case 0:
			p = propRandomBN(rng, 10+rng.IntN(5), 3, false, frac)
		case 1:
			p = propRandomBN(rng, 10+rng.IntN(5), 3, true, frac)
		case 2:
			p = propRandomMN(rng, 9+rng.IntN(4), 10+rng.IntN(6), true, frac/2)
		case 3:
			p = propGrid(rng, 3+rng.IntN(2), 4, 0.5, 0.5+rng.Float64())
			for v := range p.Obs {
				if rng.Float64() < frac {
					p.Obs[v] = rng.IntN(2)
				}
			}
		}
		ex := propEnumerate(p)
		if math.IsInf(ex.logZ, -1) {
			continue
		}
		problems++
		res, _ := IJGP(p, Settings{IBound: 2})
		if k == 5 {
			r, _ := reduce(p)
			order := ijgpOrder(r)
			cl, ed, home := ijgpSchematic(r, order, 2)
			fmt.Println("order", order)
			for c, x := range cl {
				fmt.Print(c, x.vars, " pots:")
				for _, f := range x.pot {
					fmt.Print(f.Vars)
				}
				fmt.Println()
			}
			fmt.Println(ed, home)
		}
		for v, m := range ex.marg {
			if m == nil || p.Obs[v] >= 0 {
				continue
			}
			if !propWithin(ex, res, v, 1e-9) {
				fmt.Println(k, v, m, res.Marg[v], res.Err[v], res.Converged, res.Iterations, res.IBound)
			}
		}
	}
}
