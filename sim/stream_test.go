package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStreamsDependOnlyOnSeedAndName(t *testing.T) {
	a, b := NewWorld(7), NewWorld(7)
	a.Rand().Uint64() // drawing on one stream moves no other
	a.Stream("nemesis").Uint64()
	assert.Equal(t, b.Stream("net").Uint64(), a.Stream("net").Uint64())
	assert.Same(t, a.Stream("net"), a.Stream("net"), "one name, one stream")
	assert.NotEqual(t, NewWorld(7).Stream("net").Uint64(), NewWorld(7).Stream("nemesis").Uint64())
	assert.NotEqual(t, NewWorld(7).Stream("net").Uint64(), NewWorld(8).Stream("net").Uint64())
	ha, hb := a.NewHost("s0"), b.NewHost("s0")
	a.NewHost("s1").Rand().Uint64()
	assert.Equal(t, hb.Rand().Uint64(), ha.Rand().Uint64(), "a host's stream is its name's")
	ha.Kill()
	ha.Restart()
	assert.Equal(t, hb.Rand().Uint64(), ha.Rand().Uint64(), "and survives a kill")
	assert.PanicsWithValue(t, "sim: RandDuration: hi 1ns is below lo 2ns", func() { ha.RandDuration(2, 1) })
}
