package labrpc

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/sim"
)

type Flat struct {
	B  bool
	I  int
	U  uint16
	F  float32
	C  complex128
	S  string
	A  [3]int8
	In struct{ X int64 }
}

type Refs struct {
	P  *int
	Bs []byte
	Is []int
	M  map[string][]int
	I  any
	PP **Flat
}

// Named has an interface field with methods.
type Named struct{ S fmt.Stringer }

// Celsius is a flat type that can go in a Named.
type Celsius int

func (c Celsius) String() string { return fmt.Sprint(int(c), "°C") }

func (f *Flat) String() string { return f.S }

// sizeOf returns the bytes a Call with args v counts.
func sizeOf(t *testing.T, v any) int64 {
	t.Helper()
	net := MakeNetwork(sim.NewWorld(1))
	var reply int
	net.MakeEnd("e", nil).Call("Nobody.Listens", v, &reply, func(bool) {})
	require.Equal(t, 1, net.GetTotalCount())
	return net.GetTotalBytes()
}

func TestWireSizes(t *testing.T) {
	five := 5
	pf := &Flat{}
	for _, c := range []struct {
		v    any
		want int
	}{
		{true, 1},
		{0, 1}, {-1, 1}, {63, 1}, {-64, 1}, {64, 2}, {-65, 2}, {math.MaxInt64, 10}, {math.MinInt64, 10},
		{uint(127), 1}, {uint(128), 2}, {uint64(math.MaxUint64), 10}, {uint8(255), 2},
		{int8(-65), 2}, {int16(-300), 2}, {int32(1 << 20), 4}, {int64(1 << 40), 6},
		{uint16(1 << 15), 3}, {uint32(1 << 31), 5}, {uintptr(1 << 40), 6},
		{float32(1), 4}, {2.5, 8}, {complex64(1), 8}, {complex(1, 2), 16},
		{"", 1}, {"abc", 4}, {string(make([]byte, 200)), 202},
		{[]byte(nil), 1}, {[]byte{}, 1}, {[]byte{1, 2}, 3},
		{[]int(nil), 1}, {[]int{1, 300}, 1 + 1 + 2},
		{[2]bool{}, 1 + 2},
		{map[string]int(nil), 1}, {map[string]int{"a": 1, "bc": 200}, 1 + (2 + 1) + (3 + 2)},
		{Flat{I: 100, S: "xy"}, 1 + 2 + 1 + 4 + 16 + 3 + (1 + 3) + 1},
		{Refs{}, 6},
		{Refs{P: &five, Bs: []byte("hi"), Is: []int{7}, M: map[string][]int{"k": nil}, I: 3, PP: &pf},
			1 + 3 + 2 + (1 + 2 + 1) + (1 + len("int") + 1) + 29},
		{Refs{I: []int{1}}, 5 + (2 + len("[]int") + 1)},
		{Refs{I: Flat{}}, 5 + (29 + len("labrpc.Flat") + 1)},
		{Refs{I: "abc"}, 5 + (4 + len("string") + 1)},
		{Refs{I: true}, 5 + (1 + len("bool") + 1)},
		{Refs{I: struct{}{}}, 5 + (0 + len("struct {}") + 1)},
		{Refs{I: [2]string{"a", ""}}, 5 + (1 + 2 + 1 + len("[2]string") + 1)},
		{Named{}, 1},
		{Named{S: Celsius(300)}, 2 + len("labrpc.Celsius") + 1},
		{Named{S: &Flat{}}, 29 + len("*labrpc.Flat") + 1},
		{&five, 1},
	} {
		assert.EqualValues(t, c.want, sizeOf(t, c.v), "%T %v", c.v, c.v)
	}
}

func TestCopiesAreDeepAndIndependent(t *testing.T) {
	got := &RefsServer{}
	w, net, e := serve(got)

	five, inner := 5, &Flat{S: "inner"}
	args := Refs{P: &five, Bs: []byte("hi"), Is: []int{7, 8}, M: map[string][]int{"k": {1}}, I: []int{9}, PP: &inner}
	var reply Refs
	require.True(t, callSync(t, w, e, "RefsServer.Echo", args, &reply))

	// Change everything the caller's args refer to: neither the handler's
	// copy nor the reply may see it.
	five, args.Bs[0], args.Is[0], args.M["k"][0], args.I.([]int)[0], inner.S = 6, 'X', 70, 10, 90, "changed"
	for _, r := range []Refs{got.args, reply} {
		assert.Equal(t, 5, *r.P)
		assert.Equal(t, []byte("hi"), r.Bs)
		assert.Equal(t, []int{7, 8}, r.Is)
		assert.Equal(t, map[string][]int{"k": {1}}, r.M)
		assert.Equal(t, []int{9}, r.I)
		assert.Equal(t, "inner", (*r.PP).S)
	}
	// Nor does the reply share anything with the handler's copy.
	*got.args.P, got.args.Is[0], got.args.M["k"][0] = 50, 700, 100
	assert.Equal(t, 5, *reply.P)
	assert.Equal(t, []int{7, 8}, reply.Is)
	assert.Equal(t, map[string][]int{"k": {1}}, reply.M)
	assert.Equal(t, net.GetTotalBytes(), net.GetTotalReplyBytes(), "the echo is as big as the request")
}

// A type's name in an interface is sent like a string: a name of 128
// bytes or more has two bytes of length in front.
func TestLongTypeNamesHaveTwoBytesOfLength(t *testing.T) {
	long := reflect.StructOf([]reflect.StructField{{Name: "X" + strings.Repeat("y", 150), Type: reflect.TypeFor[int]()}})
	name := long.String()
	require.Greater(t, len(name), 127)
	assert.EqualValues(t, 5+(1+2+len(name)), sizeOf(t, Refs{I: reflect.New(long).Elem().Interface()}))
}

// An interface with methods is copied like any other: what its value
// refers to is copied, and a value of a flat type arrives equal.
func TestInterfacesWithMethodsAreCopied(t *testing.T) {
	got := &NamedServer{}
	w, _, e := serve(got)
	inner := &Flat{S: "inner"}
	var reply Named
	require.True(t, callSync(t, w, e, "NamedServer.Echo", Named{S: inner}, &reply))
	inner.S = "changed"
	assert.Equal(t, "inner", got.args.S.String())
	assert.Equal(t, "inner", reply.S.String())
	assert.NotSame(t, got.args.S, reply.S)

	require.True(t, callSync(t, w, e, "NamedServer.Echo", Named{S: Celsius(-40)}, &reply))
	assert.Equal(t, Celsius(-40), reply.S)
}

// Box puts a value in an interface.
type Box struct{ V any }

// A value inside interfaces inside interfaces is copied where it refers to
// something that can change, however deep.
func TestNestedInterfacesAreCopiedWhereNeeded(t *testing.T) {
	got := &RefsServer{}
	w, net, e := serve(got)
	inner := []int{1}
	sealed := Box{V: Box{V: "s"}}
	for _, args := range []Refs{
		{I: Box{V: Box{V: inner}}},
		{I: Box{V: [2]any{sealed, Box{V: inner}}}},
		{I: sealed},
	} {
		var reply Refs
		before := net.GetTotalBytes()
		require.True(t, callSync(t, w, e, "RefsServer.Echo", args, &reply))
		assert.Equal(t, args, got.args)
		assert.Equal(t, args, reply)
		assert.EqualValues(t, sizeOf(t, args), net.GetTotalBytes()-before)
	}
	inner[0] = 2
	assert.Equal(t, Refs{I: sealed}, got.args)
	require.True(t, callSync(t, w, e, "RefsServer.Echo", Refs{I: Box{V: Box{V: inner}}}, &Refs{}))
	inner[0] = 3
	assert.Equal(t, Refs{I: Box{V: Box{V: []int{2}}}}, got.args, "the handler's copy does not change with the caller's slice")
	require.True(t, callSync(t, w, e, "RefsServer.Echo", Refs{I: Box{V: [2]any{sealed, Box{V: inner}}}}, &Refs{}))
	inner[0] = 4
	assert.Equal(t, Refs{I: Box{V: [2]any{sealed, Box{V: []int{3}}}}}, got.args)

	assert.EqualValues(t, 5+(2+len("[]int")+1)+len("labrpc.Box")+1+len("labrpc.Box")+1, sizeOf(t, Refs{I: Box{V: Box{V: inner}}}))
}

// A value deep inside sealed values is copied; the values around it are
// measured like the values they would be if nothing had to be copied.
func TestDeepListsAreCopiedWhereNeeded(t *testing.T) {
	got := &RefsServer{}
	w, _, e := serve(got)
	list := consList(500, []byte("cmd"))
	require.True(t, callSync(t, w, e, "RefsServer.Echo", Refs{I: list}, &Refs{}))
	last := func(l any) []byte {
		for l.(Cons).Tail != nil {
			l = l.(Cons).Tail
		}
		return l.(Cons).Head.([]byte)
	}
	last(list)[0] = 'X'
	assert.Equal(t, []byte("cmd"), last(got.args.I))
	// "cmd" as a []byte in an interface is 4 + len("[]uint8") + 1 = 12
	// bytes; 0 as an int, 1 + len("int") + 1 = 5.
	assert.EqualValues(t, sizeOf(t, consList(500, 0))+12-5, sizeOf(t, list))
}

// An empty slice arrives empty, not nil, and appending to it does not
// write into the sender's array.
func TestEmptySlicesStayEmptyAndApart(t *testing.T) {
	got := &RefsServer{}
	w, _, e := serve(got)
	is, bs := make([]int, 0, 4), make([]byte, 0, 4)
	var reply Refs
	require.True(t, callSync(t, w, e, "RefsServer.Echo", Refs{Is: is, Bs: bs}, &reply))
	for _, r := range []Refs{got.args, reply} {
		assert.NotNil(t, r.Is)
		assert.Empty(t, r.Is)
		assert.NotNil(t, r.Bs)
		assert.Empty(t, r.Bs)
	}
	_ = append(got.args.Is, 7)
	_ = append(got.args.Bs, 'x')
	assert.Equal(t, []int{0}, is[:1], "the sender's array is untouched")
	assert.Equal(t, []byte{0}, bs[:1])
}

// A value in an interface that holds nothing that can change is shared,
// even next to one that must be copied.
func TestSealedValuesAreShared(t *testing.T) {
	type Pair struct{ A, B, C any }
	sent := Pair{A: Box{V: []int{1}}, B: Box{V: Box{V: "s"}}, C: Box{V: [2]any{Box{V: "t"}, []int{2}}}}
	c := newCodec()
	v := reflect.ValueOf(sent)
	dst := reflect.New(v.Type())
	c.copyInto(c.mustCompile(v.Type()), dst.UnsafePointer(), v, false)
	got := dst.Elem().Interface().(Pair)
	assert.Equal(t, sent, got)
	assert.NotEqual(t, dataOf(sent.A), dataOf(got.A), "A holds a slice: copied")
	assert.Equal(t, dataOf(sent.B), dataOf(got.B), "B holds nothing that can change: shared")
	assert.NotEqual(t, dataOf(sent.C), dataOf(got.C), "C holds a slice deep down: copied")
}

type NamedServer struct{ args Named }

func (s *NamedServer) Echo(args Named, reply *Named) {
	s.args = args
	*reply = args
}

type RefsServer struct{ args Refs }

func (s *RefsServer) Echo(args Refs, reply *Refs) {
	s.args = args
	*reply = args
}

func TestHandleCallsTheTypedFunction(t *testing.T) {
	w, net, js, e := setup(1)
	svc := net.servers[1000].services["JunkServer"]
	var typed []string
	Handle(svc, "Handler4", func(args *JunkArgs, reply *JunkReply) {
		typed = append(typed, "4")
		reply.X = "typed " + string(rune('0'+args.X))
	})
	Handle(svc, "Handler2", func(args int, reply *string) { *reply = "typed2" })
	HandleDeferred(svc, "Slow", func(args *JunkArgs, reply *JunkReply, d *Deferred) {
		typed = append(typed, "slow")
		reply.X = "typed slow"
		d.Reply()
	})

	var r JunkReply
	require.True(t, callSync(t, w, e, "JunkServer.Handler4", &JunkArgs{X: 7}, &r))
	assert.Equal(t, "typed 7", r.X)
	var s string
	require.True(t, callSync(t, w, e, "JunkServer.Handler2", 1, &s))
	assert.Equal(t, "typed2", s)
	require.True(t, callSync(t, w, e, "JunkServer.Slow", &JunkArgs{X: 1}, &r))
	assert.Equal(t, "typed slow", r.X)
	assert.Equal(t, []string{"4", "slow"}, typed)
	assert.Empty(t, js.log2, "the methods themselves did not run")
	assert.Empty(t, js.pending)

	assert.PanicsWithValue(t, "labrpc: Handle: JunkServer has no RPC-shaped method NoSuch",
		func() { Handle(svc, "NoSuch", func(*JunkArgs, *JunkReply) {}) })
	assert.PanicsWithValue(t, "labrpc: Handle: JunkServer.Handler4 does not have the type of the function given for it",
		func() { Handle(svc, "Handler4", func(JunkArgs, *JunkReply) {}) })
	assert.PanicsWithValue(t, "labrpc: Handle: JunkServer.Handler4 does not have the type of the function given for it",
		func() { Handle(svc, "Handler4", func(*JunkArgs, *string) {}) })
	assert.PanicsWithValue(t, "labrpc: Handle: JunkServer.Slow does not have the type of the function given for it",
		func() { Handle(svc, "Slow", func(*JunkArgs, *JunkReply) {}) })
	assert.PanicsWithValue(t, "labrpc: Handle: JunkServer.Handler4 does not have the type of the function given for it",
		func() { HandleDeferred(svc, "Handler4", func(*JunkArgs, *JunkReply, *Deferred) {}) })
}
