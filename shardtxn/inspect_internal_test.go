package shardtxn

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHeld(t *testing.T) {
	s := newShard(bugs{})
	assert.Equal(t, "-", s.held(), "no locks")
	w, r1, r2 := Txid{Client: 9123456789, Seq: 4}, Txid{Client: 7, Seq: 1}, Txid{Client: 8, Seq: 12}
	s.locks["y"] = &lock{Readers: []Txid{r1, r2}}
	s.locks["x"] = &lock{Writer: w}
	assert.Equal(t, "x:w9123456789.4 y:r7.1,8.12", s.held(), "in key order, each id as Txid.String formats it")
	assert.Equal(t, w.String(), string(appendTxid(nil, w)))
	for i := range heldListed - 1 {
		s.locks[fmt.Sprintf("k%d", i)] = &lock{Writer: w}
	}
	assert.Equal(t, "…", s.held(), "too many to list")
}
