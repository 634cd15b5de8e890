package simtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/sim"
)

// recordWorld records w if a record directory is set (-simrecord or
// SIM_RECORD): if t fails, its run file (every event, the hosts' states,
// the summary; the test's own messages are in its log) is written there,
// named after the test and seed, for labsim view, and t logs its path.
func recordWorld(t testing.TB, w *sim.World) {
	dir := *recordFlag
	if dir == "" {
		dir = os.Getenv("SIM_RECORD")
	}
	if dir == "" {
		return
	}
	rec := runfile.NewRecorder(w)
	w.SetRecorder(rec)
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		path, err := writeFailed(dir, t.Name(), w.Seed(), rec.File())
		if err != nil {
			t.Logf("simtest: run file not written: %v", err)
			return
		}
		t.Logf("run file: %s (labsim view %s draws it)", path, path)
	})
}

// writeFailed writes f, the recording of a failed test called name on
// seed, into dir, and returns its path.
func writeFailed(dir, name string, seed int64, f *runfile.File) (string, error) {
	f.Scenario, f.Seed = "test "+name, seed
	f.Verdict = runfile.Verdict{Problem: fmt.Sprintf("the test %s failed on seed %d (its log says why)", name, seed), Kind: "test", At: len(f.Events) - 1}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, fmt.Sprintf("%s.seed%d.run.json", strings.NewReplacer("/", "_", " ", "_").Replace(name), seed))
	return path, runfile.Save(path, f)
}
