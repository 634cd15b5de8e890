package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func labsim(args ...string) (string, error) {
	var out, errOut bytes.Buffer
	err := run(args, &out, &errOut)
	return out.String(), err
}

func TestDemoReplaysItsSeed(t *testing.T) {
	text, err := labsim("demo", "-seed", "3", "-duration", "10s")
	require.NoError(t, err)
	assert.Contains(t, text, "fault log (seed 3):")
	m := regexp.MustCompile(`trace=([0-9a-f]{16})`).FindStringSubmatch(text)
	require.NotNil(t, m, text)
	assert.Contains(t, text, "replayed seed 3: same trace hash "+m[1])

	other, err := labsim("demo", "-seed", "4", "-duration", "10s")
	require.NoError(t, err)
	assert.NotContains(t, other, m[1], "another seed, another trace")
}

func TestList(t *testing.T) {
	text, err := labsim("list")
	require.NoError(t, err)
	assert.Contains(t, text, "live-nodes")
	assert.Contains(t, text, "Raft-KV-with-ChaosMonkey paper, Fig. 9")
	assert.Contains(t, text, "kv-linearizability")
}

func TestRunWritesAnExperiment(t *testing.T) {
	dir := t.TempDir()
	text, err := labsim("run", "election-cdf", "-out", dir)
	require.NoError(t, err)
	assert.Contains(t, text, "election-cdf (seed 1")
	for _, f := range []string{"election-cdf.csv", "election-cdf.png", "election-cdf.svg"} {
		_, err := os.Stat(filepath.Join(dir, f))
		assert.NoError(t, err, f)
	}
}

func TestSweepAndReplay(t *testing.T) {
	dir := t.TempDir()
	text, err := labsim("sweep", "kv-linearizability", "-seeds", "4", "-shard", "1/2", "-out", dir)
	require.NoError(t, err)
	assert.Contains(t, text, "kv-linearizability: 2 seeds (shard 1/2 of 4 from 1), 0 failing")

	trace := filepath.Join(dir, "trace.txt")
	text, err = labsim("sweep", "kv-linearizability", "-seed", "2", "-trace", trace, "-out", dir)
	require.NoError(t, err)
	assert.Contains(t, text, "linearizable: ok")
	info, err := os.Stat(trace)
	require.NoError(t, err)
	assert.Positive(t, info.Size())
}

func TestBadCommandLines(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{nil, "no command given"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"run"}, "which experiment? (labsim list shows them)"},
		{[]string{"run", "fig99"}, `unknown experiment "fig99"; the experiments are: all-minority,`},
		{[]string{"run", "election-cdf", "-out", file}, "cannot write to " + file},
		{[]string{"figures", "-parallel", "0"}, "-parallel 0: must be at least 1"},
		{[]string{"sweep", "nope"}, `unknown scenario "nope"`},
		{[]string{"sweep", "kv-linearizability", "-seeds", "0", "-out", t.TempDir()}, "seed count 0 is not positive"},
		{[]string{"sweep", "kv-linearizability", "-shard", "3/2", "-out", t.TempDir()}, "shard 3/2: want i/n with 0 <= i < n"},
		{[]string{"sweep", "kv-linearizability", "-shard", "x", "-out", t.TempDir()}, `shard "x" is not of the form i/n`},
		{[]string{"sweep", "kv-linearizability", "-trace", "t", "-out", t.TempDir()}, "-trace goes with -seed"},
		{[]string{"demo", "-hosts", "0"}, "demo: -hosts 0: need at least one host"},
		{[]string{"demo", "-duration", "-1s"}, "demo: -duration -1s: must be positive"},
		{[]string{"demo", "-seed", "x"}, `invalid value "x" for flag -seed`},
		{[]string{"demo", "-trace", "/no/such/dir/trace"}, "demo: -trace: open /no/such/dir/trace"},
	} {
		_, err := labsim(tc.args...)
		require.Error(t, err, "%v", tc.args)
		assert.Contains(t, err.Error(), tc.err, "%v", tc.args)
	}
}
