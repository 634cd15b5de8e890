package runfile

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/chaos/fault"
)

// TestShrunk writes a shrunk run's edits and reads them back, and
// refuses edits no shrink writes, naming the field.
func TestShrunk(t *testing.T) {
	f := &File{Version: Version, Scenario: "s", Seed: 3, Hosts: []string{"a"}, Verdict: Verdict{At: -1}, Summary: Summary{Hash: "0123456789abcdef"},
		Shrunk: &Shrunk{Length: 5, Servers: 1, Clients: []int{1, 0}, Skip: []int{2, 4},
			Nemesis: &Schedule{Steps: []Step{{At: 1, Fault: fault.Fault{Kind: fault.Kill}}, {At: 2, Fault: fault.Fault{Kind: fault.Restart}}}, Heals: []int64{3}}}}
	var b bytes.Buffer
	require.NoError(t, Write(&b, f))
	back, err := Read(&b)
	require.NoError(t, err)
	assert.Equal(t, f.Shrunk, back.Shrunk)
	for msg, edit := range map[string]func(s *Shrunk){
		"run file: shrunk.length: -1 is negative":                                func(s *Shrunk) { s.Length = -1 },
		"run file: shrunk.clients[1]: -2 is negative":                            func(s *Shrunk) { s.Clients[1] = -2 },
		"run file: shrunk.skip[1]: 2 is negative or not after the one before it": func(s *Shrunk) { s.Skip[1] = 2 },
		"run file: shrunk.nemesis.steps[1].at: 0 before the step before it (1)":  func(s *Shrunk) { s.Nemesis.Steps[1].At = 0 },
	} {
		g := *f.Shrunk
		g.Clients, g.Skip = append([]int(nil), g.Clients...), append([]int(nil), g.Skip...)
		n := *g.Nemesis
		n.Steps = append([]Step(nil), n.Steps...)
		g.Nemesis = &n
		edit(&g)
		bad := *f
		bad.Shrunk = &g
		assert.EqualError(t, Write(&bytes.Buffer{}, &bad), msg)
	}
}
