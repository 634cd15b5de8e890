package labsim

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/harness/sweep"
)

// readmeRunFile is the README's sentence on the size of a run file, with
// %s where the numbers of kv-linearizability seed 1's go.
const readmeRunFile = "`kv-linearizability` seed 1 (30 s of virtual time, five servers and five clients) makes %s events, %s states and %s operations, a run file of %s MB."

// TestREADMEQuotesTheRunFileSize records kv-linearizability seed 1 and
// checks that the README gives its run file's numbers: bring the sentence
// up to date when a change of the services' inspectors or of the layout
// moves them.
func TestREADMEQuotesTheRunFileSize(t *testing.T) {
	sc, err := sweep.Lookup("kv-linearizability")
	require.NoError(t, err)
	f, o, err := recordSeed(sc, sc.Name, "", 1)
	require.NoError(t, err)
	require.True(t, o.OK(), o.Problem)
	var b bytes.Buffer
	require.NoError(t, runfile.Write(&b, f))
	want := fmt.Sprintf(readmeRunFile, thousands(len(f.Events)), thousands(len(f.States)), thousands(len(f.Ops)), strconv.FormatFloat(float64(b.Len())/1e6, 'f', 1, 64))
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	assert.True(t, strings.Contains(strings.Join(strings.Fields(string(readme)), " "), want), "the README should say %q", want)
}

// thousands writes n with its thousands apart: 50 844.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + " " + s[i:]
	}
	return s
}
