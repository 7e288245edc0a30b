package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pbl-lang/pbl/approx"
	"github.com/pbl-lang/pbl/formats/uai"
)

func main() {
	engine := flag.String("engine", "auto", "auto, lbp, ijgp, wmb, gibbs, is")
	secs := flag.Float64("seconds", 10, "time limit")
	mem := flag.Int64("mem", 64, "memory bound in MiB")
	exactPath := flag.String("exact", "", "exact answer in daidrv form")
	flag.Parse()
	for _, path := range flag.Args() {
		if err := run(path, *engine, *secs, *mem<<20, *exactPath); err != nil {
			fmt.Fprintln(os.Stderr, path+":", err)
			os.Exit(1)
		}
	}
}

func run(path, engine string, secs float64, mem int64, exactPath string) error {
	m, err := uai.ReadFile(path)
	if err != nil {
		return err
	}
	ev, err := uai.ReadEvidenceFile(path+".evid", m)
	if err != nil {
		return err
	}
	p := &approx.Problem{Card: make([]int, len(m.Vars)), Obs: make([]int, len(m.Vars)), Factors: m.Factors()}
	for v, x := range m.Vars {
		p.Card[v], p.Obs[v] = x.Card(), -1
	}
	for _, o := range ev {
		p.Obs[o.Var] = o.State
	}
	var exact [][]float64
	var logz10 float64
	switch exactPath {
	case "none":
		exact, logz10 = nil, math.NaN()
	case "":
		exact, logz10, err = readUAI(path)
	default:
		exact, logz10, err = readDai(exactPath)
	}
	if err != nil {
		return err
	}
	algs := map[string]func(*approx.Problem, approx.Settings) (*approx.Result, error){
		"auto": approx.Auto, "lbp": approx.LBP, "ijgp": approx.IJGP, "wmb": approx.WMB,
		"gibbs": approx.Gibbs, "is": approx.Importance,
	}
	alg := algs[engine]
	if alg == nil {
		return fmt.Errorf("unknown engine %q", engine)
	}
	t0 := time.Now()
	res, err := alg(p, approx.Settings{Deadline: t0.Add(time.Duration(secs * float64(time.Second))), MaxMemory: mem, Seed: 1})
	el := time.Since(t0)
	if err != nil {
		return err
	}
	h, worst, n, in, me := 0.0, 0.0, 0, 0, 0.0
	for v, q := range res.Marg {
		if q == nil || p.Obs[v] >= 0 || exact == nil {
			continue
		}
		d := hellinger(exact[v], q)
		h += d
		worst = max(worst, d)
		n++
		ok := true
		me += res.Err[v][0]
		for s := range q {
			if !(math.Abs(q[s]-exact[v][s]) <= res.Err[v][s]+1e-6) {
				ok = false
			}
		}
		if ok {
			in++
		}
	}
	h /= float64(max(n, 1))
	me /= float64(max(n, 1))
	dz := math.Abs(res.LogZ/math.Ln10 - logz10)
	fmt.Printf("%-20s %-6s i=%2d %6.2fs hell_mean %.3g hell_max %.3g log10Z %.6g dlog10Z %.3g (±%.3g) within %d/%d meanErr %.3g\n",
		strings.TrimSuffix(filepath.Base(path), ".uai"), res.Engine, res.IBound, el.Seconds(), h, worst, res.LogZ/math.Ln10, dz, res.LogZErr/math.Ln10, in, n, me)
	return nil
}

func hellinger(p, q []float64) float64 {
	s := 0.0
	for i := range p {
		d := math.Sqrt(p[i]) - math.Sqrt(q[i])
		s += d * d
	}
	return math.Sqrt(s / 2)
}

// readDai reads daidrv's form: the marginals and log10 Z.
func readDai(path string) ([][]float64, float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	var marg [][]float64
	logz := math.NaN()
	first := true
	for sc.Scan() {
		tok := strings.Fields(sc.Text())
		if first {
			first = false
			for i := 0; i+1 < len(tok); i += 2 {
				if tok[i] == "logz" {
					logz, _ = strconv.ParseFloat(tok[i+1], 64)
				}
			}
			continue
		}
		if len(tok) == 0 {
			continue
		}
		row := make([]float64, len(tok))
		for i, t := range tok {
			row[i], err = strconv.ParseFloat(t, 64)
			if err != nil {
				return nil, 0, err
			}
		}
		marg = append(marg, row)
	}
	return marg, logz / math.Ln10, sc.Err()
}

// readUAI reads the UAI solutions NET.uai.MAR and NET.uai.PR.
func readUAI(path string) ([][]float64, float64, error) {
	src, err := os.ReadFile(path + ".MAR")
	if err != nil {
		return nil, 0, err
	}
	mar, err := uai.ReadMAR(path+".MAR", src)
	if err != nil {
		return nil, 0, err
	}
	src, err = os.ReadFile(path + ".PR")
	if err != nil {
		return nil, 0, err
	}
	pr, err := uai.ReadPR(path+".PR", src)
	return mar, pr, err
}
