package labsim

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/replab/replab/harness/sweep"
)

// resultsWriter writes a sweep's results file (sweep.ResultsFormat): each
// seed's line in seed order, as soon as every seed before it has ended, so
// that a shard cut short leaves the lines of the seeds it finished; then
// the summary. It holds back only the lines of seeds that ended before an
// earlier one: about as many as run at once.
type resultsWriter struct {
	path string
	f    *os.File
	w    *bufio.Writer
	next int            // the index of the next seed to write
	held map[int][]byte // lines of seeds that ended before seed next
	err  error          // the first error, after which nothing is written
}

// resultsPath returns the file that -json path names for a shard of
// scenario: path itself, or, if path is a directory (or ends in a slash),
// SCENARIO.jsonl in it, SCENARIO.I-of-N.jsonl for a shard of N.
func resultsPath(path, scenario string, sh *shard) string {
	if fi, err := os.Stat(path); !(err == nil && fi.IsDir()) && !strings.HasSuffix(path, "/") && !strings.HasSuffix(path, string(filepath.Separator)) {
		return path
	}
	name := scenario + ".jsonl"
	if sh.n > 1 {
		width := len(fmt.Sprint(sh.n - 1))
		name = fmt.Sprintf("%s.%0*d-of-%d.jsonl", scenario, width, sh.i, sh.n)
	}
	return filepath.Join(path, name)
}

// createResults creates the results file at path (and the directory it is
// in, if the flag's value given ended in a slash), or returns a usage
// error naming it.
func createResults(flag, given, path string) (*resultsWriter, error) {
	if strings.HasSuffix(given, "/") {
		// The last directory only, as -out: a typo would otherwise make a chain.
		dir := filepath.Dir(path)
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			if errors.Is(err, os.ErrNotExist) {
				return nil, usagef("%s %s: its parent %s does not exist (labsim makes the last directory only)", flag, given, filepath.Dir(dir))
			}
			return nil, usagef("%s %s: cannot make the directory: %v", flag, given, errors.Unwrap(err))
		}
	}
	f, err := os.Create(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, usagef("%s %s: cannot write %s: %v", flag, given, path, err)
	}
	return &resultsWriter{path: path, f: f, w: bufio.NewWriter(f), held: map[int][]byte{}}, nil
}

// seed takes the line of the seed at index k of the sweep's seeds, and
// writes it and those held back after it once every seed before it is in.
func (r *resultsWriter) seed(k int, rec sweep.SeedRecord) {
	r.held[k] = r.marshal(rec)
	for {
		line, ok := r.held[r.next]
		if !ok {
			return
		}
		delete(r.held, r.next)
		r.next++
		r.write(line)
	}
}

// finish writes the summary and closes the file, returning the first
// error met.
func (r *resultsWriter) finish(sum sweep.SummaryRecord) error {
	if len(r.held) > 0 && r.err == nil {
		r.err = fmt.Errorf("%d seed lines held back for a seed that never ended", len(r.held))
	}
	r.write(r.marshal(sum))
	if err := r.w.Flush(); err != nil && r.err == nil {
		r.err = err
	}
	if err := r.f.Close(); err != nil && r.err == nil {
		r.err = err
	}
	if r.err != nil {
		return fmt.Errorf("writing the results to %s: %v", r.path, r.err)
	}
	return nil
}

// marshal encodes a line; the records are plain data, so it cannot fail.
func (r *resultsWriter) marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// write writes a line, unless an error came before.
func (r *resultsWriter) write(line []byte) {
	if r.err == nil {
		_, r.err = r.w.Write(line)
	}
}

// seedRecord is the results line of outcome o of scenario (with plant, if
// any), which replay replays.
func seedRecord(o sweep.Outcome, scenario, plant, replay string) sweep.SeedRecord {
	rec := sweep.SeedRecord{
		Format: sweep.ResultsFormat, Kind: sweep.KindSeed, Scenario: scenario, Plant: plant, Seed: o.Seed,
		Drawn: sweep.DrawnMap(o.Drawn), Verdict: sweep.VerdictOK, Ops: o.Ops,
		VirtualSeconds: o.Summary.Now.Seconds(), WallSeconds: o.Wall.Seconds(),
		Events: o.Summary.Events, Trace: fmt.Sprintf("%016x", o.Summary.Hash), Replay: replay,
	}
	if !o.OK() {
		rec.Verdict, rec.Problem, rec.File = sweep.VerdictFail, problemAlone(o), o.HTML
	}
	return rec
}

// problemAlone returns o's problem without the visualization's path, which
// is shown on its own.
func problemAlone(o sweep.Outcome) string {
	if o.HTML == "" {
		return o.Problem
	}
	return strings.TrimSuffix(o.Problem, "; visualization: "+o.HTML)
}

// buildName names the running program's build: its module, version and
// VCS revision (with +dirty if the tree had changes), as far as the
// binary knows them.
func buildName() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	name := bi.Main.Path + "@" + bi.Main.Version
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" {
		name += " " + rev
		if dirty {
			name += "+dirty"
		}
	}
	return name
}
