package labrpc

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unsafe"

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
//
// MakeService finds the methods by reflection and calls them by reflection,
// which costs about a hundred nanoseconds a call. Handle and HandleDeferred
// let a service that is called often register typed handlers instead.
type Service struct {
	name    string
	methods map[string]*method
}

// A method is one RPC-shaped method of a service.
type method struct {
	name      string       // "Service.Method"
	argType   reflect.Type // what the handler takes
	replyType reflect.Type // a pointer type
	deferred  bool
	// invoke runs the handler on the copy of the args at args (of argType,
	// or what it points to if a pointer) and the reply at reply (of what
	// replyType points to); d is nil unless the method is deferred.
	invoke func(args, reply unsafe.Pointer, d *Deferred)
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
func MakeService(rcvr any) *Service { return TypeOf(rcvr).Service(rcvr) }

// A ServiceType is what MakeService finds of a receiver's type, the same
// for every receiver of it: its RPC-shaped methods, their types checked.
// Finding them is most of what building a service costs; a package that
// makes many services of one type (a Raft node for each server of every
// world a search builds) finds them once, at initialization, and makes
// each service with Service.
type ServiceType struct {
	t       reflect.Type
	name    string
	methods []methodShape
}

// A methodShape is one RPC-shaped method of a type: its name, its method
// expression, its argument and reply types, and whether it answers
// through a Deferred.
type methodShape struct {
	name     string
	fn       reflect.Value
	at, rt   reflect.Type
	deferred bool
}

// TypeOf returns the service type of rcvr's type (rcvr may be a nil
// pointer of it: only its type counts). It panics with a
// *TypeError, as MakeService does, if an argument or reply type cannot
// cross the network.
func TypeOf(rcvr any) *ServiceType {
	v := reflect.ValueOf(rcvr)
	t := v.Type()
	named := t
	if t.Kind() == reflect.Pointer {
		named = t.Elem()
	}
	st := &ServiceType{t: t, name: named.Name()}
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
				panic(fmt.Errorf("labrpc: %s.%s: %w", st.name, m.Name, err))
			}
		}
		st.methods = append(st.methods, methodShape{name: m.Name, fn: m.Func, at: mt.In(1), rt: mt.In(2), deferred: n == 4})
	}
	return st
}

// Service returns the service for rcvr's RPC-shaped methods, as
// MakeService does. It panics, naming both, if rcvr is not of st's type.
func (st *ServiceType) Service(rcvr any) *Service {
	v := reflect.ValueOf(rcvr)
	if v.Type() != st.t {
		panic(fmt.Sprintf("labrpc: ServiceType.Service: a %v, not the %v of the type", v.Type(), st.t))
	}
	svc := &Service{name: st.name, methods: make(map[string]*method, len(st.methods))}
	for _, m := range st.methods {
		svc.methods[m.name] = &method{
			name: svc.name + "." + m.name, argType: m.at, replyType: m.rt, deferred: m.deferred,
			invoke: reflectInvoke(m.fn, v, m.at, m.rt, m.deferred),
		}
	}
	return svc
}

// reflectInvoke returns an invoke function that calls fn, a method
// expression taking args of type at and replies of type rt, on rcvr by
// reflection.
func reflectInvoke(fn, rcvr reflect.Value, at, rt reflect.Type, deferred bool) func(args, reply unsafe.Pointer, d *Deferred) {
	return func(args, reply unsafe.Pointer, d *Deferred) {
		in := []reflect.Value{rcvr, argsValue(at, args), reflect.NewAt(rt.Elem(), reply)}
		if deferred {
			in = append(in, reflect.ValueOf(d))
		}
		fn.Call(in)
	}
}

// Handle makes svc call fn for its method name, typed, instead of calling
// the method by reflection. fn is normally the method itself:
//
//	svc := labrpc.MakeService(rf)
//	labrpc.Handle(svc, "AppendEntries", rf.AppendEntries)
//
// Handle panics if svc has no method name that answers on return with
// these types.
func Handle[A, R any](svc *Service, name string, fn func(args A, reply *R)) {
	get := argsAt[A]()
	svc.typed(name, reflect.TypeFor[A](), reflect.TypeFor[*R](), false).invoke =
		func(args, reply unsafe.Pointer, _ *Deferred) { fn(get(args), (*R)(reply)) }
}

// HandleDeferred is Handle for a method that answers through a Deferred.
func HandleDeferred[A, R any](svc *Service, name string, fn func(args A, reply *R, d *Deferred)) {
	get := argsAt[A]()
	svc.typed(name, reflect.TypeFor[A](), reflect.TypeFor[*R](), true).invoke =
		func(args, reply unsafe.Pointer, d *Deferred) { fn(get(args), (*R)(reply), d) }
}

// argsValue returns the copy of the args at p as a handler taking an at
// gets them: a pointer to them if at is a pointer type, else them.
func argsValue(at reflect.Type, p unsafe.Pointer) reflect.Value {
	if at.Kind() == reflect.Pointer {
		return reflect.NewAt(at.Elem(), p)
	}
	return reflect.NewAt(at, p).Elem()
}

// argsAt returns a function that gives a handler taking an A the args
// copied to p: a pointer to them if A is a pointer type, else them.
func argsAt[A any]() func(p unsafe.Pointer) A {
	if reflect.TypeFor[A]().Kind() == reflect.Pointer {
		// A is *X, and p points to an X: p itself is the A.
		return func(p unsafe.Pointer) A { return *(*A)(unsafe.Pointer(&p)) }
	}
	return func(p unsafe.Pointer) A { return *(*A)(p) }
}

// typed returns svc's method name, panicking unless it has the given types.
func (svc *Service) typed(name string, at, rt reflect.Type, deferred bool) *method {
	m, ok := svc.methods[name]
	if !ok {
		panic(fmt.Sprintf("labrpc: Handle: %s has no RPC-shaped method %s", svc.name, name))
	}
	if m.argType != at || m.replyType != rt || m.deferred != deferred {
		panic(fmt.Sprintf("labrpc: Handle: %s does not have the type of the function given for it", m.name))
	}
	return m
}

// A Server is a collection of services on a host, reachable once added to a
// network under a server name.
type Server struct {
	host     *sim.Host
	services map[string]*Service
	methods  map[string]*method // by "Service.Method"
	count    int
	order    int              // registration order on its network
	waiting  map[uint64]*call // deferred calls not yet answered, by call ID
}

// MakeServer returns a server without services that runs on host (nil for
// a server outside every host, which never dies).
func MakeServer(host *sim.Host) *Server {
	return &Server{host: host, services: make(map[string]*Service), methods: make(map[string]*method), waiting: make(map[uint64]*call)}
}

// AddService adds a service to the server, replacing any service of the
// same name.
func (rs *Server) AddService(svc *Service) {
	if old := rs.services[svc.name]; old != nil {
		for _, m := range old.methods {
			delete(rs.methods, m.name)
		}
	}
	rs.services[svc.name] = svc
	for _, m := range svc.methods {
		rs.methods[m.name] = m
	}
}

// GetCount returns the number of requests delivered to the server.
func (rs *Server) GetCount() int { return rs.count }

// lookup finds the method for "Service.Method", panicking with a message that
// names it and the methods the server does have if there is none.
func (rs *Server) lookup(svcMeth string) *method {
	if m, ok := rs.methods[svcMeth]; ok {
		return m
	}
	known := make([]string, 0, len(rs.methods))
	for name := range rs.methods {
		known = append(known, name)
	}
	slices.Sort(known)
	panic(fmt.Sprintf("labrpc: unknown method %q; this server has %s", svcMeth, strings.Join(known, ", ")))
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
