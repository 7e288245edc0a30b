// Package importer holds what every model importer in formats/ shares:
// reading a file, decompressing gzip input, and the last-resort recovery
// that keeps a reader's bug from crashing its caller.
package importer
