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

// MeanCI95 returns the sample's mean and the bounds of its 95 % confidence
// interval, mean ± 1.96 standard errors (normal approximation; it wants a
// few dozen values). One value gives an interval of zero width; none gives
// NaNs.
func MeanCI95(values []float64) (mean, lo, hi float64) {
	n := float64(len(values))
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	for _, v := range values {
		mean += v
	}
	mean /= n
	if n == 1 {
		return mean, mean, mean
	}
	ss := 0.0
	for _, v := range values {
		ss += (v - mean) * (v - mean)
	}
	half := 1.96 * math.Sqrt(ss/(n-1)/n)
	return mean, mean - half, mean + half
}
