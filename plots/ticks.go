package plots

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// linearTicks label five to ten round values across an axis, 1, 2 or 5
// times a power of ten apart, with an unlabelled tick halfway between
// each two.
type linearTicks struct{}

// Ticks returns the ticks for [min, max].
func (linearTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) {
		return []plot.Tick{{Value: min, Label: formatTick(min)}}
	}
	step := roundStep((max - min) / 5)
	var ticks []plot.Tick
	for k := math.Ceil(min / step * 2); k/2*step <= max*(1+1e-9); k++ {
		v := k / 2 * step
		t := plot.Tick{Value: v}
		if int(k)%2 == 0 {
			t.Label = formatTick(v)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// roundStep returns the largest of 1, 2 and 5 times a power of ten that is
// at most x.
func roundStep(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{5, 2, 1} {
		if m*p <= x*(1+1e-9) {
			return m * p
		}
	}
	return p
}

// logTicks label the powers of ten across a logarithmic axis, and 2 and 5
// times them when the axis spans less than three decades, so that a short
// axis has labels too; unlabelled ticks mark the other multiples.
type logTicks struct{}

// Ticks returns the ticks for [min, max], both positive.
func (logTicks) Ticks(min, max float64) []plot.Tick {
	labelled := map[int]bool{1: true}
	if max/min < 1000 {
		labelled[2], labelled[5] = true, true
	}
	var ticks []plot.Tick
	for p := math.Floor(math.Log10(min)); p <= math.Ceil(math.Log10(max)); p++ {
		for m := 1; m < 10; m++ {
			v := float64(m) * math.Pow(10, p)
			if v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if labelled[m] {
				t.Label = formatTick(v)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// formatTick writes v with no more digits than it needs (25000, 0.5, 1e+06
// for large round values).
func formatTick(v float64) string {
	return strconv.FormatFloat(v, 'g', 6, 64)
}
