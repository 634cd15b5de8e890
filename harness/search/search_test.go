package search

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/harness/runfile"
)

// scenario returns the Raft scenario named name.
func scenario(t *testing.T, name string) Scenario {
	t.Helper()
	for _, sc := range Scenarios() {
		if sc.Name == name {
			return sc
		}
	}
	t.Fatalf("no scenario %s", name)
	return Scenario{}
}

const (
	applyUncommitted = "entries applied before they commit"
	truncateStale    = "log truncated by a stale AppendEntries"
)

func TestBFSExploresTheCorrectCodeWholeAndFindsNothing(t *testing.T) {
	sc := scenario(t, "raft-write")
	res, err := Search(sc, Options{Strategy: BFS, Depth: 6, Faults: -1, Drops: -1, Workers: 2})
	require.NoError(t, err)
	assert.True(t, res.Complete, "a bounded BFS explores its whole space")
	assert.Nil(t, res.Violation)
	assert.Equal(t, 6, res.MaxDepth)
	assert.Greater(t, res.States, res.Distinct, "hashing merged states")
	assert.Greater(t, res.Distinct, 100)
	t.Logf("depth %d: %d states, %d distinct, %v", res.MaxDepth, res.States, res.Distinct, res.Wall)

	unhashed, err := Search(sc, Options{Strategy: BFS, Depth: 6, Faults: -1, Drops: -1, Workers: 2, NoHash: true})
	require.NoError(t, err)
	assert.True(t, unhashed.Complete)
	assert.Greater(t, unhashed.States, res.States, "without hashing, the same states are explored again")
}

func TestResultDoesNotDependOnTheWorkers(t *testing.T) {
	sc := scenario(t, "raft-write")
	one, err := Search(sc, Options{Strategy: BFS, Depth: 5, Faults: -1, Drops: -1, Workers: 1})
	require.NoError(t, err)
	two, err := Search(sc, Options{Strategy: BFS, Depth: 5, Faults: -1, Drops: -1, Workers: 2})
	require.NoError(t, err)
	assert.Equal(t, one.States, two.States)
	assert.Equal(t, one.Distinct, two.Distinct)
	w1, err := Search(sc, Options{Strategy: DFS, Depth: 20, Budget: 2000, Faults: -1, Drops: -1, Workers: 1, Bug: truncateStale})
	require.NoError(t, err)
	w2, err := Search(sc, Options{Strategy: DFS, Depth: 20, Budget: 2000, Faults: -1, Drops: -1, Workers: 2, Bug: truncateStale})
	require.NoError(t, err)
	assert.Equal(t, w1.States, w2.States)
	assert.Equal(t, w1.Violation.Path, w2.Violation.Path)
}

func TestBFSFindsTheShortestViolationAndItReplays(t *testing.T) {
	sc := scenario(t, "raft-write")
	o := Options{Strategy: BFS, Depth: 12, Faults: -1, Drops: -1, Workers: 2, Bug: applyUncommitted}
	res, err := Search(sc, o)
	require.NoError(t, err)
	require.NotNil(t, res.Violation, "BFS finds entries applied before they commit")
	v := res.Violation
	assert.Contains(t, v.Err.Error(), "applied entries are committed")
	assert.Len(t, v.Steps, len(v.Path))
	assert.False(t, res.Complete)

	again, err := Replay(sc, o, v.Path)
	require.NoError(t, err)
	assert.Equal(t, v.Summary, again.Summary, "the path replays to the same run")
	assert.Equal(t, v.Err.Error(), again.Err.Error())
	assert.Equal(t, v.Steps, again.Steps)

	// No shorter schedule breaks it: BFS to one step less finds nothing.
	o.Depth = len(v.Path) - 1
	shorter, err := Search(sc, o)
	require.NoError(t, err)
	assert.Nil(t, shorter.Violation)
	assert.True(t, shorter.Complete)
}

func TestRandomWalksFindStaleTruncationAndReplay(t *testing.T) {
	sc := scenario(t, "raft-write")
	for _, st := range []Strategy{DFS, PCT} {
		o := Options{Strategy: st, Seed: 1, Depth: 40, Budget: 20000, Faults: -1, Drops: -1, Bug: truncateStale}
		res, err := Search(sc, o)
		require.NoError(t, err)
		require.NotNil(t, res.Violation, "%s finds the stale truncation", st)
		assert.LessOrEqual(t, res.States, 20000)
		again, err := Replay(sc, o, res.Violation.Path)
		require.NoError(t, err)
		assert.Equal(t, res.Violation.Summary, again.Summary, "%s's path replays to the same run", st)
		require.Error(t, again.Err)
	}
}

func TestTheGoalsShortestSchedule(t *testing.T) {
	sc := scenario(t, "raft-write")
	res, err := Search(sc, Options{Strategy: BFS, Depth: 20, Faults: -1, Drops: -1, Workers: 2, StopAtGoal: true})
	require.NoError(t, err)
	require.NotNil(t, res.Goal, "some schedule gets the write applied")
	// An election (pre-vote and vote rounds: a timer, two requests and
	// two replies at the least) and a replication round.
	assert.Less(t, len(res.Goal.Path), 12)
	assert.Nil(t, res.Goal.Err)
	f, err := Replay(sc, Options{Strategy: BFS, Depth: 20, Faults: -1, Drops: -1}, res.Goal.Path[:len(res.Goal.Path)-1])
	require.NoError(t, err)
	assert.NotEqual(t, res.Goal.Summary, f.Summary)
}

func TestFaultsAndDropsAreBudgeted(t *testing.T) {
	sc := scenario(t, "raft-write-crash")
	res, err := Search(sc, Options{Strategy: DFS, Seed: 3, Depth: 40, Budget: 4000, Faults: -1, Drops: 1, Dups: 1})
	require.NoError(t, err)
	assert.Nil(t, res.Violation, "the correct code survives a crash, a drop and a duplicate: %v", res.Violation)
	sawDup := false
	for k := range 20 {
		w := walk(sc, &res.Options, uint64(k), nil)
		require.NoError(t, w.fail)
		r, err := replay(sc, &res.Options, w.path, true)
		require.NoError(t, err)
		crashes, drops, dups := 0, 0, 0
		for _, s := range r.steps {
			if strings.HasPrefix(s, "duplicate") {
				dups++
			}
			if len(s) > 5 && s[:5] == "crash" {
				crashes++
			}
			if len(s) > 4 && s[:4] == "drop" {
				drops++
			}
		}
		assert.LessOrEqual(t, crashes, 1, "walk %d: %v", k, r.steps)
		assert.LessOrEqual(t, drops, 1, "walk %d: %v", k, r.steps)
		assert.LessOrEqual(t, dups, 1, "walk %d: %v", k, r.steps)
		sawDup = sawDup || dups > 0
	}
	assert.True(t, sawDup, "some walk duplicated a request")
}

func TestBadOptionsAreRefused(t *testing.T) {
	sc := scenario(t, "raft-write")
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Strategy: "dijkstra", Depth: 3}, `unknown strategy "dijkstra"`},
		{Options{Strategy: BFS, Depth: 0}, "depth 0 is not positive"},
		{Options{Strategy: DFS, Depth: 3}, "needs a budget"},
		{Options{Strategy: BFS, Depth: 3, Faults: -2}, "fault budget -2"},
		{Options{Strategy: PCT, Depth: 3, Budget: 10, D: -1}, "d = -1"},
		{Options{Strategy: BFS, Depth: 3, Bug: "no such bug"}, `no bug "no such bug"`},
	} {
		_, err := Search(sc, c.o)
		require.Error(t, err, "%+v", c.o)
		assert.Contains(t, err.Error(), c.want)
	}
	_, err := Replay(sc, Options{Strategy: BFS, Depth: 3}, Path{7})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "step 0 asks for option 7 of 1")
}

func TestPaths(t *testing.T) {
	p, err := ParsePath("0,3,12")
	require.NoError(t, err)
	assert.Equal(t, Path{0, 3, 12}, p)
	assert.Equal(t, "0,3,12", p.String())
	_, err = ParsePath("0,x")
	assert.ErrorContains(t, err, `path step "x"`)
	_, err = ParsePath("-1")
	assert.ErrorContains(t, err, `path step "-1"`)
	p, err = ParsePath("")
	require.NoError(t, err)
	assert.Empty(t, p)
}

func TestPCTRunsTheActorOfHighestPriority(t *testing.T) {
	p := &pct{prio: []int{5, 9, 7, 6}, change: map[int]int{1: 1}, d: 2}
	opts := []option{{}, {}, {}}
	opts[0].choice.Host, opts[1].choice.Host = 0, 2
	opts[2].choice.Message, opts[2].choice.Info.To = true, 1
	assert.Equal(t, 2, p.pick(0, opts, []int{0, 1, 2}), "host 1 receives the message, and has priority 9")
	assert.Equal(t, 2, p.pick(1, opts, []int{0, 1, 2}), "a change point: host 1 runs, then drops")
	assert.Equal(t, 1, p.prio[1])
	assert.Equal(t, 1, p.pick(2, opts, []int{0, 1, 2}), "host 2 now leads")
}

func TestAFindingIsWrittenAsARunFileThatReplays(t *testing.T) {
	sc := scenario(t, "raft-write-crash")
	o := Options{Strategy: PCT, Seed: 1, Depth: 40, Budget: 20000, Faults: -1, Drops: -1, Bug: "vote granted without the log-up-to-date check"}
	res, err := Search(sc, o)
	require.NoError(t, err)
	require.NotNil(t, res.Violation)
	file, err := RunFile(sc, res.Options, res.Violation)
	require.NoError(t, err)
	require.NoError(t, file.Check())
	assert.Equal(t, "search raft-write-crash", file.Scenario)
	assert.Equal(t, Kind(res.Violation.Err), file.Verdict.Kind)
	assert.Equal(t, res.Violation.Err.Error(), file.Verdict.Problem)
	assert.NotEmpty(t, file.Events)
	assert.Equal(t, len(file.Events)-1, file.Verdict.At)

	var buf bytes.Buffer
	require.NoError(t, runfile.Write(&buf, file))
	back, err := runfile.Read(&buf)
	require.NoError(t, err)
	f, err := ReplayRunFile(RaftScenarios(), back)
	require.NoError(t, err)
	assert.Equal(t, res.Violation.Summary, f.Summary, "the run file replays to the same run")

	back.Summary.Hash = "0123456789abcdef"
	_, err = ReplayRunFile(RaftScenarios(), back)
	assert.ErrorContains(t, err, "not its 0123456789abcdef")
	back.Scenario = "swarm-raft"
	_, err = ReplayRunFile(RaftScenarios(), back)
	assert.ErrorContains(t, err, `not of a search`)
}

func TestWalksFindALostVoteAndAKeptConflictingSuffix(t *testing.T) {
	// Each needs faults in quick succession (a crash right after a vote;
	// a leader crashed before it replicates), which the walks whose drawn
	// fault chance is high make; no scenario is written for either.
	for _, c := range []struct {
		scenario, bug, want string
		st                  Strategy
		depth               int
	}{
		{"raft-writes-crash", "votedFor not persisted", "election safety", PCT, 60},
		{"raft-choices-crash", "conflicting suffix not truncated", "persisted state", DFS, 100},
	} {
		sc := scenario(t, c.scenario)
		o := Options{Strategy: c.st, Seed: 1, Depth: c.depth, Budget: 100_000, Faults: -1, Drops: -1, Workers: 2, Bug: c.bug}
		res, err := Search(sc, o)
		require.NoError(t, err)
		require.NotNil(t, res.Violation, "%s finds %q in %s", c.st, c.bug, c.scenario)
		assert.Equal(t, c.want, Kind(res.Violation.Err), "%v", res.Violation.Err)
		again, err := Replay(sc, o, res.Violation.Path)
		require.NoError(t, err)
		assert.Equal(t, res.Violation.Summary, again.Summary, "the path replays to the same run")
		t.Logf("%s %s: %d states, %d steps: %v", c.scenario, c.st, res.States, len(res.Violation.Path), res.Violation.Err)
	}
	// The correct code survives the same searches.
	for _, name := range []string{"raft-writes-crash", "raft-choices-crash"} {
		res, err := Search(scenario(t, name), Options{Strategy: DFS, Seed: 1, Depth: 100, Budget: 15_000, Faults: -1, Drops: -1, Workers: 2})
		require.NoError(t, err)
		assert.Nil(t, res.Violation, "%s: %v", name, res.Violation)
	}
}

func TestTheFigure8ScheduleIsWithinRaftChoicesCrash(t *testing.T) {
	// Written by hand (a scripted policy: write to the leader and crash
	// it, twice; restart the first, let it commit its old entry by count;
	// crash it and restart the second), not found by search: it shows
	// that the scenario's budgets reach Figure 8 and that leader
	// completeness catches it, not that a search finds it.
	path, err := ParsePath("0,0,0,0,0,0,0,0,4,7,0,0,0,0,0,0,0,0,0,2,5,3,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0")
	require.NoError(t, err)
	sc := scenario(t, "raft-choices-crash")
	f, err := Replay(sc, Options{Strategy: DFS, Seed: 1, Depth: 100, Budget: 1, Faults: -1, Drops: -1, Bug: "commit by counting replicas of an old-term entry"}, path)
	require.NoError(t, err)
	require.Error(t, f.Err)
	assert.Equal(t, "leader completeness", Kind(f.Err), "%v", f.Err)
	assert.Contains(t, f.Steps, "client writes to server 0")
	assert.Contains(t, f.Steps, "crash server 1")
}

func TestInOrderFiresTheWorldsOwnOrder(t *testing.T) {
	// Without faults, drops or client choices, a search in order has one
	// schedule: Step's.
	sc := scenario(t, "raft-write")
	res, err := Search(sc, Options{Strategy: BFS, Depth: 12, Faults: 0, Drops: 0, InOrder: true})
	require.NoError(t, err)
	assert.True(t, res.Complete)
	assert.Equal(t, 13, res.States, "one state a level, and the initial one")
	f, err := Replay(sc, Options{Strategy: BFS, Depth: 12}, make(Path, 12))
	require.NoError(t, err)
	r, err := replay(sc, &res.Options, make(Path, 12), false)
	require.NoError(t, err)
	assert.Equal(t, f.Summary, r.sys.World.Summary(), "in order, every step takes the first event")
}

func TestGuidedWalksStartFromNewCoverageAndReplay(t *testing.T) {
	sc := scenario(t, "raft-write-crash")
	o := Options{Strategy: Guided, Seed: 1, Depth: 60, Budget: 20_000, Faults: -1, Drops: -1, Workers: 2, Bug: truncateStale}
	res, err := Search(sc, o)
	require.NoError(t, err)
	require.NotNil(t, res.Violation, "guided walks find the stale truncation")
	again, err := Replay(sc, o, res.Violation.Path)
	require.NoError(t, err)
	assert.Equal(t, res.Violation.Summary, again.Summary, "the path replays to the same run")
	o.Workers = 1
	one, err := Search(sc, o)
	require.NoError(t, err)
	assert.Equal(t, res.States, one.States, "the result does not depend on the workers")
	assert.Equal(t, res.Violation.Path, one.Violation.Path)

	// A walk starts from a schedule of the corpus: its first steps are it.
	w := walk(sc, &res.Options, 7, res.Violation.Path[:10])
	require.NoError(t, w.fail)
	assert.Equal(t, res.Violation.Path[:10], w.path[:10])
	assert.LessOrEqual(t, len(w.path), 10+guidedSteps)
	assert.Len(t, w.covers, len(w.path))
}

// figure8Found is the schedule that `labsim search raft-choices-crash
// -strategy guided -inorder -depth 100 -budget 3000000 -plant "commit by
// counting replicas of an old-term entry"` found (docs/search.md's fig8
// section regenerates it): kept so that the suite replays it without the
// minute the search takes.
const figure8Found = "0,0,0,0,0,0,0,0,0,0,0,3,5,0,0,0,0,0,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3,0,0,0,0,0,3,0,0,0,4,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"

func TestTheFigure8ScheduleGuidedSearchFoundReplays(t *testing.T) {
	path, err := ParsePath(figure8Found)
	require.NoError(t, err)
	sc := scenario(t, "raft-choices-crash")
	o := Options{Strategy: Guided, Seed: 1, Depth: 100, Budget: 1, Faults: -1, Drops: -1, Bug: "commit by counting replicas of an old-term entry"}
	f, err := Replay(sc, o, path)
	require.NoError(t, err)
	require.Error(t, f.Err)
	assert.Equal(t, "leader completeness", Kind(f.Err), "%v", f.Err)
	file, err := RunFile(sc, o, f)
	require.NoError(t, err)
	back, err := ReplayRunFile(RaftScenarios(), file)
	require.NoError(t, err)
	assert.Equal(t, f.Summary, back.Summary, "the run file replays to the same trace hash")
}

// BenchmarkBFS explores raft-write breadth-first to depth 6 (each state
// built afresh and replayed to); it reports states per second.
func BenchmarkBFS(b *testing.B) {
	sc := RaftScenarios()[0]
	states := 0
	for b.Loop() {
		res, err := Search(sc, Options{Strategy: BFS, Depth: 6, Faults: -1, Drops: -1, Workers: 1})
		require.NoError(b, err)
		states += res.States
	}
	b.ReportMetric(float64(states)/b.Elapsed().Seconds(), "states/s")
}

const preElection = "pre-election outlives hearing the leader (breaks leases)"

// leaseSchedule plays a scripted policy on raft-choices-isolate under o
// and returns the path it took: the world's own order (the first option)
// but at the steps it names. A client write to the first leader L; once L
// has committed it, L cut off; once some server X's pre-vote request has
// been granted, that grant held back and a bridge through X (L and the
// third server cut apart, each still talking to X); the events in order,
// but the held grant and any pre-vote request to X, until X has
// acknowledged a heartbeat of L's (renewing L's lease); then the held
// grant; L cut off again; a client write to X once it leads; the rest in
// order, to a violation or the depth.
func leaseSchedule(t *testing.T, sc Scenario, o Options) Path {
	t.Helper()
	require.NoError(t, o.validate(sc))
	r, err := start(sc, &o, false)
	require.NoError(t, err)
	field := func(h int, name string) string {
		for _, f := range r.sys.World.Hosts()[h].State() {
			if f.Name == "raft."+name {
				return f.Value
			}
		}
		return ""
	}
	first := func(opts []option, want func(string) bool) int {
		for i, op := range opts {
			if want(op.String()) {
				return i
			}
		}
		return -1
	}
	is := func(s string) func(string) bool { return func(x string) bool { return x == s } }
	var path Path
	phase, held, l, x := 0, "", "", ""
	for len(path) < o.Depth && r.err == nil {
		opts := r.options()
		i := 0
		switch phase {
		case 0:
			for h := range 3 {
				if field(h, "role") == "leader" && field(h, "log") == "0" {
					i = max(0, first(opts, is(fmt.Sprintf("client writes to server %d", h))))
				}
				if field(h, "role") == "leader" && field(h, "commit") == "1" {
					l, phase = fmt.Sprint(h), 1
					i = first(opts, is("cut server "+l+" off"))
				}
			}
		case 1:
			if j := first(opts, func(s string) bool { return strings.HasPrefix(s, "deliver Raft.RequestVote reply") }); j >= 0 {
				held = strings.Split(opts[j].String(), " (")[0]
				x, phase = held[len(held)-1:], 2
				i = first(opts, is("bridge: servers cut apart but for server "+x))
			}
		case 2:
			i = first(opts, func(s string) bool {
				return !strings.HasPrefix(s, held) && !(strings.HasPrefix(s, "deliver Raft.RequestVote ") && strings.Contains(s, "→"+x))
			})
			if i >= 0 && strings.HasPrefix(opts[i].String(), "deliver Raft.AppendEntries reply "+x+"→"+l) {
				phase = 3
			}
		case 3:
			i, phase = first(opts, func(s string) bool { return strings.HasPrefix(s, held) }), 4
		case 4:
			i, phase = first(opts, is("cut server "+l+" off")), 5
		case 5:
			if j := first(opts, is("client writes to server "+x)); j >= 0 {
				i, phase = j, 6
			}
		}
		require.GreaterOrEqual(t, i, 0, "step %d, phase %d: no option for the policy among %v", len(path), phase, opts)
		r.take(i)
		path = append(path, i)
	}
	return path
}

func TestTheLeaseScheduleIsWithinRaftChoicesIsolate(t *testing.T) {
	// Written by hand (leaseSchedule's policy), not found by search: it
	// shows that the bridge puts the pre-election bug within the
	// scenario's budgets (three faults, two writes, one message held
	// back) and that lease safety catches it; and that the correct code,
	// played the same policy, holds.
	sc := scenario(t, "raft-choices-isolate")
	o := Options{Strategy: DFS, Seed: 2, Depth: 100, Budget: 1, Faults: -1, Drops: -1, Bug: preElection}
	path := leaseSchedule(t, sc, o)
	f, err := Replay(sc, o, path)
	require.NoError(t, err)
	require.Error(t, f.Err)
	assert.Equal(t, "lease safety", Kind(f.Err), "%v", f.Err)
	assert.Contains(t, f.Steps, "bridge: servers cut apart but for server 2")
	assert.Contains(t, f.Steps, "client writes to server 2")
	t.Logf("%d steps: %v", len(path), f.Err)

	o.Bug = ""
	path = leaseSchedule(t, sc, o)
	f, err = Replay(sc, o, path)
	require.NoError(t, err)
	assert.NoError(t, f.Err, "the correct code holds its leases under the same policy")
	assert.Len(t, path, o.Depth)
}

func TestBridgesAreBudgetedAndTheCorrectCodeSurvivesThem(t *testing.T) {
	sc := scenario(t, "raft-choices-isolate")
	res, err := Search(sc, Options{Strategy: DFS, Seed: 1, Depth: 100, Budget: 15_000, Faults: -1, Drops: -1, Workers: 2})
	require.NoError(t, err)
	assert.Nil(t, res.Violation, "the correct code survives isolations and bridges: %v", res.Violation)
	bridged := 0
	for k := range 20 {
		w := walk(sc, &res.Options, uint64(k), nil)
		require.NoError(t, w.fail)
		r, err := replay(sc, &res.Options, w.path, true)
		require.NoError(t, err)
		faults := 0
		for _, s := range r.steps {
			if strings.HasPrefix(s, "bridge") || strings.HasPrefix(s, "cut server") {
				faults++
			}
			if strings.HasPrefix(s, "bridge") {
				bridged++
			}
		}
		assert.LessOrEqual(t, faults, 3, "walk %d: %v", k, r.steps)
	}
	assert.Positive(t, bridged, "some walk bridged")

	// BFS in the world's order, whose only choices are the faults and the
	// writes, explores its whole space to a depth and finds nothing.
	bfsRes, err := Search(sc, Options{Strategy: BFS, Depth: 8, Faults: -1, Drops: 0, InOrder: true, Workers: 2})
	require.NoError(t, err)
	assert.True(t, bfsRes.Complete)
	assert.Nil(t, bfsRes.Violation)
	t.Logf("bfs -inorder to depth 8: %d states, %d distinct, %v", bfsRes.States, bfsRes.Distinct, bfsRes.Wall)
}

// leaseFound is the schedule that `labsim search raft-choices-isolate
// -strategy pct -depth 100 -budget 1000000 -plant "pre-election outlives
// hearing the leader (breaks leases)"` found (docs/search.md's lease
// section regenerates it): kept so that the suite replays it without the
// minute the search takes.
const leaseFound = "0,1,2,0,3,3,4,4,10,6,6,6,6,6,6,6,4,5,5,6,6,6,6,6,6,12,6,7,7,8,8,8,8,0,7,12,0,6,0,0,4,0,3,0,2,4,0,3,0,2,0,0,0,0,0,0,0,0,0,0,1,1,3,2,2,2,2,0,1"

func TestThePreElectionSchedulePCTFoundReplays(t *testing.T) {
	path, err := ParsePath(leaseFound)
	require.NoError(t, err)
	sc := scenario(t, "raft-choices-isolate")
	o := Options{Strategy: PCT, Seed: 1, Depth: 100, Budget: 1, Faults: -1, Drops: -1, Bug: preElection}
	f, err := Replay(sc, o, path)
	require.NoError(t, err)
	require.Error(t, f.Err)
	assert.Equal(t, "lease safety", Kind(f.Err), "%v", f.Err)
	assert.Contains(t, f.Steps, "bridge: servers cut apart but for server 2")
	file, err := RunFile(sc, o, f)
	require.NoError(t, err)
	back, err := ReplayRunFile(RaftScenarios(), file)
	require.NoError(t, err)
	assert.Equal(t, f.Summary, back.Summary, "the run file replays to the same trace hash")

	// The correct code does not take the same schedule: where the planted
	// bug elects a second leader inside the first's lease, it does not.
	o.Bug = ""
	_, err = Replay(sc, o, path)
	assert.ErrorIs(t, err, errReplay)
}
