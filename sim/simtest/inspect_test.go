package simtest

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/sim"
)

// ticks is an inspector that counts its host's timer firings; with
// meddle, reading it draws from the world's generator, as an inspector
// must not.
type ticks struct {
	w      *sim.World
	n      int
	meddle bool
}

func (c *ticks) Inspect() []sim.Field {
	if c.meddle {
		c.w.Rand().Int()
	}
	return []sim.Field{{Name: "n", Value: strconv.Itoa(c.n)}}
}

// ticking builds a world with one host whose timer fires at random
// intervals, shown by a ticks inspector.
func ticking(meddle, show bool) func(run func(w *sim.World, d time.Duration)) *sim.World {
	return func(run func(w *sim.World, d time.Duration)) *sim.World {
		w := sim.NewWorld(1)
		h := w.NewHost("h")
		c := &ticks{w: w, meddle: meddle}
		if show {
			h.Inspect("ticks", c)
		}
		var tm *sim.Timer
		tm = h.NewTimer(func() {
			c.n++
			tm.Reset(w.RandDuration(time.Millisecond, 10*time.Millisecond))
		})
		tm.Reset(time.Millisecond)
		run(w, time.Second)
		return w
	}
}

func TestInspectingChangesNothing(t *testing.T) {
	require.NoError(t, InspectingChangesNothing(ticking(false, true)))
	assert.ErrorContains(t, InspectingChangesNothing(ticking(true, true)), "inspecting changed the run")
	assert.ErrorContains(t, InspectingChangesNothing(ticking(false, false)), "no state")
}

func TestState(t *testing.T) {
	w := sim.NewWorld(1)
	h := w.NewHost("h")
	assert.Empty(t, State(h))
	h.Inspect("ticks", &ticks{w: w, n: 3})
	assert.Equal(t, map[string]string{"ticks.n": "3"}, State(h))
	h.Kill()
	assert.Empty(t, State(h), "a dead host shows nothing")
}
