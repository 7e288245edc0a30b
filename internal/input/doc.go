// Package input reads the files pbl takes as input (models, imports),
// within a size limit: no input, however large or endless (a 1 GB comment
// line, /dev/zero, a FIFO that never closes), may take more memory than
// the limit allows. The limit applies to a file's size and to what gzip
// input decompresses to. Commands raise it with --max-input.
//
// It also reads a data file that is a pipe once for the whole process
// (ReadData), refuses files that are not regular where a reader must not
// block (RequireRegular, for the language server), and says which of a
// command's inputs a path names (Which), so that no output overwrites one.
package input
