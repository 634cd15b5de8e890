// Package kvtest is the key/value lab's test catalogue, written against a
// small description of a service (Service: functions that start a server
// and make a clerk), so that it
// tests any implementation: ours (package kvraft runs it) or a student's
// in the course kit (labsim kit kvraft).
//
// Each test is a Test value: its name, the part of the lab it belongs to
// (4A without snapshots, 4B with), its points, and a body that runs it
// once on a world for a seed. A test file calls the Test's Run from a test
// function of the same name:
//
//	func TestBasic(t *testing.T) { kvtest.Basic.Run(t, service) }
//
// Every test records the clients' operations with their virtual call and
// return times and checks the history with porcupine at the end; a
// violation writes porcupine's visualization, with the fault log marked,
// to a file whose path the failure names. The Harness the bodies use is on
// the cluster harness; a service's own tests can use it too.
package kvtest

import (
	"testing"

	"github.com/replab/replab/sim/simtest"
)

// A Body runs a test once on a world for seed, with the service svc,
// failing through t, and returns the harness it ran.
type Body func(t simtest.T, seed int64, svc Service) *Harness

// A Test is one test of the catalogue.
type Test struct {
	Name   string // the name of the test function that runs it
	Part   string // the lab's part: 4A or 4B
	Points int
	Body   Body
}

// DefaultSeeds are the seeds every test runs by default: one, which
// simtest.Run then replays to check that the run is a function of its
// seed. A second seed cost a third of the catalogue's time; the planted-bug
// hunts run three seeds of the scenarios that catch bugs, a sweep (labsim
// sweep) runs thousands, and -seed runs a test on any other.
var DefaultSeeds = []int64{1}

// Run runs the test as t, which must be the test function named
// test.Name, over the default seeds (or -seed), on svc (see
// simtest.RunGraded), in parallel with other tests if svc.Parallel.
func (test Test) Run(t *testing.T, svc Service) {
	t.Helper()
	if svc.Parallel {
		t.Parallel()
	}
	simtest.RunGraded(t, test.Name, test.Part, test.Points, DefaultSeeds, func(t *testing.T, seed int64) simtest.Result {
		return test.Body(t, seed, svc).Result()
	})
}

// The catalogue, by part.
var (
	Basic                                  = Test{"TestBasic", "4A", 4, generic(1, 5, false, false, false, -1, false)}
	Speed                                  = Test{"TestSpeed", "4A", 4, speed(-1)}
	Concurrent                             = Test{"TestConcurrent", "4A", 4, generic(5, 5, false, false, false, -1, false)}
	Unreliable                             = Test{"TestUnreliable", "4A", 4, generic(5, 5, true, false, false, -1, false)}
	UnreliableOneKey                       = Test{"TestUnreliableOneKey", "4A", 4, unreliableOneKey}
	OnePartition                           = Test{"TestOnePartition", "4A", 4, onePartition}
	ManyPartitionsOneClient                = Test{"TestManyPartitionsOneClient", "4A", 4, generic(1, 5, false, false, true, -1, false)}
	ManyPartitionsManyClients              = Test{"TestManyPartitionsManyClients", "4A", 4, generic(5, 5, false, false, true, -1, false)}
	PersistOneClient                       = Test{"TestPersistOneClient", "4A", 4, generic(1, 5, false, true, false, -1, false)}
	PersistConcurrent                      = Test{"TestPersistConcurrent", "4A", 4, generic(5, 5, false, true, false, -1, false)}
	PersistConcurrentUnreliable            = Test{"TestPersistConcurrentUnreliable", "4A", 4, generic(5, 5, true, true, false, -1, false)}
	PersistPartition                       = Test{"TestPersistPartition", "4A", 4, generic(5, 5, false, true, true, -1, false)}
	PersistPartitionUnreliable             = Test{"TestPersistPartitionUnreliable", "4A", 4, generic(5, 5, true, true, true, -1, false)}
	PersistPartitionUnreliableLinearizable = Test{"TestPersistPartitionUnreliableLinearizable", "4A", 8, generic(15, 7, true, true, true, -1, true)}

	SnapshotRPC                                              = Test{"TestSnapshotRPC", "4B", 4, snapshotRPC}
	SnapshotSize                                             = Test{"TestSnapshotSize", "4B", 4, snapshotSize}
	SpeedSnapshot                                            = Test{"TestSpeedSnapshot", "4B", 4, speed(1000)}
	SnapshotRecover                                          = Test{"TestSnapshotRecover", "4B", 4, generic(1, 5, false, true, false, 1000, false)}
	SnapshotRecoverManyClients                               = Test{"TestSnapshotRecoverManyClients", "4B", 4, generic(20, 5, false, true, false, 1000, false)}
	SnapshotUnreliable                                       = Test{"TestSnapshotUnreliable", "4B", 4, generic(5, 5, true, false, false, 1000, false)}
	SnapshotUnreliableRecover                                = Test{"TestSnapshotUnreliableRecover", "4B", 4, generic(5, 5, true, true, false, 1000, false)}
	SnapshotUnreliableRecoverConcurrentPartition             = Test{"TestSnapshotUnreliableRecoverConcurrentPartition", "4B", 4, generic(5, 5, true, true, true, 1000, false)}
	SnapshotUnreliableRecoverConcurrentPartitionLinearizable = Test{"TestSnapshotUnreliableRecoverConcurrentPartitionLinearizable", "4B", 8, generic(15, 7, true, true, true, 1000, true)}
)

// Tests returns the whole catalogue, in the order of the lab's parts.
func Tests() []Test {
	return []Test{
		Basic, Speed, Concurrent, Unreliable, UnreliableOneKey, OnePartition,
		ManyPartitionsOneClient, ManyPartitionsManyClients, PersistOneClient, PersistConcurrent,
		PersistConcurrentUnreliable, PersistPartition, PersistPartitionUnreliable, PersistPartitionUnreliableLinearizable,
		SnapshotRPC, SnapshotSize, SpeedSnapshot, SnapshotRecover, SnapshotRecoverManyClients, SnapshotUnreliable,
		SnapshotUnreliableRecover, SnapshotUnreliableRecoverConcurrentPartition, SnapshotUnreliableRecoverConcurrentPartitionLinearizable,
	}
}
