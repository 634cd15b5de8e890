package linearize

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// An Explanation says where a partition stops being linearizable, as
// porcupine's search of it found: the longest order of its operations that
// the model accepts, and the operation that cannot follow that order, the
// first by return time that it leaves out. Nor can any other operation
// called before that one returned: the history cannot be linearized past
// it.
type Explanation struct {
	Part  string // the partition, as Result.Violation names it
	Stuck Op     // the operation that cannot follow Order
	// Order holds the indices in the history of the operations of the
	// longest order the model accepts, in that order.
	Order []int
	State string // the state after Order, as the model describes it
	// Writes are the last writes completed before Stuck was called: of
	// the operations of Order that changed the state and returned before
	// Stuck's call, those that no other of them was called after (each
	// may be the last of these to take effect), in order of return.
	Writes []Op
}

// An Op is an operation of a checked history, as an Explanation names it.
// Its Return is math.MaxInt64 if it never returned (see History).
type Op struct {
	Index int // its place in the history given to Check
	porcupine.Operation
	Text string // as the model describes it (DescribeOperation)
}

// A Clock writes when an operation ran, from its call and return times
// (a return of math.MaxInt64: it never returned).
type Clock func(call, ret int64) string

// VirtualTime writes times as the durations of virtual time they are in
// a recorded history: "45ms to 50ms".
func VirtualTime(call, ret int64) string {
	if ret == math.MaxInt64 {
		return fmt.Sprintf("from %v, never returned", time.Duration(call))
	}
	return fmt.Sprintf("%v to %v", time.Duration(call), time.Duration(ret))
}

// LogLines writes times as the lines of a log that ReadKVLog read, whose
// lines are its times: "lines 3 to 4".
func LogLines(call, ret int64) string {
	if ret == math.MaxInt64 {
		return fmt.Sprintf("from line %d, never returned", call)
	}
	return fmt.Sprintf("lines %d to %d", call, ret)
}

// String says the explanation in one line, with times in virtual time:
// the partition, the operation, how many operations the longest order
// accepted places before it, and the last writes completed before it (the
// first three).
func (e *Explanation) String() string { return e.describe(VirtualTime) }

// describe says the explanation as String does, with times as clock
// writes them.
func (e *Explanation) describe(clock Clock) string {
	const shown = 3
	var b strings.Builder
	ops := "operations"
	if len(e.Order) == 1 {
		ops = "operation"
	}
	fmt.Fprintf(&b, "%s: %s, cannot follow the longest linearizable order (%d %s); ", e.Part, e.Stuck.describe(clock), len(e.Order), ops)
	if len(e.Writes) == 0 {
		b.WriteString("no write completed before it")
		return b.String()
	}
	b.WriteString("last writes completed before it: ")
	for i, w := range e.Writes[:min(shown, len(e.Writes))] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(w.describe(clock))
	}
	if n := len(e.Writes) - shown; n > 0 {
		fmt.Fprintf(&b, " and %d more", n)
	}
	return b.String()
}

// String describes the operation, its place and its times in virtual
// time.
func (o Op) String() string { return o.describe(VirtualTime) }

// describe describes the operation as String does, with times as clock
// writes them.
func (o Op) describe(clock Clock) string {
	return fmt.Sprintf("operation %d, %s (client %d, %s)", o.Index, o.Text, o.ClientId, clock(o.Call, o.Return))
}

// locate returns parts[failed], of the model's partitions of ops, with
// each operation's place in ops. It partitions ops again, a copy whose
// operations carry their places in their metadata (which porcupine leaves
// to visualizations), and gives them back their own.
func (m Model) locate(ops []porcupine.Operation, parts [][]porcupine.Operation, failed int) ([]porcupine.Operation, []int, error) {
	tagged, places := slices.Clone(ops), make([]place, len(ops))
	for i := range tagged {
		places[i] = place{index: i, metadata: ops[i].Metadata}
		tagged[i].Metadata = &places[i]
	}
	again := m.parts(tagged)
	if len(again) != len(parts) || !samePart(again[failed], parts[failed]) {
		return nil, nil, fmt.Errorf("linearize: the model's Partition splits a history differently from one call to the next")
	}
	part, index := again[failed], make([]int, len(again[failed]))
	for i := range part {
		p := part[i].Metadata.(*place)
		part[i].Metadata, index[i] = p.metadata, p.index
	}
	return part, index, nil
}

// A place is an operation's place in a history, and its metadata.
type place struct {
	index    int
	metadata any
}

// samePart reports whether a and b hold operations of the same clients
// at the same times, in the same order.
func samePart(a, b []porcupine.Operation) bool {
	return slices.EqualFunc(a, b, func(x, y porcupine.Operation) bool {
		return x.ClientId == y.ClientId && x.Call == y.Call && x.Return == y.Return
	})
}

// explain searches part (one partition, whose operations are at index in
// the history), found not linearizable, again with porcupine, verbosely,
// within timeout, and explains where it stops being linearizable. It
// returns the explanation, or nil if the search ran out of time, and the
// search's information, to draw.
func explain(model porcupine.Model, part []porcupine.Operation, index []int, name string, timeout time.Duration) (*Explanation, porcupine.LinearizationInfo) {
	verdict, info := porcupine.CheckOperationsVerbose(model, part, porcupineTimeout(timeout))
	if verdict != porcupine.Illegal {
		return nil, info
	}
	// Porcupine records a partial linearization when its search meets the
	// return of an operation it has not placed, so there is one left out.
	order := longest(info.PartialLinearizations()[0])
	stuck := firstLeftOut(part, order)
	writes, state := lastWrites(model, part, order, part[stuck].Call)
	op := func(i int) Op {
		text := fmt.Sprintf("%v → %v", part[i].Input, part[i].Output)
		if model.DescribeOperation != nil {
			text = model.DescribeOperation(part[i].Input, part[i].Output)
		}
		return Op{Index: index[i], Operation: part[i], Text: text}
	}
	e := &Explanation{Part: name, Stuck: op(stuck), State: fmt.Sprint(state)}
	if model.DescribeState != nil {
		e.State = model.DescribeState(state)
	}
	for _, i := range order {
		e.Order = append(e.Order, index[i])
	}
	for _, i := range writes {
		e.Writes = append(e.Writes, op(i))
	}
	return e, info
}

// firstLeftOut returns the operation of part that order leaves out and
// that returned first (the first in part of those that returned then).
func firstLeftOut(part []porcupine.Operation, order []int) int {
	in := make([]bool, len(part))
	for _, i := range order {
		in[i] = true
	}
	first := -1
	for i := range part {
		if !in[i] && (first < 0 || part[i].Return < part[first].Return) {
			first = i
		}
	}
	return first
}

// lastWrites replays order, operations of part, and returns the state
// after it and the last of its writes (steps that change the state) that
// returned before the time before: those no other of them was called
// after, by return time.
func lastWrites(model porcupine.Model, part []porcupine.Operation, order []int, before int64) (writes []int, state any) {
	equal := model.Equal
	if equal == nil {
		equal = func(a, b any) bool { return a == b }
	}
	step := stepper(model)
	state = model.Init()
	latestCall := int64(math.MinInt64) // of those writes
	for _, i := range order {
		_, next := step(context.Background(), state, part[i].Input, part[i].Output)
		if !equal(state, next) && part[i].Return < before {
			writes = append(writes, i)
			latestCall = max(latestCall, part[i].Call)
		}
		state = next
	}
	writes = slices.DeleteFunc(writes, func(i int) bool { return part[i].Return < latestCall })
	slices.SortStableFunc(writes, func(a, b int) int { return cmp.Compare(part[a].Return, part[b].Return) })
	return writes, state
}

// longest returns the longest of partial linearizations, the one first in
// order of operation ids if there are several, so that the choice does
// not depend on the order porcupine gives them in.
func longest(partials [][]int) []int {
	var best []int
	for _, p := range partials {
		if len(p) > len(best) || len(p) == len(best) && slices.Compare(p, best) < 0 {
			best = p
		}
	}
	return best
}
