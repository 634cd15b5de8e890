// Package services builds the lock service on the cluster harness: the
// cluster factory of its servers, so that tests, experiments and sweeps
// build it one way (the other services' deployments are beside them, in
// kvraft/kvdeploy, shardtxn/txntest and shardtxn/logorder/logordertest);
// workload, the checks and the harness itself stay independent of them.
package services
