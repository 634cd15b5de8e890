package kvtest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDifferenceIsShortAndPointsAtTheFirstChange(t *testing.T) {
	want := strings.Repeat("x 1 y", 1000)
	got := want[:2000] + "LOST" + want[2004:4990]
	d := difference(want, got)
	assert.Equal(t, `wanted 5000 bytes, got 4990; first difference at byte 2000: wanted …"x 1 yx 1 yx 1 yx 1 yx 1 yx 1 y"…, got …"x 1 yx 1 yLOSTyx 1 yx 1 yx 1 y"…`, d)
	assert.Less(t, len(d), 200)
	assert.Equal(t, `wanted 3 bytes, got 2; first difference at byte 2: wanted …"abc"…, got …"ab"…`, difference("abc", "ab"))
}
