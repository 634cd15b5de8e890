package assert

import (
	"strings"
	"testing"
)

type node struct {
	Val  int
	Next *node
	tags map[string]bool
	any  any
}

type blob []byte

func TestGoSyntaxFollowsPointers(t *testing.T) {
	one, two := 1, 2
	type holder struct{ P *int }
	loop := &node{Val: 1}
	loop.Next = loop
	var nilMap map[string]int
	cases := []struct {
		v    any
		want string
	}{
		{holder{&one}, "assert.holder{P:&1}"},
		{&holder{&two}, "&assert.holder{P:&2}"},
		{holder{}, "assert.holder{P:(*int)(nil)}"},
		{loop, "&assert.node{Val:1, Next:(*assert.node)(cycle), tags:map[string]bool(nil), any:nil}"},
		{node{tags: map[string]bool{"b": true, "a": false}, any: []int{1}},
			`assert.node{Val:0, Next:(*assert.node)(nil), tags:map[string]bool{"a":false, "b":true}, any:[]int{1}}`},
		{[]byte("ab"), "[]byte{0x61, 0x62}"},
		{blob("a"), "assert.blob{0x61}"},
		{[2]bool{true}, "[2]bool{true, false}"},
		{[]float32{0.1}, "[]float32{0.1}"},
		{nilMap, "map[string]int(nil)"},
		{[]any{1.5, "x", nil, complex(1.25, 2), uint8(3)}, `[]interface {}{1.5, "x", nil, (1.25+2i), 3}`},
		{[]func(){nil}, "[]func(){(func())(nil)}"},
	}
	for _, c := range cases {
		if got := goSyntax(c.v); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
	// The same pointer twice, side by side, is not a cycle.
	p := &one
	if got := goSyntax([]*int{p, p}); got != "[]*int{&1, &1}" {
		t.Errorf("a shared pointer: %s", got)
	}
	if f := goSyntax([]func(){func() {}}); !strings.HasPrefix(f, "[]func(){(func())(0x") {
		t.Errorf("a function: %s", f)
	}
}

func TestGoSyntaxStops(t *testing.T) {
	long := make([]string, 2000)
	for i := range long {
		long[i] = "abcdefgh"
	}
	if got := goSyntax(long); len(got) > 2*maxShown+20 || !strings.HasSuffix(got, "…}") {
		t.Errorf("%d bytes, ending %q", len(got), got[len(got)-20:])
	}
}

func TestNestedPointersPrintApart(t *testing.T) {
	one, two := 1, 2
	type holder struct{ P *int }
	var r recorder
	Equal(&r, holder{&one}, holder{&two})
	if !strings.Contains(r.errors[0], "expected: assert.holder{P:&1}\n\tactual:   assert.holder{P:&2}") {
		t.Errorf("the report does not show where the pointers point:\n%s", r.errors[0])
	}
}
