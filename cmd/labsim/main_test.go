package main

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDemoReplaysItsSeed(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run([]string{"demo", "-seed", "3", "-duration", "10s"}, &out))
	text := out.String()
	assert.Contains(t, text, "fault log (seed 3):")
	m := regexp.MustCompile(`trace=([0-9a-f]{16})`).FindStringSubmatch(text)
	require.NotNil(t, m, text)
	assert.Contains(t, text, "replayed seed 3: same trace hash "+m[1])

	var other bytes.Buffer
	require.NoError(t, run([]string{"demo", "-seed", "4", "-duration", "10s"}, &other))
	assert.NotContains(t, other.String(), m[1], "another seed, another trace")
}

func TestBadCommandLines(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{nil, "no command given"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"demo", "-hosts", "0"}, "demo: -hosts 0: need at least one host"},
		{[]string{"demo", "-duration", "-1s"}, "demo: -duration -1s: must be positive"},
		{[]string{"demo", "-seed", "x"}, `invalid value "x" for flag -seed`},
		{[]string{"demo", "-trace", "/no/such/dir/trace"}, "demo: -trace: open /no/such/dir/trace"},
	} {
		err := run(tc.args, &bytes.Buffer{})
		require.Error(t, err, "%v", tc.args)
		assert.Contains(t, err.Error(), tc.err)
	}
}
