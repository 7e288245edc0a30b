package grammar

import "testing"

func TestNameBeforeEquals(t *testing.T) {
	tests := []struct {
		head, want string
		ok         bool
	}{
		{"P(X | Storm=", "Storm", true},
		{"P(X | Storm = ", "Storm", true},
		{"P(X | Storm=\t", "Storm", true},
		{`P(X | "odd name"=`, "odd name", true},
		{`P(X | "odd name" = `, "odd name", true},
		{"P(X | Ünï=", "Ünï", true},
		{"P(X | _x1=", "_x1", true},
		{"expect P(A) ==", "", false},
		{"P(A | B != ", "", false},
		{"x <=", "", false},
		{"x >=", "", false},
		{"P(X | Storm", "", false},
		{"=", "", false},
		{" = ", "", false},
		{`"=`, "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := NameBeforeEquals(tt.head)
		if got != tt.want || ok != tt.ok {
			t.Errorf("NameBeforeEquals(%q) = %q, %v; want %q, %v", tt.head, got, ok, tt.want, tt.ok)
		}
	}
}
