package labsim

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/replab/replab/harness/sweep"
)

// deploy is the repository's deploy directory, from this package's.
const deploy = "../../deploy"

// readYAML reads every document of a YAML file.
func readYAML(t *testing.T, name string) []map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(deploy, name))
	require.NoError(t, err)
	defer f.Close()
	var docs []map[string]any
	dec := yaml.NewDecoder(f)
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); err != nil {
			require.ErrorContains(t, err, "EOF", name)
			return docs
		}
		docs = append(docs, doc)
	}
}

// dig returns what is at path (map keys and list indices) in v, failing
// the test if nothing is.
func dig(t *testing.T, v any, path ...any) any {
	t.Helper()
	for i, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			require.True(t, ok, "%v: not a map at %v", path, path[:i])
			v, ok = m[k]
			require.True(t, ok, "%v: no %q", path, k)
		case int:
			l, ok := v.([]any)
			require.True(t, ok && k < len(l), "%v: no item %d", path, k)
			v = l[k]
		}
	}
	return v
}

// strs returns a YAML list of scalars as strings.
func strs(t *testing.T, v any) []string {
	t.Helper()
	l, ok := v.([]any)
	require.True(t, ok, "not a list: %v", v)
	var out []string
	for _, x := range l {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

// flagValue returns the value after flag in a command line, or "".
func flagValue(args []string, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// shardOf parses a labsim command line (args[0] the command) as labsim
// would, in the environment vars, and returns its arguments and the shard
// it would run.
func shardOf(t *testing.T, args []string, vars ...string) ([]string, string) {
	t.Helper()
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		fs, _ := c.flagSet()
		words, err := c.parse(fs, args[1:])
		require.NoError(t, err, "%v", args)
		f := fs.Lookup("shard")
		if f == nil {
			return words, ""
		}
		sh := f.Value.(*shard)
		require.NoError(t, sh.resolve(withEnv(vars...)), "%v %v", args, vars)
		return words, fmt.Sprintf("%d/%d", sh.i, sh.n)
	}
	require.Fail(t, "no such command", args[0])
	return nil, ""
}

// TestKubernetesManifests reads the Indexed Job and its merge step: as many
// completions as pods at once as shards in -shard auto/N, each pod's index
// wired to JOB_COMPLETION_INDEX and read as its shard, the results written
// to the volume that the merge reads, failing seeds failing only their
// index, and every command line one that labsim takes.
func TestKubernetesManifests(t *testing.T) {
	docs := readYAML(t, "kubernetes/sweep.yaml")
	require.Len(t, docs, 2)
	assert.Equal(t, "PersistentVolumeClaim", docs[0]["kind"])
	claim := dig(t, docs[0], "metadata", "name")
	job := docs[1]
	require.Equal(t, "Job", job["kind"])
	spec := dig(t, job, "spec").(map[string]any)
	assert.Equal(t, "Indexed", spec["completionMode"])
	shards := spec["completions"].(int)
	assert.Equal(t, shards, spec["parallelism"], "every shard at once")
	pod := dig(t, spec, "template", "spec")
	assert.Equal(t, "Never", dig(t, pod, "restartPolicy"))
	c := dig(t, pod, "containers", 0)
	args := strs(t, dig(t, c, "args"))
	assert.Equal(t, fmt.Sprintf("auto/%d", shards), flagValue(args, "-shard"))
	env := dig(t, c, "env", 0)
	assert.Equal(t, envK8sIndex, dig(t, env, "name"))
	assert.Equal(t, "metadata.annotations['batch.kubernetes.io/job-completion-index']", dig(t, env, "valueFrom", "fieldRef", "fieldPath"))
	for i := range shards {
		words, sh := shardOf(t, args, fmt.Sprintf("%s=%d", envK8sIndex, i))
		assert.Equal(t, fmt.Sprintf("%d/%d", i, shards), sh)
		_, err := sweep.Lookup(words[0])
		assert.NoError(t, err)
	}

	rules := dig(t, spec, "podFailurePolicy", "rules").([]any)
	actions := map[string]string{}
	for _, r := range rules {
		if codes, ok := r.(map[string]any)["onExitCodes"]; ok {
			assert.Equal(t, dig(t, c, "name"), dig(t, codes, "containerName"))
			for _, v := range strs(t, dig(t, codes, "values")) {
				actions[v] = dig(t, r, "action").(string)
			}
		}
	}
	assert.Equal(t, map[string]string{"1": "FailIndex", "2": "FailJob"}, actions, "failing seeds fail their index; a refused command line the Job")
	assert.Contains(t, spec, "backoffLimitPerIndex", "FailIndex needs it")

	mount := dig(t, c, "volumeMounts", 0)
	volume := dig(t, pod, "volumes", 0)
	assert.Equal(t, dig(t, mount, "name"), dig(t, volume, "name"))
	assert.Equal(t, claim, dig(t, volume, "persistentVolumeClaim", "claimName"))
	results := flagValue(args, "-json")
	assert.Equal(t, dig(t, mount, "mountPath").(string)+"/", results, "each shard's file on the volume")

	merge := readYAML(t, "kubernetes/merge.yaml")
	require.Len(t, merge, 1)
	mpod := dig(t, merge[0], "spec", "template", "spec")
	mc := dig(t, mpod, "containers", 0)
	margs := strs(t, dig(t, mc, "args"))
	words, _ := shardOf(t, margs)
	assert.Equal(t, []string{path.Clean(results)}, words, "the merge reads the shards' directory")
	out := flagValue(margs, "-json")
	require.True(t, strings.HasSuffix(out, "/"), "a directory: %s", out)
	assert.NotEqual(t, path.Clean(results), path.Clean(out), "the merged file goes where a merge does not read it")
	assert.Equal(t, claim, dig(t, mpod, "volumes", 0, "persistentVolumeClaim", "claimName"))
	assert.Equal(t, dig(t, mount, "mountPath"), dig(t, mc, "volumeMounts", 0, "mountPath"))
	assert.Equal(t, dig(t, c, "image"), dig(t, mc, "image"), "one build for the shards and the merge")
}

// TestGitHubWorkflow reads the workflow: a matrix of shards whose place in
// it reaches -shard auto, each uploading its results even when its seeds
// failed, and a merge job that downloads them all and merges them.
func TestGitHubWorkflow(t *testing.T) {
	docs := readYAML(t, "github-actions/labsim-sweep.yml")
	require.Len(t, docs, 1)
	w := docs[0]
	jobs := dig(t, w, "jobs")
	matrix := strs(t, dig(t, jobs, "sweep", "strategy", "matrix", "shard"))
	shards := len(matrix)
	assert.Greater(t, shards, 1)
	assert.Equal(t, false, dig(t, jobs, "sweep", "strategy", "fail-fast"), "a shard with failing seeds must not cancel the others")

	defaults := map[string]string{} // $SCENARIO and the others: their defaults
	for k, v := range dig(t, w, "env").(map[string]any) {
		m := regexp.MustCompile(`\|\| '([^']*)'`).FindStringSubmatch(v.(string))
		require.NotNil(t, m, "env %s has a default: %s", k, v)
		defaults["$"+k] = m[1]
	}
	run, uploaded := "", false
	for _, st := range dig(t, jobs, "sweep", "steps").([]any) {
		s := st.(map[string]any)
		if s["name"] == "sweep" {
			run = s["run"].(string)
			assert.Equal(t, "${{ strategy.job-index }}", dig(t, s, "env", envGitHubIndex))
			assert.Equal(t, "${{ strategy.job-total }}", dig(t, s, "env", envGitHubTotal))
		}
		if strings.HasPrefix(fmt.Sprint(s["uses"]), "actions/upload-artifact@") {
			uploaded = true
			assert.Equal(t, "results/", dig(t, s, "with", "path"))
			assert.Contains(t, s["if"], "!cancelled()", "uploaded when seeds failed too")
		}
	}
	assert.True(t, uploaded, "each shard uploads its results")
	args := strings.Fields(strings.ReplaceAll(run, `"`, ""))
	require.Equal(t, "./labsim", args[0])
	for k, a := range args {
		if d, ok := defaults[a]; ok {
			args[k] = d
		}
	}
	assert.Equal(t, "results/", flagValue(args, "-json"))
	for i := range shards {
		words, sh := shardOf(t, args[1:], fmt.Sprintf("%s=%d", envGitHubIndex, i), fmt.Sprintf("%s=%d", envGitHubTotal, shards), "GITHUB_ACTIONS=true")
		assert.Equal(t, fmt.Sprintf("%d/%d", i, shards), sh)
		_, err := sweep.Lookup(words[0])
		assert.NoError(t, err)
	}

	merge := dig(t, jobs, "merge")
	assert.Equal(t, "sweep", dig(t, merge, "needs"))
	assert.Contains(t, dig(t, merge, "if"), "!cancelled()", "merged when seeds failed too")
	downloaded, merged := false, false
	for _, st := range dig(t, merge, "steps").([]any) {
		s := st.(map[string]any)
		if with, _ := s["with"].(map[string]any); with["pattern"] == "results-*" {
			downloaded = true
			assert.Equal(t, true, dig(t, s, "with", "merge-multiple"))
			assert.Equal(t, "results", dig(t, s, "with", "path"))
		}
		if s["name"] == "merge" {
			merged = true
			args := strings.Fields(s["run"].(string))
			words, _ := shardOf(t, args[1:])
			assert.Equal(t, []string{"results"}, words)
		}
	}
	assert.True(t, downloaded && merged, "the merge job downloads every shard's results and merges them")
}

// TestDockerfile reads the Dockerfile: labsim built without cgo, from the
// Go that go.mod names or newer, onto a small static base, as the entry
// point.
func TestDockerfile(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(deploy, "Dockerfile"))
	require.NoError(t, err)
	var from []string
	var run, entry string
	for _, line := range strings.Split(string(text), "\n") {
		switch f := strings.Fields(line); {
		case len(f) > 1 && f[0] == "FROM":
			from = append(from, f[1])
		case len(f) > 1 && f[0] == "RUN" && strings.Contains(line, "go build"):
			run = line
		case len(f) > 1 && f[0] == "ENTRYPOINT":
			entry = strings.Join(f[1:], " ")
		}
	}
	require.Len(t, from, 2, "a build stage and the image")
	mod, err := os.ReadFile("../../go.mod")
	require.NoError(t, err)
	want := regexp.MustCompile(`(?m)^go (\d+)\.(\d+)`).FindStringSubmatch(string(mod))
	have := regexp.MustCompile(`^golang:(\d+)\.(\d+)`).FindStringSubmatch(from[0])
	require.NotNil(t, have, "the build stage is Go's image: %s", from[0])
	assert.GreaterOrEqual(t, atoi(t, have[1])*1000+atoi(t, have[2]), atoi(t, want[1])*1000+atoi(t, want[2]), "go.mod asks for go %s.%s", want[1], want[2])
	assert.Regexp(t, `^gcr\.io/distroless/static`, from[1], "a small base without a C library")
	assert.Contains(t, run, "CGO_ENABLED=0", "a static binary")
	assert.Contains(t, run, "./cmd/labsim")
	assert.Equal(t, `["labsim"]`, entry)
}

func atoi(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	require.NoError(t, err)
	return n
}

// TestDockerImageBuilds builds the image and runs a small sweep in it. It
// needs a Docker daemon and the network (to pull Go's and distroless's
// images), and takes minutes, so it runs only when asked:
// LABSIM_DOCKER=1 go test ./harness/labsim -run TestDockerImageBuilds.
func TestDockerImageBuilds(t *testing.T) {
	if os.Getenv("LABSIM_DOCKER") != "1" {
		t.Skip("set LABSIM_DOCKER=1 to build deploy/Dockerfile and run a sweep in the image (needs Docker and the network; minutes)")
	}
	if err := exec.Command("docker", "info").Run(); err != nil {
		t.Skipf("no Docker daemon answers here (docker info: %v): the image is not built", err)
	}
	build := exec.Command("docker", "build", "-f", "deploy/Dockerfile", "-t", "labsim:test", ".")
	build.Dir = "../.."
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	var stdout bytes.Buffer
	run := exec.Command("docker", "run", "--rm", "labsim:test", "sweep", "kv-linearizability", "-seeds", "4")
	run.Stdout = &stdout
	require.NoError(t, run.Run(), stdout.String())
	assert.Contains(t, stdout.String(), "kv-linearizability: 4 seeds (1 to 4), 0 failing")
}
