package linearize

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestKVStatesCompareByValueAndVersionNotByChain(t *testing.T) {
	t.Parallel()
	empty := newKVState()
	abc := empty.put("ab").append("c") // "abc" v2, two pieces
	same := []*kvState{
		empty.put("a").put("abc"),      // one piece
		empty.put("a").append("bc"),    // split elsewhere
		empty.append("").append("abc"), // an empty piece on the way
	}
	for _, s := range same {
		assert.True(t, kvEqual(abc, s), "%q v%d", s, s.version)
		assert.True(t, kvEqual(s, abc), "%q v%d", s, s.version)
		assert.Equal(t, kvHash(abc), kvHash(s), "equal states hash alike")
	}
	differ := []*kvState{
		empty.put("ab").append("d"),            // same length, last piece differs
		empty.put("xb").append("c"),            // same length, first piece differs
		empty.put("abc"),                       // same value, older version
		empty.put("ab").append("c").append(""), // same value, newer version
		empty.put("ab").append("cd"),           // longer
	}
	for _, s := range differ {
		assert.False(t, kvEqual(abc, s), "%q v%d", s, s.version)
		assert.False(t, kvEqual(s, abc), "%q v%d", s, s.version)
	}
	assert.True(t, kvEqual(abc, abc))
	assert.Equal(t, "abc", abc.String())
	assert.Equal(t, "", empty.String())
	assert.Equal(t, int64(2), abc.version)
	assert.Equal(t, fnv1a(fnvOffset, "abc"), abc.hash, "the hash grows with the value")
}

// sameValue is exact even where the hashes would collide: it is what
// kvEqual falls back on.
func TestSameValueComparesEveryByte(t *testing.T) {
	t.Parallel()
	empty := newKVState()
	a := empty.put("ab").append("cd").append("e")
	assert.True(t, a.sameValue(empty.put("abc").append("de")))
	assert.True(t, a.sameValue(empty.put("abcde")))
	assert.False(t, a.sameValue(empty.put("abxde")), "a byte in the middle")
	assert.False(t, a.sameValue(empty.put("xbcde")), "the first byte")
	assert.False(t, a.sameValue(empty.put("abcdx")), "the last byte")
}

func TestIsComparesTheValue(t *testing.T) {
	t.Parallel()
	empty := newKVState()
	a := empty.put("ab").append("cd").append("e")
	assert.True(t, a.is("abcde"))
	assert.False(t, a.is("abcdef"), "longer")
	assert.False(t, a.is("abcd"), "shorter")
	assert.False(t, a.is("xbcde"), "the first piece differs")
	assert.False(t, a.is("abxde"), "a middle piece differs")
	assert.True(t, empty.is(""))
	assert.False(t, empty.is("a"))
}
