// Package experiments is the catalogue of the lab's experiments: named,
// seeded functions that build a world, run a workload under faults and
// return the data and figures that reproduce the papers' results. The same
// seed gives the same rows, and byte-identical files.
package experiments

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/replab/replab/plots"
)

// An Experiment is a named, seeded run that produces data and figures.
type Experiment struct {
	Name        string
	Reproduces  string // the paper figure or table it regenerates
	Description string // one line
	Seed        int64  // the pinned seed `labsim figures` uses
	// Full says what Params.Full changes, where the default run is cut
	// down to keep `labsim figures` short: "counts over 5 s instead of
	// 0.5 s", say; "" if the default is the paper's whole scale.
	Full string
	Run  func(p Params) (*Result, error)
}

// Params are what one run of an experiment is given.
type Params struct {
	Seed int64
	// Full runs the paper's whole scale where an experiment's default
	// run is cut down to keep `labsim figures` short (the caption says
	// which); experiments without a cut ignore it.
	Full bool
}

// A Result is what an experiment produced.
type Result struct {
	Table   *plots.Table
	Figures []plots.Figure
	Notes   []string // a few lines for the terminal
}

// All returns every experiment, sorted by name.
func All() []Experiment {
	all := []Experiment{
		concurrencyExperiment(),
		putLatencyExperiment(),
		leaderFailureExperiment(),
		valueSizeExperiment(),
		isolateLeaderExperiment(),
		allMinorityExperiment(),
		timeoutRangeExperiment(),
		liveNodesExperiment(),
		electionCDFExperiment(),
		kvReplicationExperiment(),
		frangipaniTablesExperiment(),
		frangipaniContentionExperiment(),
		txnLatencyExperiment(),
		txnFailoverExperiment(),
		txnScalingExperiment(),
		concurrentMapExperiment(),
		acidTableExperiment(),
		acidShardsExperiment(),
		acidCrashExperiment(),
		acidReadsExperiment(),
		acidCompareExperiment(),
		namiLatencyExperiment(),
		namiWorkersExperiment(),
		namiCacheExperiment(),
		namiFailoverExperiment(),
		headToHeadExperiment(),
	}
	slices.SortFunc(all, func(a, b Experiment) int { return strings.Compare(a.Name, b.Name) })
	return all
}

// Lookup returns the experiment called name, or an error that lists the
// experiments there are.
func Lookup(name string) (Experiment, error) {
	var names []string
	for _, e := range All() {
		if e.Name == name {
			return e, nil
		}
		names = append(names, e.Name)
	}
	return Experiment{}, fmt.Errorf("unknown experiment %q; the experiments are: %s", name, strings.Join(names, ", "))
}

// Write saves the result in dir as name.csv and a PNG and an SVG per
// figure, and returns the paths written.
func (r *Result) Write(dir, name string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, name+".csv")
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	err = r.Table.WriteCSV(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	paths := []string{path}
	for _, fig := range r.Figures {
		ps, err := fig.Save(dir)
		if err != nil {
			return nil, err
		}
		paths = append(paths, ps...)
	}
	return paths, nil
}
