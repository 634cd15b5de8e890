package sweep

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A ParamSpread is how one drawn parameter spread over a sweep's seeds:
// for a number or a duration, its least, median and greatest value; for
// anything else, how often each value was drawn.
type ParamSpread struct {
	Name  string
	Seeds int // the seeds that drew it
	// Min, Median and Max are set for a parameter whose every value is a
	// number or a duration (its first word, for a value with a note after
	// it, "8 (at most 4 clients a key)").
	Min, Median, Max string
	// Counts is, for any other parameter, how many seeds drew each value.
	Counts map[string]int
}

// String says the spread in one line: "servers: 3 / 5 / 7 (min / median /
// max, 1000 seeds)", or "unreliable: false 39 %, true 61 % (1000 seeds)".
func (p ParamSpread) String() string {
	seeds := fmt.Sprintf("%d seeds", p.Seeds)
	if p.Seeds == 1 {
		seeds = "1 seed"
	}
	if p.Counts == nil {
		return fmt.Sprintf("%s: %s / %s / %s (min / median / max, %s)", p.Name, p.Min, p.Median, p.Max, seeds)
	}
	if len(p.Counts) > 6 {
		return fmt.Sprintf("%s: %d distinct values (%s)", p.Name, len(p.Counts), seeds)
	}
	var parts []string
	for _, v := range slices.Sorted(maps.Keys(p.Counts)) {
		parts = append(parts, fmt.Sprintf("%s %.0f %%", v, 100*float64(p.Counts[v])/float64(p.Seeds)))
	}
	return fmt.Sprintf("%s: %s (%s)", p.Name, strings.Join(parts, ", "), seeds)
}

// Spread returns how each parameter the seeds drew spread over them, by
// name.
func Spread(seeds []SeedRecord) []ParamSpread {
	values := map[string][]string{}
	for _, s := range seeds {
		for name, v := range s.Drawn {
			values[name] = append(values[name], v)
		}
	}
	var out []ParamSpread
	for _, name := range slices.Sorted(maps.Keys(values)) {
		out = append(out, SpreadOf(name, values[name]))
	}
	return out
}

// SpreadOf is the spread of one parameter's values, as Spread finds it
// for each parameter a sweep's seeds drew.
func SpreadOf(name string, vs []string) ParamSpread {
	p := ParamSpread{Name: name, Seeds: len(vs)}
	type num struct {
		v    float64
		text string
	}
	nums := make([]num, 0, len(vs))
	for _, v := range vs {
		text, _, _ := strings.Cut(v, " ")
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			d, derr := time.ParseDuration(text)
			if derr != nil {
				break
			}
			f = float64(d)
		}
		nums = append(nums, num{f, text})
	}
	if len(nums) == len(vs) {
		slices.SortStableFunc(nums, func(a, b num) int { return cmp.Compare(a.v, b.v) })
		p.Min, p.Median, p.Max = nums[0].text, nums[len(nums)/2].text, nums[len(nums)-1].text
		return p
	}
	p.Counts = map[string]int{}
	for _, v := range vs {
		p.Counts[v]++
	}
	return p
}
