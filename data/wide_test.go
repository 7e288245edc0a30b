package data

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// wideModel returns a model of n variables c0, c1, ..., real-valued or
// with states a and b.
func wideModel(tb testing.TB, n int, real bool) *ir.Model {
	tb.Helper()
	b := ir.NewBuilder("wide.pbl")
	pos := ir.Pos{File: "wide.pbl", Line: 1, Col: 1}
	for i := range n {
		if real {
			b.AddVar(pos, fmt.Sprintf("c%d", i), ir.Real, nil, 0)
		} else {
			b.AddOpenVar(pos, fmt.Sprintf("c%d", i))
		}
	}
	m, err := b.Finish()
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// wideCSV returns a CSV file of rows rows over the n columns of
// wideModel: cell (i, j) is (i+j)%7, or a or b by the parity of i+j.
func wideCSV(n, rows int, real bool) []byte {
	var b bytes.Buffer
	for j := range n {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "c%d", j)
	}
	b.WriteByte('\n')
	for i := range rows {
		for j := range n {
			if j > 0 {
				b.WriteByte(',')
			}
			if real {
				b.WriteByte(byte('0' + (i+j)%7))
			} else {
				b.WriteByte("ab"[(i+j)%2])
			}
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TestWideBatches: a batch has room for fewer rows than asked for when
// its rows are wide (BatchBytes), so that reading a file of few rows and
// many columns takes memory in proportion to the file, on one worker or
// several: a batch was allocated for 1,024 or 4,096 rows whatever their
// width (8 GB for a million real columns), and pbl cluster and pbl
// structure died out of memory on a 2 MB file of 3 rows.
func TestWideBatches(t *testing.T) {
	for _, n := range []int{10_000, 100_000} {
		for _, real := range []bool{true, false} {
			t.Run(fmt.Sprintf("%d-real-%v", n, real), func(t *testing.T) {
				m := wideModel(t, n, real)
				const rows = 3
				src := wideCSV(n, rows, real)
				r, err := NewReader("wide.csv", bytes.NewReader(src), m, Options{})
				if err != nil {
					t.Fatal(err)
				}
				b := r.NewBatch(4096)
				if got := len(b.Lines); got < 1 || got*r.rowBytes() > BatchBytes {
					t.Errorf("NewBatch(4096) has room for %d rows of %d bytes, over %d bytes", got, r.rowBytes(), BatchBytes)
				}
				r.Close()
				for _, workers := range []int{1, 3} {
					runtime.GC()
					var before, after runtime.MemStats
					runtime.ReadMemStats(&before)
					all, err := ReadAll("wide.csv", bytes.NewReader(src), m, Options{Workers: workers, chunkSize: 4096})
					runtime.ReadMemStats(&after)
					if err != nil {
						t.Fatal(err)
					}
					if all.N != rows {
						t.Fatalf("%d workers: %d rows, want %d", workers, all.N, rows)
					}
					for j := range n {
						for i := range rows {
							var ok bool
							if real {
								x := all.Reals[j][i]
								ok = x == float64((i+j)%7)
							} else {
								ok = all.States[all.Vars[j]][all.Cols[j][i]] == "ab"[(i+j)%2:(i+j)%2+1]
							}
							if !ok {
								t.Fatalf("%d workers: cell %d of column %d is wrong", workers, i, j)
							}
						}
					}
					// What a column takes (its name, its decoding, a
					// copy per worker when open, its states) and a few
					// times the cells: a batch for 1,024 rows and one for
					// 4,096 per worker took 20 to 100 KB per column.
					limit := uint64(64<<20 + n*(4<<10+64*rows))
					if got := after.TotalAlloc - before.TotalAlloc; got > limit {
						t.Errorf("%d workers: reading %d bytes allocated %d MB, want under %d MB", workers, len(src), got>>20, limit>>20)
					}
				}
			})
		}
	}
}

// TestReadHead: ReadHead reads the first n rows in one batch, across
// batches and workers, however wide the rows (NewBatch's batch may hold
// fewer), and the rest are left to read.
func TestReadHead(t *testing.T) {
	m := wideModel(t, 2000, true)
	src := wideCSV(2000, 300, true) // 2 KB a row, 16 KB in a batch: 262 rows
	for _, n := range []int{1, 5, 262, 263, 299, 300, 301, 100_000} {
		for _, workers := range []int{1, 3} {
			r, err := NewReader("wide.csv", bytes.NewReader(src), m, Options{Workers: workers, chunkSize: 5000})
			if err != nil {
				t.Fatal(err)
			}
			head, err := ReadHead(r, n)
			if err != nil {
				t.Fatal(err)
			}
			want := min(n, 300)
			if head.N != want || len(head.Lines) != want || len(head.Reals[7]) != want {
				t.Fatalf("ReadHead(%d) on %d workers: N = %d, %d lines, %d cells, want %d", n, workers, head.N, len(head.Lines), len(head.Reals[7]), want)
			}
			if head.Lines[want-1] != want+1 || !(head.Reals[7][want-1] == float64((want-1+7)%7)) {
				t.Errorf("ReadHead(%d) on %d workers: last row at line %d with %v", n, workers, head.Lines[want-1], head.Reals[7][want-1])
			}
			rest, err := ReadRest(r)
			if err != nil {
				t.Fatal(err)
			}
			if rest.N != 300-want || rest.N > 0 && rest.Lines[0] != want+2 {
				t.Errorf("after ReadHead(%d) on %d workers: %d rows left", n, workers, rest.N)
			}
			r.Close()
		}
	}
}
