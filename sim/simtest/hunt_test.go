package simtest

import (
	"testing"

	"github.com/replab/replab/sim/plant"

	"github.com/stretchr/testify/assert"
)

type toyConfig struct{ broken bool }

func TestHuntOnceStopsAtTheFirstFailure(t *testing.T) {
	ran := 0
	c := Case[toyConfig]{Name: "toy", Run: func(t T, seed int64, cfg toyConfig) {
		ran++
		if cfg.broken && seed == 2 {
			t.Fatalf("broken at seed %d", seed)
		}
		ran += 100 // not reached after a failure
	}}
	msg, failed := huntOnce(c, 1, toyConfig{broken: true})
	assert.False(t, failed)
	assert.Empty(t, msg)
	msg, failed = huntOnce(c, 2, toyConfig{broken: true})
	assert.True(t, failed)
	assert.Equal(t, "broken at seed 2", msg)
	assert.Equal(t, 102, ran)

	crash := Case[toyConfig]{Name: "crash", Run: func(T, int64, toyConfig) { panic("index out of range") }}
	msg, failed = huntOnce(crash, 1, toyConfig{})
	assert.True(t, failed)
	assert.Equal(t, "panic: index out of range", msg)
}

func TestHuntBugsFindsAPlantedBug(t *testing.T) {
	bugs := []plant.Bug[toyConfig]{{Name: "broken", Plant: func(c *toyConfig) { c.broken = true }}}
	cases := []Case[toyConfig]{{Name: "toy", Run: func(t T, seed int64, cfg toyConfig) {
		if cfg.broken && seed == 3 {
			t.Errorf("broken")
		}
	}}}
	HuntBugs(t, func() toyConfig { return toyConfig{} }, bugs, cases, 3) // fails t if not caught
}

func TestFirstLine(t *testing.T) {
	assert.Equal(t, "abc", firstLine("abc\ndef", 3), "exactly n: whole")
	assert.Equal(t, "abc…", firstLine("abcd", 3))
}
