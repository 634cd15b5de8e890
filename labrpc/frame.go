package labrpc

import (
	"reflect"
	"unsafe"
)

// A frame type lays out in memory every call with one args type and one
// reply type, so that a call is a single allocation: a struct made for the
// pair by reflection, holding the call, the copy of the args, the reply the
// handler fills in and the copy of it that travels back.
type frame struct {
	at, rt  reflect.Type // the args type and the reply type
	t       reflect.Type // struct{ Call call; Args X; Reply R; Wire R }
	argsPtr bool         // args are sent as a pointer, to an X
	args    *copier      // for X
	reply   *copier      // for R

	argsOff, replyOff, wireOff uintptr // where the fields are in a frame
}

// frameFor returns the frame type for args of type at and replies of type
// rt (a pointer type), panicking with a *TypeError if either cannot cross
// the network.
func (c *codec) frameFor(at, rt reflect.Type) *frame {
	key := [2]reflect.Type{at, rt}
	if f, ok := c.frames[key]; ok {
		return f
	}
	f := &frame{at: at, rt: rt, argsPtr: at.Kind() == reflect.Pointer}
	x, r := at, rt.Elem()
	if f.argsPtr {
		x = at.Elem()
	}
	c.mustCompile(rt) // so that an error names the types as the call has them
	c.mustCompile(at)
	f.args, f.reply = c.mustCompile(x), c.mustCompile(r)
	f.t = reflect.StructOf([]reflect.StructField{
		{Name: "Call", Type: reflect.TypeFor[call]()}, // first, so that a frame's address is its call's
		{Name: "Args", Type: x},
		{Name: "Reply", Type: r},
		{Name: "Wire", Type: r},
	})
	f.argsOff, f.replyOff, f.wireOff = f.t.Field(1).Offset, f.t.Field(2).Offset, f.t.Field(3).Offset
	c.frames[key] = f
	return f
}

// newCall allocates a call in a new frame of type f.
func (f *frame) newCall() *call {
	p := reflect.New(f.t).UnsafePointer()
	c := (*call)(p)
	c.frame = f
	c.args = unsafe.Add(p, f.argsOff)
	c.first = Deferred{c: c, reply: unsafe.Add(p, f.replyOff), wire: unsafe.Add(p, f.wireOff)}
	return c
}

// newAnswer returns a second or later answer to c (a request delivered more
// than once is handled each time), with a reply and a wire of its own.
func (c *call) newAnswer() *Deferred {
	r := c.frame.reply.t
	return &Deferred{c: c, reply: reflect.New(r).UnsafePointer(), wire: reflect.New(r).UnsafePointer()}
}
