package kvraft_test

// The lab's catalogue (package kvtest), run through the catalogue's
// interface alone on the service lab makes (lab_test.go). The course kit
// hands this file out as it is.

import (
	"testing"

	"github.com/replab/replab/kvraft/kvtest"
	"github.com/replab/replab/sim/simtest"
)

// 4A: without snapshots

func TestBasic(t *testing.T)                       { kvtest.Basic.Run(t, lab) }
func TestSpeed(t *testing.T)                       { kvtest.Speed.Run(t, lab) }
func TestConcurrent(t *testing.T)                  { kvtest.Concurrent.Run(t, lab) }
func TestUnreliable(t *testing.T)                  { kvtest.Unreliable.Run(t, lab) }
func TestUnreliableOneKey(t *testing.T)            { kvtest.UnreliableOneKey.Run(t, lab) }
func TestOnePartition(t *testing.T)                { kvtest.OnePartition.Run(t, lab) }
func TestManyPartitionsOneClient(t *testing.T)     { kvtest.ManyPartitionsOneClient.Run(t, lab) }
func TestManyPartitionsManyClients(t *testing.T)   { kvtest.ManyPartitionsManyClients.Run(t, lab) }
func TestPersistOneClient(t *testing.T)            { kvtest.PersistOneClient.Run(t, lab) }
func TestPersistConcurrent(t *testing.T)           { kvtest.PersistConcurrent.Run(t, lab) }
func TestPersistConcurrentUnreliable(t *testing.T) { kvtest.PersistConcurrentUnreliable.Run(t, lab) }
func TestPersistPartition(t *testing.T)            { kvtest.PersistPartition.Run(t, lab) }
func TestPersistPartitionUnreliable(t *testing.T)  { kvtest.PersistPartitionUnreliable.Run(t, lab) }
func TestPersistPartitionUnreliableLinearizable(t *testing.T) {
	kvtest.PersistPartitionUnreliableLinearizable.Run(t, lab)
}

// 4B: with snapshots

func TestSnapshotRPC(t *testing.T)                { kvtest.SnapshotRPC.Run(t, lab) }
func TestSnapshotSize(t *testing.T)               { kvtest.SnapshotSize.Run(t, lab) }
func TestSpeedSnapshot(t *testing.T)              { kvtest.SpeedSnapshot.Run(t, lab) }
func TestSnapshotRecover(t *testing.T)            { kvtest.SnapshotRecover.Run(t, lab) }
func TestSnapshotRecoverManyClients(t *testing.T) { kvtest.SnapshotRecoverManyClients.Run(t, lab) }
func TestSnapshotUnreliable(t *testing.T)         { kvtest.SnapshotUnreliable.Run(t, lab) }
func TestSnapshotUnreliableRecover(t *testing.T)  { kvtest.SnapshotUnreliableRecover.Run(t, lab) }
func TestSnapshotUnreliableRecoverConcurrentPartition(t *testing.T) {
	kvtest.SnapshotUnreliableRecoverConcurrentPartition.Run(t, lab)
}
func TestSnapshotUnreliableRecoverConcurrentPartitionLinearizable(t *testing.T) {
	kvtest.SnapshotUnreliableRecoverConcurrentPartitionLinearizable.Run(t, lab)
}

// TestCatalogueComplete checks that this file runs every test of the
// catalogue.
func TestCatalogueComplete(t *testing.T) {
	var names []string
	for _, test := range kvtest.Tests() {
		names = append(names, test.Name)
	}
	simtest.CheckDeclared(t, "catalogue_test.go", names)
}
