package labrpc

import (
	"fmt"
	"math/bits"
	"reflect"
	"unsafe"
)

// A TypeError says why a value cannot cross the network: an unexported
// field, a func, chan or unsafe pointer anywhere inside its type, or a value
// that contains itself.
type TypeError struct {
	Type reflect.Type // the type being sent
	Path string       // where inside it the problem is, e.g. "Entries[].cmd"
	Why  string
}

// Error describes the type, where in it the problem is, and why.
func (e *TypeError) Error() string {
	at := ""
	if e.Path != "" {
		at = " at " + e.Path
	}
	return fmt.Sprintf("labrpc: cannot send %v%s: %s", e.Type, at, e.Why)
}

// A copier deep-copies values of one type and measures their wire size (a
// gob-like size: varints for integers, lengths before strings, slices and
// maps).
//
// Copying is done in two steps, so that values without references cost one
// assignment: the caller assigns the value to memory of its own, which
// copies everything but what references refer to, and fix, given that
// memory, then gives it copies of its own of what they refer to and returns
// the size. fix works on raw memory, laid out by the type, rather than on
// reflect.Values: a message is copied on every call, and walking it with
// reflect.Values took a quarter of a simulated RPC's time.
type copier struct {
	t    reflect.Type
	kind reflect.Kind
	// flat types refer to nothing that can change: a plain assignment is a
	// deep copy, and fix only measures. Strings are flat, being immutable.
	flat bool
	// sealed types refer to nothing that can change but through
	// interfaces: a value of one inside an interface, where it cannot be
	// changed in place, can be shared if the values in its own interfaces
	// can. Flat types are sealed.
	sealed   bool
	nameSize int // the size of the type's name, which an interface sends
	fix      func(p unsafe.Pointer) int
}

// size is fix, with the commonest kinds measured without a call.
func (cp *copier) size(p unsafe.Pointer) int {
	switch cp.kind {
	case reflect.Int:
		return intLen(int64(*(*int)(p)))
	case reflect.String:
		return lenLen(len(*(*string)(p)))
	case reflect.Bool:
		return 1
	}
	return cp.fix(p)
}

// at returns the settable value of cp's type at p.
func (cp *copier) at(p unsafe.Pointer) reflect.Value {
	return reflect.NewAt(cp.t, p).Elem()
}

// A codec compiles and caches copiers. Each network has its own, so worlds
// share nothing.
type codec struct {
	types  map[reflect.Type]*copier
	fresh  []reflect.Type             // the types compile has added to types so far
	frames map[[2]reflect.Type]*frame // by args type and reply type
	depth  int                        // references followed by the copy in progress

	// While measuring > 0, fix is measuring a sealed value inside an
	// interface rather than copying it, and sets mustCopy instead if the
	// value holds one that must be copied after all. While copying > 0, it
	// is copying such a value whole (see fixValue).
	measuring, copying int
	mustCopy           bool
}

func newCodec() *codec {
	return &codec{types: make(map[reflect.Type]*copier), frames: make(map[[2]reflect.Type]*frame)}
}

// maxDepth bounds how many references (pointers, slices, maps, interfaces)
// deep a copy may go, so that a value that contains itself gets an error
// instead of overflowing the stack, which would kill the whole process.
const maxDepth = 10_000

// tooDeep is what a copy panics with when it passes maxDepth.
type tooDeep struct{}

// copyInto deep-copies v, the value being sent, or what it points to if
// deref, into dst with cp, and returns the wire size. It panics with a
// *TypeError if the copy went more than maxDepth references deep, locating
// the cycle in v, or if an interface in v holds a value that cannot be
// sent.
func (c *codec) copyInto(cp *copier, dst unsafe.Pointer, v reflect.Value, deref bool) int {
	c.depth, c.measuring, c.copying, c.mustCopy = 0, 0, 0, false // as if the last copy had not panicked
	if deref {
		cp.at(dst).Set(v.Elem())
		c.depth = 1
	} else {
		cp.at(dst).Set(v)
	}
	if cp.flat {
		return cp.size(dst)
	}
	size, ok := c.bounded(cp, dst)
	if !ok {
		panic(tooDeepError(v))
	}
	return size
}

// bounded runs cp.fix(p), and reports false if it went more than maxDepth
// references deep.
func (c *codec) bounded(cp *copier, p unsafe.Pointer) (size int, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, deep := r.(tooDeep); !deep {
				panic(r)
			}
		}
	}()
	return cp.fix(p), true
}

// enter and leave bracket the copy of what a reference refers to.
func (c *codec) enter() {
	c.depth++
	if c.depth > maxDepth {
		panic(tooDeep{})
	}
}

func (c *codec) leave() { c.depth-- }

// compile returns the copier for t, or a TypeError if t cannot be sent.
// On error it forgets every copier it made: those made while a recursive
// type was half built may refer to the failed one.
func (c *codec) compile(t reflect.Type) (*copier, error) {
	c.fresh = c.fresh[:0]
	cp, err := c.sub(t, "")
	if err != nil {
		for _, ft := range c.fresh {
			delete(c.types, ft)
		}
		if te, ok := err.(*TypeError); ok {
			te.Type = t
		}
	}
	return cp, err
}

// mustCompile is compile for types that must be sendable: it panics with
// the TypeError.
func (c *codec) mustCompile(t reflect.Type) *copier {
	cp, err := c.compile(t)
	if err != nil {
		panic(err)
	}
	return cp
}

// sub returns the copier for t, compiling it if needed; path locates t inside
// the type being compiled. A placeholder goes into the cache first, so that
// recursive types compile; they are never flat or sealed. Interfaces are
// not cached: each field, element or key of interface type gets a copier
// of its own, which remembers the last type it held, since one place mostly
// holds one type.
func (c *codec) sub(t reflect.Type, path string) (*copier, error) {
	if cp, ok := c.types[t]; ok {
		return cp, nil
	}
	cp := &copier{t: t, kind: t.Kind(), nameSize: lenLen(len(t.String()))}
	if cp.kind == reflect.Interface {
		c.buildInterface(cp)
		return cp, nil
	}
	c.types[t] = cp
	c.fresh = append(c.fresh, t)
	if err := c.build(cp, t, path); err != nil {
		return nil, err
	}
	return cp, nil
}

// build fills in cp, the copier for t; path locates t inside the type being
// compiled, for error messages.
func (c *codec) build(cp *copier, t reflect.Type, path string) error {
	switch t.Kind() {
	case reflect.Bool:
		cp.fix = func(unsafe.Pointer) int { return 1 }
	case reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		size := int(t.Size())
		cp.fix = func(unsafe.Pointer) int { return size }
	case reflect.String:
		cp.fix = func(p unsafe.Pointer) int { return lenLen(len(*(*string)(p))) }
	case reflect.Slice:
		return c.buildSlice(cp, t, path)
	case reflect.Array:
		return c.buildArray(cp, t, path)
	case reflect.Map:
		return c.buildMap(cp, t, path)
	case reflect.Pointer:
		return c.buildPointer(cp, t, path)
	case reflect.Struct:
		return c.buildStruct(cp, t, path)
	default:
		fix, ok := integerSize[t.Kind()]
		if !ok {
			return &TypeError{Path: path, Why: fmt.Sprintf("a %v cannot be copied across the network", t.Kind())}
		}
		cp.fix = fix
	}
	cp.flat, cp.sealed = true, true // a number, a bool or a string
	return nil
}

// integerSize measures the integers of each kind.
var integerSize = map[reflect.Kind]func(p unsafe.Pointer) int{
	reflect.Int: intSize[int], reflect.Int8: intSize[int8], reflect.Int16: intSize[int16],
	reflect.Int32: intSize[int32], reflect.Int64: intSize[int64],
	reflect.Uint: uintSize[uint], reflect.Uint8: uintSize[uint8], reflect.Uint16: uintSize[uint16],
	reflect.Uint32: uintSize[uint32], reflect.Uint64: uintSize[uint64], reflect.Uintptr: uintSize[uintptr],
}

// intSize is the size of the signed integer of type T at p.
func intSize[T int | int8 | int16 | int32 | int64](p unsafe.Pointer) int {
	return intLen(int64(*(*T)(p)))
}

// uintSize is the size of the unsigned integer of type T at p.
func uintSize[T uint | uint8 | uint16 | uint32 | uint64 | uintptr](p unsafe.Pointer) int {
	return uvarintLen(uint64(*(*T)(p)))
}

// uvarintLen is the length of v as an unsigned varint.
func uvarintLen(v uint64) int {
	return (bits.Len64(v|1) + 6) / 7
}

// intLen is the length of v as a zig-zag varint.
func intLen(v int64) int {
	return uvarintLen(uint64(v<<1) ^ uint64(v>>63))
}

// lenLen is the size of n bytes sent with their length in front.
func lenLen(n int) int {
	return uvarintLen(uint64(n)) + n
}
