// Package data reads and writes the CSV data that pbl learns from.
//
// A [Reader] streams a CSV file whose header row names model variables,
// decoding each cell to a state index (or a float64 for a real-valued
// variable) in column-major [Batch]es, so that a file larger than memory
// can be learned from: memory use is bounded by the read buffer (1 MiB,
// growing only for a row longer than that, up to 16 MiB) and the batch,
// which holds fewer rows than asked for when they are wide ([BatchBytes]:
// a million columns take 4 to 8 MB a row), so that a file of few wide
// rows is read in memory in proportion to its size. [ReadHead] reads the
// first rows of a data set in one batch grown as they arrive.
//
// # Dialect
//
// The dialect is RFC 4180, read strictly:
//
//   - The first row is a header. Each header field names a model variable
//     exactly (case matters); header fields may be quoted. A column that
//     names no variable is an error, with a "did you mean" hint, unless
//     [Options].IgnoreUnknownColumns is set, in which case it is skipped
//     (so is a column with an empty name, such as the index column
//     pandas writes). A variable named by two columns is an error, and so
//     is a header in which no column names a variable.
//   - Fields are separated by commas and rows end in LF or CRLF. A final
//     line break is optional. A lone CR outside quotes is an error.
//   - A field may be enclosed in double quotes; it may then contain commas,
//     line breaks and quotes, each quote written twice (""). A quote in an
//     unquoted field, text after a closing quote, and a quote that is never
//     closed are errors. Quoting does not change a field's meaning: "NA" is
//     the same as NA.
//   - Spaces are part of a field: " yes" is not the state yes.
//   - A UTF-8 byte order mark at the start of the file is skipped, and a
//     gzip-compressed file is recognised by its magic bytes and
//     decompressed as it is read.
//   - Every row has as many fields as the header. An empty line is skipped,
//     except in a file with a single column, where it is a row whose cell
//     is missing; blank lines at the end of the file are nothing in both
//     cases.
//   - A field is at most 1 MiB long and a row at most 16 MiB; the header
//     has at most 1,048,576 columns.
//
// # Cells
//
// A cell of a discrete variable must be one of its state names, written
// exactly: for a bool variable true or false, for an integer range the
// decimal integer (3, not 3.0 or 03). The cell is Missing when it is
// empty, or is ? or NA and that is not itself a state of the variable (the
// PATHFINDER network has variables with a state named NA, and such a cell
// is that state).
//
// A cell of a real-valued variable is a number in the syntax of
// strconv.ParseFloat (decimal or hexadecimal, with an optional exponent).
// It is missing (NaN in the batch) when it is empty, ?, NA or NaN.
// Infinities and numbers out of float64's range are errors.
//
// # One reader
//
// Every command of pbl reads CSV with this reader, so that quoting, byte
// order marks, gzip, missing cells and the errors' positions follow one
// set of rules whichever command reads a file. A command that has no model
// of its own (pbl cluster, pbl structure, a hypothesis space's data)
// makes one from the header with [OpenFunc] or [NewReaderFunc]: the
// function is given the header's fields and their positions ([Header])
// and returns the model the columns bind to. [Options].Required makes a
// missing cell an error at the cell, for a command that needs a value in
// every cell; [Options].Decode reads a real column's cells that are not
// missing with the caller's function (a bernoulli column's 0, 1, true,
// false, yes or no).
//
// # Open variables
//
// A variable with Open set (a naive_bayes or tan declaration's variable
// that no var declaration gives states) takes its states from the data: a
// cell that is not yet one of its states, and is not empty, ? or NA (which
// stay missing values), is a new state, appended to the reader's own list
// of the variable's states, so states are numbered in order of first
// appearance in the file. The reader never writes to the model:
// [Reader.States] gives the lists, and a learner settles them in a new
// model ([ir.Model.WithStates]) before it estimates. Data split in shards
// read by different readers settles its states first: [ScanStates] reads a
// shard for its states only, and [MergeStates] merges the shards' lists in
// shard order, so the numbering is that of the whole file whatever the
// number of shards or workers. Header binding, and IgnoreUnknownColumns,
// are the same as for any variable.
//
// # Parallel parsing
//
// A large input (more than half of the first 1 MiB read, in a file of
// several columns) is parsed on [Options].Workers goroutines, GOMAXPROCS
// by default: they take turns to read it in chunks of 1 MiB cut at row
// boundaries and parse their chunks, and [Reader.Read] delivers the rows
// in file order ([Reader.ReadParallel] hands them to a function on the
// goroutine that parsed them, in no order). A row boundary is a line feed outside quotes: a
// chunk starts at one, so a byte is inside quotes when the chunk has an
// odd number of quotes before it, and a chunk boundary never falls inside
// a quoted field, however many line breaks it holds. The rows, their line
// numbers, the numbering of open variables' states and the errors are
// those of one reader, whatever the number of workers; memory stays
// bounded (a few chunks in flight). This works for any source, a pipe or
// gzip data included (decompression stays on one goroutine). [Reader.Close]
// stops the goroutines; a Reader dropped before the end of its input
// stops them when it is collected.
//
// # Errors
//
// Errors in the header are reported together by [NewReader], as an
// ir.ErrorList: the first [MaxHeaderErrors] bad columns one by one, then
// one error that counts the rest (kind [ErrUnknownColumn] if some name no
// variable), found in time linear in the header's length. Reading stops at the first bad row: [Reader.Read] returns
// an *ir.Error positioned file:line:col, where line is the line of the
// file (counting the line breaks inside quoted fields) and col the
// 1-based rune column at which the offending cell starts (or, for a
// syntax error, the offending character), for example
//
//	data.csv:12:7: unknown state "mabye" for Outlook (did you mean "maybe"?)
//
// The errors have kinds that errors.Is finds: [ErrMalformed] for the
// file's syntax (a quote out of place, a ragged row, a lone CR, the
// limits, gzip data that does not decompress), [ErrNoHeader] for an
// empty file or header, [ErrUnknownColumn], [ErrBadValue] for a cell that
// is not a value of its column, [ErrMissingValue] for a missing cell with
// Options.Required.
//
// A row with too many or too few fields is reported before any bad cell
// in it. An error reading the underlying file, including corrupt gzip
// data, is reported as an *ir.Error at the line of the row it cuts short,
// after the rows before it: every byte read before the failure is parsed
// first, so a bad row there (even one the failure cuts short, as by a bare
// quote in its first field) is the error, whatever the number of workers
// and however the source splits its reads.
//
// # Writing
//
// [Write] writes a header and rows in the same dialect, with LF line
// ends; a missing cell is written empty. A state named "" cannot be
// written so that it reads back as itself.
package data
