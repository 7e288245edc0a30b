// Command pbl-beam runs pbl's learning and batch scoring as Apache Beam
// pipelines: in-process with Beam's prism runner, or on Flink, Spark or
// Dataflow (docs/scale.md). It is a Go module of its own, so that the pbl
// command and the main module never link the Beam SDK; pbl hands over to
// it with --runner beam (cmd/pbl/runner.go).
//
// Usage:
//
//	pbl-beam learn MODEL --data SHARDS [pbl learn's flags] [Beam options]
//	pbl-beam classify MODEL --target C --data SHARDS [--predictions PREFIX] [Beam options]
//	pbl-beam query MODEL --batch SHARDS QUERY... -o PREFIX [Beam options]
//
// SHARDS is a glob that pbl-beam expands itself (shards/*.csv), or a
// pattern of a Beam filesystem (gs://bucket/rows-*.csv). Every shard is a
// whole CSV file with its own header row, read by data.Reader as pbl
// reads a file; shards are numbered in the sorted order of their names.
// The Beam options are the SDK's flags: --runner (beam or prism: the
// in-process runner; flink, spark, dataflow, universal), --endpoint,
// --environment_type, --project, --region, --temp_location and so on.
// --work names the folder (of any Beam filesystem) where the pipelines
// leave their combined statistics for the driver; by default a local
// temporary folder, enough for prism.
//
// # Pipelines
//
// Each pass over the data is one pipeline: the shards are a PCollection
// of names, a ParDo reads each shard and adds its rows to statistics of
// its own, a Beam CombineFn merges the statistics (an associative,
// commutative merge; see partial.go) and a last ParDo writes the result
// to the work folder, where the driver reads it. Open variables take
// their states in a first pass (data.ScanStates per shard, merged in shard
// order by data.MergeStates), so that every shard numbers the states as
// one reader of the whole data would. An iterative learner (a Gaussian
// mixture) runs one pipeline per iteration, with the current parameters
// as a side input. Batch scoring (classify, query --batch) writes one
// output file per input shard, PREFIX-SSSSS-of-NNNNN.csv (or .jsonl), the
// same bytes that pbl writes for that shard alone, and combines the
// classification scores. A time-indexed model (var X[t]) learns from
// shards of whole sequences (sequences.go): a pass that checks and counts
// them (learn.SeqCensus) and their ids (a sequence in two shards is an
// error), then one per EM iteration (learn.SeqPlan's E-step per shard,
// learn.SeqStats merged).
//
// Exit status: 0 ok, 1 an error in the model, the data or a query, 2 bad
// usage.
package main
