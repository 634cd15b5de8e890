package replab

import (
	"os"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeOutput matches what a command of the README writes into the
// checkout: a -out, -trace or -json value, or go build's -o.
var readmeOutput = regexp.MustCompile(`(?:^|\s)-(?:out|trace|json|o) ([^\s#]+)`)

// TestREADMECommandsLeaveNothingUntracked checks that whatever the
// README's commands write into the checkout (labsim's -out, -trace and
// -json, a kit's default directory, go build's -o) is ignored by git, so
// that a newcomer who runs them finds git status clean.
func TestREADMECommandsLeaveNothingUntracked(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	ignore, err := os.ReadFile(".gitignore")
	require.NoError(t, err)
	var patterns []string
	for _, line := range strings.Split(string(ignore), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			patterns = append(patterns, line)
		}
	}
	outputs := map[string]bool{"raft-kit": true, "kvraft-kit": true} // labsim kit's default -out
	for _, line := range strings.Split(string(readme), "\n") {
		if !strings.HasPrefix(line, "go ") && !strings.HasPrefix(line, "./labsim ") {
			continue
		}
		command, _, _ := strings.Cut(line, "#")
		for _, m := range readmeOutput.FindAllStringSubmatch(command, -1) {
			outputs[m[1]] = true
		}
	}
	require.Contains(t, outputs, "trace.txt", "the README's commands, as this test reads them")
	for out := range outputs {
		assert.True(t, ignored(patterns, out), "the README's commands write %s, which .gitignore does not ignore", out)
	}
}

// ignored reports whether one of .gitignore's patterns ignores the file
// or directory at p, relative to the checkout: a pattern with a leading
// slash matches its first element, one without matches its name.
func ignored(patterns []string, p string) bool {
	first, _, _ := strings.Cut(p, "/")
	for _, pattern := range patterns {
		pattern = strings.TrimSuffix(pattern, "/")
		if anchored, ok := strings.CutPrefix(pattern, "/"); ok {
			if m, _ := path.Match(anchored, first); m {
				return true
			}
		} else if m, _ := path.Match(pattern, path.Base(p)); m {
			return true
		}
	}
	return false
}
