package kit

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/replab/replab/sim/simtest"
)

// DefaultModule is the module path a kit has unless its writer names
// another.
const DefaultModule = "lab"

// A Submission is what a student hands in, and how to grade it.
type Submission struct {
	// Dir holds the student's files at their paths in the kit (such as
	// raft/raft.go), alone or in the whole kit as handed out.
	Dir string
	// Lab is the kit's lab, raft or kvraft; "" tells it from Dir: kvraft
	// if Dir has a kvraft directory, else raft if it has a raft one.
	Lab string
	// Module is the kit's module path; "" reads it from Dir's go.mod, or
	// else takes DefaultModule.
	Module string
	// Secret, if not "", draws the seeds from itself and the student's
	// files; "" draws them from the time.
	Secret string
	// Work is the directory the fresh kit is written into, emptied first;
	// "" is a new temporary directory, removed at the end. The go command
	// caches what it compiled by directory: a grader that grades many
	// submissions in the same Work compiles the kit once.
	Work string
	// Timeout bounds the run as go test's -timeout does; 0 is go test's
	// default.
	Timeout time.Duration
	// Progress, if not nil, is called as the run starts (with Test "")
	// and as each catalogue test starts and ends.
	Progress func(Step)
}

// A Step is a grade's run starting, or a catalogue test starting or
// ending in it.
type Step struct {
	Test   string // "" as the run starts
	Ended  bool   // false: it started
	Failed bool   // it ended failing
	Total  int    // the catalogue's tests
}

// GradeStudent grades a submission: it writes the lab's kit afresh, in
// memory, and refuses the submission (a sheet of 0 points that names
// each reason) if Dir holds a file that is neither the student's nor the
// kit's unchanged, or a student's file that screen finds fault with.
// Otherwise it writes the kit into Work with the student's files in place
// of the skeleton, runs go test -json on the lab's package there once,
// every test on seeds it draws (see chooseSeeds), and grades that run,
// checking its shape against the seeds and the harness's record of each
// test (see Sheet). An error says that no sheet could be made: Dir cannot
// be read, the lab cannot be told, the go command is missing or printed
// no test events.
func GradeStudent(sub Submission) (*Sheet, error) {
	if fi, err := os.Stat(sub.Dir); err != nil {
		return nil, fmt.Errorf("kit: %v", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("kit: %s is not a directory: a submission is a directory of the student's files", sub.Dir)
	}
	lab, err := sub.lab()
	if err != nil {
		return nil, err
	}
	module, err := sub.module()
	if err != nil {
		return nil, err
	}
	sp := specs[lab]
	kitFiles, err := sp.files(lab, module)
	if err != nil {
		return nil, err
	}
	files, refused, err := sp.collect(sub.Dir, kitFiles)
	if err != nil {
		return nil, err
	}
	allowed := append(slices.Clone(stdImports), sp.kitImports(module)...)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if strings.HasSuffix(name, ".go") {
			refused = append(refused, screen(name, files[name], allowed)...)
		}
	}
	var hashes []File
	for _, name := range slices.Sorted(maps.Keys(files)) {
		hashes = append(hashes, File{name, fmt.Sprintf("%x", sha256.Sum256(files[name]))})
	}
	if len(refused) > 0 {
		sheet := blankSheet(lab, module+"/"+lab, sp.catalogue())
		sheet.Graded, sheet.Files, sheet.Refused, sheet.Status = true, hashes, refused, "refused"
		sheet.sum()
		return sheet, nil
	}
	seeds, from := chooseSeeds(sp.seeds, sub.Secret, files, time.Now())
	events, records, err := sub.run(lab, kitFiles, files, seeds)
	if err != nil {
		return nil, err
	}
	sheet, err := gradeEvents(events, lab, &ownRun{seeds: seeds, records: records})
	if err != nil {
		return nil, err
	}
	sheet.SeedsFrom, sheet.Files = from, hashes
	return sheet, nil
}

// ErrNoLab says that a submission's lab was not given and its directory
// has neither a raft nor a kvraft directory to tell it by.
var ErrNoLab = errors.New("no raft or kvraft directory, so which lab is it? (a submission has the student's files at their paths in the kit, such as raft/raft.go)")

// lab returns the submission's lab.
func (sub Submission) lab() (string, error) {
	if sub.Lab != "" {
		if _, ok := specs[sub.Lab]; !ok {
			return "", fmt.Errorf("kit: unknown lab %q (there are %s)", sub.Lab, strings.Join(Kinds(), ", "))
		}
		return sub.Lab, nil
	}
	for _, kind := range []string{"kvraft", "raft"} { // the key/value kit has a raft directory too
		if fi, err := os.Stat(filepath.Join(sub.Dir, kind)); err == nil && fi.IsDir() {
			return kind, nil
		}
	}
	return "", fmt.Errorf("kit: %s: %w", sub.Dir, ErrNoLab)
}

// module returns the submission's module path.
func (sub Submission) module() (string, error) {
	if sub.Module != "" {
		return sub.Module, CheckModulePath(sub.Module)
	}
	gomod := filepath.Join(sub.Dir, "go.mod")
	b, err := os.ReadFile(gomod)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return DefaultModule, nil
	case err != nil:
		return "", fmt.Errorf("kit: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			module := strings.Trim(f[1], `"`)
			if err := CheckModulePath(module); err != nil {
				return "", fmt.Errorf("%v, in %s", err, gomod)
			}
			return module, nil
		}
	}
	return "", fmt.Errorf("kit: %s has no module line", gomod)
}

// collect returns the student's files in dir, by their slash-separated
// paths, and names each other file there that is not the kit's (kit)
// unchanged. Files and directories whose names begin with a dot are
// skipped, as the go command skips them.
func (sp spec) collect(dir string, kit map[string][]byte) (files map[string][]byte, refused []string, err error) {
	files = map[string][]byte{}
	present, changed := 0, 0 // the kit's files in dir, and those that differ
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case strings.HasPrefix(d.Name(), ".") && d.IsDir():
			return filepath.SkipDir
		case strings.HasPrefix(d.Name(), ".") || d.IsDir():
			return nil
		case !d.Type().IsRegular():
			refused = append(refused, rel+": not a regular file (a link?): hand in the files themselves")
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		want, ours := kit[rel]
		switch {
		case sp.isStudent(rel):
			files[rel] = b
		case !ours:
			refused = append(refused, fmt.Sprintf("%s: neither a file of the kit nor the student's (%s, but tests)", rel, strings.Join(sp.student, ", ")))
		case !bytes.Equal(b, want):
			present++
			changed++
			refused = append(refused, fmt.Sprintf("%s: the kit's file, changed: a grade runs the kit's files as the kit has them (SHA256SUMS lists them)", rel))
		default:
			present++
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("kit: %v", err)
	}
	if changed > 1 && 2*changed > present {
		refused = append(refused, fmt.Sprintf("%d of the kit's %d files in %s differ from the kit this labsim writes: was it written by another version of labsim? Grade with the version that wrote it", changed, present, dir))
	}
	if len(files) == 0 {
		refused = append(refused, fmt.Sprintf("%s holds none of the student's files (%s, but tests, at those paths)", dir, strings.Join(sp.student, ", ")))
	}
	return files, refused, nil
}

// A grade draws its seeds from [minGradeSeed, maxGradeSeed): above every
// seed a student runs with -seeds N, and short enough to type.
const (
	minGradeSeed = 1_000_001
	maxGradeSeed = 10_000_000_000
)

// chooseSeeds returns n seeds for a grade, and where they came from:
// drawn from secret and the student's files, so that the same files get
// the same seeds from the same grader and nobody without the secret can
// tell them in advance, or, without a secret, from the time now.
func chooseSeeds(n int, secret string, files map[string][]byte, now time.Time) ([]int64, string) {
	h := sha256.New()
	from := "drawn from the time"
	if secret != "" {
		from = "drawn from the grader's secret and the student's files"
		fmt.Fprintf(h, "%d:%s", len(secret), secret)
		for _, name := range slices.Sorted(maps.Keys(files)) {
			fmt.Fprintf(h, "%d:%s%d:", len(name), name, len(files[name]))
			h.Write(files[name])
		}
	} else {
		fmt.Fprintf(h, "%d", now.UnixNano())
	}
	sum := h.Sum(nil)
	seeds := make([]int64, n)
	for i := range seeds {
		block := sha256.Sum256(append(slices.Clone(sum), byte(i)))
		seeds[i] = minGradeSeed + int64(binary.BigEndian.Uint64(block[:8])%(maxGradeSeed-minGradeSeed))
	}
	return seeds, from
}

// run writes the kit (kitFiles, with the student's files in place of the
// skeleton's) into the submission's Work, runs go test -json on the lab's
// package there on seeds, and returns its events and the harness's
// records.
func (sub Submission) run(lab string, kitFiles, student map[string][]byte, seeds []int64) ([]event, []simtest.GradeRecord, error) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return nil, nil, fmt.Errorf("kit: grading runs the go command: %v", err)
	}
	dir := sub.Work
	if dir == "" {
		if dir, err = os.MkdirTemp("", "labsim-grade-"); err != nil {
			return nil, nil, fmt.Errorf("kit: %v", err)
		}
		defer os.RemoveAll(dir)
	} else if err := os.RemoveAll(dir); err != nil {
		return nil, nil, fmt.Errorf("kit: %v", err)
	}
	files := maps.Clone(student)
	for name, b := range kitFiles {
		if !specs[lab].isStudent(name) {
			files[name] = b
		}
	}
	if err := writeFiles(dir, files); err != nil {
		return nil, nil, fmt.Errorf("kit: %v", err)
	}
	f, err := os.CreateTemp("", "labsim-grade-record-")
	if err != nil {
		return nil, nil, fmt.Errorf("kit: %v", err)
	}
	record := f.Name()
	f.Close()
	defer os.Remove(record)
	args := []string{"test", "-json", "-count=1"}
	if sub.Timeout > 0 {
		args = append(args, "-timeout", sub.Timeout.String())
	}
	cmd := exec.Command(gobin, append(args, "./"+lab)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "SIM_SEED="+strings.ReplaceAll(seedList(seeds), " ", ""),
		"SIM_SEEDS=", "SIM_TRACE=", simtest.GradeRecordEnv+"="+record)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, fmt.Errorf("kit: %v", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("kit: %v", err)
	}
	if sub.Progress != nil {
		sub.Progress(Step{Total: len(specs[lab].catalogue())})
	}
	events, readErr := readEvents(out, sub.progress(lab))
	var exit *exec.ExitError
	if err := cmd.Wait(); err != nil && !errors.As(err, &exit) {
		return nil, nil, fmt.Errorf("kit: go test: %v", err)
	}
	if readErr != nil {
		return nil, nil, fmt.Errorf("kit: go test in %s: %v\n%s", dir, readErr, strings.TrimSpace(stderr.String()))
	}
	records, err := readRecords(record)
	return events, records, err
}

// progress returns the function that tells sub.Progress of each catalogue
// test of lab as it starts and ends, or nil.
func (sub Submission) progress(lab string) func(event) {
	if sub.Progress == nil {
		return nil
	}
	cat := specs[lab].catalogue()
	return func(e event) {
		if path.Base(e.Package) != lab || !slices.ContainsFunc(cat, func(g Graded) bool { return g.Name == e.Test }) {
			return
		}
		switch e.Action {
		case "run":
			sub.Progress(Step{Test: e.Test, Total: len(cat)})
		case "pass", "fail", "skip":
			sub.Progress(Step{Test: e.Test, Ended: true, Failed: e.Action == "fail", Total: len(cat)})
		}
	}
}

// readRecords returns the records the harness wrote into the file at p.
func readRecords(p string) ([]simtest.GradeRecord, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("kit: %v", err)
	}
	var records []simtest.GradeRecord
	dec := json.NewDecoder(bytes.NewReader(b))
	for dec.More() {
		var r simtest.GradeRecord
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("kit: the harness's record %s: %v", p, err)
		}
		records = append(records, r)
	}
	return records, nil
}
