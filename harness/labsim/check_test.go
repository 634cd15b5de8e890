package labsim

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

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
	bad := labsim(nil, "check", porcupineKV("c10-bad"), "-out", dir)
	assert.Equal(t, exitFailed, bad.code)
	assert.Empty(t, bad.stdout)
	html := filepath.Join(dir, "c10-bad.html")
	assert.Regexp(t, `^labsim check: .*c10-bad.txt: history of 405 operations is not linearizable: key "\d": operation \d+, get\("\d"\) .*; visualization: `+regexp.QuoteMeta(html)+"\n$", bad.stderr)
	_, err := os.Stat(html)
	assert.NoError(t, err)

	none := labsim(nil, "check", porcupineKV("c01-bad"))
	assert.Equal(t, exitFailed, none.code)
	assert.NotContains(t, none.stderr, "visualization", "without -out, nothing is drawn")
}

func TestCheckStdin(t *testing.T) {
	e := fakeEnv()
	e.stdin = strings.NewReader(`{:process 0, :type :invoke, :f :put, :key "x", :value "1"}
{:process 0, :type :ok, :f :put, :key "x", :value "1"}
{:process 1, :type :invoke, :f :get, :key "x", :value nil}
{:process 1, :type :ok, :f :get, :key "x", :value nil}
`)
	r := labsim(e, "check", "-")
	assert.Equal(t, exitFailed, r.code)
	assert.Equal(t, `labsim check: -: history of 2 operations is not linearizable: key "x": operation 1, get("x") → "" (client 1, 3ns to 4ns), cannot follow the longest linearizable order (1 operation); last writes completed before it: operation 0, put("x", "1") → ok (client 0, 1ns to 2ns)`+"\n", r.stderr, "the get after the put must see it")

	e.stdin = strings.NewReader(`{:process 0, :type :invoke, :f :put, :key "x"}` + "\n" + `{:process 0, :type :ok, :f :get, :key "x"}`)
	r = labsim(e, "check", "-")
	assert.Equal(t, exitFailed, r.code)
	assert.Equal(t, "labsim check: -: line 2: process 0 completes get(\"x\") but invoked put(\"x\")\n", r.stderr)

	e.stdin = strings.NewReader("\n")
	r = labsim(e, "check", "-")
	assert.Equal(t, exitFailed, r.code, "an empty history is not a pass")
	assert.Contains(t, r.stderr, "labsim check: -: no operations: nothing to check")
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
