package runview

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/sim"
)

// A synthRun describes a synthetic run: Raft-like hosts that elect s0,
// send heartbeats, serve clients' puts and gets; then the leader is cut
// off (a partition), s1 is elected in a higher term, a client reads the
// old value from the deposed leader (the violation, the put it missed its
// witness), s2 is killed and restarted, and the partition heals.
type synthRun struct {
	hosts     int
	length    time.Duration
	heartbeat time.Duration // between the leader's rounds of AppendEntries
	clients   int
}

// A protoEvent is an event before the events are put in order, with the
// state it leaves its host in (nil state: unchanged; down: killed).
type protoEvent struct {
	ev    runfile.Event
	set   map[string]string
	down  bool
	op    int // the operation it begins or ends, -1 if none
	isRet bool
}

// synthBuilder builds a synthRun's run file.
type synthBuilder struct {
	s      synthRun
	evs    []protoEvent
	ops    []runfile.Op
	faults []runfile.Fault
	call   uint64
	// leader is the host believed leader at each stretch of the run.
	violating, witness int
}

func (b *synthBuilder) add(at time.Duration, k sim.Kind, host, peer int, id uint64, size int, what string) *protoEvent {
	b.evs = append(b.evs, protoEvent{ev: runfile.Event{At: int64(at), Kind: k, Host: host, Peer: peer, ID: id, Size: size, What: what}, op: -1})
	return &b.evs[len(b.evs)-1]
}

// rpc adds one call from a to b at t: its send, delivery, reply and return,
// or its send and loss. It returns when the caller has the reply.
func (b *synthBuilder) rpc(t time.Duration, a, to int, method string, size int, lost bool, dup bool) time.Duration {
	b.call++
	id := b.call
	lat := 900*time.Microsecond + time.Duration(id%7)*150*time.Microsecond
	b.add(t, sim.KindSend, a, to, id, size, method)
	if lost {
		b.add(t+lat/2, sim.KindLost, a, to, id, size, method)
		return t + lat
	}
	b.add(t+lat, sim.KindDeliver, to, a, id, size, method)
	if dup {
		b.add(t+lat+lat/3, sim.KindDup, to, a, id, size, method)
	}
	b.add(t+lat+50*time.Microsecond, sim.KindReply, to, a, id, 40, method)
	b.add(t+2*lat, sim.KindDone, a, to, id, 40, method)
	return t + 2*lat
}

// raft sets host h's Raft-like fields after the last event added.
func (b *synthBuilder) raft(h int, role string, term, commit, log int, voted string) {
	e := &b.evs[len(b.evs)-1]
	if e.ev.Host != h {
		e = b.add(time.Duration(e.ev.At), sim.KindTimer, h, -1, 0, 0, "raft.tick")
	}
	e.set = map[string]string{
		"raft.role": role, "raft.term": strconv.Itoa(term), "raft.votedFor": voted,
		"raft.commit": strconv.Itoa(commit), "raft.log": strconv.Itoa(log),
	}
}

// op adds a client's operation from call to ret and its invoke and return
// events; it returns the operation's index.
func (b *synthBuilder) op(client int, call, ret time.Duration, input, output string) int {
	i := len(b.ops)
	b.ops = append(b.ops, runfile.Op{Client: client, Call: int64(call), Return: int64(ret), Input: input, Output: output, Key: "x"})
	e := b.add(call, sim.KindInvoke, -1, -1, uint64(client), 0, input)
	e.op = i
	e = b.add(ret, sim.KindReturn, -1, -1, uint64(client), 0, output)
	e.op, e.isRet = i, true
	return i
}

func (b *synthBuilder) fault(at time.Duration, text string, heal bool, hosts ...int) {
	b.faults = append(b.faults, runfile.Fault{At: int64(at), Text: text, Hosts: hosts, Heal: heal})
	b.add(at, sim.KindFault, -1, -1, 0, 0, text)
}

// synth builds the run.
func synth(s synthRun) *runfile.File {
	b := &synthBuilder{s: s}
	n := s.hosts
	names := make([]string, n)
	for h := range names {
		names[h] = fmt.Sprintf("s%d", h)
	}
	// the election of s0 in term 1
	t := 10 * time.Millisecond
	b.add(t, sim.KindTimer, 0, -1, 0, 0, "raft.election")
	b.raft(0, "candidate", 1, 0, 0, "s0")
	var end time.Duration
	for h := 1; h < n; h++ {
		end = b.rpc(t+time.Duration(h)*10*time.Microsecond, 0, h, "Raft.RequestVote", 60, false, false)
		b.evs[len(b.evs)-3].set = map[string]string{"raft.role": "follower", "raft.term": "1", "raft.votedFor": "s0", "raft.commit": "0", "raft.log": "0"}
	}
	b.add(end, sim.KindTimer, 0, -1, 0, 0, "raft.won")
	b.raft(0, "leader", 1, 0, 0, "s0")

	partition := s.length * 2 / 5
	electedS1 := partition + 180*time.Millisecond
	kill := s.length * 3 / 5
	restart := kill + s.length/10
	heal := s.length * 4 / 5
	b.fault(5*time.Millisecond, "unreliable on", false)
	b.fault(partition, "partition {s0} | {"+join(names[1:])+"}", false, 0)
	b.fault(kill, "kill s2", false, 2)
	b.fault(restart, "restart s2", true, 2)
	b.fault(heal, "heal", true)

	// heartbeats: s0 leads until it hears of term 2 after the heal; s1
	// leads from its election
	logLen, commit := 0, 0
	msgs := 0
	for t = end + s.heartbeat; t < s.length; t += s.heartbeat {
		leader, term := 0, 1
		if t >= electedS1 {
			leader, term = 1, 2
		}
		if t >= electedS1 && t < heal {
			// the deposed s0 still sends, in vain
			for h := 1; h < n; h++ {
				b.rpc(t+3*time.Microsecond*time.Duration(h), 0, h, "Raft.AppendEntries", 120, true, false)
			}
		}
		acks := 0
		for h := 0; h < n; h++ {
			if h == leader {
				continue
			}
			msgs++
			cut := t >= partition && t < heal && (h == 0 || leader == 0)
			down := h == 2 && t >= kill && t < restart
			if down {
				b.rpc(t+time.Duration(h)*7*time.Microsecond, leader, h, "Raft.AppendEntries", 200, true, false)
				continue
			}
			lost := cut || msgs%23 == 0
			done := b.rpc(t+time.Duration(h)*7*time.Microsecond, leader, h, "Raft.AppendEntries", 200+40*(logLen%5), lost, msgs%97 == 0)
			if !lost {
				acks++
				b.evs[len(b.evs)-3].set = map[string]string{"raft.role": "follower", "raft.term": strconv.Itoa(term), "raft.votedFor": names[leader], "raft.commit": strconv.Itoa(commit), "raft.log": strconv.Itoa(logLen)}
				_ = done
			}
		}
		if acks+1 > n/2 && (leader == 1 || t < partition) {
			logLen++
			commit = logLen
			b.add(t+2*time.Millisecond+500*time.Microsecond, sim.KindTimer, leader, -1, 0, 0, "raft.commit")
			b.raft(leader, "leader", term, commit, logLen, names[leader])
		}
	}
	// s1's election in term 2, after the partition
	b.add(electedS1-20*time.Millisecond, sim.KindTimer, 1, -1, 0, 0, "raft.election")
	b.raft(1, "candidate", 2, commit, logLen, "s1")
	for h := 2; h < n; h++ {
		b.rpc(electedS1-20*time.Millisecond+time.Duration(h)*10*time.Microsecond, 1, h, "Raft.RequestVote", 60, false, false)
	}
	b.add(electedS1, sim.KindTimer, 1, -1, 0, 0, "raft.won")
	b.raft(1, "leader", 2, 0, 0, "s1")
	// the kill and restart of s2
	b.add(kill, sim.KindKill, 2, -1, 0, 0, "")
	b.evs[len(b.evs)-1].down = true
	b.add(restart, sim.KindRestart, 2, -1, 0, 0, "")
	b.raft(2, "follower", 2, 0, 0, "")
	// s0 hears of term 2 after the heal
	b.add(heal+s.heartbeat+3*time.Millisecond, sim.KindTimer, 0, -1, 0, 0, "raft.stepdown")
	b.raft(0, "follower", 2, 0, 0, "s1")

	// the clients: puts and gets of x every 40 ms each; the value put is
	// the operation's number
	value := "0"
	for c := 0; c < s.clients; c++ {
		for t := 30*time.Millisecond + time.Duration(c)*13*time.Millisecond; t < s.length-50*time.Millisecond; t += 40 * time.Millisecond {
			if t > partition-30*time.Millisecond && t < electedS1+30*time.Millisecond {
				continue
			}
			if c%2 == 0 {
				v := strconv.Itoa(len(b.ops))
				b.op(c, t, t+6*time.Millisecond, "put x="+v, "ok")
				value = v
			} else {
				b.op(c, t, t+5*time.Millisecond, "get x", value)
			}
		}
	}
	// the witness: a put through s1 after its election; the violation: a
	// get served by the deposed s0 that misses it
	wt := electedS1 + 40*time.Millisecond
	b.witness = b.op(s.clients, wt, wt+7*time.Millisecond, "put x=new", "ok")
	vt := wt + 30*time.Millisecond
	b.violating = b.op(s.clients+1, vt, vt+4*time.Millisecond, "get x", "old")
	return b.file(names)
}

func join(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += " "
		}
		out += n
	}
	return out
}

// file puts the events in order and writes the run file.
func (b *synthBuilder) file(names []string) *runfile.File {
	slices.SortStableFunc(b.evs, func(x, y protoEvent) int {
		switch {
		case x.ev.At < y.ev.At:
			return -1
		case x.ev.At > y.ev.At:
			return 1
		}
		return 0
	})
	f := &runfile.File{
		Version: runfile.Version, Scenario: "synthetic", Seed: 1, Hosts: names,
		Drawn:  []runfile.Param{{Name: "hosts", Value: strconv.Itoa(len(names))}},
		Faults: b.faults, Events: []runfile.Event{}, States: []runfile.State{},
		Verdict: runfile.Verdict{At: -1},
	}
	state := make([]map[string]string, len(names))
	fieldOrder := []string{"raft.role", "raft.term", "raft.votedFor", "raft.commit", "raft.log"}
	for i, pe := range b.evs {
		f.Events = append(f.Events, pe.ev)
		h := pe.ev.Host
		switch {
		case pe.down:
			state[h] = nil
			f.States = append(f.States, runfile.State{Event: i, Host: h})
		case pe.set != nil:
			if state[h] == nil {
				state[h] = map[string]string{}
			}
			changed := false
			for k, v := range pe.set {
				if k == "raft.commit" || k == "raft.log" {
					if v == "0" && state[h][k] != "" {
						continue // a synthetic shortcut: keep what it had
					}
				}
				changed = changed || state[h][k] != v
				state[h][k] = v
			}
			if changed {
				var fields []sim.Field
				for _, k := range fieldOrder {
					fields = append(fields, sim.Field{Name: k, Value: state[h][k]})
				}
				f.States = append(f.States, runfile.State{Event: i, Host: h, Fields: fields})
			}
		}
		if pe.isRet && pe.op == b.violating {
			f.Verdict.At = i
		}
	}
	// the operations in the order they began
	order := make([]int, len(b.ops))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return int(b.ops[x].Call - b.ops[y].Call) })
	at := make([]int, len(b.ops))
	for i, o := range order {
		f.Ops = append(f.Ops, b.ops[o])
		at[o] = i
	}
	b.violating, b.witness = at[b.violating], at[b.witness]
	f.Verdict.Problem = fmt.Sprintf("get x returned %q, but put x=new had completed before it was called: not linearizable", "old")
	f.Verdict.Kind = "linearizability"
	f.Verdict.Ops = []int{b.violating, b.witness}
	last := f.Events[len(f.Events)-1].At
	f.Summary = runfile.Summary{Now: last, Events: uint64(len(f.Events)), Hash: "00c0ffee00c0ffee"}
	return f
}
