// Package formattest holds what the tests of the format packages share:
// finding the corpus of networks, seeding fuzz targets from it, and the
// checks that every reader's errors must pass. It is imported only by
// _test.go files.
//
// The corpus is the directory named by $PBL_CORPUS, or else shared/corpus
// beside the repository (../shared/corpus from the directory of go.mod).
// Tests that need it skip when it is absent; fuzz targets are seeded with
// what there is.
package formattest
