package assert

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// recorder is a T that keeps what a check reported.
type recorder struct{ errors []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

type point struct{ X, Y int }

// cases pairs each check with a call that must hold and one that must not.
var cases = []struct {
	name     string
	yes, no  func(T) bool
	saysOnNo string // a part of the failure message
}{
	{"Equal", func(t T) bool { return Equal(t, point{1, 2}, point{1, 2}) },
		func(t T) bool { return Equal(t, point{1, 2}, point{1, 3}) }, "assert.point{X:1, Y:3}"},
	{"Equal/bytes", func(t T) bool { return Equal(t, []byte("a"), []byte("a")) },
		func(t T) bool { return Equal(t, []byte("a"), []byte("b")) }, "not equal"},
	{"Equal/nil bytes", func(t T) bool { return Equal(t, []byte(nil), []byte(nil)) },
		func(t T) bool { return Equal(t, []byte(nil), []byte{}) }, "expected: []byte(nil)"},
	{"Equal/types", func(t T) bool { return Equal(t, 5, 5) },
		func(t T) bool { return Equal(t, 5, int64(5)) }, "5 (int64)"},
	{"Equal/nil", func(t T) bool { return Equal(t, nil, nil) },
		func(t T) bool { return Equal(t, nil, (*int)(nil)) }, "expected: nil\n"},
	{"Equal/functions", func(t T) bool { return Equal(t, 1, 1) },
		func(t T) bool { return Equal(t, Equal, Equal) }, "cannot compare functions"},
	{"NotEqual/functions", func(t T) bool { return NotEqual(t, 1, 2) },
		func(t T) bool { return NotEqual(t, Equal, Equal) }, "cannot compare functions"},
	{"NotEqual", func(t T) bool { return NotEqual(t, 1, 2) },
		func(t T) bool { return NotEqual(t, "a", "a") }, `should not be equal to "a"`},
	{"EqualValues", func(t T) bool { return EqualValues(t, 5, int64(5)) },
		func(t T) bool { return EqualValues(t, 5, int64(6)) }, "not equal values"},
	{"EqualValues/wrap", func(t T) bool { return EqualValues(t, uint8(255), uint16(255)) },
		func(t T) bool { return EqualValues(t, uint8(255), int(-1)) }, "not equal values"},
	{"EqualValues/unconvertible", func(t T) bool { return EqualValues(t, "a", "a") },
		func(t T) bool { return EqualValues(t, "a", []int{1}) }, "not equal values"},
	{"True", func(t T) bool { return True(t, true) }, func(t T) bool { return True(t, false) }, "should be true"},
	{"False", func(t T) bool { return False(t, false) }, func(t T) bool { return False(t, true) }, "should be false"},
	{"Same", func(t T) bool { p := &point{}; return Same(t, p, p) },
		func(t T) bool { return Same(t, &point{}, &point{}) }, "should be the same pointer"},
	{"Same/not pointers", func(t T) bool { p := &point{}; return Same(t, p, p) },
		func(t T) bool { return Same(t, 1, 1) }, "should be the same pointer"},
	{"NotSame/not pointers", func(t T) bool { return NotSame(t, &point{}, &point{}) },
		func(t T) bool { s := []int{1}; return NotSame(t, s, s) }, "NotSame needs two pointers, got []int and []int"},
	{"NotSame", func(t T) bool { return NotSame(t, &point{}, &point{}) },
		func(t T) bool { p := &point{}; return NotSame(t, p, p) }, "should not be the same pointer"},
	{"Nil", func(t T) bool { return Nil(t, (*int)(nil)) }, func(t T) bool { return Nil(t, 0) }, "should be nil, is 0"},
	{"NotNil", func(t T) bool { return NotNil(t, 0) }, func(t T) bool { return NotNil(t, []int(nil)) }, "should not be nil ([]int)"},
	{"Zero", func(t T) bool { return Zero(t, point{}) }, func(t T) bool { return Zero(t, "x") }, `should be zero, is "x"`},
	{"NotZero", func(t T) bool { return NotZero(t, 1) }, func(t T) bool { return NotZero(t, nil) }, "should not be zero"},
	{"Empty", func(t T) bool { return Empty(t, map[int]int{}) },
		func(t T) bool { return Empty(t, []int{1}) }, "should be empty, is []int{1}"},
	{"Empty/pointer", func(t T) bool { return Empty(t, &[]int{}) },
		func(t T) bool { return Empty(t, &point{X: 1}) }, "should be empty"},
	{"Empty/pointer to an interface", func(t T) bool { var v any; return Empty(t, &v) },
		func(t T) bool { var v any = []int{}; return Empty(t, &v) }, "should be empty"},
	{"NotEmpty", func(t T) bool { return NotEmpty(t, "x") }, func(t T) bool { return NotEmpty(t, 0) }, "should not be empty"},
	{"Len", func(t T) bool { return Len(t, "abc", 3) },
		func(t T) bool { return Len(t, []int{1}, 2) }, "should have 2 items, has 1"},
	{"Len/no length", func(t T) bool { return Len(t, [2]int{}, 2) },
		func(t T) bool { return Len(t, 5, 1) }, "has no length"},
	{"Contains/string", func(t T) bool { return Contains(t, "abc", "bc") },
		func(t T) bool { return Contains(t, "abc", "x") }, `"abc" does not contain "x"`},
	{"Contains/slice", func(t T) bool { return Contains(t, []point{{1, 2}}, point{1, 2}) },
		func(t T) bool { return Contains(t, []int{1}, 2) }, "does not contain 2"},
	{"Contains/map", func(t T) bool { return Contains(t, map[string]int{"k": 1}, "k") },
		func(t T) bool { return Contains(t, map[string]int{"k": 1}, "v") }, "does not contain"},
	{"Contains/not a container", func(t T) bool { return Contains(t, [1]int{3}, 3) },
		func(t T) bool { return Contains(t, 3, 3) }, "is not a string, array, slice or map"},
	{"Contains/string in string", func(t T) bool { return Contains(t, "3", "3") },
		func(t T) bool { return Contains(t, "3", 3) }, "a string can contain only a string"},
	{"NotContains", func(t T) bool { return NotContains(t, []int{1}, 2) },
		func(t T) bool { return NotContains(t, "abc", "b") }, `should not contain "b"`},
	{"NotContains/not a container", func(t T) bool { return NotContains(t, "a", "b") },
		func(t T) bool { return NotContains(t, 3, 3) }, "is not a string"},
	{"Regexp", func(t T) bool { return Regexp(t, "^a+$", "aaa") },
		func(t T) bool { return Regexp(t, regexp.MustCompile("^a+$"), 12) }, `"12" does not match "^a+$"`},
	{"Regexp/bytes", func(t T) bool { return Regexp(t, "^abc$", []byte("abc")) },
		func(t T) bool { return Regexp(t, `\d`, []byte("abc")) }, `"abc" does not match`},
	{"Regexp/bad pattern", func(t T) bool { return Regexp(t, "b", "abc") },
		func(t T) bool { return Regexp(t, "(", "abc") }, "missing closing )"},
	{"NoError", func(t T) bool { return NoError(t, nil) },
		func(t T) bool { return NoError(t, errors.New("boom")) }, "unexpected error: boom"},
	{"Error", func(t T) bool { return Error(t, errors.New("boom")) },
		func(t T) bool { return Error(t, nil) }, "an error was expected"},
	{"EqualError", func(t T) bool { return EqualError(t, errors.New("boom"), "boom") },
		func(t T) bool { return EqualError(t, errors.New("boom"), "bang") }, `expected: "bang"`},
	{"EqualError/nil", func(t T) bool { return EqualError(t, errors.New("x"), "x") },
		func(t T) bool { return EqualError(t, nil, "bang") }, `an error "bang" was expected, got nil`},
	{"ErrorContains", func(t T) bool { return ErrorContains(t, errors.New("a boom"), "boom") },
		func(t T) bool { return ErrorContains(t, errors.New("a boom"), "bang") }, `"a boom" does not contain "bang"`},
	{"ErrorContains/nil", func(t T) bool { return ErrorContains(t, errors.New("x"), "") },
		func(t T) bool { return ErrorContains(t, nil, "bang") }, "got nil"},
	{"ErrorIs", func(t T) bool { return ErrorIs(t, fmt.Errorf("w: %w", fs.ErrNotExist), fs.ErrNotExist) },
		func(t T) bool { return ErrorIs(t, errors.New("x"), fs.ErrNotExist) }, `error &errors.errorString{s:"x"} (x) is not &errors.errorString{s:"file does not exist"} (file does not exist)`},
	{"Panics", func(t T) bool { return Panics(t, func() { panic(nil) }) },
		func(t T) bool { return Panics(t, func() {}) }, "should panic, did not"},
	{"PanicsWithValue", func(t T) bool { return PanicsWithValue(t, "x", func() { panic("x") }) },
		func(t T) bool { return PanicsWithValue(t, "x", func() { panic("y") }) }, `actual:   "y"`},
	{"PanicsWithValue/pointers", func(t T) bool { p := &point{}; return PanicsWithValue(t, p, func() { panic(p) }) },
		func(t T) bool { return PanicsWithValue(t, &point{}, func() { panic(&point{}) }) }, "panicked with another value"},
	{"PanicsWithValue/types", func(t T) bool { return PanicsWithValue(t, 1, func() { panic(1) }) },
		func(t T) bool { return PanicsWithValue(t, 1, func() { panic(int64(1)) }) }, "panicked with another value"},
	{"PanicsWithValue/uncomparable", func(t T) bool { return PanicsWithValue(t, [1]int{1}, func() { panic([1]int{1}) }) },
		func(t T) bool { return PanicsWithValue(t, []int{1}, func() { panic([]int{1}) }) }, "cannot be compared with []int{1}"},
	{"PanicsWithValue/no panic", func(t T) bool { return PanicsWithValue(t, 1, func() { panic(1) }) },
		func(t T) bool { return PanicsWithValue(t, 1, func() {}) }, "did not panic"},
	{"PanicsWithError", func(t T) bool { return PanicsWithError(t, "x", func() { panic(errors.New("x")) }) },
		func(t T) bool { return PanicsWithError(t, "x", func() { panic(errors.New("y")) }) }, "another error"},
	{"PanicsWithError/not an error", func(t T) bool { return PanicsWithError(t, "x", func() { panic(errors.New("x")) }) },
		func(t T) bool { return PanicsWithError(t, "x", func() { panic("x") }) }, `panicked with "x" (string)`},
	{"PanicsWithError/no panic", func(t T) bool { return PanicsWithError(t, "x", func() { panic(errors.New("x")) }) },
		func(t T) bool { return PanicsWithError(t, "x", func() {}) }, "did not panic"},
	{"Greater", func(t T) bool { return Greater(t, 2, 1) }, func(t T) bool { return Greater(t, 1, 1) }, "should hold: 1 > 1"},
	{"Greater/types", func(t T) bool { return Greater(t, uint8(2), uint8(1)) },
		func(t T) bool { return Greater(t, 2, int64(1)) }, "they need one type"},
	{"Greater/unordered", func(t T) bool { return Greater(t, "b", "a") },
		func(t T) bool { return Greater(t, point{}, point{}) }, "cannot order values of type assert.point"},
	{"GreaterOrEqual", func(t T) bool { return GreaterOrEqual(t, 1.5, 1.5) },
		func(t T) bool { return GreaterOrEqual(t, 1.0, 1.5) }, "1 >= 1.5"},
	{"GreaterOrEqual/NaN", func(t T) bool { return GreaterOrEqual(t, 1.0, 0.5) },
		func(t T) bool { return GreaterOrEqual(t, math.NaN(), 1.0) }, "cannot order NaN and 1"},
	{"Greater/equal uints", func(t T) bool { return Greater(t, uint(2), uint(1)) },
		func(t T) bool { return Greater(t, uint(1), uint(1)) }, "1 > 1"},
	{"Less/equal", func(t T) bool { return Less(t, 1, 2) }, func(t T) bool { return Less(t, 1, 1) }, "1 < 1"},
	{"Less/equal strings", func(t T) bool { return Less(t, "a", "b") },
		func(t T) bool { return Less(t, "a", "a") }, `"a" < "a"`},
	{"Less/equal floats", func(t T) bool { return Less(t, 1.0, 2.0) },
		func(t T) bool { return Less(t, 1.0, 1.0) }, "1 < 1"},
	{"Less", func(t T) bool { return Less(t, time.Second, time.Minute) },
		func(t T) bool { return Less(t, time.Minute, time.Second) }, "1m0s (time.Duration) < 1s (time.Duration)"},
	{"LessOrEqual", func(t T) bool { return LessOrEqual(t, uint(1), uint(1)) },
		func(t T) bool { return LessOrEqual(t, uint(2), uint(1)) }, "2 <= 1"},
	{"Positive", func(t T) bool { return Positive(t, int64(1)) }, func(t T) bool { return Positive(t, 0) }, "0 > 0"},
	{"Positive/nil", func(t T) bool { return Positive(t, 0.5) }, func(t T) bool { return Positive(t, nil) }, "nil is not a number"},
	{"IsNonDecreasing", func(t T) bool { return IsNonDecreasing(t, []int{1, 1, 2}) },
		func(t T) bool { return IsNonDecreasing(t, []int{1, 3, 2}) }, "decreases at index 2: 3 then 2"},
	{"IsNonDecreasing/not a list", func(t T) bool { return IsNonDecreasing(t, [0]int{}) },
		func(t T) bool { return IsNonDecreasing(t, 3) }, "is not a slice or array"},
	{"IsNonDecreasing/unordered", func(t T) bool { return IsNonDecreasing(t, []string{"a", "b"}) },
		func(t T) bool { return IsNonDecreasing(t, []any{1, "a"}) }, "they need one type"},
	{"InDelta", func(t T) bool { return InDelta(t, 100, 102.0, 2) },
		func(t T) bool { return InDelta(t, 100, uint(97), 2) }, "differ by 3, more than 2"},
	{"InDelta/NaN", func(t T) bool { return InDelta(t, math.NaN(), math.NaN(), 1) },
		func(t T) bool { return InDelta(t, math.NaN(), 1, 1) }, "one is NaN"},
	{"InDelta/not numbers", func(t T) bool { return InDelta(t, time.Second, time.Second, 0) },
		func(t T) bool { return InDelta(t, "1", 1, 1) }, "InDelta needs numbers, got string and int"},
}

func TestChecksSayYesAndNo(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r recorder
			if !c.yes(&r) || len(r.errors) != 0 {
				t.Fatalf("the call that holds failed: %q", r.errors)
			}
			if c.no(&r) || len(r.errors) != 1 {
				t.Fatalf("the call that does not hold passed (%d reports)", len(r.errors))
			}
			if !strings.Contains(r.errors[0], c.saysOnNo) {
				t.Errorf("the report %q does not say %q", r.errors[0], c.saysOnNo)
			}
		})
	}
}

func TestFileExists(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var r recorder
	if !FileExists(&r, file) || len(r.errors) != 0 {
		t.Fatalf("a file is not found: %q", r.errors)
	}
	if FileExists(&r, dir) || FileExists(&r, filepath.Join(dir, "none")) || len(r.errors) != 2 {
		t.Fatalf("a directory or a missing file passes: %q", r.errors)
	}
	if !strings.Contains(r.errors[0], "is a directory") || !strings.Contains(r.errors[1], "no such file") {
		t.Errorf("the reports do not say why: %q", r.errors)
	}
}

func TestMessagesFollowTheReport(t *testing.T) {
	var r recorder
	Equal(&r, 1, 2, "seed %d", 7)
	True(&r, false, 3, "plain")
	True(&r, false, 42)
	True(&r, false, "100%")
	want := []string{"seed 7", "3plain", "42", "100%"}
	for i, w := range want {
		if !strings.HasSuffix(r.errors[i], "\n"+w) {
			t.Errorf("report %d %q does not end with the message %q", i, r.errors[i], w)
		}
	}
}

func TestLongValuesSayWhereTheyDiffer(t *testing.T) {
	long := strings.Repeat("x", 100)
	short := strings.Repeat("x", 58) // 60 bytes quoted
	cases := []struct {
		expected, actual string
		says             string // "" if the values are too short to say
	}{
		{long + "abc", long + "abd", "first difference at byte 103"},
		{long, "x", "first difference at byte 2"},
		{"x", long, "first difference at byte 2"},
		{long, long + "x", "first difference at byte 101"},
		{short, short[1:] + "y", ""},
		{short[1:] + "y", short, ""},
		{short + "y", short, "first difference at byte 59"},
	}
	for _, c := range cases {
		var r recorder
		Equal(&r, c.expected, c.actual)
		if c.says == "" {
			if strings.Contains(r.errors[0], "first difference") {
				t.Errorf("the report %q on short values says where they part", r.errors[0])
			}
			continue
		}
		if !strings.Contains(r.errors[0], c.says) {
			t.Errorf("the report %q does not say %q", r.errors[0], c.says)
		}
	}
}

func TestFirstDifferenceOfAPrefix(t *testing.T) {
	for _, pair := range [][2]string{{"abc", "abcd"}, {"abcd", "abc"}} {
		if d := firstDifference(pair[0], pair[1]); !strings.HasPrefix(d, "first difference at byte 3 ") {
			t.Errorf("%q and %q: %q", pair[0], pair[1], d)
		}
	}
}

// event has a String method that hides a field.
type event struct {
	At   time.Duration
	Host string
}

func (e event) String() string { return e.At.String() }

func TestReportsShowWhatDiffers(t *testing.T) {
	cases := []struct {
		expected, actual any
		says             []string
	}{
		{event{time.Second, "a"}, event{time.Second, "b"},
			[]string{`assert.event{At:1000000000, Host:"a"} (1s)`, `Host:"b"`}},
		{time.Second, time.Minute, []string{"expected: 1s (time.Duration)\n", "actual:   1m0s (time.Duration)"}},
		{uint8(7), uint8(9), []string{"expected: 7\n"}},
		{5, int64(5), []string{"5 (int)", "5 (int64)"}},
		{math.NaN(), math.NaN(), []string{"they print alike"}},
		{errors.New("x"), errors.New("y"), []string{`&errors.errorString{s:"x"} (x)`}},
		{(*event)(nil), &event{}, []string{"(*assert.event)(nil)\n"}},
	}
	for _, c := range cases {
		var r recorder
		Equal(&r, c.expected, c.actual)
		for _, want := range c.says {
			if !strings.Contains(r.errors[0], want) {
				t.Errorf("the report\n%s\ndoes not say %q", r.errors[0], want)
			}
		}
	}
}

func TestLongValuesAreCut(t *testing.T) {
	var r recorder
	long := strings.Repeat("日本", 3000) // 18 000 bytes
	Equal(&r, long+"a", long+"b")
	report := r.errors[0]
	if len(report) > 2*maxShown+500 || !strings.Contains(report, "… (18003 bytes in all)") {
		t.Errorf("a report of %d bytes does not cut its values: %.200q", len(report), report)
	}
	if !utf8.ValidString(report) {
		t.Errorf("the report cuts a character: %q", report[len(report)-300:])
	}
	if !strings.Contains(report, "first difference at byte 18001") || !strings.Contains(report, "本a\"…") {
		t.Errorf("the report does not say where the values part: %q", report[len(report)-300:])
	}
	Equal(&r, "αβγ"+strings.Repeat("x", 60), "αβδ"+strings.Repeat("x", 60))
	if !utf8.ValidString(r.errors[1]) || !strings.Contains(r.errors[1], "first difference at byte 5 ") {
		t.Errorf("a difference inside a character: %q", r.errors[1])
	}
}

func TestCutsFallOnCharacters(t *testing.T) {
	exact := strings.Repeat("x", maxShown)
	if clip(exact) != exact {
		t.Errorf("a rendering of exactly %d bytes is cut", maxShown)
	}
	if got := runeStart("\x80ab", 0); got != 0 {
		t.Errorf("runeStart at 0 moved to %d", got)
	}
	// The excerpt would start 20 bytes before the difference, inside an é:
	// it starts at the next character.
	e := "a" + strings.Repeat("é", 15) + "zX"
	a := "a" + strings.Repeat("é", 15) + "zY"
	want := "first difference at byte 32 of the lines above: expected …" + strings.Repeat("é", 9) + "zX…, actual …" + strings.Repeat("é", 9) + "zY…"
	if got := firstDifference(e, a); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
