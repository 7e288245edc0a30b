// Package xmlbif reads and writes Bayesian networks and influence
// diagrams in XMLBIF, the XML version of the Bayesian Interchange Format
// (JavaBayes, SamIam, Weka and pgmpy write it; aGrUM and pyAgrum write
// influence diagrams in it), to and from an [ir.Model]. [Read] and [ReadFile] are the
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
//     decoded. A VARIABLE's TYPE is nature (the default: a chance
//     variable), decision or utility (see "Influence diagrams" below), in
//     any case; any other TYPE is an error.
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
// # Influence diagrams
//
// The XMLBIF 0.3 DTD declares VARIABLE's TYPE as nature, decision or
// utility; the reader and writer follow the dialect of aGrUM (pyAgrum's
// engine), whose BIFXMLIDReader and BIFXMLIDWriter (src/agrum/ID/io/BIFXML
// in aGrUM's repository) read and write influence diagrams, and whose test
// resource src/testunits/ressources/ID/OilWildcatter.xml shows it:
//
//	<VARIABLE TYPE="decision"><NAME>Drill</NAME>
//	  <OUTCOME>yes</OUTCOME><OUTCOME>no</OUTCOME></VARIABLE>
//	<VARIABLE TYPE="utility"><NAME>Payoff</NAME><OUTCOME>0</OUTCOME></VARIABLE>
//	<DEFINITION><FOR>Drill</FOR><GIVEN>Test</GIVEN><GIVEN>Result</GIVEN></DEFINITION>
//	<DEFINITION><FOR>Payoff</FOR><GIVEN>Drill</GIVEN><GIVEN>Oil</GIVEN>
//	  <TABLE>-70 50 200 0 0 0</TABLE></DEFINITION>
//
// In detail:
//
//   - A decision is declared as a nature variable is, with its OUTCOMEs.
//     Its DEFINITION lists its information parents (the variables known
//     when it is taken) as GIVENs and has no TABLE (a TABLE, an initial
//     policy in some tools, is not read). A decision without a DEFINITION
//     is taken knowing nothing: aGrUM writes none for a decision without
//     parents. A decision has at most one DEFINITION.
//   - A utility is not a variable of the model but a utility table: aGrUM
//     declares it as a variable of one state (its reader requires one
//     OUTCOME, whose text does not matter), and the reader accepts none or
//     one. It cannot be a GIVEN. Its DEFINITION lists its parents as GIVENs
//     (at least one) and a TABLE of one utility per configuration of
//     them, in the order of a probability table's rows: the last GIVEN
//     fastest. Utilities may be negative; the total utility is their sum.
//     The model's utilities are in the order of their VARIABLEs.
//   - Information arcs are taken as written (as in aGrUM's LIMIDs): the
//     diagram has perfect recall only if each decision lists the earlier
//     decisions and their information.
//
// aGrUM's reader adds a DEFINITION's arcs in reverse GIVEN order and fills
// the table with its first variable (the FOR) fastest, which is this
// layout. OilWildcatter.xml itself, an old file, lists TestResult's and
// Reward's tables with the first GIVEN fastest: pbl reads it in the layout
// above, and so with other numbers than Raiffa's (testdata/oil.xml is the
// same diagram laid out as XMLBIF lays out tables).
//
// # Errors
//
// Every error is an [ir.Error] in an [ir.ErrorList], positioned at the
// offending element or number (decisions and utilities add a utility
// named as a GIVEN, a utility without DEFINITION or parents, or with
// more than one OUTCOME, and a second DEFINITION of a decision or
// utility). Malformed XML (what encoding/xml's
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
// probabilities. An influence diagram is written in aGrUM's dialect:
// decisions as TYPE="decision" with a DEFINITION of GIVENs only (none
// without parents), utilities as TYPE="utility" variables with the one
// OUTCOME "0" and a DEFINITION of their table; they read back with the
// same decisions, information and bit-for-bit the same utilities.
package xmlbif
