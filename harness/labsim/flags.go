package labsim

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The bounds of labsim's flags, refused while parsing with an error that
// names the value.
const (
	maxParallel     = 256
	maxSeeds        = 1_000_000
	maxDemoHosts    = 100
	maxDemoDuration = time.Hour
)

// The flags that several commands share are defined here, once, so that
// they mean and check the same everywhere.

// seedFlag defines -seed: any int64.
func seedFlag(fs *flag.FlagSet, def int64, usage string) *int64 {
	return intFlag(fs, "seed", def, math.MinInt64, math.MaxInt64, usage)
}

// parallelFlag defines -parallel: how many runs at once, from 1 to
// maxParallel, by default one per CPU.
func parallelFlag(fs *flag.FlagSet, what string) *int64 {
	return intFlag(fs, "parallel", int64(runtime.GOMAXPROCS(0)), 1, maxParallel,
		fmt.Sprintf("run `P` %s at once, 1 to %d; the default is one per CPU", what, maxParallel))
}

// rangeInt is an integer flag's value that must lie in [min, max].
type rangeInt struct {
	v        *int64
	min, max int64
}

// intFlag defines an integer flag called name that refuses values outside
// [lo, hi].
func intFlag(fs *flag.FlagSet, name string, def, lo, hi int64, usage string) *int64 {
	v := &rangeInt{v: new(int64), min: lo, max: hi}
	*v.v = def
	fs.Var(v, name, usage)
	return v.v
}

func (r *rangeInt) String() string {
	if r.v == nil { // the zero value flag.PrintDefaults makes
		return "0"
	}
	return strconv.FormatInt(*r.v, 10)
}

// Set parses s; the flag package puts the value and the flag's name in
// front of the error.
func (r *rangeInt) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return fmt.Errorf("out of range: want %d to %d", r.min, r.max)
	case err != nil:
		return errors.New("not an integer")
	case n < r.min || n > r.max:
		return fmt.Errorf("out of range: want %d to %d", r.min, r.max)
	}
	*r.v = n
	return nil
}

// rangeDuration is a duration flag's value that must be positive and at
// most max.
type rangeDuration struct {
	v   *time.Duration
	max time.Duration
}

// durationFlag defines a duration flag called name that refuses values
// that are not positive or are more than hi.
func durationFlag(fs *flag.FlagSet, name string, def, hi time.Duration, usage string) *time.Duration {
	v := &rangeDuration{v: new(time.Duration), max: hi}
	*v.v = def
	fs.Var(v, name, usage)
	return v.v
}

func (r *rangeDuration) String() string {
	if r.v == nil {
		return "0s"
	}
	return shortDuration(*r.v)
}

// shortDuration writes d as time.Duration does, without zero minutes and
// seconds at the end: 1h, 1m, 1m30s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Set parses s as a duration such as 30s or 5m.
func (r *rangeDuration) Set(s string) error {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return errors.New("not a duration such as 30s, 5m or 1h")
	case d <= 0 || d > r.max:
		return fmt.Errorf("out of range: want more than 0s and at most %s", shortDuration(r.max))
	}
	*r.v = d
	return nil
}

// checkOut checks that files can be written into dir, creating nothing:
// dir must be a writable directory, or a new one in a writable directory
// that exists. A missing parent is refused, as -trace refuses one, not
// made: a typo in -out would otherwise make a chain of directories.
func checkOut(dir string) error {
	at := dir
	fi, err := os.Stat(dir)
	switch {
	case err == nil && !fi.IsDir():
		return usagef("-out %s: %s is not a directory", dir, dir)
	case err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return usagef("-out %s: %v", dir, errors.Unwrap(err))
	case err != nil:
		at = filepath.Dir(dir)
		parent, err := os.Stat(at)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return usagef("-out %s: its parent %s does not exist (labsim makes the last directory of -out only)", dir, at)
		case err != nil && !errors.Is(err, syscall.ENOTDIR):
			return usagef("-out %s: %v", dir, errors.Unwrap(err))
		case err != nil || !parent.IsDir():
			return usagef("-out %s: %s is not a directory", dir, at)
		}
	}
	f, err := os.CreateTemp(at, ".labsim-*")
	if err != nil {
		return usagef("-out %s: cannot write in %s", dir, at)
	}
	f.Close()
	return os.Remove(f.Name())
}

// isSet reports whether the flag called name was given.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
