package logorder

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The limits are inclusive: a transaction may carry MaxKeys reads and
// MaxKeys writes, and write values of MaxValue bytes.
func TestTxnAtTheLimits(t *testing.T) {
	reads, writes := make([]Read, MaxKeys), make([]Write, MaxKeys)
	for i := range MaxKeys {
		reads[i] = Read{Key: "r" + strings.Repeat("k", i%MaxKey)}
		writes[i] = Write{Key: "w" + strings.Repeat("k", i%MaxKey)}
	}
	writes[0].Value = strings.Repeat("v", MaxValue)
	assert.NoError(t, Txn{Reads: reads, Writes: writes}.check())
}
