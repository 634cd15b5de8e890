package labrpc

import (
	"reflect"
	"unsafe"
)

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
		return c.fixValue(cp, p, x, xc) + xc.nameSize
	}
}

// fixValue copies x, the value in the interface at p (of cp's type), with
// xc, and returns its size. A value that holds no references, or only
// interfaces whose values can be shared in turn, is shared: the value
// inside an interface cannot be changed in place.
//
// A sealed value is measured first, without copying; the first value
// inside it that must be copied stops the measuring, and the outermost
// sealed value is then copied whole, without measuring anything inside it
// again, so that deep nesting costs its size, not its size squared.
func (c *codec) fixValue(cp *copier, p unsafe.Pointer, x any, xc *copier) int {
	switch {
	case xc.flat:
		return xc.size(dataOf(x))
	case c.measuring > 0 && (c.mustCopy || !xc.sealed):
		c.mustCopy = true
		return 0
	case xc.sealed && c.copying == 0:
		c.enter()
		c.measuring++
		size := xc.fix(dataOf(x))
		c.measuring--
		c.leave()
		if !c.mustCopy {
			return size
		}
		if c.measuring > 0 {
			return 0
		}
		c.mustCopy = false
		c.copying++
		size = c.copyValue(cp, p, x, xc)
		c.copying--
		return size
	}
	return c.copyValue(cp, p, x, xc)
}

// copyValue copies x into the interface at p with xc and returns its size.
//
// The interface at p holds x still. A value not the size of a pointer is
// never held in an interface's data word, which points to it instead
// (see dataOf): for one, that word is pointed at the copy, which is new
// memory of xc's type that nothing else refers to, rather than the copy
// being copied once more into memory the assignment would allocate.
func (c *codec) copyValue(cp *copier, p unsafe.Pointer, x any, xc *copier) int {
	c.enter()
	v := reflect.New(xc.t)
	v.Elem().Set(reflect.ValueOf(x))
	size := xc.fix(v.UnsafePointer())
	if xc.t.Size() != unsafe.Sizeof(p) {
		(*[2]unsafe.Pointer)(p)[1] = v.UnsafePointer()
	} else {
		cp.at(p).Set(v.Elem())
	}
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
