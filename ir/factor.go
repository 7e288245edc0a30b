package ir

import (
	"strconv"

	"github.com/pbl-lang/pbl/factor"
)

// VarID indexes Model.Vars. It is an alias of factor.Var: the factor
// layer, below ir, names variables by the same integers.
type VarID = factor.Var

// Factor is a non-negative function of a set of discrete variables, stored
// as a flat row-major array with the last variable varying fastest: an
// alias of [factor.Factor], whose package holds its kernels.
type Factor = factor.Factor

// NewFactor returns a zero factor over vars with the given cardinalities
// ([factor.New]). It panics if the table would not fit in memory; callers
// that take sizes from users must check [TableSize] first.
func NewFactor(vars []VarID, card []int) *Factor { return factor.New(vars, card) }

// MaxTableSize is the largest number of entries a single table may have.
const MaxTableSize = factor.MaxTableSize

// TableSize returns the product of card and whether it is at most
// MaxTableSize ([factor.TableSize]).
func TableSize(card []int) (int, bool) { return factor.TableSize(card) }

// TooLarge describes a table over variables of the cardinalities card that
// is over limit entries, for a message: "would have 4294967296 entries, more
// than the limit of 2147483648".
func TooLarge(card []int, limit int) string {
	n := 1.0
	for _, c := range card {
		n *= float64(c)
	}
	size := strconv.FormatFloat(n, 'g', 3, 64)
	if n < 1<<53 {
		size = strconv.FormatFloat(n, 'f', 0, 64)
	}
	return "would have " + size + " entries, more than the limit of " + strconv.Itoa(limit)
}
