package plots

import (
	"math"
	"slices"
)

// Stats summarises a sample.
type Stats struct {
	N                      int
	Mean                   float64
	Min, P5, P50, P95, Max float64
}

// Summarize returns the sample's count, mean and percentiles (nearest
// rank). An empty sample gives zeros.
func Summarize(values []float64) Stats {
	if len(values) == 0 {
		return Stats{}
	}
	s := slices.Clone(values)
	slices.Sort(s)
	sum := 0.0
	for _, v := range s {
		sum += v
	}
	return Stats{N: len(s), Mean: sum / float64(len(s)), Min: s[0], P5: Percentile(s, 0.05), P50: Percentile(s, 0.5), P95: Percentile(s, 0.95), Max: s[len(s)-1]}
}

// Percentile returns the p-th percentile (0 <= p <= 1) of sorted values by
// nearest rank.
func Percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
