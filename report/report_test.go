package report

import (
	"encoding/json"
	"math"
	"testing"
)

func TestNum(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{0.4, "0.4"},
		{0.6000000000000001, "0.6"},
		{0.7999999999999999, "0.8"},
		{0.20851063829787236, "0.2085106383"},
		{1, "1"},
		{0, "0"},
		{1.5e-12, "1.5e-12"},
	} {
		if got := Num(tc.x); got != tc.want {
			t.Errorf("Num(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
}

// TestFloatJSON: full precision, and never NaN or Inf in JSON.
func TestFloatJSON(t *testing.T) {
	b, err := json.Marshal(Float(0.029759999999999998))
	if err != nil || string(b) != "0.029759999999999998" {
		t.Errorf("Float(0.02976) = %s, %v", b, err)
	}
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if b, err := json.Marshal(Float(x)); err == nil {
			t.Errorf("Float(%v) marshals as %s, want an error", x, b)
		}
	}
}

// TestObjectOrder: keys keep the order they were set in.
func TestObjectOrder(t *testing.T) {
	o := &Object{}
	o.Set("query", "P(X)")
	o.Set("vars", []string{"X"})
	o.Set("a", 1)
	o.Set("query", "P(Y)")
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"query":"P(Y)","vars":["X"],"a":1}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}
