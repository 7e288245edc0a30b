package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/mixture"

	// The filesystems shards and outputs may be on, the runners a
	// pipeline may run on.
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/dataflow"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/flink"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/spark"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal"
)

func init() {
	register.DoFn4x1[context.Context, string, []byte, func([]byte), error](&shardFn{})
	register.Emitter1[[]byte]()
	register.Combiner1[[]byte](&mergeFn{})
	register.DoFn2x1[context.Context, []byte, error](&saveFn{})
}

// A job is what a pass does with each shard; it travels gob-encoded in
// the shardFn.
type job struct {
	Kind   string   // "states", "counts", "gmm", "classify", "query", "seqcensus", "seqestep"
	Model  modelRef // the model
	Shards int      // the number of shards
	Ignore bool     // data.Options.IgnoreUnknownColumns

	Counts countJob // counts
	Seq    seqJob   // seqcensus, seqestep: a time-indexed model's sequences (sequences.go)

	Vars []ir.VarID // gmm: the mixture's columns, in order

	Target ir.VarID // classify: the class
	Out    string   // classify, query: the prefix of the output shards ("" for none)
	Ext    string   // their extension

	Queries []string     // query: the queries' text
	Answer  answerParams // query: the answering options
}

// A shardFn reads one shard (an element "INDEX\tPATH") and emits its
// partial, encoded; params is the side input of the pass (the current
// parameters of an iteration), or empty.
type shardFn struct {
	Job []byte
}

func (f *shardFn) ProcessElement(ctx context.Context, shard string, params []byte, emit func([]byte)) error {
	var j job
	if err := gob.NewDecoder(bytes.NewReader(f.Job)).Decode(&j); err != nil {
		return fmt.Errorf("decoding the job: %v", err)
	}
	idx, name, _ := strings.Cut(shard, "\t")
	i, err := strconv.Atoi(idx)
	if err != nil {
		return fmt.Errorf("bad shard element %q", shard)
	}
	sum := sha256.Sum256(f.Job)
	p, err := j.run(ctx, i, name, params, string(sum[:]))
	if err != nil {
		p = failed(i, err)
	}
	emit(p.encode())
	return nil
}

// run does j on shard i, named name.
func (j *job) run(ctx context.Context, i int, name string, params []byte, scope string) (*partial, error) {
	m, err := j.Model.load(scope)
	if err != nil {
		return nil, fmt.Errorf("loading the model on a worker: %v", err)
	}
	if j.Kind == "seqcensus" || j.Kind == "seqestep" {
		return j.sequences(ctx, m, i, name, params) // read as sequences, not rows
	}
	r, err := openData(ctx, name, m, j.Ignore)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	switch j.Kind {
	case "states":
		st, err := data.ScanStates(r)
		if err != nil {
			return nil, err
		}
		return &partial{Rows: int64(r.Rows()), States: map[int]map[ir.VarID][]string{i: st}}, nil
	case "counts":
		return j.counts(m, r, params)
	case "gmm":
		g := &mixture.GMM{}
		if err := gob.NewDecoder(bytes.NewReader(params)).Decode(g); err != nil {
			return nil, fmt.Errorf("decoding the parameters: %v", err)
		}
		return j.gmm(m, r, g)
	case "classify":
		return j.classify(ctx, m, r, i)
	case "query":
		return j.query(ctx, m, r, i)
	}
	return nil, fmt.Errorf("unknown job %q", j.Kind)
}

// mergeFn is the CombineFn of every pass: it merges encoded partials.
type mergeFn struct{}

func (f *mergeFn) CreateAccumulator() []byte { return nil }

func (f *mergeFn) AddInput(a, b []byte) []byte { return f.MergeAccumulators(a, b) }

func (f *mergeFn) MergeAccumulators(a, b []byte) []byte {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	pa, err := decode(a)
	if err != nil {
		panic(err)
	}
	pb, err := decode(b)
	if err != nil {
		panic(err)
	}
	pa.merge(pb)
	return pa.encode()
}

func (f *mergeFn) ExtractOutput(a []byte) []byte { return a }

// saveFn writes the pass's result to Path, where the driver reads it.
type saveFn struct {
	Path string
}

func (f *saveFn) ProcessElement(ctx context.Context, b []byte) error {
	return writeFile(ctx, f.Path, b)
}

// runner runs the passes of one command: the Beam runner, and the work
// folder the results are left in.
type runner struct {
	name string // the Beam runner
	work string // the work folder
	n    atomic.Int64
}

// pass runs j over the shards as a pipeline, with params as its side
// input, and returns the merged partial. A shard's error is the pass's.
func (r *runner) pass(ctx context.Context, j *job, shards []string, params []byte) (*partial, error) {
	var enc bytes.Buffer
	j.Shards = len(shards)
	if err := gob.NewEncoder(&enc).Encode(j); err != nil {
		return nil, err
	}
	// Joined as text: path.Join would make gs://b of gs:/b.
	out := strings.TrimSuffix(r.work, "/") + "/" + fmt.Sprintf("pass-%d-%s.gob", r.n.Add(1), j.Kind)
	p, s := beam.NewPipelineWithRoot()
	elems := make([]string, len(shards))
	for i, name := range shards {
		elems[i] = strconv.Itoa(i) + "\t" + name
	}
	names := beam.CreateList(s, elems)
	side := beam.Create(s, params)
	parts := beam.ParDo(s, &shardFn{Job: enc.Bytes()}, names, beam.SideInput{Input: side})
	merged := beam.Combine(s, &mergeFn{}, parts)
	beam.ParDo0(s, &saveFn{Path: out}, merged)
	if _, err := beam.Run(ctx, r.name, p); err != nil {
		return nil, &pipelineError{err}
	}
	b, err := readFile(ctx, out)
	if err != nil {
		return nil, fmt.Errorf("reading the result of the pipeline: %v", err)
	}
	res, err := decode(b)
	if err != nil {
		return nil, err
	}
	if res.Err != "" {
		return nil, errors.New(res.Err)
	}
	return res, nil
}

// pipelineError is the failure of a pipeline itself (the runner, not the
// data).
type pipelineError struct{ err error }

func (e *pipelineError) Error() string { return "the Beam pipeline failed: " + e.err.Error() }
func (e *pipelineError) Unwrap() error { return e.err }
