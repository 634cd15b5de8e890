package testbed

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/sim"
)

// TestRecordWritesTheRunDown runs the toy under kills until a seed fails
// linearizability, with and without recording: the trace is the same,
// and the run file names the violating operation, the event it shows at,
// the faults with their hosts, and the store's states.
func TestRecordWritesTheRunDown(t *testing.T) {
	weights := links
	weights.Kill, weights.Restart = 4, 4
	var rec *Record
	var r Run
	for seed := int64(1); seed <= 5; seed++ {
		r = toyRun(t, seed, &toy{}, weights)
		r.Record = true
		var err error
		rec, err = r.Execute()
		require.NoError(t, err)
		if !rec.OK() {
			break
		}
	}
	require.False(t, rec.OK(), "no seed of 5 caught a store that forgets")
	plain, err := toyRun(t, rec.Seed, &toy{}, weights).Execute()
	require.NoError(t, err)
	assert.Equal(t, plain.Summary, rec.Summary, "recording changed the run")
	assert.Nil(t, plain.File, "a run not asked to record has no file")

	f := rec.File
	require.NotNil(t, f)
	require.NoError(t, f.Check())
	assert.Equal(t, "toy", f.Scenario)
	assert.Equal(t, rec.Seed, f.Seed)
	assert.Equal(t, runfile.SummaryOf(rec.Summary), f.Summary)
	v := f.Verdict
	assert.Equal(t, rec.Problem, v.Problem)
	assert.Equal(t, "linearizability", v.Kind)
	assert.Equal(t, ProblemKind(rec.Problem), rec.Kind, "one vocabulary: what shrinking keeps")
	require.NotEmpty(t, v.Ops)
	bad := f.Ops[v.Ops[0]]
	at := f.Events[v.At]
	if bad.Return >= 0 {
		assert.Equal(t, runfile.Event{At: bad.Return, Kind: sim.KindReturn, Host: at.Host, Peer: -1, ID: uint64(bad.Client), What: bad.Output}, at, "the verdict shows at the violating operation's return")
	} else {
		assert.Equal(t, sim.KindInvoke, at.Kind)
	}
	assert.Equal(t, "clerk"+strconv.Itoa(bad.Client), f.Hosts[at.Host])

	require.Len(t, f.Faults, len(rec.FaultLog))
	for i, x := range rec.FaultLog {
		assert.Equal(t, x.Text, f.Faults[i].Text)
		if x.Host != "" {
			require.NotEmpty(t, f.Faults[i].Hosts, x.Text)
			assert.Equal(t, x.Host, f.Hosts[f.Faults[i].Hosts[0]])
		}
	}
	require.NotEmpty(t, f.States, "the store shows its keys")
	downs := 0
	for _, s := range f.States {
		if s.Fields == nil {
			downs++
			assert.Equal(t, sim.KindKill, f.Events[s.Event].Kind, "a host shows nothing after it dies")
		}
	}
	assert.Positive(t, downs)

	var b bytes.Buffer
	require.NoError(t, runfile.Write(&b, f))
	back, err := runfile.Read(&b)
	require.NoError(t, err)
	assert.Equal(t, f, back)
}

// TestRecordPointsAtAStall checks that a stall's verdict shows at the
// first event at its deadline.
func TestRecordPointsAtAStall(t *testing.T) {
	tk := &toy{}
	r := toyRun(t, 1, tk, links)
	heal := r.Nemesis.Heals[1]
	r.Nemesis.Reactive = func(e *Env) (func(), error) {
		e.World.After(heal, func() { tk.hang = true })
		return func() {}, nil
	}
	r.Record = true
	rec, err := r.Execute()
	require.NoError(t, err)
	require.NotEmpty(t, rec.Stalls)
	v := rec.File.Verdict
	assert.Equal(t, KindStall, v.Kind)
	assert.Equal(t, ProblemKind(rec.Problem), rec.Kind)
	deadline := int64(rec.Stalls[0].Heal + rec.Stalls[0].Bound)
	assert.GreaterOrEqual(t, rec.File.Events[v.At].At, deadline)
	assert.Less(t, rec.File.Events[v.At-1].At, deadline)
	assert.Empty(t, v.Ops)
}
