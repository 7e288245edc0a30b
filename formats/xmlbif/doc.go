// Package xmlbif reads and writes Bayesian networks in XMLBIF, the XML
// version of the Bayesian Interchange Format (JavaBayes, SamIam, Weka and
// pgmpy write it), to and from an [ir.Model]. [Read] and [ReadFile] are the
// entry points of the importer, [Write] of the exporter.
//
// # Dialect
//
// A file is one BIF element holding one NETWORK:
//
//	<?xml version="1.0" encoding="US-ASCII"?>
//	<BIF VERSION="0.3">
//	<NETWORK>
//	  <NAME>asia</NAME>
//	  <VARIABLE TYPE="nature">
//	    <NAME>smoke</NAME>
//	    <OUTCOME>yes</OUTCOME>
//	    <OUTCOME>no</OUTCOME>
//	    <PROPERTY>position = (55, -201)</PROPERTY>
//	  </VARIABLE>
//	  ...
//	  <DEFINITION>
//	    <FOR>lung</FOR>
//	    <GIVEN>smoke</GIVEN>
//	    <TABLE>0.1 0.9 0.01 0.99</TABLE>
//	  </DEFINITION>
//	</NETWORK>
//	</BIF>
//
// The reader follows the XMLBIF 0.3 DTD, with these allowances:
//
//   - The VERSION attribute is not checked (files labelled 0.3 and 0.5 read
//     alike), and, as in XMLBIF 0.2, NETWORK may be the root element,
//     PROBABILITY may stand for DEFINITION and VALUE for OUTCOME. Element
//     names are matched ignoring case and namespace prefixes.
//   - NAME, PROPERTY, comments, processing instructions and a DOCTYPE with an
//     internal DTD are skipped. Any other element, and any text between
//     elements, is an error (with a hint for a misspelt element name).
//   - Names and states are the text of NAME, OUTCOME, FOR and GIVEN without
//     the white space around it; entity and character references are
//     decoded. Only TYPE="nature" variables are supported.
//   - A DEFINITION may come before the VARIABLEs it names; every variable
//     needs exactly one. Its GIVEN elements list the parents in table order.
//   - TABLE holds numbers separated by white space, in decimal with an
//     optional sign, fraction and exponent (1, 0.25, .5, 1e-05, 1.0E-4);
//     inf, nan and hexadecimal are rejected.
//   - The input is UTF-8, US-ASCII (what SamIam and JavaBayes declare) or
//     ISO-8859-1; a UTF-8 byte order mark is skipped.
//
// # Table layout
//
// TABLE lists P(FOR | GIVEN...) in row-major order over (GIVEN..., FOR):
// the FOR variable varies fastest, then the last GIVEN, and the first
// GIVEN slowest. For P(X | A, B), all binary:
//
//	<TABLE> P(x0|a0,b0) P(x1|a0,b0)  P(x0|a0,b1) P(x1|a0,b1)
//	        P(x0|a1,b0) P(x1|a1,b0)  P(x0|a1,b1) P(x1|a1,b1) </TABLE>
//
// This is the ir layout (parents..., child), child fastest, so the values
// are copied as they are. It was checked against the BIF twins of the
// corpus files, whose rows name the parent states: in asia.xml,
// P(dysp | bronc, either) is "0.9 0.1 0.8 0.2 0.7 0.3 0.1 0.9", and
// asia.bif's row (yes, no) is 0.8, 0.2 and row (no, yes) is 0.7, 0.3. (It
// is the transpose of the layout of BIF's `table` statement, where the
// child varies slowest.)
//
// # Errors
//
// Every error is an [ir.Error] in an [ir.ErrorList], positioned at the
// offending element or number. Malformed XML (what encoding/xml's
// Decoder detects, plus mismatched end
// tags and truncated input, reported with both tags' positions) stops the
// reader at the first error. Otherwise all errors are collected: a VARIABLE without NAME or
// OUTCOME, duplicate variables and states, unsupported variable types,
// DEFINITIONs for undeclared variables and undeclared GIVENs (with a "did
// you mean" hint), missing FOR and TABLE, tables with the wrong number of
// entries (the message gives the expected count), malformed numbers, and
// variables without a DEFINITION. The model is then validated by
// [ir.Builder.Finish]: probabilities in [0, 1], rows summing to 1 within
// [ir.RowTolerance], and no cycles.
//
// # Writing
//
// [Write] writes XMLBIF 0.3 in the layout above, which [Read] reads back to
// the same variables, states, parents and bit-for-bit the same
// probabilities.
package xmlbif
