package labsim

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// porcupineKV is one of porcupine's key/value histories, kept beside the
// checker.
func porcupineKV(name string) string {
	return filepath.Join("..", "..", "checks", "linearize", "testdata", "porcupine-kv", name+".txt")
}

func TestCheckFile(t *testing.T) {
	ok := labsim(nil, "check", porcupineKV("c10-ok"))
	require.Equal(t, exitOK, ok.code, ok.stderr)
	assert.Regexp(t, `c10-ok.txt: linearizable: 337 operations on 10 keys, checked in \S+\n$`, ok.stdout)
	unlimited := labsim(nil, "check", porcupineKV("c10-ok"), "-timeout", "0")
	assert.Equal(t, exitOK, unlimited.code, "-timeout 0 is no limit: %s", unlimited.stderr)

	dir := t.TempDir()
	quiet := fakeEnv()
	quiet.quiet = time.Hour // no progress
	bad := labsim(quiet, "check", porcupineKV("c10-bad"), "-out", dir)
	assert.Equal(t, exitFailed, bad.code)
	html := filepath.Join(dir, "c10-bad.html")
	assert.Regexp(t, `^.*c10-bad.txt: history of 405 operations is not linearizable: key "\d": operation \d+, get\("\d"\) .* \(client \d+, lines \d+ to \d+\), .*; visualization: `+regexp.QuoteMeta(html)+"\n$", bad.stdout,
		"the verdict on standard output, as a pass's, with the log's lines for times")
	assert.Regexp(t, `^labsim check: .*c10-bad.txt: not linearizable\n$`, bad.stderr)
	_, err := os.Stat(html)
	assert.NoError(t, err)

	none := labsim(nil, "check", porcupineKV("c01-bad"))
	assert.Equal(t, exitFailed, none.code)
	assert.NotContains(t, none.stdout, "visualization", "without -out, nothing is drawn")
}

func TestCheckStdin(t *testing.T) {
	e := fakeEnv()
	e.quiet = time.Hour // no progress
	e.stdin = strings.NewReader(`{:process 0, :type :invoke, :f :put, :key "x", :value "1"}
{:process 0, :type :ok, :f :put, :key "x", :value "1"}
{:process 1, :type :invoke, :f :get, :key "x", :value nil}
{:process 1, :type :ok, :f :get, :key "x", :value nil}
`)
	r := labsim(e, "check", "-")
	assert.Equal(t, exitFailed, r.code)
	assert.Equal(t, `-: history of 2 operations is not linearizable: key "x": operation 1, get("x") → "" (client 1, lines 3 to 4), cannot follow the longest linearizable order (1 operation); last writes completed before it: operation 0, put("x", "1") → ok (client 0, lines 1 to 2)`+"\n", r.stdout, "the get after the put must see it")
	assert.Equal(t, "labsim check: -: not linearizable\n", r.stderr)

	e.stdin = strings.NewReader(`{:process 0, :type :invoke, :f :put, :key "x"}` + "\n" + `{:process 0, :type :ok, :f :put, :key "x"}`)
	r = labsim(e, "check", "-")
	assert.Equal(t, exitOK, r.code, r.stderr)
	assert.Regexp(t, `^-: linearizable: 1 operation on 1 key, checked in \S+\n$`, r.stdout, "one, not 1 operations on 1 keys")

	e.stdin = strings.NewReader(`{:process 0, :type :invoke, :f :put, :key "x"}` + "\n" + `{:process 0, :type :ok, :f :get, :key "x"}`)
	r = labsim(e, "check", "-")
	assert.Equal(t, exitUsage, r.code, "a file that is not a history: not a violation")
	assertOneError(t, r, "labsim check: -: line 2: process 0 completes get(\"x\") but invoked put(\"x\")")

	e.stdin = strings.NewReader("\n")
	r = labsim(e, "check", "-")
	assert.Equal(t, exitUsage, r.code, "an empty history is not a pass")
	assertOneError(t, r, "labsim check: -: no operations: nothing to check")

	e.stdin = strings.NewReader("INFO  jepsen.util - 0\t:invoke\t:read\tnil\n")
	r = labsim(e, "check", "-")
	assert.Equal(t, exitUsage, r.code)
	assertOneError(t, r, "labsim check: -: line 1: a Jepsen register log (:read, :write and :cas on one register, as in porcupine's test_data/jepsen/etcd_*.log): registers are not supported")

	e.stdin = strings.NewReader(strings.Repeat("x", 17<<20))
	r = labsim(e, "check", "-")
	assert.Equal(t, exitUsage, r.code)
	assertOneError(t, r, "labsim check: -: line 1: longer than 16 MB, which no event of a key/value log is")
}

// TestCheckShowsProgress checks a history too hard to finish: progress
// shows while it runs, and the verdict is unknown, exit status 1.
func TestCheckShowsProgress(t *testing.T) {
	var log strings.Builder // concurrent appends, and a get that misses one: every order must be tried
	const n = 24
	for i := range n {
		fmt.Fprintf(&log, "{:process %d, :type :invoke, :f :append, :key \"k\", :value \"%d \"}\n", i, i)
	}
	var read strings.Builder
	for i := range n {
		fmt.Fprintf(&log, "{:process %d, :type :ok, :f :append, :key \"k\", :value \"%d \"}\n", i, i)
		if i < n-1 {
			fmt.Fprintf(&read, "%d ", i)
		}
	}
	fmt.Fprintf(&log, "{:process 0, :type :invoke, :f :get, :key \"k\", :value nil}\n{:process 0, :type :ok, :f :get, :key \"k\", :value %q}\n", read.String())
	e := realEnv()
	e.stdin = strings.NewReader(log.String())
	r := labsim(e, "check", "-", "-timeout", "200ms")
	assert.Equal(t, exitFailed, r.code)
	assert.Contains(t, r.stderr, "check - (25 operations on 1 key, at most 200ms): 0/1 keys, 0s elapsed; running porcupine\n")
	assert.Contains(t, r.stdout, "linearizability check of 25 operations ran out of its 200ms")
	assert.True(t, strings.HasSuffix(r.stderr, "labsim check: -: unknown: the check ran out of its 200ms, which is not a pass\n"), r.stderr)
}

func TestCheckRefuses(t *testing.T) {
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"check", "/no/such/file"}, "labsim check: /no/such/file: no such file or directory"},
		{[]string{"check", porcupineKV("c01-ok"), "-timeout", "-1s"}, "labsim check: -timeout -1s: negative"},
		{[]string{"check", porcupineKV("c01-ok"), "-out", porcupineKV("c01-ok")}, "is not a directory"},
		{[]string{"check"}, "labsim check: which file? (a history in porcupine's key/value format, or - for standard input)"},
	} {
		r := labsim(nil, c.args...)
		assert.Equal(t, exitUsage, r.code, "%v", c.args)
		assertOneError(t, r, c.err)
	}
}
