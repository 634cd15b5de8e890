package labrpc

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGobSizesDoNotDependOnHistory encodes a value, then many types the
// process had not seen, then a value of a new type of the same shape: the
// two encodings are as long, so a run's sizes do not depend on what the
// process encoded before it.
func TestGobSizesDoNotDependOnHistory(t *testing.T) {
	size := func(v any) int {
		var b bytes.Buffer
		require.NoError(t, gob.NewEncoder(&b).Encode(v))
		return b.Len()
	}
	type early struct {
		N int
		S string
	}
	first := size(early{1, "x"})
	for i := range 300 {
		size(reflect.New(reflect.StructOf([]reflect.StructField{{Name: fmt.Sprintf("Test%d", i), Type: reflect.TypeFor[string]()}})).Interface())
	}
	type later struct {
		N int
		S string
	}
	assert.Equal(t, first, size(later{1, "x"}), "a type of the same shape and name length")
}
