package labrpc

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/replab/replab/sim"
)

type BenchEntry struct {
	Term    int
	Command any
}

type BenchArgs struct {
	Term, LeaderID, PrevLogIndex, PrevLogTerm, LeaderCommit int
	Entries                                                 []BenchEntry
}

type BenchReply struct {
	Term    int
	Success bool
}

type BenchServer struct{}

func (BenchServer) AppendEntries(args *BenchArgs, reply *BenchReply) {
	reply.Term = args.Term
	reply.Success = true
}

// BenchmarkRPC measures delivered RPCs per wall second: 10 clients on their
// own hosts keep one small AppendEntries each (one entry with a string
// command) in flight to one server, with byte counting, over the default
// network (LAN latency with jitter). The handler is registered typed, with
// Handle.
func BenchmarkRPC(b *testing.B) {
	svc := MakeService(BenchServer{})
	Handle(svc, "AppendEntries", BenchServer{}.AppendEntries)
	benchRPC(b, svc)
}

// BenchmarkRPCReflect is BenchmarkRPC with the handler called by
// reflection, as MakeService alone leaves it.
func BenchmarkRPCReflect(b *testing.B) {
	benchRPC(b, MakeService(BenchServer{}))
}

func benchRPC(b *testing.B, svc *Service) {
	w := sim.NewWorld(1)
	net := MakeNetwork(w)
	srv := MakeServer(w.NewHost("s"))
	srv.AddService(svc)
	net.AddServer("s", srv)
	delivered := 0
	for i := range 10 {
		e := net.MakeEnd(i, w.NewHost("c"+strconv.Itoa(i)))
		net.Connect(i, "s")
		net.Enable(i, true)
		args := &BenchArgs{Term: 3, LeaderID: i, PrevLogIndex: 100, PrevLogTerm: 2, LeaderCommit: 99,
			Entries: []BenchEntry{{Term: 3, Command: "put x 1"}}}
		var call func()
		call = func() {
			var reply BenchReply
			e.Call("BenchServer.AppendEntries", args, &reply, func(ok bool) {
				if ok {
					delivered++
				}
				call()
			})
		}
		call()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for delivered < b.N {
		w.Step()
	}
	b.ReportMetric(float64(delivered)/b.Elapsed().Seconds(), "rpcs/s")
	b.ReportMetric(float64(net.GetTotalBytes())/float64(net.GetTotalCount()), "bytes/rpc")
}

// Cons is a list cell; a list of them links cells through interfaces.
type Cons struct{ Head, Tail any }

// consList returns a list of n cells holding n-1, ..., 1 and last.
func consList(n int, last any) any {
	var l any
	for i := range n {
		var h any = i
		if i == 0 {
			h = last
		}
		l = Cons{Head: h, Tail: l}
	}
	return l
}

// BenchmarkCopyNestedInterfaces copies lists of 1000 and 2000 cells linked
// through interfaces, with a slice in the last cell: the cells are sealed,
// but the slice must be copied, so all of them are. The time grows with
// the length of the list, not its square.
func BenchmarkCopyNestedInterfaces(b *testing.B) {
	for _, n := range []int{1000, 2000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			c := newCodec()
			v := reflect.ValueOf(Box{V: consList(n, []byte("cmd"))})
			cp := c.mustCompile(v.Type())
			dst := reflect.New(v.Type()).UnsafePointer()
			b.ReportAllocs()
			for b.Loop() {
				c.copyInto(cp, dst, v, false)
			}
		})
	}
}
