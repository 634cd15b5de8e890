package labrpc

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/replab/replab/sim"
)

var deferredType = reflect.TypeFor[*Deferred]()

// A Service is an object whose RPC-shaped methods can be called over the
// network as "Name.Method", where Name is the object's type name. A method is
// RPC-shaped if it is exported and has one of two signatures:
//
//	func (r *T) M(args *A, reply *R)                 // answers on return
//	func (r *T) M(args *A, reply *R, d *Deferred)    // answers at d.Reply()
//
// (args may also be a non-pointer type). Other methods are ignored.
type Service struct {
	name    string
	rcvr    reflect.Value
	methods map[string]*method
}

type method struct {
	name      string
	fn        reflect.Value
	argType   reflect.Type
	replyType reflect.Type // a pointer type
	deferred  bool
}

// check panics unless a call with args of type at and a reply of type rt
// fits the method.
func (m *method) check(at, rt reflect.Type) {
	if at != m.argType {
		panic(fmt.Sprintf("labrpc: %s takes args of type %v, but the call sent %v", m.name, m.argType, at))
	}
	if rt != m.replyType {
		panic(fmt.Sprintf("labrpc: %s replies with %v, but the call expects %v", m.name, m.replyType, rt))
	}
}

// MakeService returns the service for rcvr's RPC-shaped methods. It panics
// with a *TypeError if an argument or reply type cannot cross the network
// (an unexported field, a func or a chan inside it), so such mistakes show
// at registration, not on first use.
func MakeService(rcvr any) *Service {
	v := reflect.ValueOf(rcvr)
	t := v.Type()
	svc := &Service{name: reflect.Indirect(v).Type().Name(), rcvr: v, methods: make(map[string]*method)}
	check := newCodec()
	for i := range t.NumMethod() {
		m := t.Method(i)
		mt := m.Type
		n := mt.NumIn()
		if mt.NumOut() != 0 || (n != 3 && n != 4) || mt.In(2).Kind() != reflect.Pointer {
			continue
		}
		if n == 4 && mt.In(3) != deferredType {
			continue
		}
		for _, at := range []reflect.Type{mt.In(1), mt.In(2)} {
			if _, err := check.compile(at); err != nil {
				panic(fmt.Errorf("labrpc: %s.%s: %w", svc.name, m.Name, err))
			}
		}
		svc.methods[m.Name] = &method{name: svc.name + "." + m.Name, fn: v.Method(i), argType: mt.In(1), replyType: mt.In(2), deferred: n == 4}
	}
	return svc
}

// methodNames returns the service's methods as "Name.Method", sorted.
func (svc *Service) methodNames() []string {
	var names []string
	for m := range svc.methods {
		names = append(names, svc.name+"."+m)
	}
	slices.Sort(names)
	return names
}

// A Server is a collection of services on a host, reachable once added to a
// network under a server name.
type Server struct {
	host     *sim.Host
	services map[string]*Service
	count    int
	order    int              // registration order on its network
	waiting  map[uint64]*call // deferred calls not yet answered, by call ID
}

// MakeServer returns a server without services that runs on host (nil for
// a server outside every host, which never dies).
func MakeServer(host *sim.Host) *Server {
	return &Server{host: host, services: make(map[string]*Service), waiting: make(map[uint64]*call)}
}

// AddService adds a service to the server.
func (rs *Server) AddService(svc *Service) {
	rs.services[svc.name] = svc
}

// GetCount returns the number of requests delivered to the server.
func (rs *Server) GetCount() int { return rs.count }

// lookup finds the method for "Service.Method", panicking with a message that
// names it and the methods the server does have if there is none.
func (rs *Server) lookup(svcMeth string) *method {
	name, meth, _ := strings.Cut(svcMeth, ".")
	if svc, ok := rs.services[name]; ok {
		if m, ok := svc.methods[meth]; ok {
			return m
		}
	}
	var known []string
	for _, svc := range rs.services {
		known = append(known, svc.methodNames()...)
	}
	slices.Sort(known)
	panic(fmt.Sprintf("labrpc: unknown method %q; this server has %s", svcMeth, strings.Join(known, ", ")))
}

// A Deferred is the handle a deferred handler gets for answering later: it
// fills in its reply, keeps the Deferred, and calls Reply when the answer is
// ready (a KV server answers once Raft has applied the command).
type Deferred struct {
	c       *call
	reply   reflect.Value
	replied bool
}

// Reply sends the reply as it stands now. Calls after the first do nothing.
func (d *Deferred) Reply() {
	if d.replied {
		return
	}
	d.replied = true
	d.c.respond(d.reply)
}

// drainWaiting forgets and returns the deferred calls rs has not answered,
// in the order they were made.
func (rs *Server) drainWaiting() []*call {
	cs := make([]*call, 0, len(rs.waiting))
	for _, c := range rs.waiting {
		cs = append(cs, c)
	}
	clear(rs.waiting)
	slices.SortFunc(cs, func(a, b *call) int { return cmp.Compare(a.id, b.id) })
	return cs
}
