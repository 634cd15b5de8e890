package chaos

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/chaos/fault"
)

// TestFilter shows the filter every fault in order; one it refuses is
// neither applied nor logged, and without a filter every fault is.
func TestFilter(t *testing.T) {
	m := newMonkey(t, 3)
	var seen []fault.Kind
	m.SetFilter(func(f fault.Fault) bool {
		seen = append(seen, f.Kind)
		return f.Kind != fault.Kill
	})
	require.NoError(t, m.Apply(fault.Fault{Kind: fault.Kill, Host: 1}))
	require.NoError(t, m.Apply(fault.Fault{Kind: fault.Isolate, Host: 2}))
	assert.Equal(t, []fault.Kind{fault.Kill, fault.Isolate}, seen)
	assert.Equal(t, []bool{true, true, true}, m.Alive(), "the kill was refused")
	require.Len(t, m.Log(), 1)
	assert.Equal(t, fault.Isolate, m.Log()[0].Fault.Kind)
	m.SetFilter(nil)
	require.NoError(t, m.Apply(fault.Fault{Kind: fault.Kill, Host: 1}))
	assert.Equal(t, []bool{true, false, true}, m.Alive())
}
