package testbed

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestProblemKind(t *testing.T) {
	for problem, kind := range map[string]string{
		"": "",
		`history of 1999 operations is not linearizable: key "k1": operation 1254`:                           "linearizability",
		"linearizability check of 9 operations ran out of its 1m0s (took 1m0s) on k2: the result is unknown": "unknown",
		"stall: no operation begun after the heal at 3s completed within 10s":                                "stall",
		"storm: more than 100 events by virtual time 1s (100 a virtual second)":                              "storm",
		"apply error: commit index=17 server=1 857 != server=0 891":                                          "agreement",
		"nodes disagree on tid 4: node 1 decided commit, node 2 abort":                                       "agreement",
		"invalid: 3 of 40 committed reads wrong\nwrong total × 3":                                            "bank",
		"invalid under strict serializability: 12 transactions; 1 anomaly":                                   "serializability",
		"inconclusive under strict serializability: 12 transactions":                                         "unknown",
		"panic: runtime error: index out of range [-1]\ngoroutine 1":                                         "panic",
		"the clients' last operations did not end within 2m0s of the last heal, at 30s":                      "settle",
		"clerk 3 lost the unflushed writes of 2 locks":                                                       "clerk lost the unflushed writes of locks",
	} {
		assert.Equal(t, kind, ProblemKind(problem), problem)
	}
}
