package runfile

import (
	"bytes"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/replab/replab/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sample returns a small run file that passes Check.
func sample() *File {
	return &File{
		Version:  Version,
		Scenario: "kv",
		Plant:    "a bug",
		Seed:     7,
		Drawn:    []Param{{"servers", "3"}},
		Hosts:    []string{"s0", "s1", "s2"},
		Faults:   []Fault{{At: 10, Text: "kill s1", Hosts: []int{1}}, {At: 20, Text: "heal", Heal: true}},
		Events: []Event{
			{At: 1, Kind: sim.KindSend, Host: 0, Peer: 1, ID: 1, Size: 40, What: "Raft.RequestVote"},
			{At: 2, Kind: sim.KindDeliver, Host: 1, Peer: 0, ID: 1, Size: 40, What: "Raft.RequestVote"},
			{At: 10, Kind: sim.KindKill, Host: 1, Peer: -1},
		},
		States:  []State{{Event: 1, Host: 1, Fields: []sim.Field{{Name: "raft.term", Value: "2"}}}, {Event: 2, Host: 1}},
		Ops:     []Op{{Client: 0, Call: 1, Return: 9, Input: "put x=1", Key: "x"}, {Client: 1, Call: 2, Return: -1, Input: "get x"}},
		Verdict: Verdict{Problem: "not linearizable", Kind: "linearizability", Ops: []int{1, 0}, At: 2},
		Summary: Summary{Now: 30, Events: 5, Hash: "0123456789abcdef"},
	}
}

func write(t *testing.T, f *File) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, Write(&b, f))
	return b.String()
}

func TestWriteThenReadGivesTheFileBack(t *testing.T) {
	f := sample()
	text := write(t, f)
	assert.Contains(t, text, "\n  {\"t\":2,\"k\":\"deliver\",\"h\":1,\"p\":0,\"id\":1,\"n\":40,\"w\":\"Raft.RequestVote\"},\n", "an event a line")
	got, err := Read(strings.NewReader(text))
	require.NoError(t, err)
	assert.Equal(t, f, got)

	path := filepath.Join(t.TempDir(), "kv-seed7.run.json")
	require.NoError(t, Save(path, f))
	got, err = Load(path)
	require.NoError(t, err)
	assert.Equal(t, f, got)
	_, err = Load(filepath.Join(t.TempDir(), "none.run.json"))
	assert.ErrorContains(t, err, "none.run.json")
}

func TestReadRefusesBadFilesNamingTheField(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(f *File)
		wants string
	}{
		{"another version", func(f *File) { f.Version = 2 }, "run file version 2; this labsim reads version 1"},
		{"no scenario", func(f *File) { f.Scenario = "" }, "scenario: empty"},
		{"event's host", func(f *File) { f.Events[1].Host = 9 }, "events[1].h: host 9 out of range (3 hosts)"},
		{"event's peer", func(f *File) { f.Events[0].Peer = -2 }, "events[0].p: host -2 out of range (3 hosts)"},
		{"events out of order", func(f *File) { f.Events[2].At = 1 }, "events[2].t: 1 before the event before it (2)"},
		{"unknown kind", func(f *File) { f.Events[0].Kind = "sned" }, `events[0].k: unknown kind "sned"`},
		{"negative size", func(f *File) { f.Events[0].Size = -1 }, "events[0].n: negative size -1"},
		{"state past the events", func(f *File) { f.States[1].Event = 3 }, "states[1].e: event 3 past the 3 events"},
		{"states out of order", func(f *File) { f.States[0].Event = 2; f.States[1].Event = 1 }, "states[1].e: event 1 before the state before it (event 2)"},
		{"state's host", func(f *File) { f.States[0].Host = -1 }, "states[0].h: host -1 out of range (3 hosts)"},
		{"fault's host", func(f *File) { f.Faults[0].Hosts = []int{3} }, "faults[0].hosts[0]: host 3 out of range (3 hosts)"},
		{"faults out of order", func(f *File) { f.Faults[1].At = 5 }, "faults[1].at: 5 before the fault before it (10)"},
		{"op's return", func(f *File) { f.Ops[0].Return = 0 }, "ops[0].return: 0 before its call at 1"},
		{"op's client", func(f *File) { f.Ops[1].Client = -1 }, "ops[1].client: negative client -1"},
		{"verdict's op", func(f *File) { f.Verdict.Ops[0] = 31 }, "verdict.ops[0]: no op 31 (2 ops)"},
		{"verdict's op, one past", func(f *File) { f.Verdict.Ops[1] = 2 }, "verdict.ops[1]: no op 2 (2 ops)"},
		{"verdict's op, negative", func(f *File) { f.Verdict.Ops[1] = -1 }, "verdict.ops[1]: no op -1 (2 ops)"},
		{"verdict's event", func(f *File) { f.Verdict.At = 3 }, "verdict.at: event 3 past the 3 events"},
		{"verdict's kind", func(f *File) { f.Verdict.Kind = "" }, `verdict: problem "not linearizable" with kind "": both or neither`},
		{"summary's time", func(f *File) { f.Summary.Now = 9 }, "summary.now: 9 before the last event (10)"},
		{"summary's hash", func(f *File) { f.Summary.Hash = "12" }, `summary.hash: "12" is not 16 hex digits`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := sample()
			tc.edit(f)
			var b bytes.Buffer
			require.ErrorContains(t, Write(&b, f), tc.wants, "Write checks too")
			// Edited by hand: the text of a good file, changed.
			text := write(t, sample())
			good, err := Read(strings.NewReader(text))
			require.NoError(t, err)
			tc.edit(good)
			bad := writeUnchecked(t, good)
			_, err = Read(strings.NewReader(bad))
			assert.ErrorContains(t, err, tc.wants)
		})
	}
}

// TestCheckTakesTheEdges checks what Check must let through at its
// bounds: faults, events and states at one instant, the first op and the
// last event named by the verdict, a summary ending at the last event.
func TestCheckTakesTheEdges(t *testing.T) {
	f := sample()
	f.Faults[1].At = f.Faults[0].At
	f.Events[1].At = f.Events[0].At
	f.States[1].Event = f.States[0].Event
	f.Verdict.Ops, f.Verdict.At = []int{0, 1}, len(f.Events)-1
	f.Summary.Now = f.Events[len(f.Events)-1].At
	got, err := Read(strings.NewReader(write(t, f)))
	require.NoError(t, err)
	assert.Equal(t, f, got)
	f.Verdict = Verdict{At: -1}
	_, err = Read(strings.NewReader(write(t, f)))
	assert.NoError(t, err, "a run that passed shows no event")
}

// writeUnchecked writes f as JSON without checking it, as a hand editing
// a file would.
func writeUnchecked(t *testing.T, f *File) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, encode(&b, f))
	return b.String()
}

func TestReadRefusesTruncatedAndForeignFiles(t *testing.T) {
	text := write(t, sample())
	_, err := Read(strings.NewReader(text[:len(text)/2]))
	assert.ErrorContains(t, err, "run file: truncated after")
	_, err = Read(strings.NewReader(""))
	assert.ErrorContains(t, err, "run file: truncated after 0 bytes")
	_, err = Read(strings.NewReader(`{"scenario": "kv"}`))
	assert.ErrorContains(t, err, "run file: no version: not a run file")
	_, err = Read(strings.NewReader(strings.Replace(text, `"seed"`, `"sead"`, 1)))
	assert.ErrorContains(t, err, `unknown field "sead"`)
	_, err = Read(strings.NewReader(strings.Replace(text, `"seed": 7`, `"seed": "7"`, 1)))
	assert.EqualError(t, err, "run file: seed: a JSON string where int64 belongs")
	_, err = Read(strings.NewReader(`"a run"`))
	assert.EqualError(t, err, "run file: a JSON string where a run's object belongs")
	_, err = Read(strings.NewReader(text + "{}"))
	assert.ErrorContains(t, err, "more after the run's object")
	_, err = Read(strings.NewReader("<html>"))
	assert.ErrorContains(t, err, "run file: not JSON at byte 1")
}

type counter struct{ n int }

func (c *counter) Inspect() []sim.Field { return []sim.Field{{Name: "n", Value: strconv.Itoa(c.n)}} }

func TestRecorderKeepsEventsAndTheStatesTheyChanged(t *testing.T) {
	w := sim.NewWorld(1)
	rec := NewRecorder(w)
	w.SetRecorder(rec)
	a, b := w.NewHost("a"), w.NewHost("b")
	c := &counter{}
	a.Inspect("c", c)
	b.Inspect("c", &counter{n: 5})
	ta := a.NewTimer(func() { c.n++ })
	ta.Reset(time.Second)
	w.Run(time.Second)
	a.NewTimer(func() {}).Reset(time.Second) // changes nothing
	w.Run(time.Second)
	w.Record(sim.Event{Kind: sim.KindSend, Host: b.ID(), Peer: a.ID(), ID: 1, Size: 10, What: "m"})
	a.Kill()
	w.NewTimer(func() {}).Reset(time.Second) // on no host
	w.Run(time.Second)
	assert.Equal(t, 5, rec.Len())

	f := rec.File()
	assert.Equal(t, []string{"a", "b"}, f.Hosts)
	assert.Equal(t, []Event{
		{At: int64(time.Second), Kind: sim.KindTimer, Host: 0, Peer: -1},
		{At: int64(2 * time.Second), Kind: sim.KindTimer, Host: 0, Peer: -1},
		{At: int64(2 * time.Second), Kind: sim.KindSend, Host: 1, Peer: 0, ID: 1, Size: 10, What: "m"},
		{At: int64(2 * time.Second), Kind: sim.KindKill, Host: 0, Peer: -1},
		{At: int64(3 * time.Second), Kind: sim.KindTimer, Host: -1, Peer: -1},
	}, f.Events)
	assert.Equal(t, []State{
		{Event: 0, Host: 0, Fields: []sim.Field{{Name: "c.n", Value: "1"}}}, // after the timer that counted
		{Event: 2, Host: 1, Fields: []sim.Field{{Name: "c.n", Value: "5"}}}, // b's first showing; a's unchanged
		{Event: 3, Host: 0}, // a died
	}, f.States)
	assert.Equal(t, SummaryOf(w.Summary()), f.Summary)
	assert.Equal(t, Verdict{At: -1}, f.Verdict, "no verdict yet: no event shows one")
	f.Scenario = "toy"
	assert.NoError(t, f.Check())
}

// TestRecorderAsksAHostOnceAnEvent checks that an event whose host is its
// own peer (a call a node makes to itself) stores one state, and that an
// event on no host stores none.
func TestRecorderAsksAHostOnceAnEvent(t *testing.T) {
	w := sim.NewWorld(1)
	rec := NewRecorder(w)
	w.SetRecorder(rec)
	a := w.NewHost("a")
	c := &counter{}
	a.Inspect("c", c)
	w.Record(sim.Event{Kind: sim.KindSend, Host: a.ID(), Peer: a.ID(), ID: 1, What: "self"})
	c.n = 1
	w.Record(sim.Event{Kind: sim.KindFault, Host: -1, Peer: -1, What: "heal"})
	c.n = 2
	assert.Equal(t, []State{{Event: 0, Host: 0, Fields: []sim.Field{{Name: "c.n", Value: "1"}}}}, rec.File().States,
		"a's state once, after the send; nothing after the fault on no host")
}

func TestDivergeAndFormat(t *testing.T) {
	a := sample().Events
	assert.Equal(t, -1, Diverge(a, a))
	b := slices.Clone(a)
	b[1].Peer = 2
	assert.Equal(t, 1, Diverge(a, b))
	assert.Equal(t, 2, Diverge(a, a[:2]), "one the start of the other")
	hosts := sample().Hosts
	assert.Equal(t, "deliver s1→s0 call 1 Raft.RequestVote 40 B", a[1].Format(hosts))
	assert.Equal(t, "deliver s1→host 5 call 1 Raft.RequestVote 40 B", Event{Kind: sim.KindDeliver, Host: 1, Peer: 5, ID: 1, Size: 40, What: "Raft.RequestVote"}.Format(hosts))
	assert.Equal(t, "kill s1", a[2].Format(hosts))
	assert.Equal(t, "return s2 client 3 ok", Event{Kind: sim.KindReturn, Host: 2, Peer: -1, ID: 3, What: "ok"}.Format(hosts))
	assert.Equal(t, "timer", Event{Kind: sim.KindTimer, Host: -1, Peer: -1}.Format(hosts))
}

func TestStatesAreWrittenAsTheirChanges(t *testing.T) {
	f := sample()
	field := func(nv ...string) []sim.Field {
		var fs []sim.Field
		for i := 0; i < len(nv); i += 2 {
			fs = append(fs, sim.Field{Name: nv[i], Value: nv[i+1]})
		}
		return fs
	}
	f.States = []State{
		{Event: 0, Host: 1, Fields: field("raft.role", "follower", "raft.term", "1")},
		{Event: 1, Host: 1, Fields: field("raft.role", "candidate", "raft.term", "2")},
		{Event: 1, Host: 0, Fields: field("raft.role", "leader")},
		{Event: 2, Host: 1, Fields: field("raft.role", "candidate", "raft.term", "3")},
		{Event: 2, Host: 0, Fields: field("raft.role", "leader", "kv.keys", "1")}, // another field: whole
		{Event: 2, Host: 0},
		{Event: 2, Host: 0, Fields: field("raft.role", "follower")}, // back up: whole
	}
	text := write(t, f)
	for _, line := range []string{
		`{"e":0,"h":1,"f":[["raft.role","follower"],["raft.term","1"]]}`,
		`{"e":1,"h":1,"d":[["raft.role","candidate"],["raft.term","2"]]}`,
		`{"e":2,"h":1,"d":[["raft.term","3"]]}`,
		`{"e":2,"h":0,"f":[["raft.role","leader"],["kv.keys","1"]]}`,
		`{"e":2,"h":0}`,
		`{"e":2,"h":0,"f":[["raft.role","follower"]]}`,
	} {
		assert.Contains(t, text, "\n  "+line, "written so")
	}
	got, err := Read(strings.NewReader(text))
	require.NoError(t, err)
	assert.Equal(t, f, got, "read back whole")

	for _, tc := range []struct{ from, to, wants string }{
		{`{"e":0,"h":1,"f":[["raft.role","follower"],["raft.term","1"]]}`, `{"e":0,"h":1,"d":[["raft.role","follower"]]}`, "states[0].d: host 1 showed nothing before to change"},
		{`{"e":2,"h":1,"d":[["raft.term","3"]]}`, `{"e":2,"h":1,"d":[["raft.trem","3"]]}`, `states[3].d[0]: host 1 showed no field "raft.trem" before`},
		{`{"e":2,"h":1,"d":[["raft.term","3"]]}`, `{"e":2,"h":1,"d":[["raft.term"]]}`, `state of host 1 after event 2: field 0 is ["raft.term"], not [name, value]`},
		{`{"e":2,"h":0}`, `{"e":2,"h":0,"f":[],"d":[]}`, "state of host 0 after event 2 has both f (whole) and d (changes)"},
		{`{"e":2,"h":0}`, `{"e":2,"h":0,"x":1}`, `unknown field "x"`},
	} {
		require.Contains(t, text, tc.from)
		_, err := Read(strings.NewReader(strings.Replace(text, tc.from, tc.to, 1)))
		assert.ErrorContains(t, err, tc.wants)
	}
}
