package chaos

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/chaos/fault"
)

// TestNemesisAtMinIntervalIsBounded runs the fastest nemesis allowed for a
// virtual second: it draws at most one fault every MinInterval/2, so at
// most 2000 are logged, and the run takes virtual time, as the 1 ns
// nemesis that exhausted memory did not.
func TestNemesisAtMinIntervalIsBounded(t *testing.T) {
	m := newMonkey(t, 5)
	_, err := m.StartNemesis(NemesisConfig{Interval: MinInterval, Weights: DefaultWeights()})
	require.NoError(t, err)
	m.w.Run(time.Second)
	assert.LessOrEqual(t, len(m.Log()), 2000)
	assert.Greater(t, len(m.Log()), 200, "a fault every millisecond, most of which change something")
	assert.Equal(t, time.Second, m.w.Now())
}

// TestLogLimit checks that a full log refuses the next fault: Apply with an
// error, applying nothing; a script step and a nemesis with a panic that
// says why.
func TestLogLimit(t *testing.T) {
	m := newMonkey(t, 3)
	assert.EqualError(t, m.SetLogLimit(0), "chaos: SetLogLimit: 0 is below 1 or the 0 faults the log holds")
	require.NoError(t, m.SetLogLimit(2))
	require.NoError(t, m.Apply(fault.Fault{Kind: fault.Kill, Host: 0}))
	require.NoError(t, m.Apply(fault.Fault{Kind: fault.Isolate, Host: 1}))
	assert.EqualError(t, m.SetLogLimit(1), "chaos: SetLogLimit: 1 is below 1 or the 2 faults the log holds")
	assert.EqualError(t, m.Apply(fault.Fault{Kind: fault.Heal}),
		"chaos: heal not applied: the fault log holds 2 faults, its limit (Monkey.SetLogLimit raises it)")
	assert.False(t, m.Connected(0, 1), "the refused heal was not applied")
	assert.Len(t, m.Log(), 2)

	require.NoError(t, m.Schedule([]Step{{At: time.Second, Fault: fault.Fault{Kind: fault.Restart, Host: 0}}}))
	assert.PanicsWithValue(t, "chaos: restart h0 not applied: the fault log holds 2 faults, its limit (Monkey.SetLogLimit raises it), at 1s of virtual time (script step 0)",
		func() { m.w.Run(2 * time.Second) })
	assert.False(t, m.Alive()[0])

	require.NoError(t, m.SetLogLimit(3))
	require.NoError(t, m.Apply(fault.Fault{Kind: fault.Heal}), "room again")
	_, err := m.StartNemesis(NemesisConfig{Interval: time.Second, Weights: Weights{Heal: 1}})
	require.NoError(t, err)
	var msg any
	func() {
		defer func() { msg = recover() }()
		m.w.Run(time.Hour)
	}()
	assert.Regexp(t, `^chaos: heal not applied: the fault log holds 3 faults, its limit \(Monkey.SetLogLimit raises it\), at \S+ of virtual time \(nemesis, interval 1s\)$`, fmt.Sprint(msg))
	assert.Len(t, m.Log(), 3)
}
