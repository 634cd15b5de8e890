package replab

import "embed"

// Sources holds what a course kit (labsim kit, package kit) copies out of
// this module: the packages the test catalogues run on, the catalogues'
// test files, go.mod and go.sum (for the versions of dependencies), and
// the guide to writing Raft for a deterministic world.
//
//go:embed go.mod go.sum docs/writing-raft.md
//go:embed sim labrpc chaos harness/cluster harness/runfile raft/raftapi raft/rafttest checks/linearize kvraft/kvtest
//go:embed raft/catalogue_test.go kvraft/catalogue_test.go
var Sources embed.FS
