package search

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/replab/replab/harness/runfile"
)

// RunFile replays what a search found (a violation, or the goal) with the
// world recording, and returns it as a run file: the scenario, the seed,
// what replays it (the bug, the budgets and the path, as drawn
// parameters), the events, the hosts' states, the faults applied, the
// verdict and the summary. It fails if the recorded replay does not end
// with the summary the search saw.
func RunFile(sc Scenario, o Options, f *Found) (*runfile.File, error) {
	if err := o.validate(sc); err != nil {
		return nil, err
	}
	r, err := start(sc, &o, true)
	if err != nil {
		return nil, err
	}
	w := r.sys.World
	rec := runfile.NewRecorder(w)
	w.SetRecorder(rec)
	for k, i := range f.Path {
		if opts := r.options(); i >= len(opts) {
			return nil, fmt.Errorf("%w: step %d asks for option %d of %d", errReplay, k, i, len(opts))
		}
		r.take(i)
	}
	file := rec.File()
	if got := w.Summary(); got != f.Summary {
		return nil, fmt.Errorf("search: the recorded replay of %s ends with %v, not the %v the search saw", sc.Name, got, f.Summary)
	}
	file.Scenario, file.Seed = "search "+sc.Name, o.Seed
	file.Drawn = []runfile.Param{
		{Name: "bug", Value: o.Bug},
		{Name: "faults", Value: strconv.Itoa(o.Faults)},
		{Name: "drops", Value: strconv.Itoa(o.Drops)},
		{Name: "dups", Value: strconv.Itoa(o.Dups)},
		{Name: "path", Value: f.Path.String()},
	}
	if r.sys.RunFaults != nil {
		file.Faults = r.sys.RunFaults()
	}
	if f.Err != nil {
		file.Verdict = runfile.Verdict{Problem: f.Err.Error(), Kind: Kind(f.Err), At: len(file.Events) - 1}
	}
	return file, nil
}

// Kind returns the kind of a violation a search found: the invariant's
// name that begins its message ("election safety", "log matching",
// "panic", ...).
func Kind(err error) string {
	kind, _, _ := strings.Cut(err.Error(), ":")
	return kind
}

// ReplayRunFile replays the run file of a search's finding (RunFile's)
// among the scenarios scs, and fails unless the replay ends with the trace
// hash the file holds.
func ReplayRunFile(scs []Scenario, file *runfile.File) (*Found, error) {
	name, ok := strings.CutPrefix(file.Scenario, "search ")
	if !ok {
		return nil, fmt.Errorf("search: run file of %q, not of a search", file.Scenario)
	}
	i := slicesIndex(scs, name)
	if i < 0 {
		return nil, fmt.Errorf("search: run file of unknown scenario %q", name)
	}
	o := Options{Strategy: BFS, Seed: file.Seed, Depth: 1}
	var path Path
	for _, p := range file.Drawn {
		var err error
		switch p.Name {
		case "bug":
			o.Bug = p.Value
		case "faults":
			o.Faults, err = strconv.Atoi(p.Value)
		case "drops":
			o.Drops, err = strconv.Atoi(p.Value)
		case "dups":
			o.Dups, err = strconv.Atoi(p.Value)
		case "path":
			path, err = ParsePath(p.Value)
		}
		if err != nil {
			return nil, fmt.Errorf("search: run file's %s %q: %v", p.Name, p.Value, err)
		}
	}
	f, err := Replay(scs[i], o, path)
	if err != nil {
		return nil, err
	}
	if got := runfile.SummaryOf(f.Summary).Hash; got != file.Summary.Hash {
		return f, fmt.Errorf("search: the replay of the run file ends with trace hash %s, not its %s", got, file.Summary.Hash)
	}
	return f, nil
}

// slicesIndex returns the index of the scenario called name in scs, or -1.
func slicesIndex(scs []Scenario, name string) int {
	for i, sc := range scs {
		if sc.Name == name {
			return i
		}
	}
	return -1
}
