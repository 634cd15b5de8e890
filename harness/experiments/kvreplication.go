package experiments

import (
	"fmt"
	"strings"
	"time"

	"github.com/replab/replab/plots"
)

func kvReplicationExperiment() Experiment {
	return Experiment{
		Name:        "kv-replication",
		Reproduces:  "Frangipani report, tables of the basic and speed tests (its two KV Raft columns)",
		Description: "one client's ops/s and ms/op on kvraft replicating on the lab's 100 ms heartbeats, on the report's 10 ms heartbeats, and on Start, 3 servers",
		Seed:        1,
		Run:         runKVReplication,
	}
}

func runKVReplication(p Params) (*Result, error) {
	const basicFor, appends = 15 * time.Second, 1000
	tab := plots.NewTable("raft", "basic_ops_per_s", "basic_rpcs", "speed_ms_per_op", "speed_rpcs")
	basic := plots.Samples{Name: "basic test"}
	speed := plots.Samples{Name: "speed test"}
	var groups, names, notes []string
	for _, s := range []kvSystem{kvLabHeartbeat, kvHeartbeat, kvStart} {
		b, err := s.basic(p.Seed, 3, basicFor)
		if err != nil {
			return nil, err
		}
		sp, err := s.speed(p.Seed, 3, appends)
		if err != nil {
			return nil, err
		}
		perOp := float64(sp.took) / float64(time.Millisecond) / float64(sp.ops)
		tab.Add(s.name, b.perSecond(), b.rpcs, perOp, sp.rpcs)
		groups, names = append(groups, strings.Replace(s.name, ", ", "\n", 1)), append(names, s.name)
		basic.Values = append(basic.Values, b.perSecond())
		speed.Values = append(speed.Values, perOp)
		notes = append(notes, fmt.Sprintf("%s: basic %.0f ops/s (%d RPCs), speed %.3f ms/op (%d RPCs)", s.name, b.perSecond(), b.rpcs, perOp, sp.rpcs))
	}
	f1, err := plots.Bars(plots.Axes{Title: "Basic test: one client's operations per second", Y: "operations per second"}, groups, basic)
	if err != nil {
		return nil, err
	}
	f2, err := plots.Bars(plots.Axes{Title: "Speed test: 1000 sequential Appends", Y: "milliseconds per Append"}, groups, speed)
	if err != nil {
		return nil, err
	}
	lab, report, start := basic.Values[0], basic.Values[1], basic.Values[2]
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{
		{Name: "kv-replication-basic", Caption: fmt.Sprintf("One client's operations per virtual second on one key over %v (Gets, Puts and Appends alike, back to back; lab profile, 3 servers): "+
			"kvraft on a Raft that replicates only on its heartbeats, every %v (the lab's) or every %v (the Frangipani report's \"My KV Raft\", each heartbeat carrying what arrived since), "+
			"against one that replicates as soon as Start is called. "+
			"Bars rise from zero on a linear axis, so their heights compare as the values do: replicating on Start does %.0f times as many as on %v heartbeats and %.1f times as many as on %v ones. "+
			"Each bar is labelled with its value. frangipani-tables sets frangipani and the report's own numbers beside them.",
			basicFor, kvLabHeartbeat.heartbeat, kvHeartbeat.heartbeat, start/lab, kvLabHeartbeat.heartbeat, start/report, kvHeartbeat.heartbeat), Charts: []*plots.Chart{f1}},
		{Name: "kv-replication-speed", Caption: fmt.Sprintf("Milliseconds per Append over %d sequential Appends, same three Rafts, bars from zero on a linear axis, each labelled with its value; "+
			"the lab's speed test asks for at most %.1f ms (three Appends per 100 ms heartbeat interval): %s.", appends, labSpeedBar, speedVerdicts(names, speed.Values)), Charts: []*plots.Chart{f2}},
	}}, nil
}

// labSpeedBar is the lab's speed test's bar, in ms per Append: three
// operations per 100 ms heartbeat interval.
const labSpeedBar = 100.0 / 3

// speedVerdicts says which systems pass the lab's speed test.
func speedVerdicts(names []string, msPerOp []float64) string {
	var s []string
	for i, n := range names {
		verdict := "passes"
		if msPerOp[i] > labSpeedBar {
			verdict = "fails"
		}
		s = append(s, fmt.Sprintf("%s %s (%.1f ms)", n, verdict, msPerOp[i]))
	}
	return strings.Join(s, ", ")
}
