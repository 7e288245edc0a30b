// Package input reads the files pbl takes as input (models, imports),
// within a size limit: no input, however large or endless (a 1 GB comment
// line, /dev/zero, a FIFO that never closes), may take more memory than
// the limit allows. The limit applies to a file's size and to what gzip
// input decompresses to. Commands raise it with --max-input.
package input
