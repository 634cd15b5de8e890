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
	} {
		assert.Equal(t, c.want, c.f.Format(c.names))
	}
	assert.Equal(t, "partition {0 1} | {2}", Fault{Kind: Partition, Groups: [][]int{{0, 1}, {2}}}.String(), "without names, the groups given")
	assert.Equal(t, "kill server 3", Fault{Kind: Kill, Host: 3}.String())
	assert.Equal(t, "Kind(9)", Kind(9).String())
	assert.Equal(t, "Kind(8)", Kind(8).String(), "one past the last kind")
	assert.Equal(t, "Kind(-1)", Kind(-1).String())
	assert.Equal(t, "heal", Heal.String(), "the first kind")
}

func TestLogString(t *testing.T) {
	assert.Equal(t, "(no faults)\n", Log(nil).String())
	log := Log{{At: time.Second, Fault: Fault{Kind: Kill, Host: 1}, Text: "kill s1"}, {At: 2 * time.Second, Fault: Fault{Kind: Heal}}}
	assert.Equal(t, "          1s  kill s1\n          2s  heal\n", log.String())
	assert.Equal(t, "  15.467517s  heal", Event{At: 15467516572 * time.Nanosecond, Fault: Fault{Kind: Heal}}.String(), "to the microsecond")
}
