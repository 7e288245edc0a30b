package structure

import (
	"slices"
	"testing"
)

func TestDAGEdits(t *testing.T) {
	d := NewDAG([]string{"A", "B", "C", "D"})
	steps := []struct {
		from, to int
		ok       bool
	}{
		{0, 1, true}, {1, 2, true}, {2, 0, false}, {0, 2, true}, {0, 1, false}, {3, 3, false}, {3, 2, true}, {2, 3, false},
	}
	for _, s := range steps {
		err := d.AddEdge(s.from, s.to)
		if (err == nil) != s.ok {
			t.Errorf("AddEdge(%d, %d): err %v, want ok=%v", s.from, s.to, err, s.ok)
		}
	}
	want := [][2]int{{0, 1}, {0, 2}, {1, 2}, {3, 2}}
	if got := d.Edges(); !slices.Equal(got, want) {
		t.Errorf("Edges = %v, want %v", got, want)
	}
	if !slices.Equal(d.Parents[2], []int{0, 1, 3}) {
		t.Errorf("Parents[2] = %v", d.Parents[2])
	}
	if ch := d.Children(); !slices.Equal(ch[0], []int{1, 2}) {
		t.Errorf("Children[0] = %v", ch[0])
	}
	if !d.RemoveEdge(1, 2) || d.RemoveEdge(1, 2) || d.HasEdge(1, 2) {
		t.Errorf("RemoveEdge")
	}
	if err := d.AddEdge(2, 1); err != nil {
		t.Errorf("AddEdge(2,1) after removal: %v", err)
	}
	if o := d.Order(); !slices.Equal(o, []int{0, 3, 2, 1}) {
		t.Errorf("Order = %v", o)
	}
	m, err := d.Model([][]string{{"true", "false"}, {"x", "y"}, {"a", "b", "c"}, {"u", "v"}})
	if err != nil {
		t.Fatal(err)
	}
	back := FromModel(m)
	if !slices.Equal(back.Edges(), d.Edges()) || !slices.Equal(back.Names, d.Names) {
		t.Errorf("FromModel(Model) = %v, want %v", back.Edges(), d.Edges())
	}
	if len(m.Unlearned()) != 4 {
		t.Errorf("Unlearned = %v", m.Unlearned())
	}
}
