package sweep

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSpread checks the spread of each kind of drawn value: numbers and
// durations by min, median and max (a note after the number aside),
// anything else by how often each value came, and many values by count.
func TestSpread(t *testing.T) {
	var seeds []SeedRecord
	for i := range 10 {
		seeds = append(seeds, SeedRecord{Drawn: map[string]string{
			"servers":    fmt.Sprint(3 + i%5),
			"keys":       fmt.Sprintf("%d (at most 4 clients a key)", 10-i),
			"length":     fmt.Sprintf("%dms", 500*(i+1)),
			"unreliable": fmt.Sprint(i < 7),
			"weights":    fmt.Sprintf("{Kill:%d}", i),
		}})
	}
	seeds = append(seeds, SeedRecord{}, SeedRecord{Drawn: map[string]string{"rare": "7"}})
	var lines []string
	for _, p := range Spread(seeds) {
		lines = append(lines, p.String())
	}
	require.Equal(t, []string{
		"keys: 1 / 6 / 10 (min / median / max, 10 seeds)",
		"length: 500ms / 3000ms / 5000ms (min / median / max, 10 seeds)",
		"rare: 7 / 7 / 7 (min / median / max, 1 seed)",
		"servers: 3 / 5 / 7 (min / median / max, 10 seeds)",
		"unreliable: false 30 %, true 70 % (10 seeds)",
		"weights: 10 distinct values (10 seeds)",
	}, lines)
	assert.Empty(t, Spread([]SeedRecord{{}, {}}), "nothing drawn, no spread")
}
