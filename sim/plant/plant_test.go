package plant_test

import (
	"testing"

	"github.com/replab/replab/sim/plant"
	"github.com/stretchr/testify/assert"
)

type config struct{ late, lost bool }

func TestNamed(t *testing.T) {
	bugs := []plant.Bug[config]{
		{Name: "late", Plant: func(c *config) { c.late = true }},
		{Name: "lost", Plant: func(c *config) { c.lost = true }},
	}
	b, ok := plant.Named(bugs, "lost")
	assert.True(t, ok)
	var c config
	b.Plant(&c)
	assert.Equal(t, config{lost: true}, c)
	_, ok = plant.Named(bugs, "no such bug")
	assert.False(t, ok)
}
