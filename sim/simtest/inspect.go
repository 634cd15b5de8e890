package simtest

import (
	"fmt"
	"time"

	"github.com/replab/replab/sim"
)

// RunInspecting runs w for d of virtual time as World.Run does, reading
// every host's state (sim.Host.State) after each event, as a recording
// does, and returns how many fields it read.
func RunInspecting(w *sim.World, d time.Duration) int {
	read := 0
	inspect := func() bool {
		for _, h := range w.Hosts() {
			read += len(h.State())
		}
		return false
	}
	w.RunUntil(inspect, d)
	return read
}

// InspectingChangesNothing holds a service's inspectors to the seed rule:
// inspecting must change nothing. It builds a run twice with build, which
// lets virtual time pass with the run it is given wherever it would call
// World.Run, and returns the run's world: once as given, once reading
// every host's state after every event while run lets time pass
// (RunInspecting). It returns an error if the two runs end with different
// summaries, or if the second read no state at all.
func InspectingChangesNothing(build func(run func(w *sim.World, d time.Duration)) *sim.World) error {
	plain := build(func(w *sim.World, d time.Duration) { w.Run(d) })
	read := 0
	inspected := build(func(w *sim.World, d time.Duration) { read += RunInspecting(w, d) })
	switch a, b := plain.Summary(), inspected.Summary(); {
	case read == 0:
		return fmt.Errorf("simtest: the run showed no state to inspect")
	case a != b:
		return fmt.Errorf("simtest: inspecting changed the run: %v without, %v with", a, b)
	}
	return nil
}

// State returns what host h shows of its state (sim.Host.State) as a map
// from each field's name ("raft.term") to its value; an empty map for a
// dead host or one that shows nothing.
func State(h *sim.Host) map[string]string {
	m := map[string]string{}
	for _, f := range h.State() {
		m[f.Name] = f.Value
	}
	return m
}
