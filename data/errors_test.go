package data

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/pbl-lang/pbl/ir"
)

// errorTests pairs bad CSV data with the error it must produce: a regexp
// matched against the whole error text, file:line:col included. For header
// errors, which are reported together, the text is one error per line.
var errorTests = []struct {
	csv  string
	opt  Options
	want string
}{
	// Header.
	{"", Options{}, `^data.csv:1:1: empty file: expected a header row naming model variables$`},
	{"\uFEFF", Options{}, `^data.csv:1:1: empty file`},
	{"\nOutlook\n", Options{}, `^data.csv:1:1: the header row is empty`},
	{"Outlook,Windyy\n", Options{}, `^data.csv:1:9: column "Windyy" names no variable of the model \(did you mean "Windy"\?\)$`},
	{"outlook\n", Options{}, `^data.csv:1:1: column "outlook" names no variable of the model \(did you mean "Outlook"\?\)$`},
	{"Outlook,Zebra,\"Tmp\"\n", Options{}, `^data.csv:1:9: column "Zebra" names no variable of the model\ndata.csv:1:15: column "Tmp" names no variable of the model \(did you mean "Temp"\?\)\n$`},
	{"Outlook,,Windy\n", Options{}, `^data.csv:1:9: column 2 of the header has no name$`},
	{"Outlook,Windy,Outlook\n", Options{}, `^data.csv:1:15: duplicate column "Outlook" \(also column 1\)$`},
	{"Outlook,Windy,Outlook\n", Options{IgnoreUnknownColumns: true}, `^data.csv:1:15: duplicate column "Outlook"`},
	{"a,b,c\n1,2,3\n", Options{IgnoreUnknownColumns: true}, `^data.csv:1:1: no column of the header names a variable of the model \(its variables are Outlook, Windy, Temp, Count, Path, Big\)$`},
	{"Outlook,\"Win\ndy\n", Options{}, `^data.csv:1:9: unterminated quoted field`},
	{"Out\"look\n", Options{}, `^data.csv:1:4: bare " in an unquoted field`},
	{"\"Outlook\"x\n", Options{}, `^data.csv:1:10: unexpected 'x' after the closing quote`},
	{"Outlook\rsunny\r", Options{}, `^data.csv:1:8: carriage return not followed by a line feed`},

	// States.
	{"Outlook,Windy\nsunny,true\nmabye,false\n", Options{}, `^data.csv:3:1: unknown state "mabye" for Outlook \(did you mean "maybe"\?\)$`},
	{"Windy,Outlook\ntrue,Sunny\n", Options{}, `^data.csv:2:6: unknown state "Sunny" for Outlook \(did you mean "sunny"\?\)$`},
	{"Windy,Outlook\ntrue, sunny\n", Options{}, `^data.csv:2:6: unknown state " sunny" for Outlook \(did you mean "sunny"\? spaces are part of a field\)$`},
	{"Outlook\nhail\n", Options{}, `^data.csv:2:1: unknown state "hail" for Outlook \(its states are sunny, overcast, rain, maybe\)$`},
	{"Big\nzzzz\n", Options{}, `^data.csv:2:1: unknown state "zzzz" for Big \(its 12 states are s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, \.\.\.\)$`},
	{"Big\ns\n", Options{}, `^data.csv:2:1: unknown state "s" for Big \(its 12 states are s0, `}, // one character: no guess
	{"Windy\nyes\n", Options{}, `^data.csv:2:1: unknown state "yes" for Windy \(its states are true, false\)$`},
	{"Windy\nTRUE\n", Options{}, `^data.csv:2:1: unknown state "TRUE" for Windy \(did you mean "true"\?\)$`},
	{"Count\n4\n", Options{}, `^data.csv:2:1: unknown state "4" for Count \(its states are 0, 1, 2, 3\)$`},
	{"Count\n1.0\n", Options{}, `^data.csv:2:1: unknown state "1.0" for Count`},
	{"Path,Outlook\nünï,\"rian\"\n", Options{}, `^data.csv:2:5: unknown state "rian" for Outlook \(did you mean "rain"\?\)$`},
	{"Outlook,note\n\"a\nb\",\"x\ny\"\nsunny,\"p\n\"\nrainy,\n", Options{IgnoreUnknownColumns: true}, `^data.csv:2:1: unknown state "a\\nb" for Outlook`},
	{"Outlook,note\nsunny,\"x\ny\"\nrainy,\n", Options{IgnoreUnknownColumns: true}, `^data.csv:4:1: unknown state "rainy" for Outlook \(did you mean "rain"\?\)$`},
	{"Outlook\n" + strings.Repeat("x", 100) + "\n", Options{}, `^data.csv:2:1: unknown state "x{40}"\.\.\. for Outlook`},

	// Real numbers.
	{"Temp\n1.5\nwarm\n", Options{}, `^data.csv:3:1: "warm" is not a number \(Temp is real-valued\)$`},
	{"Windy,Temp\ntrue,1e999\n", Options{}, `^data.csv:2:6: number "1e999" for Temp is out of range$`},
	{"Windy,Temp\ntrue,-Inf\n", Options{}, `^data.csv:2:6: number "-Inf" for Temp is not finite$`},

	// Row shape.
	{"Outlook,Windy\nsunny,true\nrain\n", Options{}, `^data.csv:3:5: row has 1 field, expected 2 \(one per header column\)$`},
	{"Outlook,Windy\r\nsunny,true\r\nrain\r\n", Options{}, `^data.csv:3:5: row has 1 field, expected 2`},
	{"Outlook,Windy\nsunny,true\nrain,true,x,y\n", Options{}, `^data.csv:3:11: row has 4 fields, expected 2 \(one per header column\)$`},
	{"Outlook,Windy\nsunny,true,\n", Options{}, `^data.csv:2:12: row has 3 fields, expected 2`},
	{"Outlook,Windy\nmabye,true,\n", Options{}, `^data.csv:2:12: row has 3 fields, expected 2`}, // shape before cells
	{"Outlook,Windy\nsunny,\"a\"\"\n", Options{}, `^data.csv:2:7: unterminated quoted field`},
	{"Outlook,Windy\nsunny,tr\"ue\n", Options{}, `^data.csv:2:9: bare " in an unquoted field`},
	{"Outlook,Windy\nsunny,\"true\" \n", Options{}, `^data.csv:2:13: unexpected ' ' after the closing quote`},
	{"Outlook,Windy\nsunny,true\rrain,true\n", Options{}, `^data.csv:2:11: carriage return not followed by a line feed`},
	{"Outlook,Windy\nsunny,true\n\rrain,true\n", Options{}, `^data.csv:3:1: carriage return not followed by a line feed`},
	{"Outlook\n" + strings.Repeat("x", maxField+1) + "\n", Options{}, `^data.csv:2:1: field longer than 1 MiB$`},
	{"Outlook\n\"" + strings.Repeat("x", maxField+1) + "\"\n", Options{}, `^data.csv:2:1: field longer than 1 MiB$`},
	{"Outlook\n\"" + strings.Repeat("x", maxField+10), Options{}, `^data.csv:2:1: quoted field longer than 1 MiB \(is its closing quote missing\?\)$`},
	{"Outlook,Windy\n" + strings.Repeat("sunny,", 1<<22) + "\n", Options{}, `^data.csv:2:1: a row is longer than 16 MiB$`},

	// Input.
	// The data stops in the row of line 2: the error is there, whether
	// the gzip reader returns the bytes before its error in a read of
	// their own or with it.
	{gz("Outlook\nsunny\n")[:20], Options{}, `^data.csv:2: the file starts as gzip data but is not valid gzip \(unexpected EOF\): is it truncated\?$`},
	{"\x1f\x8b", Options{}, `^data.csv:1: the file starts as gzip data but is not valid gzip`},
}

func TestErrors(t *testing.T) {
	m := testModel(t)
	for _, tc := range errorTests {
		for _, slow := range []bool{false, true} {
			var src io.Reader = strings.NewReader(tc.csv)
			if slow {
				src = iotest.HalfReader(src)
			}
			got, err := readErr(m, src, tc.opt)
			if err != nil {
				t.Errorf("%.60q: %v", tc.csv, err)
				continue
			}
			if !regexp.MustCompile(tc.want).MatchString(got) {
				t.Errorf("%.60q:\ngot  %s\nwant %s", tc.csv, got, tc.want)
			}
		}
	}
}

// readErr reads all of src and returns the text of its error: one error
// per line for NewReader's ir.ErrorList, the error alone for Read's
// *ir.Error. Reading without an error, or an error of another type, is
// reported as err.
func readErr(m *ir.Model, src io.Reader, opt Options) (string, error) {
	r, err := NewReader("data.csv", src, m, opt)
	if err != nil {
		var list ir.ErrorList
		if !errors.As(err, &list) {
			return "", errors.New("NewReader error is a " + typeName(err) + ", not an ir.ErrorList: " + err.Error())
		}
		if len(list) == 1 {
			return list[0].Error(), nil
		}
		return list.Lines(), nil
	}
	b := r.NewBatch(3)
	for {
		err := r.Read(b)
		if err == io.EOF {
			return "", errors.New("no error")
		}
		if err != nil {
			var e *ir.Error
			if !errors.As(err, &e) {
				return "", errors.New("Read error is a " + typeName(err) + ", not an *ir.Error: " + err.Error())
			}
			if again := r.Read(b); again != err || b.N != 0 {
				return "", errors.New("a second Read does not return the same error")
			}
			return e.Error(), nil
		}
	}
}

func typeName(x any) string {
	switch x.(type) {
	case *ir.Error:
		return "*ir.Error"
	case ir.ErrorList:
		return "ir.ErrorList"
	}
	return "other"
}

// TestErrorBatch checks that the rows before a bad row are delivered.
func TestErrorBatch(t *testing.T) {
	m := testModel(t)
	r, err := NewReader("data.csv", strings.NewReader("Outlook\nsunny\nrain\nhail\nsunny\n"), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := r.NewBatch(10)
	err = r.Read(b)
	if err == nil || b.N != 2 || r.Rows() != 2 {
		t.Errorf("Read = %v with N = %d, Rows() = %d; want an error with 2 rows", err, b.N, r.Rows())
	}
}

// TestHeaderErrorsCapped: a header with many bad columns gives the first
// MaxHeaderErrors of them, positioned (after a quoted field holding line
// breaks too) and with hints, then one error counting the rest, in time
// linear in the header (it re-counted the header's lines and runes from
// its start for every bad column: 40,000 unknown columns took 7.8 s, a
// million about 80 minutes, and gave a million errors).
func TestHeaderErrorsCapped(t *testing.T) {
	m := testModel(t)
	tests := []struct {
		name   string
		header string
		want   string // the errors, one per line
		more   bool   // the last error is of kind ErrUnknownColumn
	}{{
		name:   "few",
		header: "Outlok,\"x\ny\",Windy,,Windy",
		want: `data.csv:1:1: column "Outlok" names no variable of the model (did you mean "Outlook"?)
data.csv:1:8: column "x\ny" names no variable of the model
data.csv:2:10: column 4 of the header has no name
data.csv:2:11: duplicate column "Windy" (also column 3)
`,
	}, {
		name:   "many unknown",
		header: "\"é\n\",Windy," + strings.Repeat("Tmep,", 12) + "Temp",
		want: `data.csv:1:1: column "é\n" names no variable of the model
data.csv:2:9: column "Tmep" names no variable of the model (did you mean "Temp"?)
data.csv:2:14: column "Tmep" names no variable of the model (did you mean "Temp"?)
data.csv:2:19: column "Tmep" names no variable of the model (did you mean "Temp"?)
data.csv:2:24: column "Tmep" names no variable of the model (did you mean "Temp"?)
data.csv:2:29: column "Tmep" names no variable of the model (did you mean "Temp"?)
data.csv:2:34: column "Tmep" names no variable of the model (did you mean "Temp"?)
data.csv:2:39: column "Tmep" names no variable of the model (did you mean "Temp"?)
data.csv:2:44: column "Tmep" names no variable of the model (did you mean "Temp"?)
data.csv:2:49: column "Tmep" names no variable of the model (did you mean "Temp"?)
data.csv:2:54: and 3 more columns name no variable of the model
`,
		more: true,
	}, {
		name:   "one more",
		header: strings.Repeat("x,", 10) + "Windy,y",
		more:   true,
	}, {
		name:   "mixed",
		header: strings.Repeat("x,", 10) + "Windy,,Windy,y,z",
		more:   true, // two of them name no variable
	}}
	for _, tc := range tests {
		_, err := NewReader("data.csv", strings.NewReader(tc.header+"\n"), m, Options{})
		var list ir.ErrorList
		if !errors.As(err, &list) {
			t.Fatalf("%s: error %v, want an ir.ErrorList", tc.name, err)
		}
		if tc.want != "" && list.Lines() != tc.want {
			t.Errorf("%s: errors\n%swant\n%s", tc.name, list.Lines(), tc.want)
		}
		last := list[len(list)-1]
		if tc.more != errors.Is(last, ErrUnknownColumn) {
			t.Errorf("%s: errors.Is(%q, ErrUnknownColumn) = %v", tc.name, last, !tc.more)
		}
		if !errors.Is(list[0], ErrUnknownColumn) {
			t.Errorf("%s: errors.Is(%q, ErrUnknownColumn) = false", tc.name, list[0])
		}
	}
	// The two last cases, in full.
	_, err := NewReader("data.csv", strings.NewReader(strings.Repeat("x,", 10)+"Windy,y\n"), m, Options{})
	if got, want := err.(ir.ErrorList)[MaxHeaderErrors].Error(), "data.csv:1:27: and 1 more column names no variable of the model"; got != want {
		t.Errorf("one more: %q, want %q", got, want)
	}
	_, err = NewReader("data.csv", strings.NewReader(strings.Repeat("x,", 10)+"Windy,,Windy,y,z\n"), m, Options{})
	if got, want := err.(ir.ErrorList)[MaxHeaderErrors].Error(), "data.csv:1:27: and 4 more columns in error: 2 name no variable of the model, 1 has no name, 1 repeats an earlier column"; got != want {
		t.Errorf("mixed: %q, want %q", got, want)
	}

	// A million columns that name no variable (the most a header may
	// have), after a line break in a quoted field: eleven errors, the
	// last one positioned, in well under the time a quadratic scan takes
	// (hours).
	const n = 1 << 20
	var h strings.Builder
	h.WriteString("\"a\nb\"")
	for i := 1; i < n; i++ {
		h.WriteString(",c")
	}
	h.WriteString("\n")
	start := time.Now()
	_, err = NewReader("data.csv", strings.NewReader(h.String()), m, Options{})
	took := time.Since(start)
	list, _ := err.(ir.ErrorList)
	if len(list) != MaxHeaderErrors+1 {
		t.Fatalf("%d unknown columns: %d errors, want %d", n, len(list), MaxHeaderErrors+1)
	}
	if got, want := list[MaxHeaderErrors].Error(), fmt.Sprintf("data.csv:2:%d: and %d more columns name no variable of the model", 4+2*(MaxHeaderErrors-1), n-MaxHeaderErrors); got != want {
		t.Errorf("%d unknown columns: %q, want %q", n, got, want)
	}
	if took > 20*time.Second {
		t.Errorf("%d unknown columns took %v", n, took)
	}
}
