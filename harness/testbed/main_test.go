package testbed

import (
	"testing"

	"github.com/replab/replab/sim/simtest"
)

func TestMain(m *testing.M) { simtest.Main(m) }
