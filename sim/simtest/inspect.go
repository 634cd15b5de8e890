package simtest

import (
	"time"

	"github.com/replab/replab/sim"
)

// RunInspecting runs w for d of virtual time as World.Run does, reading
// every host's state (sim.Host.State) after each event, as a recording
// does, and returns how many fields it read. Inspecting must change
// nothing: a run that inspects ends with the summary of one that does not
// (a test's way to hold its inspectors to that).
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
