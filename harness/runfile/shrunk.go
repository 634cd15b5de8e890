package runfile

import (
	"fmt"

	"github.com/replab/replab/chaos/fault"
)

// Shrunk is how a shrunk run (labsim shrink) differs from the run its
// scenario builds from its seed: replaying the file builds that run and
// makes these changes to it. A zero field changes nothing.
type Shrunk struct {
	// Nemesis, if set, replaces the run's nemesis: these faults on a
	// schedule, and nothing reactive.
	Nemesis *Schedule `json:"nemesis,omitempty"`
	// Skip, for a nemesis that reacts to the run (and so is not replaced
	// by a schedule), are the faults it asks for that are not applied, by
	// their number in the order it asks for them, from 0.
	Skip []int `json:"skip,omitempty"`
	// Length is the time the clients work under the nemesis, in virtual
	// nanoseconds.
	Length int64 `json:"length,omitempty"`
	// Servers is how many replicas the run's one group has.
	Servers int `json:"servers,omitempty"`
	// Clients is how many clients of each kind the workload has (a
	// key/value workload's clients, then its readers).
	Clients []int `json:"clients,omitempty"`
}

// A Schedule is a nemesis as a schedule of faults.
type Schedule struct {
	Steps []Step `json:"steps"`
	// Heals are the moments after which progress is checked, in virtual
	// nanoseconds from the clients' start.
	Heals []int64 `json:"heals,omitempty"`
}

// A Step is one fault of a schedule.
type Step struct {
	At    int64       `json:"at"` // virtual nanoseconds from the clients' start
	Fault fault.Fault `json:"fault"`
}

// check returns an error naming the first field of s (nil: no shrink)
// that no shrink writes: a negative length, servers or clients, a step
// out of time order or before the clients' start, a skip out of order.
func (s *Shrunk) check() error {
	if s == nil {
		return nil
	}
	switch {
	case s.Length < 0:
		return fmt.Errorf("length: %d is negative", s.Length)
	case s.Servers < 0:
		return fmt.Errorf("servers: %d is negative", s.Servers)
	}
	for i, n := range s.Clients {
		if n < 0 {
			return fmt.Errorf("clients[%d]: %d is negative", i, n)
		}
	}
	for i, k := range s.Skip {
		if k < 0 || i > 0 && k <= s.Skip[i-1] {
			return fmt.Errorf("skip[%d]: %d is negative or not after the one before it", i, k)
		}
	}
	if s.Nemesis == nil {
		return nil
	}
	var prev int64
	for i, st := range s.Nemesis.Steps {
		if st.At < prev {
			return fmt.Errorf("nemesis.steps[%d].at: %d before the step before it (%d)", i, st.At, prev)
		}
		prev = st.At
	}
	for i, h := range s.Nemesis.Heals {
		if h < 0 {
			return fmt.Errorf("nemesis.heals[%d]: %d is negative", i, h)
		}
	}
	return nil
}
