// Package services builds the key/value and lock services on the cluster
// harness: the cluster factories of their servers, so that tests,
// experiments and sweeps build them one way (shardtxn's and logorder's
// deployments are beside them, in shardtxn/txntest and
// shardtxn/logorder/logordertest); workload, the checks and the harness
// itself stay independent of them.
package services
