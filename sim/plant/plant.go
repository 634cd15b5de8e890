// Package plant names the mistakes a service can have switched back on in
// its configuration, so that a test suite (the service's own, a sweep, a
// course's) can show that it catches each one. Each package that has
// planted bugs (raft, rsm, shardtxn, shardtxn/logorder, frangipani)
// exports its list as PlantedBugs() []plant.Bug[Config]; all are off in a
// real configuration.
package plant

// A Bug is a known mistake that can be put back into a configuration of
// type C.
type Bug[C any] struct {
	Name  string   // what goes wrong, in a few words
	Plant func(*C) // switches the bug on in a configuration
}

// Named returns the bug in bugs called name, or false.
func Named[C any](bugs []Bug[C], name string) (Bug[C], bool) {
	for _, b := range bugs {
		if b.Name == name {
			return b, true
		}
	}
	return Bug[C]{}, false
}
