package flagargs

import "testing"

func TestParseSize(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"512MiB", 512 << 20, true},
		{"8GiB", 8 << 30, true},
		{"2GB", 2e9, true},
		{"1000000", 1e6, true},
		{"1.5KiB", 1536, true},
		{"64B", 64, true},
		{"", 0, false},
		{"0", 0, false},
		{"-1MiB", 0, false},
		{"NaNGiB", 0, false},
		{"InfMiB", 0, false},
		{"9EiB", 0, false},
		{"10000000TiB", 0, false},
		{"eight", 0, false},
	} {
		got, err := ParseSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d (ok %v)", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
