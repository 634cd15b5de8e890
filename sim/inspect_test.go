package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// shifting is an inspector whose fields change in number and name from
// one call to the next.
type shifting struct{ fields []Field }

func (s *shifting) Inspect() []Field { return s.fields }

func TestStateNamesFieldsThatChange(t *testing.T) {
	h := NewWorld(1).NewHost("a")
	s := &shifting{fields: []Field{{"x", "1"}, {"y", "2"}}}
	h.Inspect("s", s)
	h.Inspect("c", &counter{n: 5})
	assert.Equal(t, []Field{{"s.x", "1"}, {"s.y", "2"}, {"c.n", "5"}}, h.State())
	s.fields = []Field{{"y", "3"}, {"x", "4"}, {"z", "5"}}
	assert.Equal(t, []Field{{"s.y", "3"}, {"s.x", "4"}, {"s.z", "5"}, {"c.n", "5"}}, h.State(), "renamed and added fields")
	s.fields = nil
	assert.Equal(t, []Field{{"c.n", "5"}}, h.State(), "an inspector that shows nothing")
	h.Inspect("c", &shifting{})
	assert.Nil(t, h.State(), "inspectors that show nothing")
	s.fields = []Field{{"x", "1"}}
	first := h.State()
	s.fields = []Field{{"x", "2"}}
	assert.Equal(t, []Field{{"s.x", "2"}}, h.State())
	assert.Equal(t, []Field{{"s.x", "1"}}, first, "an earlier result, which a recording keeps, is not changed")
}
