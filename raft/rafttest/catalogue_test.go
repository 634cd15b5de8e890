package rafttest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCatalogueTable checks that every test has its own name, a part of
// the lab and points, and that the points add up to 100.
func TestCatalogueTable(t *testing.T) {
	names := map[string]bool{}
	total := 0
	parts := map[string]int{}
	for _, test := range Tests() {
		assert.False(t, names[test.Name], "%s twice", test.Name)
		names[test.Name] = true
		assert.Contains(t, []string{"3A", "3B", "3C", "3D"}, test.Part, test.Name)
		assert.Positive(t, test.Points, test.Name)
		assert.NotNil(t, test.Body, test.Name)
		total += test.Points
		parts[test.Part] += test.Points
	}
	assert.Equal(t, 100, total)
	assert.Equal(t, map[string]int{"3A": 15, "3B": 30, "3C": 32, "3D": 23}, parts)
}
