package logorder

import (
	"strconv"

	"github.com/replab/replab/sim"
)

// Inspect shows the node's state (sim.Inspector): the tid it has
// processed the log through (every transaction up to it decided or
// skipped here), how many logged transactions wait in its queue, and for
// how many tids commits wait on it (Pending).
func (s *Server) Inspect() []sim.Field {
	return []sim.Field{
		{Name: "processed", Value: strconv.Itoa(s.through())},
		{Name: "queued", Value: strconv.Itoa(len(s.m.queue))},
		{Name: "pending", Value: strconv.Itoa(len(s.want))},
	}
}
