package labrpc

import (
	"bytes"
	"fmt"
	"reflect"
	"unsafe"
)

// The copiers of types made of other types: pointers, slices, arrays, maps
// and structs.

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
		if s.len == 0 {
			*s = sliceHeader{data: unsafe.Pointer(&noElems)} // empty, not nil, and sharing no room to append in
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

// noElems is where copies of empty slices point: anywhere but nil.
var noElems [0]byte

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
