package labsim

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/replab/replab/harness/sweep"
)

// writeMarkdown writes a merged sweep as a Markdown section for the docs:
// its verdict and cost, the spread of what its runs came to (virtual
// time, events, operations), and the spread of every parameter its seeds
// drew, numbers and choices in a table each.
func writeMarkdown(w io.Writer, m *sweep.Merged, seeds []sweep.SeedRecord) error {
	s := m.Summary
	name := s.Scenario
	if s.Plant != "" {
		name = fmt.Sprintf("%s, %q planted", s.Scenario, s.Plant)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n", name)
	fmt.Fprintf(&b, "%s (%s), %d failing", count(s.Ran, "seed"), s.Span(), s.Failed)
	if len(m.Failing) > 0 {
		var fs []string
		for _, f := range m.Failing {
			fs = append(fs, strconv.FormatInt(f.Seed, 10))
		}
		fmt.Fprintf(&b, " (seeds %s)", strings.Join(fs, ", "))
	}
	fmt.Fprintf(&b, "; built as %s with %s", s.Build, s.Go)
	if s.CPUSeconds > 0 && s.Ran > 0 {
		fmt.Fprintf(&b, "; %.0f CPU-seconds, %.2f seeds a core-second", s.CPUSeconds, float64(s.Ran)/s.CPUSeconds)
	}
	b.WriteString(".\n\n")

	ran := runSpread(seeds)
	b.WriteString("| what a run came to | min | median | max |\n|---|---|---|---|\n")
	for _, p := range ran {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", p.Name, p.Min, p.Median, p.Max)
	}
	var nums, choices []sweep.ParamSpread
	for _, p := range sweep.Spread(seeds) {
		if p.Counts == nil {
			nums = append(nums, p)
		} else {
			choices = append(choices, p)
		}
	}
	if len(nums) > 0 {
		b.WriteString("\n| drawn number | seeds | min | median | max |\n|---|---|---|---|---|\n")
		for _, p := range nums {
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s |\n", p.Name, p.Seeds, p.Min, p.Median, p.Max)
		}
	}
	if len(choices) > 0 {
		b.WriteString("\n| drawn choice | seeds | shares |\n|---|---|---|\n")
		for _, p := range choices {
			fmt.Fprintf(&b, "| %s | %d | %s |\n", p.Name, p.Seeds, shares(p))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// shares says how often each value of a choice was drawn, most often
// first; a choice of more than six values says only how many there were.
func shares(p sweep.ParamSpread) string {
	if len(p.Counts) > 6 {
		return fmt.Sprintf("%d distinct values", len(p.Counts))
	}
	vals := slices.Sorted(maps.Keys(p.Counts))
	slices.SortStableFunc(vals, func(a, b string) int { return p.Counts[b] - p.Counts[a] })
	var parts []string
	for _, v := range vals {
		parts = append(parts, fmt.Sprintf("%s %s", strings.ReplaceAll(v, "|", `\|`), percent(p.Counts[v], p.Seeds)))
	}
	return strings.Join(parts, ", ")
}

// percent writes n of total as a whole percentage, or "< 1 %" for a few.
func percent(n, total int) string {
	pc := 100 * float64(n) / float64(total)
	if n > 0 && pc < 0.5 {
		return "< 1 %"
	}
	return fmt.Sprintf("%.0f %%", pc)
}

// runSpread is the spread over the seeds of what each run came to: its
// virtual time, its world's events and its clients' operations.
func runSpread(seeds []sweep.SeedRecord) []sweep.ParamSpread {
	var virt, events, ops []string
	for _, r := range seeds {
		virt = append(virt, time.Duration(r.VirtualSeconds*float64(time.Second)).Round(time.Millisecond).String())
		events = append(events, strconv.FormatUint(r.Events, 10))
		ops = append(ops, strconv.Itoa(r.Ops))
	}
	return []sweep.ParamSpread{
		sweep.SpreadOf("virtual time", virt),
		sweep.SpreadOf("events", events),
		sweep.SpreadOf("client operations", ops),
	}
}
