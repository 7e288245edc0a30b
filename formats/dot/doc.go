// Package dot writes the graph of a model in the DOT language of Graphviz
// (https://graphviz.org/doc/info/lang.html), for drawing with
//
//	dot -Tsvg model.dot > model.svg
//
// [Write] is the entry point. The output is a digraph with one node per
// variable, in declaration order, and one edge per parent → child arc,
// grouped by child in declaration order with each child's parents in the
// order of its CPT, so that the same model always gives the same text:
//
//	digraph "asia" {
//	  "smoke" [label="smoke\nyes, no"];
//	  "lung" [label="lung\nyes, no"];
//	  "smoke" -> "lung";
//	}
//
// An influence diagram's decisions are drawn as rectangles (shape=box),
// their information parents as arcs into them, and its utilities as
// diamonds (shape=diamond) labelled with their names, after the
// variables, each with an arc from each of its parents in the order of its
// table, after the variables' arcs:
//
//	digraph "treat" {
//	  "Test" [label="Test\npositive, negative"];
//	  "Treat" [label="Treat\nyes, no", shape=box];
//	  "Cost" [label="Cost", shape=diamond];
//	  "Test" -> "Treat";
//	  "Treat" -> "Cost";
//	}
//
// # Names
//
// Every node is named by its variable's name in double quotes, and its label
// repeats the name, with a second line giving the states: listed when there
// are at most [MaxListedStates], as lo..hi for an integer range, else as a
// count. Names and states are escaped so that Graphviz shows them as they
// are: a double quote as \", a backslash as \\ (so that \N, \l and the like
// in a name are not taken for Graphviz's label escapes), a line feed as \n
// and a carriage return as \r (line breaks in the drawing), and the other
// control characters and bytes that are not UTF-8 as the text \xNN.
package dot
