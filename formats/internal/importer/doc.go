// Package importer holds what every model importer in formats/ shares:
// reading a file, decompressing gzip input, the last-resort recovery that
// keeps a reader's bug from crashing its caller, parsing numbers, and the
// pieces of building a model that readers repeat (placeholder tables,
// CPT titles and did-you-mean hints in messages).
package importer
