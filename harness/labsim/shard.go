package labsim

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/replab/replab/harness/sweep"
)

// shard is a -shard flag's value: shard i of n, or auto: i (and n, unless
// auto/N gives it) taken from the environment of the engine that runs the
// shards.
type shard struct {
	i, n int
	auto bool
	from string // the engine auto read it from, once resolved
}

func (s *shard) String() string {
	switch {
	case s.auto && s.n == 0:
		return "auto"
	case s.auto:
		return fmt.Sprintf("auto/%d", s.n)
	}
	return fmt.Sprintf("%d/%d", s.i, s.n)
}

// Set parses v as i/n with 0 <= i < n, as auto, or as auto/N with N >= 1.
func (s *shard) Set(v string) error {
	if n, ok := strings.CutPrefix(v, "auto"); ok {
		count := 0
		if n != "" {
			c, err := strconv.Atoi(strings.TrimPrefix(n, "/"))
			if !strings.HasPrefix(n, "/") || err != nil || c < 1 {
				return errors.New("want auto, or auto/N with N the number of shards, at least 1")
			}
			count = c
		}
		*s = shard{n: count, auto: true}
		return nil
	}
	i, n, err := sweep.ParseShard(v)
	if err != nil {
		return errors.New("not of the form i/n, e.g. 0/4, or auto")
	}
	if i < 0 || i >= n {
		return errors.New("want i/n with 0 <= i < n")
	}
	*s = shard{i: i, n: n}
	return nil
}

// The engines -shard auto knows, by the name a summary line gives them.
const (
	engineKubernetes = "kubernetes"
	engineGitHub     = "github-actions"
	engineSlurm      = "slurm"
)

// The environment variables -shard auto reads. Kubernetes sets
// JOB_COMPLETION_INDEX in an Indexed Job's pods, Slurm the SLURM_ARRAY_
// ones in an array's tasks. GitHub Actions puts a matrix job's place in
// its strategy context only, so the workflow passes it in:
//
//	env:
//	  STRATEGY_JOB_INDEX: ${{ strategy.job-index }}
//	  STRATEGY_JOB_TOTAL: ${{ strategy.job-total }}
const (
	envK8sIndex    = "JOB_COMPLETION_INDEX"
	envGitHubIndex = "STRATEGY_JOB_INDEX"
	envGitHubTotal = "STRATEGY_JOB_TOTAL"
	envGitHub      = "GITHUB_ACTIONS"
	envSlurmID     = "SLURM_ARRAY_TASK_ID"
	envSlurmCount  = "SLURM_ARRAY_TASK_COUNT"
	envSlurmMin    = "SLURM_ARRAY_TASK_MIN"
	envSlurmMax    = "SLURM_ARRAY_TASK_MAX"
	envSlurmStep   = "SLURM_ARRAY_TASK_STEP"
)

// resolve sets an auto shard's i and n from the engine's environment,
// which e reads, or returns a usage error that names what is missing or
// the variable whose value is bad. A shard given as i/n is left alone.
func (s *shard) resolve(e *env) error {
	if !s.auto {
		return nil
	}
	var found []string // the first variable of each engine whose variables are set
	for _, vars := range [][]string{{envK8sIndex}, {envGitHubIndex, envGitHubTotal}, {envSlurmID, envSlurmCount}} {
		for _, v := range vars {
			if e.envVar(v) != "" {
				found = append(found, vars[0])
				break
			}
		}
	}
	var err error
	switch {
	case len(found) > 1:
		return usagef("-shard %v: %s are set, of more than one engine: give -shard i/n", s, strings.Join(found, " and "))
	case len(found) == 0 && e.envVar(envGitHub) == "true":
		return usagef("-shard %v: on GitHub Actions, set %s: ${{ strategy.job-index }} and %s: ${{ strategy.job-total }} in the step's env (a matrix job's place is not in its environment otherwise)", s, envGitHubIndex, envGitHubTotal)
	case len(found) == 0:
		return usagef("-shard %v: no engine's shard is in the environment (%s of a Kubernetes Indexed Job, %s and %s of a GitHub Actions matrix, %s of a Slurm array); give -shard i/n", s, envK8sIndex, envGitHubIndex, envGitHubTotal, envSlurmID)
	case found[0] == envK8sIndex:
		err = s.kubernetes(e)
	case found[0] == envGitHubIndex:
		err = s.github(e)
	default:
		err = s.slurm(e)
	}
	if err != nil {
		return usagef("-shard %v: %v", s, err)
	}
	return nil
}

// kubernetes takes the index from an Indexed Job; the Job's completions,
// the count, are not in a pod's environment and must be given (auto/N).
func (s *shard) kubernetes(e *env) error {
	i, err := envInt(e, envK8sIndex)
	switch {
	case err != nil:
		return err
	case s.n == 0:
		return fmt.Errorf("%s=%d (a Kubernetes Indexed Job) gives the index, not the count: give -shard auto/N, N the Job's completions", envK8sIndex, i)
	case i >= s.n:
		return fmt.Errorf("%s=%d is not below the %d shards: the Job's completions and N in auto/N must agree", envK8sIndex, i, s.n)
	}
	s.i, s.from = i, engineKubernetes
	return nil
}

// github takes the index and count from a matrix job's strategy context,
// passed into its environment.
func (s *shard) github(e *env) error {
	i, err := envInt(e, envGitHubIndex)
	if err != nil {
		return err
	}
	total, err := envInt(e, envGitHubTotal)
	switch {
	case err != nil:
		return err
	case total < 1:
		return fmt.Errorf("%s=%d: a matrix has at least one job", envGitHubTotal, total)
	case i >= total:
		return fmt.Errorf("%s=%d is not below %s=%d", envGitHubIndex, i, envGitHubTotal, total)
	}
	return s.found(i, total, envGitHubTotal, engineGitHub)
}

// slurm takes the index and count from an array job's task: its ids must
// be a range (--array=0-15 or 1-16:2, not a list such as 1,4,9).
func (s *shard) slurm(e *env) error {
	vals := map[string]int{}
	for _, v := range []string{envSlurmID, envSlurmCount, envSlurmMin} {
		n, err := envInt(e, v)
		if err != nil {
			return err
		}
		vals[v] = n
	}
	step, maxID := 1, -1
	if e.envVar(envSlurmStep) != "" {
		var err error
		if step, err = envInt(e, envSlurmStep); err != nil {
			return err
		}
	}
	if e.envVar(envSlurmMax) != "" {
		var err error
		if maxID, err = envInt(e, envSlurmMax); err != nil {
			return err
		}
	}
	id, count, lo := vals[envSlurmID], vals[envSlurmCount], vals[envSlurmMin]
	switch {
	case step < 1:
		return fmt.Errorf("%s=%d: want a step of at least 1", envSlurmStep, step)
	case count < 1:
		return fmt.Errorf("%s=%d: an array has at least one task", envSlurmCount, count)
	case maxID >= 0 && (maxID < lo || (maxID-lo)%step != 0 || (maxID-lo)/step+1 != count):
		return fmt.Errorf("the array's tasks %d to %d by %d are not %s=%d tasks: give the array as a range (--array=0-%d), or -shard i/n", lo, maxID, step, envSlurmCount, count, count-1)
	case id < lo || (id-lo)%step != 0 || (id-lo)/step >= count:
		return fmt.Errorf("%s=%d is not one of the %d tasks from %s=%d by %d", envSlurmID, id, count, envSlurmMin, lo, step)
	}
	return s.found((id-lo)/step, count, envSlurmCount, engineSlurm)
}

// found sets the shard to i of n, found in engine's environment, where
// countVar gave n; a count given with auto/N must agree.
func (s *shard) found(i, n int, countVar, engine string) error {
	if s.n != 0 && s.n != n {
		return fmt.Errorf("%s=%d shards, not %d", countVar, n, s.n)
	}
	s.i, s.n, s.from = i, n, engine
	return nil
}

// envInt reads the environment variable called name as a whole number.
func envInt(e *env, name string) (int, error) {
	v := e.envVar(name)
	n, err := strconv.Atoi(v)
	switch {
	case v == "":
		return 0, fmt.Errorf("%s is not set", name)
	case err != nil || strings.HasPrefix(v, "+"):
		return 0, fmt.Errorf("%s=%q is not a whole number", name, v)
	case n < 0:
		return 0, fmt.Errorf("%s=%d is negative", name, n)
	}
	return n, nil
}
