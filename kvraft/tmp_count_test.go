package kvraft

import (
	"fmt"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft"
)

type tmpT struct{}

func (tmpT) Helper()                   {}
func (tmpT) Logf(string, ...any)       {}
func (tmpT) FailNow()                  { panic("x") }
func (tmpT) Errorf(f string, a ...any) { panic(fmt.Sprintf(f, a...)) }
func (tmpT) Fatalf(f string, a ...any) { panic(fmt.Sprintf(f, a...)) }

func TestTmpCount(t *testing.T) {
	b, _ := raft.PlantedBugNamed("pre-election outlives hearing the leader (breaks leases)")
	for _, planted := range []bool{true, false} {
		caught := 0
		for s := int64(1); s <= 10; s++ {
			opts := DefaultOptions()
			opts.Reads = ReadLease
			if planted {
				b.Plant(&opts.Raft)
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Logf("seed %d: %v", s, r)
						caught++
					}
				}()
				cfg := makeConfig(tmpT{}, s, 5, false, -1, opts)
				cfg.net.SetDelayRule(func(m labrpc.Message) time.Duration {
					if a, ok := m.Args.(*raft.RequestVoteArgs); ok && m.IsReply && a.PreVote {
						return 150 * time.Millisecond
					}
					return 0
				})
				_ = cfg
				stop := false
				for i := range 5 {
					cfg.startClient(i, 5, true, &stop)
				}
				cfg.startPartitioner(&stop)
				cfg.sleep(15 * time.Second)
				stop = true
				cfg.ConnectAll()
				cfg.sleep(2 * time.Second)
				if r := cfg.linearizability(); r.Result != porcupine.Ok {
					panic(r.Result)
				}
			}()
		}
		t.Logf("planted %v: caught %d/10", planted, caught)
	}
}
