package rafttest

import (
	"time"

	"github.com/replab/replab/raft/raftapi"
	"github.com/replab/replab/sim"
)

// The pace of Commit, as the lab's One: how long it waits for a command
// it gave to be applied before it gives it again, and how long it waits
// while no server leads.
const (
	commitWait = 2 * time.Second
	leaderWait = 50 * time.Millisecond
)

// Commit gets cmd committed by want servers as the lab's One does: it
// offers cmd to each server in turn, from the one after *next, that node
// returns (nil: down or cut off) and that thinks it leads, and waits up to
// commitWait for want servers to apply cmd at the index the leader gave
// it; it tries again (every leaderWait while no server leads) until it
// succeeds or the clock passes deadline, then calls done with the
// outcome.
func Commit(w *sim.World, logs *Logs, node func(i int) raftapi.Raft, cmd any, want int, deadline time.Duration, done func(ok bool)) {
	n, next := logs.Nodes(), 0
	var try func()
	try = func() {
		if w.Now() >= deadline {
			done(false)
			return
		}
		index := -1
		for range n {
			next = (next + 1) % n
			if rf := node(next); rf != nil {
				if i, _, ok := rf.Start(cmd); ok {
					index = i
					break
				}
			}
		}
		if index == -1 {
			w.After(leaderWait, try)
			return
		}
		started := w.Now()
		var poll func()
		poll = func() {
			count, got, _ := logs.Committed(index)
			switch {
			case count >= want && got == cmd:
				done(true)
			case w.Now()-started >= commitWait:
				try()
			default:
				w.After(20*time.Millisecond, poll)
			}
		}
		poll()
	}
	w.After(0, try)
}
