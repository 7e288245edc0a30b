// Package format gives pbl source its canonical layout: the layout of
// pbl fmt and of the language server's formatting.
//
// [Source] parses the file (so a syntax error comes back as the parser's
// positioned *ir.Error in an ir.ErrorList), prints the syntax tree again
// with the layout below, and re-parses what it printed to check that the
// tree is the same: the layout never changes a model's meaning, and a
// formatted file formats to itself.
//
// # The layout
//
//   - Statements start at column 1, one per line. Blank lines between
//     statements (and between the rows of a table) are kept, a run of
//     them becoming one; none at the start or end of the file, or just
//     inside braces.
//   - Blocks (a table of rows, a lookup, an inline data table, a space)
//     indent their contents by four spaces; the closing brace is on a line
//     of its own. A table of rows or a lookup written on one line stays
//     on one line when it holds no comment: { a: 0.1  b: 0.9 }. A noisy
//     table's links are one a line when they were written over several.
//   - The rows of a table, the cases of a lookup, the links of a noisy
//     table and the rows of a data table (with its header) are aligned in
//     columns: each state (with its comma or colon) is padded to the
//     widest of its column, then one space. A lookup's else spans the
//     states' columns. The optional separator after a row (, or ;) is
//     dropped.
//   - Spacing: one space after a comma, around ->, |, =, ==, and the
//     operators of expressions (not ^), none inside brackets, braces of
//     state sets and assignments, or parentheses, none around = and ~ in a
//     query's terms, around .. in a variable's range, or after a unary
//     minus.
//   - Comments stay where they were relative to the tokens: a comment on a
//     line of its own stays on a line of its own, indented with what
//     follows it; a comment after code on its line stays after it, and
//     the trailing comments of consecutive lines are aligned, two spaces
//     after the longest line. A line comment inside a construct printed
//     on one line breaks it there, the rest indented one more level.
//   - Tokens are written as they were: numbers, quoted names (with their
//     escapes) and keywords keep their spelling. The only tokens that
//     change are the optional row separators, an empty option list ()
//     (dropped), and a negative number read as a subtraction (x-1 is
//     written x - 1).
package format
