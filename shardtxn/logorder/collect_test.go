package logorder

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Collection copies only the keys that lose versions: a key whose only
// version at or before the horizon is the one reads as of the horizon
// still need keeps its versions where they are, so a node that collects
// every Versions tids does not copy its whole store each time.
func TestCollectCopiesOnlyWhatItTrims(t *testing.T) {
	st := newStore()
	for _, k := range []string{"a", "b", "c"} {
		st.put(k, 0, "old")
		st.put(k, 1000, "new")
	}
	horizon := 0
	allocs := testing.AllocsPerRun(10, func() {
		horizon++
		st.collect(horizon)
	})
	assert.Zero(t, allocs)
	assert.Equal(t, 6, st.versions())
	st.put("a", 5, "mid")
	st.collect(500)
	assert.Equal(t, []version{{5, "mid"}, {1000, "new"}}, st.keys["a"], "a's version of 0 is dropped")
	assert.Equal(t, 6, st.versions())
}
