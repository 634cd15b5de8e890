// Package services builds the module's own services on the cluster
// harness: the cluster factories of their servers, and the layout of the
// groups a service needs (a coordinator group and shard groups, say), so
// that tests, experiments and sweeps build them one way. It is the one
// support package that imports services; workload, the checks and the
// harness itself stay independent of them.
package services
