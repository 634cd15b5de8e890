package txncheck

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A rule is one inference the check must make, shown by a minimal history
// that breaks it beside a near-twin that does not.
type rule struct {
	name           string
	invalid, valid *History
	opts           Options       // Model defaults to Serializable
	want           []AnomalyType // what the invalid history shows, in order
}

// installed returns h with the given installed orders, key after key.
func installed(h *History, orders map[int][]int) *History {
	for k, values := range orders {
		for _, v := range values {
			h.Installed(k, v)
		}
	}
	return h
}

var rules = []rule{
	{
		name: "write skew through appends no read shows",
		invalid: history(
			committed(0, 0, 10, Read(1), Append(2, 1)),
			committed(1, 0, 10, Read(2), Append(1, 1)),
		),
		valid: history(
			committed(0, 0, 10, Read(1), Append(2, 1)),
			committed(1, 0, 10, Read(2, 1), Append(1, 1)),
		),
		want: []AnomalyType{G2Item},
	},
	{
		name: "read skew through an append no read shows",
		invalid: history(
			committed(0, 0, 10, Append(1, 1), Append(2, 1)),
			committed(1, 0, 10, Read(1, 1), Read(2)),
		),
		valid: history(
			committed(0, 0, 10, Append(1, 1), Append(2, 1)),
			committed(1, 0, 10, Read(1, 1), Read(2, 1)),
		),
		want: []AnomalyType{GSingle},
	},
	{
		name: "G0 through an append no read shows",
		invalid: history(
			committed(0, 0, 10, Append(1, 1), Append(2, 1)),
			committed(1, 0, 10, Append(1, 2), Append(2, 2)),
			committed(2, 0, 10, Read(1, 1, 2)),
			committed(3, 0, 10, Read(2, 2)),
		),
		valid: history(
			committed(0, 0, 10, Append(1, 1), Append(2, 1)),
			committed(1, 0, 10, Append(1, 2), Append(2, 2)),
			committed(2, 0, 10, Read(1, 1, 2)),
			committed(3, 0, 10, Read(2, 1)),
		),
		want: []AnomalyType{G0, GSingle},
	},
	{
		name: "an unread append follows its transaction's earlier appends and the longest read",
		invalid: history(
			committed(0, 0, 10, Append(1, 1), Append(1, 2), Append(2, 1)),
			committed(1, 0, 10, Read(2, 1), Read(1)),
		),
		valid: history(
			committed(0, 0, 10, Append(1, 1), Append(1, 2), Append(2, 1)),
			committed(1, 0, 10, Read(2), Read(1)),
		),
		want: []AnomalyType{GSingle},
	},
	{
		name: "future-read: a read shows its own later append",
		invalid: history(
			committed(0, 0, 10, Read(1, 1), Append(1, 1)),
		),
		valid: history(
			committed(0, 0, 10, Append(1, 1), Read(1, 1)),
		),
		opts: Options{Model: ReadCommitted},
		want: []AnomalyType{FutureRead},
	},
	{
		name: "future-read on a register",
		invalid: history(
			committed(0, 0, 10, Read(1, 1), Write(1, 1)),
		),
		valid: history(
			committed(0, 0, 10, Write(1, 1), Read(1, 1)),
		),
		opts: Options{Model: ReadCommitted},
		want: []AnomalyType{FutureRead},
	},
	{
		name: "dirty-update: a committed append right after an aborted one",
		invalid: history(
			aborted(0, 0, 10, Append(1, 1)),
			committed(1, 0, 10, Append(1, 2)),
			committed(2, 20, 30, Read(1, 1, 2)),
		),
		valid: history(
			aborted(0, 0, 10, Append(1, 1)),
			committed(1, 0, 10, Append(1, 2)),
			committed(2, 20, 30, Read(1, 2)),
		),
		opts: Options{Model: ReadCommitted},
		want: []AnomalyType{G1a, DirtyUpdate},
	},
	{
		name: "dirty-update: a committed write installed on an aborted one",
		invalid: installed(history(
			aborted(0, 0, 10, Write(1, 1)),
			committed(1, 0, 10, Write(1, 2)),
		), map[int][]int{1: {1, 2}}),
		valid: installed(history(
			aborted(0, 0, 10, Write(1, 1)),
			committed(1, 0, 10, Write(1, 2)),
		), map[int][]int{1: {2, 1}}),
		opts: Options{Model: ReadCommitted},
		want: []AnomalyType{DirtyUpdate},
	},
	{
		name: "cyclic-versions: the installed order against write-follows-read",
		invalid: installed(history(
			committed(0, 0, 10, Write(1, 1)),
			committed(1, 20, 30, Read(1, 1), Write(1, 2)),
		), map[int][]int{1: {2, 1}}),
		valid: installed(history(
			committed(0, 0, 10, Write(1, 1)),
			committed(1, 20, 30, Read(1, 1), Write(1, 2)),
		), map[int][]int{1: {1, 2}}),
		opts: Options{Model: ReadUncommitted},
		want: []AnomalyType{CyclicVersions},
	},
	{
		name: "write-follows-read off: the same history is valid",
		invalid: installed(history(
			committed(0, 0, 10, Write(1, 1)),
			committed(1, 20, 30, Read(1, 1), Write(1, 2)),
		), map[int][]int{1: {2, 1}}),
		valid: installed(history(
			committed(0, 0, 10, Write(1, 1)),
			committed(1, 20, 30, Read(1, 1), Write(1, 2)),
		), map[int][]int{1: {2, 1}}),
		opts: Options{Model: ReadUncommitted, NoWriteFollowsRead: true},
		want: nil,
	},
	{
		name: "sequential keys: two processes see a register's versions in opposite orders",
		invalid: history(
			committed(0, 0, 10, Write(1, 1)),
			committed(1, 0, 10, Write(1, 2)),
			committed(2, 20, 30, Read(1, 1)), committed(2, 40, 50, Read(1, 2)),
			committed(3, 20, 30, Read(1, 2)), committed(3, 40, 50, Read(1, 1)),
		),
		valid: history(
			committed(0, 0, 10, Write(1, 1)),
			committed(1, 0, 10, Write(1, 2)),
			committed(2, 20, 30, Read(1, 1)), committed(2, 40, 50, Read(1, 2)),
			committed(3, 20, 30, Read(1, 1)), committed(3, 40, 50, Read(1, 2)),
		),
		opts: Options{Model: Serializable, SequentialKeys: true},
		want: []AnomalyType{CyclicVersions},
	},
	{
		name: "sequential keys: a process reads the initial state after a version",
		invalid: history(
			committed(0, 0, 10, Write(1, 1)),
			committed(1, 20, 30, Read(1, 1)), committed(1, 40, 50, Read(1)),
		),
		valid: history(
			committed(0, 0, 10, Write(1, 1)),
			committed(1, 20, 30, Read(1)), committed(1, 40, 50, Read(1, 1)),
		),
		opts: Options{Model: Serializable, SequentialKeys: true},
		want: []AnomalyType{CyclicVersions},
	},
	{
		name: "linearizable keys: a read after a later write sees the earlier one",
		invalid: history(
			committed(0, 0, 10, Write(1, 1)),
			committed(1, 20, 30, Write(1, 2)),
			committed(2, 40, 50, Read(1, 1)),
		),
		valid: history(
			committed(0, 0, 10, Write(1, 1)),
			committed(1, 20, 30, Write(1, 2)),
			committed(2, 40, 50, Read(1, 2)),
		),
		opts: Options{Model: Serializable, LinearizableKeys: true},
		want: []AnomalyType{CyclicVersions},
	},
	{
		name: "lost update on a register's initial state",
		invalid: history(
			committed(0, 0, 10, Read(1), Write(1, 1)),
			committed(1, 0, 10, Read(1), Write(1, 2)),
		),
		valid: history(
			committed(0, 0, 10, Read(1), Write(1, 1)),
			committed(1, 0, 10, Read(1, 1), Write(1, 2)),
		),
		opts: Options{Model: SnapshotIsolation},
		want: []AnomalyType{LostUpdate},
	},
	{
		name: "lost update on a list's initial state, read as nil and as empty",
		invalid: history(
			committed(0, 0, 10, Read(1), Append(1, 1)),
			committed(1, 0, 10, Read(1, []int{}...), Append(1, 2)),
		),
		valid: history(
			committed(0, 0, 10, Read(1), Append(1, 1)),
			committed(1, 0, 10, Read(1, 1), Append(1, 2)),
		),
		opts: Options{Model: SnapshotIsolation},
		want: []AnomalyType{LostUpdate},
	},
	{
		name: "a garbage read hides no other anomaly",
		invalid: history(
			committed(0, 0, 10, Append(1, 1), Append(2, 1), Write(3, 1)),
			committed(1, 0, 10, Read(1, 1, 99), Read(2), Read(3, 98), Read(4, 97)),
		),
		valid: history(
			committed(0, 0, 10, Append(1, 1), Append(2, 1), Write(3, 1)),
			committed(1, 0, 10, Read(1, 1), Read(2, 1), Read(3, 1), Read(4)),
		),
		want: []AnomalyType{GarbageRead, GSingle},
	},
	{
		name: "G-nonadjacent beside write skew, which snapshot isolation allows",
		invalid: history(
			committed(0, 0, 10, Read(1), Read(4, 4), Read(5), Append(6, 6)),
			committed(1, 0, 10, Append(1, 1), Append(2, 2)),
			committed(2, 0, 10, Read(2, 2), Read(3), Read(6), Append(5, 5)),
			committed(3, 0, 10, Append(3, 3), Append(4, 4)),
			committed(4, 0, 50, Read(1, 1), Read(3, 3)),
		),
		valid: history(
			committed(0, 0, 10, Read(1), Read(4), Read(5), Append(6, 6)),
			committed(1, 0, 10, Append(1, 1), Append(2, 2)),
			committed(2, 0, 10, Read(2, 2), Read(3), Read(6), Append(5, 5)),
			committed(3, 0, 10, Append(3, 3), Append(4, 4)),
			committed(4, 0, 50, Read(1, 1), Read(3, 3)),
		),
		opts: Options{Model: SnapshotIsolation},
		want: []AnomalyType{GNonadjacent},
	},
	{
		name: "read skew and write skew in one component, each named",
		invalid: history(
			committed(0, 0, 10, Append(1, 1), Append(2, 1)),
			committed(1, 0, 10, Read(1, 1), Read(2), Read(3), Append(4, 4)),
			committed(2, 0, 10, Read(4), Append(3, 3)),
		),
		valid: history(
			committed(0, 0, 10, Append(1, 1), Append(2, 1)),
			committed(1, 0, 10, Read(1, 1), Read(2, 1), Read(3), Append(4, 4)),
			committed(2, 0, 10, Read(4, 4), Append(3, 3)),
		),
		want: []AnomalyType{GSingle, G2Item},
	},
	{
		name: "G0-process beside write skew, which strong session snapshot isolation allows",
		invalid: history(
			committed(0, 0, 10, Read(1), Append(2, 1)),
			committed(1, 0, 10, Read(2), Append(1, 1), Append(3, 31)),
			committed(1, 20, 30, Append(3, 32)),
			committed(3, 0, 50, Read(3, 32, 31)),
		),
		valid: history(
			committed(0, 0, 10, Read(1), Append(2, 1)),
			committed(1, 0, 10, Read(2), Append(1, 1), Append(3, 31)),
			committed(1, 20, 30, Append(3, 32)),
			committed(3, 0, 50, Read(3, 31, 32)),
		),
		opts: Options{Model: StrongSessionSnapshotIsolation},
		want: []AnomalyType{G0Process},
	},
	{
		name: "G0 beside G1c, which read uncommitted allows",
		invalid: history(
			committed(0, 0, 10, Append(1, 1), Read(2, 2)),
			committed(1, 0, 10, Append(2, 2), Read(1, 1), Append(3, 31), Append(4, 41)),
			committed(2, 0, 10, Append(3, 32), Append(4, 42)),
			committed(3, 0, 50, Read(3, 31, 32)),
			committed(4, 0, 50, Read(4, 42, 41)),
		),
		valid: history(
			committed(0, 0, 10, Append(1, 1), Read(2, 2)),
			committed(1, 0, 10, Append(2, 2), Read(1, 1), Append(3, 31), Append(4, 41)),
			committed(2, 0, 10, Append(3, 32), Append(4, 42)),
			committed(3, 0, 50, Read(3, 31, 32)),
			committed(4, 0, 50, Read(4, 41, 42)),
		),
		opts: Options{Model: ReadUncommitted},
		want: []AnomalyType{G0},
	},
	{
		name: "read skew in a component with its -process variant: named once, plain",
		invalid: history(
			committed(0, 0, 10, Append(1, 1), Append(2, 1)),
			committed(1, 0, 10, Read(1, 1), Read(2)),
			committed(1, 20, 30, Read(2)),
		),
		valid: history(
			committed(0, 0, 10, Append(1, 1), Append(2, 1)),
			committed(1, 0, 10, Read(1, 1), Read(2, 1)),
			committed(1, 20, 30, Read(2, 1)),
		),
		opts: Options{Model: StrongSessionSerializable},
		want: []AnomalyType{GSingle},
	},
	{
		name: "G-single-process beside write skew, which strong session snapshot isolation allows",
		invalid: history(
			committed(0, 0, 10, Read(1), Append(2, 1)),
			committed(1, 0, 10, Read(2), Append(1, 1)),
			committed(1, 20, 30, Read(1)),
		),
		valid: history(
			committed(0, 0, 10, Read(1), Append(2, 1)),
			committed(1, 0, 10, Read(2), Append(1, 1)),
			committed(1, 20, 30, Read(1, 1)),
		),
		opts: Options{Model: StrongSessionSnapshotIsolation},
		want: []AnomalyType{GSingleProcess},
	},
	{
		name: "G-single-realtime beside write skew, which strong snapshot isolation allows",
		invalid: history(
			committed(0, 0, 10, Read(1), Append(2, 1)),
			committed(1, 0, 10, Read(2), Append(1, 1)),
			committed(2, 20, 30, Read(1)),
		),
		valid: history(
			committed(0, 0, 10, Read(1), Append(2, 1)),
			committed(1, 0, 10, Read(2), Append(1, 1)),
			committed(2, 20, 30, Read(1, 1)),
		),
		opts: Options{Model: StrongSnapshotIsolation},
		want: []AnomalyType{GSingleRealtime},
	},
	{
		name:    "anomalies only: G1c brings G0, which implies it",
		invalid: caseNamed("G0:").h,
		valid:   caseNamed("G-single:").h,
		opts:    Options{Anomalies: []AnomalyType{G1c}},
		want:    []AnomalyType{G0},
	},
	{
		name:    "anomalies only: G-single-realtime brings G-single",
		invalid: caseNamed("G-single:").h,
		valid:   caseNamed("G2-item:").h,
		opts:    Options{Anomalies: []AnomalyType{GSingleRealtime}},
		want:    []AnomalyType{GSingle},
	},
}

// ruleNamed returns the rule whose name begins with prefix.
func ruleNamed(prefix string) rule {
	return named(rules, func(r rule) string { return r.name }, prefix)
}

// TestRules checks each rule's pair: the invalid history shows exactly the
// anomalies named, and its twin none.
func TestRules(t *testing.T) {
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			opts := r.opts
			if opts.Model == 0 && len(opts.Anomalies) == 0 {
				opts.Model = Serializable
			}
			bad, err := CheckWith(r.invalid, opts)
			if assert.NoError(t, err) {
				t.Log(bad)
				assert.Equal(t, r.want, types(bad))
				assert.Equal(t, len(r.want) == 0, bad.OK())
				_, err := bad.WriteHTML(t.TempDir(), "rule", nil)
				assert.NoError(t, err)
			}
			good, err := CheckWith(r.valid, opts)
			if assert.NoError(t, err) {
				assert.True(t, good.OK(), "the twin:\n%v", good)
			}
		})
	}
}
