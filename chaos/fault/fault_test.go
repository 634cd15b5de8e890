package fault

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestIntervals(t *testing.T) {
	log := Log{
		{At: time.Second, Fault: Fault{Kind: Isolate, Host: 2}, Host: "s2"},
		{At: 2 * time.Second, Fault: Fault{Kind: Kill, Host: 1}, Host: "s1"},
		{At: 2 * time.Second, Fault: Fault{Kind: Note}, Text: "a test's note, which ends nothing"},
		{At: 3 * time.Second, Fault: Fault{Kind: Heal}},
		{At: 4 * time.Second, Fault: Fault{Kind: Restart, Host: 1}, Host: "s1"},
		{At: 5 * time.Second, Fault: Fault{Kind: Kill, Host: 0}},
	}
	assert.Equal(t, []Interval{
		{Start: time.Second, End: 3 * time.Second, Label: "partition"},
		{Start: 2 * time.Second, End: 4 * time.Second, Label: "s1 down"},
		{Start: 5 * time.Second, End: 6 * time.Second, Label: "host 0 down"},
	}, log.Intervals(6*time.Second))
	assert.Equal(t, []Interval{
		{Start: 0, End: 2 * time.Second, Label: "partition"},
		{Start: time.Second, End: 3 * time.Second, Label: "s1 down"},
		{Start: 4 * time.Second, End: 5 * time.Second, Label: "host 0 down"},
	}, log.Shift(-time.Second).Intervals(5*time.Second), "Shift moves every entry")
	assert.Equal(t, time.Second, log[0].At, "Shift copies")
}

// TestIntervalsOfUndoneFaults checks that the partition interval lasts
// while any link fault is in force, however they are lifted.
func TestIntervalsOfUndoneFaults(t *testing.T) {
	s := func(n int) time.Duration { return time.Duration(n) * time.Second }
	log := Log{
		{At: s(1), Fault: Fault{Kind: Isolate, Host: 2}},
		{At: s(2), Fault: Fault{Kind: Cut, Host: 0, To: 1}},
		{At: s(3), Fault: Fault{Kind: Rejoin, Host: 2}},
		{At: s(4), Fault: Fault{Kind: Uncut, Host: 0, To: 1}}, // the last lifted
		{At: s(5), Fault: Fault{Kind: Cut, Host: 1, To: 0}},
		{At: s(6), Fault: Fault{Kind: Uncut, Host: 0, To: 1}}, // not the one in force
		{At: s(7), Fault: Fault{Kind: Partition, Groups: [][]int{{0}, {1}}}},
		{At: s(8), Fault: Fault{Kind: Isolate, Host: 0}},
		{At: s(9), Fault: Fault{Kind: Rejoin, Host: 0}}, // the partition stays
		{At: s(10), Fault: Fault{Kind: Heal}},
	}
	assert.Equal(t, []Interval{
		{Start: s(1), End: s(4), Label: "partition"},
		{Start: s(5), End: s(10), Label: "partition"},
	}, log.Intervals(s(11)))
}

// TestIntervalsOfModes checks that each network mode lasts from on to off,
// and that a new delay rule begins an interval of its own.
func TestIntervalsOfModes(t *testing.T) {
	s := func(n int) time.Duration { return time.Duration(n) * time.Second }
	log := Log{
		{At: s(1), Fault: Fault{Kind: Unreliable, On: true}},
		{At: s(1), Fault: Fault{Kind: Kill, Host: 0}, Host: "s0"},
		{At: s(2), Fault: Fault{Kind: Reordering, On: true}},
		{At: s(2), Fault: Fault{Kind: DelayRule, Name: "a"}},
		{At: s(3), Fault: Fault{Kind: Reordering}},
		{At: s(3), Fault: Fault{Kind: Duplicate, Rate: 0.1}},
		{At: s(4), Fault: Fault{Kind: Duplicate, Rate: 0.2}}, // still on
		{At: s(4), Fault: Fault{Kind: DelayRule, Name: "b"}},
		{At: s(5), Fault: Fault{Kind: Duplicate}},
		{At: s(5), Fault: Fault{Kind: LongDelays, On: true}},
		{At: s(6), Fault: Fault{Kind: LongDelays}},
		{At: s(6), Fault: Fault{Kind: DelayRule}},
		{At: s(7), Fault: Fault{Kind: Cut, Host: 1, To: 2}},
	}
	assert.Equal(t, []Interval{
		{Start: s(2), End: s(3), Label: "reordering"},
		{Start: s(2), End: s(4), Label: "delay rule: a"},
		{Start: s(3), End: s(5), Label: "duplication"},
		{Start: s(5), End: s(6), Label: "long delays"},
		{Start: s(4), End: s(6), Label: "delay rule: b"},
		{Start: s(7), End: s(8), Label: "partition"},
		{Start: s(1), End: s(8), Label: "unreliable"},
		{Start: s(1), End: s(8), Label: "s0 down"},
	}, log.Intervals(s(8)))
}

func TestFormat(t *testing.T) {
	names := []string{"a", "b", "c", "d"}
	servers := []string{"0", "1", "2", "3", "4"}
	for _, c := range []struct {
		f     Fault
		names []string
		want  string
	}{
		{Fault{Kind: Heal}, names, "heal"},
		{Fault{Kind: Partition, Groups: [][]int{{1, 0}, {2}}}, names, "partition {a b} | {c} | {d}"},
		{Fault{Kind: Partition, Groups: [][]int{{2, 0, 1}, {4, 3}}}, servers, "partition {0 1 2} | {3 4}"},
		{Fault{Kind: Partition, Groups: [][]int{{0, 2, 3}}}, servers, "partition {0 2 3} | {1} | {4}"},
		{Fault{Kind: Isolate, Host: 1}, names, "isolate b"},
		{Fault{Kind: Isolate, Host: 1}, servers, "isolate server 1"},
		{Fault{Kind: Cut, Host: 0, To: 2}, names, "cut a → c"},
		{Fault{Kind: Cut, Host: 0, To: 2}, servers, "cut server 0 → server 2"},
		{Fault{Kind: Kill, Host: 2}, names, "kill c"},
		{Fault{Kind: Kill, Host: 0}, servers, "kill server 0"},
		{Fault{Kind: Restart, Host: 7}, names, "restart server 7"},
		{Fault{Kind: Drift, Host: 0, Rate: 1.05}, names, "drift a x1.05"},
		{Fault{Kind: Bridge, Groups: [][]int{{0}, {2}}, Host: 1}, names, "partition {a} | {c} | {d}, bridged by b"},
		{Fault{Kind: Bridge, Groups: [][]int{{4, 1}, {3, 2}}, Host: 0}, servers, "partition {1 4} | {2 3}, bridged by server 0"},
		{Fault{Kind: Rejoin, Host: 1}, names, "rejoin b"},
		{Fault{Kind: Rejoin, Host: 1}, servers, "rejoin server 1"},
		{Fault{Kind: Uncut, Host: 0, To: 2}, servers, "uncut server 0 → server 2"},
		{Fault{Kind: Unreliable, On: true}, names, "unreliable on"},
		{Fault{Kind: Unreliable}, names, "unreliable off"},
		{Fault{Kind: Reordering, On: true}, names, "reordering on"},
		{Fault{Kind: Reordering}, names, "reordering off"},
		{Fault{Kind: LongDelays, On: true}, names, "long delays on"},
		{Fault{Kind: LongDelays}, names, "long delays off"},
		{Fault{Kind: Duplicate, Rate: 0.1}, names, "duplicate 10% of requests"},
		{Fault{Kind: Duplicate, Rate: 1.0 / 3}, names, "duplicate 33.3% of requests"},
		{Fault{Kind: Duplicate}, names, "duplication off"},
		{Fault{Kind: DelayRule, Name: "slow elections"}, names, "delay rule: slow elections"},
		{Fault{Kind: DelayRule}, names, "delay rule off"},
	} {
		assert.Equal(t, c.want, c.f.Format(c.names))
	}
	assert.Equal(t, "partition {0 1} | {2}", Fault{Kind: Partition, Groups: [][]int{{0, 1}, {2}}}.String(), "without names, the groups given")
	assert.Equal(t, "kill server 3", Fault{Kind: Kill, Host: 3}.String())
	assert.Equal(t, "Kind(17)", Kind(17).String())
	assert.Equal(t, "Kind(16)", Kind(16).String(), "one past the last kind")
	assert.Equal(t, "note", Note.String(), "the last kind")
	assert.Equal(t, "note", Fault{Kind: Note}.String())
	assert.Equal(t, "lease renewed", Event{Fault: Fault{Kind: Note}, Text: "lease renewed"}.Describe(), "a note prints its text")
	assert.Equal(t, "Kind(-1)", Kind(-1).String())
	assert.Equal(t, "heal", Heal.String(), "the first kind")
}

func TestLogString(t *testing.T) {
	assert.Equal(t, "(no faults)\n", Log(nil).String())
	log := Log{{At: time.Second, Fault: Fault{Kind: Kill, Host: 1}, Text: "kill s1"}, {At: 2 * time.Second, Fault: Fault{Kind: Heal}}}
	assert.Equal(t, "          1s  kill s1\n          2s  heal\n", log.String())
	assert.Equal(t, "  15.467517s  heal", Event{At: 15467516572 * time.Nanosecond, Fault: Fault{Kind: Heal}}.String(), "to the microsecond")
}

func TestHealsAndStruck(t *testing.T) {
	for _, tc := range []struct {
		f      Fault
		heals  bool
		struck []int
	}{
		{Fault{Kind: Heal}, true, nil},
		{Fault{Kind: Partition, Groups: [][]int{{2, 0}, {1}}}, false, []int{0, 1, 2, 3}},
		{Fault{Kind: Bridge, Groups: [][]int{{0}, {1}}, Host: 3}, false, []int{0, 1, 2, 3}},
		{Fault{Kind: Cut, Host: 3, To: 1}, false, []int{3, 1}},
		{Fault{Kind: Uncut, Host: 3, To: 1}, true, []int{3, 1}},
		{Fault{Kind: Isolate, Host: 2}, false, []int{2}},
		{Fault{Kind: Rejoin, Host: 2}, true, []int{2}},
		{Fault{Kind: Kill, Host: 1}, false, []int{1}},
		{Fault{Kind: Restart, Host: 1}, true, []int{1}},
		{Fault{Kind: Drift, Host: 0, Rate: 1.5}, false, []int{0}},
		{Fault{Kind: Drift, Host: 0, Rate: 1}, true, []int{0}},
		{Fault{Kind: Unreliable, On: true}, false, nil},
		{Fault{Kind: Reordering}, true, nil},
		{Fault{Kind: Duplicate, Rate: 0.1}, false, nil},
		{Fault{Kind: Duplicate}, true, nil},
		{Fault{Kind: DelayRule, Name: "slow"}, false, nil},
		{Fault{Kind: DelayRule}, true, nil},
	} {
		assert.Equal(t, tc.heals, tc.f.Heals(), "%v", tc.f)
		assert.Equal(t, tc.struck, tc.f.Struck(4), "%v", tc.f)
	}
}
