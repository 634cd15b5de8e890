package runview

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/sim"
)

// small is the synthetic run the tests draw: 3 hosts, a second of virtual
// time.
func small() *runfile.File {
	return synth(synthRun{hosts: 3, length: time.Second, heartbeat: 50 * time.Millisecond, clients: 2})
}

// embedded returns the run a page embeds, decoded.
func embedded(t *testing.T, html string) map[string]any {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="run">(.*?)</script>`).FindStringSubmatch(html)
	require.NotNil(t, m, "the page embeds the run")
	var run map[string]any
	require.NoError(t, json.Unmarshal([]byte(m[1]), &run), "the embedded run is JSON")
	return run
}

func TestWriteSyntheticRun(t *testing.T) {
	f := small()
	var b bytes.Buffer
	require.NoError(t, Write(&b, f))
	html := b.String()
	assert.Contains(t, html, "<title>synthetic seed 1: linearizability</title>")
	assert.NotContains(t, html, "http://", "the page loads nothing")
	assert.NotContains(t, html, "https://", "the page loads nothing")
	run := embedded(t, html)
	assert.Len(t, run["t"], len(f.Events), "an event a time")
	assert.EqualValues(t, f.Verdict.At, run["verdict"].(map[string]any)["at"])
	assert.Equal(t, []any{"s0", "s1", "s2"}, run["hosts"])
}

func TestMessagesPairTheEndsOfEachCall(t *testing.T) {
	ev := func(k sim.Kind, h, p int, id uint64) runfile.Event {
		return runfile.Event{Kind: k, Host: h, Peer: p, ID: id, What: "M"}
	}
	events := []runfile.Event{
		ev(sim.KindSend, 0, 1, 1),    // 0
		ev(sim.KindSend, 0, 2, 2),    // 1
		ev(sim.KindDeliver, 1, 0, 1), // 2
		ev(sim.KindDup, 1, 0, 1),     // 3
		ev(sim.KindLost, 0, 2, 2),    // 4: call 2's request lost
		ev(sim.KindReply, 1, 0, 1),   // 5
		ev(sim.KindDone, 0, 1, 1),    // 6
		ev(sim.KindSend, 1, 2, 3),    // 7
		ev(sim.KindDeliver, 2, 1, 3), // 8
		ev(sim.KindReply, 2, 1, 3),   // 9
		ev(sim.KindLost, 2, 1, 3),    // 10: call 3's reply lost
		ev(sim.KindDone, 1, 2, 3),    // 11: a timeout, no arrow
	}
	assert.Equal(t, []msg{
		{From: 0, To: 2}, {From: 0, To: 3, Flags: msgDup}, {From: 1, To: 4, Flags: msgLost},
		{From: 5, To: 6, Flags: msgReply}, {From: 7, To: 8}, {From: 9, To: 10, Flags: msgReply | msgLost},
	}, messages(events))
}

func TestFaultsLastUntilTheirHeal(t *testing.T) {
	f := small()
	p, err := build(f)
	require.NoError(t, err)
	require.Len(t, p.Faults, 5)
	unreliable, partition, kill, restart, heal := p.Faults[0], p.Faults[1], p.Faults[2], p.Faults[3], p.Faults[4]
	assert.Equal(t, end(f), unreliable.End, "never switched off: until the end")
	assert.Equal(t, []int{}, unreliable.Hosts, "the network as a whole, [] and not null")
	assert.Equal(t, heal.At, partition.End, "the heal ends the partition")
	assert.Equal(t, restart.At, kill.End, "the restart ends the kill")
	assert.Equal(t, restart.At, restart.End, "a heal lasts no time")
	for i, x := range p.Faults {
		require.GreaterOrEqual(t, x.Event, 0, "fault %d's event is found", i)
		assert.Equal(t, sim.KindFault, f.Events[x.Event].Kind)
		assert.Equal(t, x.Text, f.Events[x.Event].What)
	}
	assert.Len(t, p.Down[2], 2, "s2 went down and came back")
	assert.Equal(t, sim.KindKill, f.Events[p.Down[2][0]].Kind)
	assert.Equal(t, sim.KindRestart, f.Events[p.Down[2][1]].Kind)
	assert.Empty(t, p.Down[0])
}

func TestFaultsEndAsTheirHealsSay(t *testing.T) {
	f := &runfile.File{Version: runfile.Version, Scenario: "s", Hosts: []string{"a", "b", "c"}, Verdict: runfile.Verdict{At: -1}, Faults: []runfile.Fault{
		{At: 1, Text: "kill b", Hosts: []int{1}},                      // 0
		{At: 2, Text: "isolate a", Hosts: []int{0}},                   // 1
		{At: 2, Text: "unreliable on"},                                // 2
		{At: 3, Text: "heal", Heal: true},                             // 3
		{At: 4, Text: "restart b", Hosts: []int{1}, Heal: true},       // 4
		{At: 5, Text: "partition {a} | {b c}", Hosts: []int{0, 1, 2}}, // 5
		{At: 6, Text: "isolate c", Hosts: []int{2}},                   // 6
		{At: 7, Text: "rejoin a", Hosts: []int{0}, Heal: true},        // 7: a was not isolated
		{At: 7, Text: "partition {a b} | {c}", Hosts: []int{0, 1, 2}}, // 8
		{At: 8, Text: "unreliable off", Heal: true},                   // 9
		{At: 9, Text: "delay rule: slow", Hosts: nil},                 // 10
		{At: 10, Text: "delay rule: slower", Hosts: nil},              // 11
		{At: 11, Text: "kill c", Hosts: []int{2}},                     // 12
		{At: 12, Text: "heal", Heal: true},                            // 13
		{At: 12, Text: "uncut a → b", Hosts: []int{0, 1}, Heal: true}, // 14
		{At: 13, Text: "duplicate 5% of requests"},                    // 15
		{At: 14, Text: "duplication off", Heal: true},                 // 16
	}, Summary: runfile.Summary{Now: 20, Hash: "0000000000000000"}}
	p, err := build(f)
	require.NoError(t, err)
	ends := make([]int64, len(p.Faults))
	for i, x := range p.Faults {
		ends[i] = x.End
	}
	assert.Equal(t, []int64{
		4,  // kill b: until its restart, not the heal
		3,  // isolate a: the heal
		8,  // unreliable on: until off
		3,  // a heal lasts no time
		4,  // so does a restart
		7,  // a partition: replaced by the next
		7,  // isolate c: replaced by the partition
		7,  // rejoin
		12, // the second partition: the heal
		8,  // unreliable off
		10, // a delay rule: replaced by the next
		20, // the next: never switched off
		20, // kill c: never restarted
		12, 12, 14, 14,
	}, ends)
	assert.Equal(t, -1, p.Faults[0].Event, "no events show it")
}

func TestShadedAreThoseCutOff(t *testing.T) {
	names := []string{"kv0", "kv1", "kv2", "kv3", "kv4", "clerk0"}
	for _, tc := range []struct {
		x    runfile.Fault
		want []int
	}{
		{runfile.Fault{Text: "partition {1 2 3 4} | {0}", Hosts: []int{0, 1, 2, 3, 4}}, []int{0}},
		{runfile.Fault{Text: "partition {0 1} | {2} | {3 4}", Hosts: []int{0, 1, 2, 3, 4}}, []int{2}},
		{runfile.Fault{Text: "partition {0 1} | {3 4}, bridged by server 2", Hosts: []int{0, 1, 2, 3, 4}}, []int{0, 1, 3, 4}},
		{runfile.Fault{Text: "partition {kv0 kv1 kv2} | {kv3 kv4}", Hosts: []int{0, 1, 2, 3, 4}}, []int{3, 4}},
		{runfile.Fault{Text: "partition {7} | {0}", Hosts: []int{0, 1}}, []int{0, 1}}, // not understood: all it strikes
		{runfile.Fault{Text: "isolate kv2", Hosts: []int{2}}, []int{2}},
		{runfile.Fault{Text: "kill kv2", Hosts: []int{2}}, []int{}},
		{runfile.Fault{Text: "heal", Heal: true}, []int{}},
		{runfile.Fault{Text: "unreliable on"}, []int{}},
	} {
		assert.Equal(t, tc.want, shaded(tc.x, names), tc.x.Text)
	}
}

func TestOpsMatchTheirEvents(t *testing.T) {
	f := small()
	p, err := build(f)
	require.NoError(t, err)
	require.NotEmpty(t, p.Ops)
	for i, o := range p.Ops {
		require.GreaterOrEqual(t, o.Invoke, 0, "op %d's invocation is found", i)
		require.GreaterOrEqual(t, o.Ret, 0, "op %d's return is found", i)
		assert.Equal(t, sim.KindInvoke, f.Events[o.Invoke].Kind)
		assert.Equal(t, o.Call, f.Events[o.Invoke].At)
		assert.Equal(t, o.Return, f.Events[o.Ret].At)
		assert.EqualValues(t, o.Client, f.Events[o.Ret].ID)
	}
	assert.Equal(t, f.Verdict.At, p.Ops[f.Verdict.Ops[0]].Ret, "the verdict is at the violating operation's return")
}

func TestStatesByHost(t *testing.T) {
	f := small()
	p, err := build(f)
	require.NoError(t, err)
	total := 0
	for h, states := range p.States {
		for _, s := range states {
			total++
			require.Less(t, s.Event, len(f.Events))
			if s.Fields == nil {
				assert.Equal(t, sim.KindKill, f.Events[s.Event].Kind, "host %d shows nothing only when killed", h)
			}
		}
	}
	assert.Equal(t, len(f.States), total, "every state is kept")
	assert.Equal(t, []string{"raft.role", "raft.term", "raft.votedFor", "raft.commit", "raft.log"}, p.FieldNames)
	b, err := json.Marshal(p.States[0][0])
	require.NoError(t, err)
	assert.Regexp(t, `^\[\d+,\[0,"candidate",1,"1",`, string(b), "a state is [event, [name, value, ...]]")
}

// TestStatesAsChanges checks that a host's state is embedded as the
// values that changed since its state before, whole after it was down or
// when its fields are others.
func TestStatesAsChanges(t *testing.T) {
	fl := func(kv ...string) []sim.Field {
		var out []sim.Field
		for i := 0; i < len(kv); i += 2 {
			out = append(out, sim.Field{Name: kv[i], Value: kv[i+1]})
		}
		return out
	}
	f := &runfile.File{Version: runfile.Version, Scenario: "s", Hosts: []string{"a"}, Verdict: runfile.Verdict{At: -1},
		Summary: runfile.Summary{Now: 4, Hash: "0000000000000000"}}
	for i := 0; i < 5; i++ {
		f.Events = append(f.Events, runfile.Event{At: int64(i), Kind: sim.KindTimer, Host: 0, Peer: -1})
	}
	f.States = []runfile.State{
		{Event: 0, Host: 0, Fields: fl("role", "follower", "term", "1")},
		{Event: 1, Host: 0, Fields: fl("role", "leader", "term", "1")},
		{Event: 2, Host: 0},
		{Event: 3, Host: 0, Fields: fl("role", "follower", "term", "1")},
		{Event: 4, Host: 0, Fields: fl("role", "follower", "term", "2", "x", "y")},
	}
	p, err := build(f)
	require.NoError(t, err)
	b, err := json.Marshal(p.States[0])
	require.NoError(t, err)
	assert.Equal(t, `[[0,[0,"follower",1,"1"],1],[1,[0,"leader"]],[2,null],[3,[0,"follower",1,"1"],1],[4,[0,"follower",1,"2",2,"y"],1]]`, string(b))
	assert.Equal(t, []int64{0, 1, 1, 1, 1}, p.T, "the times since the event before")
}

// TestWriteEscapesTheRun checks that no text of the run can end the
// element that embeds it, nor open another.
func TestWriteEscapesTheRun(t *testing.T) {
	nasty := `</script><script>alert("x")</script><!-- ]]> & ` + "\u2028"
	f := &runfile.File{
		Version: runfile.Version, Summary: runfile.Summary{Hash: "0000000000000000"},
		Scenario: nasty, Hosts: []string{nasty}, Verdict: runfile.Verdict{Problem: nasty, Kind: nasty, At: 0},
		Events: []runfile.Event{{Kind: sim.KindTimer, Host: 0, Peer: -1, What: nasty}},
		States: []runfile.State{{Event: 0, Host: 0, Fields: []sim.Field{{Name: nasty, Value: nasty}}}},
		Ops:    []runfile.Op{{Input: nasty, Output: nasty, Return: -1}},
	}
	var b bytes.Buffer
	require.NoError(t, Write(&b, f))
	html := b.String()
	assert.Equal(t, 2, strings.Count(html, "<script"), "the run's text opens no script")
	assert.Equal(t, 2, strings.Count(html, "</script"), "the run's text ends no script")
	run := embedded(t, html)
	assert.Equal(t, nasty+" seed 0", run["name"], "the text comes back whole")
	assert.Equal(t, []any{nasty}, run["whats"])
}

// TestWriteRefusesARunThatDoesNotFit checks that a page is drawn only of
// a run whose parts fit together, as runfile checks them.
func TestWriteRefusesARunThatDoesNotFit(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(f *runfile.File)
		want string
	}{
		{"event host", func(f *runfile.File) { f.Events[5].Host = 7 }, "events[5].h: host 7 out of range (3 hosts)"},
		{"state event", func(f *runfile.File) { f.States[len(f.States)-1].Event = 1 << 20 }, "event 1048576 past the"},
		{"verdict op", func(f *runfile.File) { f.Verdict.Ops = []int{len(f.Ops)} }, "verdict.ops[0]: no op"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := small()
			tc.edit(f)
			err := Write(&bytes.Buffer{}, f)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestWriteAnEmptyRun(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Write(&b, &runfile.File{Version: runfile.Version, Scenario: "nothing", Verdict: runfile.Verdict{At: -1},
		Summary: runfile.Summary{Hash: "0000000000000000"}}))
	run := embedded(t, b.String())
	assert.Equal(t, []any{}, run["t"], "no events, an empty column, not null")
	assert.Contains(t, b.String(), "<title>nothing seed 0: passed</title>")
}
