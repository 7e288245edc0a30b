package mixture

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// This file holds the principal axis of a cluster's rows for wide data,
// where the d×d scatter that k-means' merge-and-split moves and
// split-and-merge EM use for narrow data would cost d² memory and d³
// time.

// denseMaxCols is the largest number of columns for which the principal
// axis comes from the d×d scatter matrix (as it always did); wider data
// goes through principalWide, whose cost is linear in the columns.
const denseMaxCols = 32

// gramMaxRows is the largest number of rows for which principalWide
// takes the eigenvectors of the m×m Gram matrix; more rows go through
// subspace iteration.
const gramMaxRows = 256

// Subspace iteration: the block size, the most iterations, and the
// relative change of the top Ritz value at which it stops.
const (
	subspaceBlock = 4
	subspaceIter  = 100
	subspaceTol   = 1e-10
)

// principalWide returns the largest eigenvalue of the weighted scatter
//
//	S = Σ_i w_i (x_i − μ)(x_i − μ)ᵀ / Σ_i w_i
//
// of the rows listed (w nil for weights 1) and a unit eigenvector, its
// sign fixed so that its first nonzero element is positive, without
// forming S. With Z the m×d matrix of the rows √w_i (x_i − μ), S = ZᵀZ/W:
// for m ≤ gramMaxRows its top eigenpair is that of the Gram matrix ZZᵀ
// (exactly, in m²d + m³ operations: ZZᵀu = γu gives S v = γ/W v with v =
// Zᵀu/√γ); for more rows subspace iteration on ZᵀZ with Rayleigh-Ritz
// gives it to about 1e-10 (in O(m d) per iteration, at most
// subspaceIter). Memory is m×d. It returns 0 and a zero vector if every
// row is at μ.
func principalWide(x *Matrix, rows []int, w []float64, mu []float64) (lam float64, v []float64) {
	d := x.Cols
	v = make([]float64, d)
	m := len(rows)
	if m == 0 {
		return 0, v
	}
	zd := make([]float64, m*d)
	wsum := 0.0
	for t, i := range rows {
		wi := 1.0
		if w != nil {
			wi = w[t]
		}
		wsum += wi
		s := math.Sqrt(wi)
		z := zd[t*d : (t+1)*d]
		for l, xv := range x.Row(i) {
			z[l] = s * (xv - mu[l])
		}
	}
	if !(wsum > 0) {
		return 0, v
	}
	z := mat.NewDense(m, d, zd)
	var gamma float64
	if m <= gramMaxRows {
		var g mat.SymDense
		g.SymOuterK(1, z)
		var es mat.EigenSym
		if !es.Factorize(&g, true) {
			return 0, v
		}
		vals := es.Values(nil)
		gamma = vals[m-1] // ascending order
		if !(gamma > 0) {
			return 0, v
		}
		var vecs mat.Dense
		es.VectorsTo(&vecs)
		u := vecs.ColView(m - 1)
		vv := mat.NewVecDense(d, v)
		vv.MulVec(z.T(), u)
	} else {
		gamma = subspaceTop(z, v)
		if !(gamma > 0) {
			clear(v)
			return 0, v
		}
	}
	norm := 0.0
	for _, e := range v {
		norm += e * e
	}
	norm = math.Sqrt(norm)
	if !(norm > 0) {
		clear(v)
		return 0, v
	}
	sign := 1.0
	for _, e := range v {
		if e != 0 {
			if e < 0 {
				sign = -1
			}
			break
		}
	}
	for l := range v {
		v[l] *= sign / norm
	}
	return gamma / wsum, v
}

// subspaceTop returns the largest eigenvalue of ZᵀZ and writes an
// eigenvector (not normalised) to v, by subspace iteration with a block
// of subspaceBlock vectors started from the rows of Z spread through it,
// stopping when the top Ritz value changes by less than subspaceTol
// (relative) or after subspaceIter iterations.
func subspaceTop(z *mat.Dense, v []float64) float64 {
	m, d := z.Dims()
	p := min(subspaceBlock, m, d)
	q := mat.NewDense(d, p, nil)
	for j := range p {
		q.SetCol(j, z.RawRowView(j*m/p))
	}
	col := make([]float64, d)
	// orth makes the columns of a orthonormal by modified Gram-Schmidt,
	// twice; a column that vanishes becomes a coordinate vector made
	// orthogonal to the others.
	orth := func(a *mat.Dense) {
		for j := range p {
			mat.Col(col, j, a)
			for pass := range 3 {
				for i := range j {
					c := 0.0
					for l := range d {
						c += a.At(l, i) * col[l]
					}
					for l := range d {
						col[l] -= c * a.At(l, i)
					}
				}
				nrm := 0.0
				for _, e := range col {
					nrm += e * e
				}
				if nrm = math.Sqrt(nrm); nrm > 0 && pass > 0 {
					for l := range col {
						col[l] /= nrm
					}
					break
				}
				if nrm == 0 {
					clear(col)
					col[(j+pass)%d] = 1
				}
			}
			a.SetCol(j, col)
		}
	}
	orth(q)
	t := mat.NewDense(m, p, nil)
	y := mat.NewDense(d, p, nil)
	h := mat.NewDense(p, p, nil)
	hs := mat.NewSymDense(p, nil)
	var es mat.EigenSym
	var vecs mat.Dense
	prev := math.Inf(-1)
	theta := 0.0
	for it := 0; it < subspaceIter; it++ {
		t.Mul(z, q)
		y.Mul(z.T(), t)
		h.Mul(q.T(), y)
		for a := range p {
			for b := a; b < p; b++ {
				hs.SetSym(a, b, 0.5*(h.At(a, b)+h.At(b, a)))
			}
		}
		if !es.Factorize(hs, true) {
			return 0
		}
		theta = es.Values(nil)[p-1]
		es.VectorsTo(&vecs)
		vv := mat.NewVecDense(d, v)
		vv.MulVec(q, vecs.ColView(p-1))
		if math.Abs(theta-prev) <= subspaceTol*math.Abs(theta) {
			break
		}
		prev = theta
		q.Copy(y)
		orth(q)
	}
	return theta
}
