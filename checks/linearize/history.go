// Package linearize records client histories in virtual time and checks
// them for linearizability with porcupine: the recorder, a versioned
// key/value model partitioned by key (a get that saw no version is checked
// by its value alone, so histories of the classic API check too), a reader
// of porcupine's and Jepsen's key/value logs, and the check, which searches
// the keys in parallel, stops at the first violation, explains it (the
// operation at which the key stops being linearizable, and the last writes
// before it), draws it with the run's fault log marked, and names the keys
// that ran out of time. It is
// public so that a student's own service can be checked the same way;
// package txncheck beside it judges transactions.
package linearize

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"
)

// A History records operations as clients call and complete them, with the
// world's virtual times.
type History struct {
	ops []porcupine.Operation
}

// Call records that client called an operation with input at virtual time
// at, and returns the operation's ID for Return. It panics if input is
// nil.
func (h *History) Call(client int, input any, at time.Duration) int {
	if input == nil {
		panic(fmt.Sprintf("linearize: History.Call: client %d calls an operation with a nil input", client))
	}
	h.ops = append(h.ops, porcupine.Operation{ClientId: client, Input: input, Call: int64(at), Return: math.MaxInt64})
	return len(h.ops) - 1
}

// Return records that operation id completed with output at virtual time
// at. It panics, naming id, if Call gave no such id, if the operation
// already returned, or if at is before its call.
func (h *History) Return(id int, output any, at time.Duration) {
	if id < 0 || id >= len(h.ops) {
		panic(fmt.Sprintf("linearize: History.Return: no operation %d (%d called)", id, len(h.ops)))
	}
	op := &h.ops[id]
	switch {
	case op.Return != math.MaxInt64:
		panic(fmt.Sprintf("linearize: History.Return: operation %d already returned, at %v", id, time.Duration(op.Return)))
	case int64(at) < op.Call:
		panic(fmt.Sprintf("linearize: History.Return: operation %d returns at %v, before its call at %v", id, at, time.Duration(op.Call)))
	}
	op.Output, op.Return = output, int64(at)
}

// Len returns how many operations have been called.
func (h *History) Len() int { return len(h.ops) }

// Operations returns a copy of the history. An operation that never
// returned is ambiguous: it may or may not have taken effect. It keeps the
// return time Call gave it, after everything, and the output unknown
// (nil), which the models accept whatever the state, so that porcupine may
// place it anywhere after its call, including after every other operation
// (as if it never happened).
func (h *History) Operations() []porcupine.Operation { return slices.Clone(h.ops) }
