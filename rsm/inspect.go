package rsm

import (
	"strconv"

	"github.com/replab/replab/sim"
)

// Inspect shows the server's state (sim.Inspector): the last log index it
// applied, how many clients' sessions it keeps, and how many requests wait
// on it (submitted and not yet applied, or reads waiting for the log).
func (s *Server) Inspect() []sim.Field {
	return []sim.Field{
		{Name: "applied", Value: strconv.Itoa(s.applied)},
		{Name: "sessions", Value: strconv.Itoa(len(s.sessions))},
		{Name: "pending", Value: strconv.Itoa(len(s.waiting) + len(s.reads))},
	}
}
