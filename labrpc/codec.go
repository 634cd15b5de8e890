package labrpc

import (
	"bytes"
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
// reflection cost more than the rest of the call.
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
	sealed  bool
	nameLen int // the length of the type's name, which an interface sends
	fix     func(p unsafe.Pointer) int
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
	frames map[[2]reflect.Type]*frame // by args type and reply type
	depth  int                        // references followed by the copy in progress

	// While measuring > 0, fix is measuring a sealed value inside an
	// interface rather than copying it, and sets mustCopy instead if the
	// value holds one that must be copied after all.
	measuring int
	mustCopy  bool
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
// the cycle in v.
func (c *codec) copyInto(cp *copier, dst unsafe.Pointer, v reflect.Value, deref bool) int {
	c.depth, c.measuring, c.mustCopy = 0, 0, false // as if the last copy had not panicked
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
func (c *codec) compile(t reflect.Type) (*copier, error) {
	cp, err := c.sub(t, "")
	if te, ok := err.(*TypeError); ok {
		te.Type = t
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
// recursive types compile; they are never flat or sealed. Every interface
// in a type gets a copier of its own, which remembers the last type it
// held: one place mostly holds one type.
func (c *codec) sub(t reflect.Type, path string) (*copier, error) {
	if cp, ok := c.types[t]; ok {
		return cp, nil
	}
	cp := &copier{t: t, kind: t.Kind(), nameLen: len(t.String())}
	if cp.kind == reflect.Interface {
		c.buildInterface(cp)
		return cp, nil
	}
	c.types[t] = cp
	if err := c.build(cp, t, path); err != nil {
		delete(c.types, t)
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

func (c *codec) buildPointer(cp *copier, t reflect.Type, path string) error {
	elem, err := c.sub(t.Elem(), path)
	if err != nil {
		return err
	}
	cp.fix = func(p unsafe.Pointer) int {
		old := *(*unsafe.Pointer)(p)
		if old == nil {
			return 1
		}
		c.enter()
		np := reflect.New(elem.t)
		np.Elem().Set(elem.at(old))
		*(*unsafe.Pointer)(p) = np.UnsafePointer()
		n := elem.size(np.UnsafePointer())
		c.leave()
		return n
	}
	return nil
}

func (c *codec) buildSlice(cp *copier, t reflect.Type, path string) error {
	if t.Elem().Kind() == reflect.Uint8 {
		cp.fix = func(p unsafe.Pointer) int {
			s := (*[]byte)(p)
			if *s == nil {
				return 1
			}
			*s = bytes.Clone(*s)
			return lenLen(len(*s))
		}
		return nil
	}
	elem, err := c.sub(t.Elem(), path+"[]")
	if err != nil {
		return err
	}
	// A slice is copied by growing an empty slice of its type, held by
	// grown, to its length, and copying the old elements in (held by old
	// meanwhile), by reflection, so that they are copied as their type
	// requires. Neither is in use while the elements are fixed, so nested
	// copies can reuse them.
	grown, old := reflect.New(t).Elem(), reflect.New(t).Elem()
	g, o := (*sliceHeader)(grown.Addr().UnsafePointer()), (*sliceHeader)(old.Addr().UnsafePointer())
	step := t.Elem().Size()
	cp.fix = func(p unsafe.Pointer) int {
		s := (*sliceHeader)(p)
		if s.data == nil {
			return 1
		}
		c.enter()
		n := s.len
		*o = *s
		grown.Grow(n)
		g.len = n
		reflect.Copy(grown, old)
		*s = *g
		*g, *o = sliceHeader{}, sliceHeader{}
		size := uvarintLen(uint64(n))
		for i := range n {
			size += elem.size(unsafe.Add(s.data, uintptr(i)*step))
		}
		c.leave()
		return size
	}
	return nil
}

// A sliceHeader is how a slice is laid out in memory.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

func (c *codec) buildArray(cp *copier, t reflect.Type, path string) error {
	elem, err := c.sub(t.Elem(), path+"[]")
	if err != nil {
		return err
	}
	n, step := t.Len(), t.Elem().Size()
	cp.flat, cp.sealed = elem.flat, elem.sealed
	cp.fix = func(p unsafe.Pointer) int {
		size := uvarintLen(uint64(n))
		for i := range n {
			size += elem.size(unsafe.Add(p, uintptr(i)*step))
		}
		return size
	}
	return nil
}

func (c *codec) buildMap(cp *copier, t reflect.Type, path string) error {
	key, err := c.sub(t.Key(), path+"[key]")
	if err != nil {
		return err
	}
	val, err := c.sub(t.Elem(), path+"[]")
	if err != nil {
		return err
	}
	cp.fix = func(p unsafe.Pointer) int {
		v := cp.at(p)
		if v.IsNil() {
			return 1
		}
		c.enter()
		m := reflect.MakeMapWithSize(t, v.Len())
		size := uvarintLen(uint64(v.Len()))
		kp, ep := reflect.New(key.t), reflect.New(val.t)
		k, e := kp.Elem(), ep.Elem()
		// The copy and the size do not depend on the iteration order.
		for it := v.MapRange(); it.Next(); {
			k.SetIterKey(it)
			e.SetIterValue(it)
			size += key.size(kp.UnsafePointer()) + val.size(ep.UnsafePointer())
			m.SetMapIndex(k, e)
		}
		v.Set(m)
		c.leave()
		return size
	}
	return nil
}

// A field is one field of a struct being copied.
type field struct {
	off uintptr
	cp  *copier
}

func (c *codec) buildStruct(cp *copier, t reflect.Type, path string) error {
	n := t.NumField()
	fields := make([]field, n)
	flat, sealed := true, true
	for i := range n {
		f := t.Field(i)
		fpath := f.Name
		if path != "" {
			fpath = path + "." + f.Name
		}
		if !f.IsExported() {
			return &TypeError{Path: fpath, Why: fmt.Sprintf("field %s of %v is unexported; only exported fields cross the network", f.Name, t)}
		}
		fc, err := c.sub(f.Type, fpath)
		if err != nil {
			return err
		}
		fields[i] = field{off: f.Offset, cp: fc}
		flat, sealed = flat && fc.flat, sealed && fc.sealed
	}
	cp.flat, cp.sealed = flat, sealed
	cp.fix = func(p unsafe.Pointer) int {
		size := 0
		for _, f := range fields {
			size += f.cp.size(unsafe.Add(p, f.off))
		}
		return size
	}
	return nil
}

// buildInterface fills in cp, the copier for an interface type: it copies
// the value in the interface with the copier for the value's type,
// compiled on first sight.
func (c *codec) buildInterface(cp *copier) {
	cp.sealed = true
	empty := cp.t.NumMethod() == 0
	var last *copier // for the type the interface held last
	cp.fix = func(p unsafe.Pointer) int {
		var x any
		if empty {
			x = *(*any)(p)
		} else {
			x = cp.at(p).Interface()
		}
		if x == nil {
			return 1
		}
		if t := reflect.TypeOf(x); last == nil || t != last.t {
			last = c.mustCompile(t)
		}
		xc := last // fixing x may change last: x may hold this interface too
		return c.fixValue(cp, p, x, xc) + xc.nameLen + 1
	}
}

// fixValue copies x, the value in the interface at p (of cp's type), with
// xc, and returns its size. A value that holds no references, or only
// interfaces whose values can be shared in turn, is shared: the value
// inside an interface cannot be changed in place.
func (c *codec) fixValue(cp *copier, p unsafe.Pointer, x any, xc *copier) int {
	if xc.flat {
		return xc.size(dataOf(x))
	}
	if xc.sealed {
		c.enter()
		c.measuring++
		size := xc.fix(dataOf(x))
		c.measuring--
		c.leave()
		if !c.mustCopy {
			return size
		}
		if c.measuring > 0 {
			return 0 // the outermost sealed value is copied, and measured again
		}
		c.mustCopy = false
	} else if c.measuring > 0 {
		c.mustCopy = true
		return 0
	}
	c.enter()
	v := reflect.New(xc.t)
	v.Elem().Set(reflect.ValueOf(x))
	size := xc.fix(v.UnsafePointer())
	cp.at(p).Set(v.Elem())
	c.leave()
	return size
}

// dataOf returns where the value in x is. It relies on how Go lays out an
// interface: a type word, then a data word that points to the value unless
// the value is itself a single pointer (a pointer, map, chan, func, or a
// struct or array holding only one). A flat value never is, so for flat
// values the data word is where the value is.
func dataOf(x any) unsafe.Pointer {
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&x))[1]
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
