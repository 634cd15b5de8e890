package labrpc

import (
	"bytes"
	"fmt"
	"math/bits"
	"reflect"
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
// assignment: the caller assigns the value to a settable v, which copies
// everything but what references refer to, and fix(v) then gives v copies of
// its own of what they refer to and returns the size.
type copier struct {
	// flat types refer to nothing that can change: a plain assignment is a
	// deep copy, and fix only measures. Strings are flat, being immutable.
	flat    bool
	nameLen int // the length of the type's name, which an interface sends
	fix     func(v reflect.Value) int
}

// A codec compiles and caches copiers. Each network has its own, so worlds
// share nothing.
type codec struct {
	types  map[reflect.Type]*copier
	frames map[[2]reflect.Type]*frame // by args type and reply type
	depth  int                        // references followed by the copy in progress

	// The copier of the type last found inside an interface: an interface
	// field mostly holds one type.
	lastType   reflect.Type
	lastCopier *copier
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
// deref, into dst (settable) with cp, and returns the wire size. It panics
// with a *TypeError if the copy went more than maxDepth references deep,
// locating the cycle in v.
func (c *codec) copyInto(cp *copier, dst, v reflect.Value, deref bool) int {
	c.depth = 0
	if deref {
		dst.Set(v.Elem())
		c.depth = 1
	} else {
		dst.Set(v)
	}
	if cp.flat {
		return cp.fix(dst)
	}
	size, ok := c.bounded(cp, dst)
	if !ok {
		panic(tooDeepError(v))
	}
	return size
}

// bounded runs cp.fix(v), and reports false if it went more than maxDepth
// references deep.
func (c *codec) bounded(cp *copier, v reflect.Value) (size int, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, deep := r.(tooDeep); !deep {
				panic(r)
			}
		}
	}()
	return cp.fix(v), true
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
// recursive types compile; they are never flat.
func (c *codec) sub(t reflect.Type, path string) (*copier, error) {
	if cp, ok := c.types[t]; ok {
		return cp, nil
	}
	cp := &copier{nameLen: len(t.String())}
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
		cp.flat, cp.fix = true, func(reflect.Value) int { return 1 }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		cp.flat, cp.fix = true, func(v reflect.Value) int { return intLen(v.Int()) }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		cp.flat, cp.fix = true, func(v reflect.Value) int { return uvarintLen(v.Uint()) }
	case reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		size := int(t.Size())
		cp.flat, cp.fix = true, func(reflect.Value) int { return size }
	case reflect.String:
		cp.flat, cp.fix = true, func(v reflect.Value) int { return lenLen(v.Len()) }
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
	case reflect.Interface:
		cp.fix = c.fixInterface
	default:
		return &TypeError{Path: path, Why: fmt.Sprintf("a %v cannot be copied across the network", t.Kind())}
	}
	return nil
}

func (c *codec) buildPointer(cp *copier, t reflect.Type, path string) error {
	elem, err := c.sub(t.Elem(), path)
	if err != nil {
		return err
	}
	et := t.Elem()
	cp.fix = func(v reflect.Value) int {
		if v.IsNil() {
			return 1
		}
		c.enter()
		p := reflect.New(et)
		p.Elem().Set(v.Elem())
		n := elem.fix(p.Elem())
		v.Set(p)
		c.leave()
		return n
	}
	return nil
}

func (c *codec) buildSlice(cp *copier, t reflect.Type, path string) error {
	if t.Elem().Kind() == reflect.Uint8 {
		cp.fix = func(v reflect.Value) int {
			if v.IsNil() {
				return 1
			}
			v.SetBytes(bytes.Clone(v.Bytes()))
			return lenLen(v.Len())
		}
		return nil
	}
	elem, err := c.sub(t.Elem(), path+"[]")
	if err != nil {
		return err
	}
	// old holds the slice being copied while v gets a new array. Making the
	// new slice in v itself, rather than with reflect.MakeSlice, saves
	// allocating a slice header each time.
	old := reflect.New(t).Elem()
	cp.fix = func(v reflect.Value) int {
		if v.IsNil() {
			return 1
		}
		c.enter()
		n := v.Len()
		old.Set(v)
		v.SetZero()
		v.Grow(n)
		v.SetLen(n)
		reflect.Copy(v, old)
		old.SetZero()
		size := uvarintLen(uint64(n))
		for i := range n {
			size += elem.fix(v.Index(i))
		}
		c.leave()
		return size
	}
	return nil
}

func (c *codec) buildArray(cp *copier, t reflect.Type, path string) error {
	elem, err := c.sub(t.Elem(), path+"[]")
	if err != nil {
		return err
	}
	n := t.Len()
	cp.flat = elem.flat
	cp.fix = func(v reflect.Value) int {
		size := uvarintLen(uint64(n))
		for i := range n {
			size += elem.fix(v.Index(i))
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
	kt, vt := t.Key(), t.Elem()
	cp.fix = func(v reflect.Value) int {
		if v.IsNil() {
			return 1
		}
		c.enter()
		m := reflect.MakeMapWithSize(t, v.Len())
		size := uvarintLen(uint64(v.Len()))
		k, e := reflect.New(kt).Elem(), reflect.New(vt).Elem()
		// The copy and the size do not depend on the iteration order.
		for it := v.MapRange(); it.Next(); {
			k.SetIterKey(it)
			e.SetIterValue(it)
			size += key.fix(k) + val.fix(e)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
		c.leave()
		return size
	}
	return nil
}

func (c *codec) buildStruct(cp *copier, t reflect.Type, path string) error {
	n := t.NumField()
	fields := make([]*copier, n)
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
		fields[i] = fc
	}
	cp.flat = true
	for _, fc := range fields {
		cp.flat = cp.flat && fc.flat
	}
	cp.fix = func(v reflect.Value) int {
		size := 0
		for i, fc := range fields {
			size += fc.fix(v.Field(i))
		}
		return size
	}
	return nil
}

// fixInterface copies the dynamic value behind an interface, compiling a
// copier for its concrete type on first sight. A flat value is left shared:
// the value inside an interface cannot be changed in place.
func (c *codec) fixInterface(v reflect.Value) int {
	if v.IsNil() {
		return 1
	}
	e := v.Elem()
	if e.Type() != c.lastType {
		c.lastType, c.lastCopier = e.Type(), c.mustCompile(e.Type())
	}
	cp := c.lastCopier
	if cp.flat {
		return cp.fix(e) + cp.nameLen + 1
	}
	c.enter()
	ce := reflect.New(e.Type()).Elem()
	ce.Set(e)
	size := cp.fix(ce)
	v.Set(ce)
	c.leave()
	return size + cp.nameLen + 1
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
