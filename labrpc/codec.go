package labrpc

import (
	"fmt"
	"math/bits"
	"reflect"
)

// A TypeError says why a type cannot cross the network: an unexported field,
// or a func, chan or unsafe pointer anywhere inside it.
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

// A copier deep-copies a value of one type and returns the number of bytes
// the value would take on a wire (a gob-like size: varints for integers,
// lengths before strings, slices and maps).
type copier struct {
	copy func(dst, src reflect.Value) int
}

// A codec compiles and caches copiers. Each network has its own, so worlds
// share nothing.
type codec struct {
	types map[reflect.Type]*copier
	depth int // references followed by the copy in progress
}

// maxDepth bounds how many references (pointers, slices, maps, interfaces)
// deep a copy may go, so that a value that contains itself gets an error
// instead of overflowing the stack, which would kill the whole process.
const maxDepth = 10_000

// tooDeep is what a copy panics with when it passes maxDepth; copyValue
// turns it into a TypeError that locates the cycle.
type tooDeep struct{}

func newCodec() *codec { return &codec{types: make(map[reflect.Type]*copier)} }

// copyValue returns a deep copy of src and its wire size. It panics with a
// *TypeError if src cannot be sent.
func (c *codec) copyValue(src reflect.Value) (reflect.Value, int) {
	cp, err := c.compile(src.Type())
	if err != nil {
		panic(err)
	}
	dst := reflect.New(src.Type()).Elem()
	size, ok := c.bounded(cp, dst, src)
	if !ok {
		panic(tooDeepError(src))
	}
	return dst, size
}

// bounded copies src into dst with cp, and reports false if the copy went
// more than maxDepth references deep.
func (c *codec) bounded(cp *copier, dst, src reflect.Value) (size int, ok bool) {
	c.depth = 0
	defer func() {
		if r := recover(); r != nil {
			if _, deep := r.(tooDeep); !deep {
				panic(r)
			}
		}
	}()
	return cp.copy(dst, src), true
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

// build makes the copy function for t; path locates t inside the type being
// compiled, for error messages.
func (c *codec) build(t reflect.Type, path string) (func(dst, src reflect.Value) int, error) {
	switch t.Kind() {
	case reflect.Bool:
		return func(dst, src reflect.Value) int { dst.SetBool(src.Bool()); return 1 }, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(dst, src reflect.Value) int {
			v := src.Int()
			dst.SetInt(v)
			return uvarintLen(uint64(v<<1) ^ uint64(v>>63))
		}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(dst, src reflect.Value) int {
			v := src.Uint()
			dst.SetUint(v)
			return uvarintLen(v)
		}, nil
	case reflect.Float32, reflect.Float64:
		size := int(t.Size())
		return func(dst, src reflect.Value) int { dst.SetFloat(src.Float()); return size }, nil
	case reflect.Complex64, reflect.Complex128:
		size := int(t.Size())
		return func(dst, src reflect.Value) int { dst.SetComplex(src.Complex()); return size }, nil
	case reflect.String:
		return func(dst, src reflect.Value) int {
			s := src.String()
			dst.SetString(s)
			return uvarintLen(uint64(len(s))) + len(s)
		}, nil
	case reflect.Slice:
		return c.buildSlice(t, path)
	case reflect.Array:
		return c.buildArray(t, path)
	case reflect.Map:
		return c.buildMap(t, path)
	case reflect.Pointer:
		elem, err := c.sub(t.Elem(), path)
		if err != nil {
			return nil, err
		}
		et := t.Elem()
		return func(dst, src reflect.Value) int {
			if src.IsNil() {
				return 1
			}
			c.enter()
			p := reflect.New(et)
			n := elem.copy(p.Elem(), src.Elem())
			dst.Set(p)
			c.leave()
			return n
		}, nil
	case reflect.Struct:
		return c.buildStruct(t, path)
	case reflect.Interface:
		return c.buildInterface(), nil
	default:
		return nil, &TypeError{Path: path, Why: fmt.Sprintf("a %v cannot be copied across the network", t.Kind())}
	}
}

// sub returns the copier for t, compiling it if needed; path locates t inside
// the type being compiled. A placeholder goes into the cache first, so that
// recursive types compile.
func (c *codec) sub(t reflect.Type, path string) (*copier, error) {
	if cp, ok := c.types[t]; ok {
		return cp, nil
	}
	cp := &copier{}
	c.types[t] = cp
	fn, err := c.build(t, path)
	if err != nil {
		delete(c.types, t)
		return nil, err
	}
	cp.copy = fn
	return cp, nil
}

func (c *codec) buildSlice(t reflect.Type, path string) (func(dst, src reflect.Value) int, error) {
	if t.Elem().Kind() == reflect.Uint8 {
		return func(dst, src reflect.Value) int {
			if src.IsNil() {
				return 1
			}
			b := append([]byte(nil), src.Bytes()...)
			dst.Set(reflect.ValueOf(b).Convert(t))
			return uvarintLen(uint64(len(b))) + len(b)
		}, nil
	}
	elem, err := c.sub(t.Elem(), path+"[]")
	if err != nil {
		return nil, err
	}
	return func(dst, src reflect.Value) int {
		if src.IsNil() {
			return 1
		}
		c.enter()
		n := src.Len()
		s := reflect.MakeSlice(t, n, n)
		size := uvarintLen(uint64(n))
		for i := range n {
			size += elem.copy(s.Index(i), src.Index(i))
		}
		dst.Set(s)
		c.leave()
		return size
	}, nil
}

func (c *codec) buildArray(t reflect.Type, path string) (func(dst, src reflect.Value) int, error) {
	elem, err := c.sub(t.Elem(), path+"[]")
	if err != nil {
		return nil, err
	}
	n := t.Len()
	return func(dst, src reflect.Value) int {
		size := uvarintLen(uint64(n))
		for i := range n {
			size += elem.copy(dst.Index(i), src.Index(i))
		}
		return size
	}, nil
}

func (c *codec) buildMap(t reflect.Type, path string) (func(dst, src reflect.Value) int, error) {
	key, err := c.sub(t.Key(), path+"[key]")
	if err != nil {
		return nil, err
	}
	val, err := c.sub(t.Elem(), path+"[]")
	if err != nil {
		return nil, err
	}
	kt, vt := t.Key(), t.Elem()
	return func(dst, src reflect.Value) int {
		if src.IsNil() {
			return 1
		}
		c.enter()
		m := reflect.MakeMapWithSize(t, src.Len())
		size := uvarintLen(uint64(src.Len()))
		// The copy and the size do not depend on the iteration order.
		for it := src.MapRange(); it.Next(); {
			k, v := reflect.New(kt).Elem(), reflect.New(vt).Elem()
			size += key.copy(k, it.Key()) + val.copy(v, it.Value())
			m.SetMapIndex(k, v)
		}
		dst.Set(m)
		c.leave()
		return size
	}, nil
}

func (c *codec) buildStruct(t reflect.Type, path string) (func(dst, src reflect.Value) int, error) {
	n := t.NumField()
	fields := make([]*copier, n)
	for i := range n {
		f := t.Field(i)
		fpath := f.Name
		if path != "" {
			fpath = path + "." + f.Name
		}
		if !f.IsExported() {
			return nil, &TypeError{Path: fpath, Why: fmt.Sprintf("field %s of %v is unexported; only exported fields cross the network", f.Name, t)}
		}
		cp, err := c.sub(f.Type, fpath)
		if err != nil {
			return nil, err
		}
		fields[i] = cp
	}
	return func(dst, src reflect.Value) int {
		size := 0
		for i, cp := range fields {
			size += cp.copy(dst.Field(i), src.Field(i))
		}
		return size
	}, nil
}

// buildInterface copies the dynamic value behind an interface, compiling a
// copier for its concrete type on first sight.
func (c *codec) buildInterface() func(dst, src reflect.Value) int {
	return func(dst, src reflect.Value) int {
		if src.IsNil() {
			return 1
		}
		v := src.Elem()
		cp, err := c.compile(v.Type())
		if err != nil {
			panic(err)
		}
		c.enter()
		cv := reflect.New(v.Type()).Elem()
		size := cp.copy(cv, v)
		dst.Set(cv)
		c.leave()
		return size + len(v.Type().String()) + 1
	}
}

// uvarintLen is the length of v as an unsigned varint.
func uvarintLen(v uint64) int {
	return (bits.Len64(v|1) + 6) / 7
}
