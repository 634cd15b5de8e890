package raft_test

import "github.com/replab/replab/raft"

// lab makes the nodes the catalogue tests: ours, with the lab's timing.
var lab = raft.Maker(raft.LabConfig())
