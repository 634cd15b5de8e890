package kvtest

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// searchedInOrder is the lab's check of client clnt's appends, an element
// at a time, as a verdict.
func searchedInOrder(clnt int, v string, count int) bool {
	lastoff := -1
	for j := range count {
		wanted := "x " + strconv.Itoa(clnt) + " " + strconv.Itoa(j) + " y"
		off := strings.Index(v, wanted)
		if off < 0 || strings.LastIndex(v, wanted) != off || off <= lastoff {
			return false
		}
		lastoff = off
	}
	return true
}

func elem(c, j int) string { return "x " + strconv.Itoa(c) + " " + strconv.Itoa(j) + " y" }

func TestAppendsInOrderAgreesWithTheSearch(t *testing.T) {
	cases := []string{
		"",
		elem(1, 0) + elem(1, 1) + elem(1, 2),
		elem(1, 0) + elem(11, 0) + elem(1, 1) + elem(0, 1) + elem(1, 2) + elem(1, 7),
		elem(1, 0) + elem(1, 2) + elem(1, 1),              // out of order
		elem(1, 0) + elem(1, 1) + elem(1, 1) + elem(1, 2), // a duplicate
		elem(1, 0) + elem(1, 2),                           // one missing
		elem(1, 0) + elem(1, 1),                           // the last missing
		elem(1, 0) + "x 1 01 y" + elem(1, 2),              // a number not as clients write it
		elem(1, 0) + "x 1 x 1 1 y" + elem(1, 2),           // an element inside junk
		elem(1, 0) + "x 1 1" + elem(1, 2),                 // a cut element
		"x 1 0 yx 1 1 yx 1 2 y",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		// Three clients' appends interleaved (each client's numbers reach
		// 10 or so), then perhaps broken.
		var parts []string
		next := [3]int{}
		for range 3 * 12 {
			c := rng.IntN(3)
			parts = append(parts, elem(c, next[c]))
			next[c]++
		}
		switch i := rng.IntN(len(parts)); rng.IntN(5) {
		case 0:
			parts = append(parts[:i], parts[i+1:]...)
		case 1:
			parts = append(parts, parts[i])
		case 2:
			j := rng.IntN(len(parts))
			parts[i], parts[j] = parts[j], parts[i]
		case 3:
			parts[i] = parts[i][:rng.IntN(len(parts[i]))]
		}
		cases = append(cases, strings.Join(parts, ""))
	}
	fails := 0
	for _, v := range cases {
		for clnt := range 3 {
			for _, count := range []int{0, 2, 3, 10} {
				want := searchedInOrder(clnt, v, count)
				if !want {
					fails++
				}
				assert.Equal(t, want, appendsInOrder(clnt, v, count), "client %d, %d appends, in %q", clnt, count, v)
			}
		}
	}
	assert.Greater(t, fails, 1000, "the cases include broken values")
}

// fatal is a simtest.T whose Fatalf stops the check by panicking.
type fatal struct{ testing.TB }

func (fatal) Helper()                           {}
func (fatal) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

func TestCheckClntAppendsSaysWhatIsWrong(t *testing.T) {
	check := func(v string, count int) func() { return func() { checkClntAppends(fatal{t}, 1, v, count) } }
	check(elem(1, 0)+elem(2, 0)+elem(1, 1), 2)() // passes: a panic would fail the test
	assert.PanicsWithValue(t, "1 missing element x 1 1 y in Append result "+elem(1, 0), check(elem(1, 0), 2))
	assert.PanicsWithValue(t, "duplicate element x 1 0 y in Append result", check(elem(1, 0)+elem(1, 0), 1))
	assert.PanicsWithValue(t, "wrong order for element x 1 1 y in Append result", check(elem(1, 1)+elem(1, 0), 2))
}
