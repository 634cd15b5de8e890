package rsm

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNewGobCodecBuildsDescriptorsOnce checks which types NewGobCodec
// builds an encoder for, descriptors included: every type gob encodes and
// no value of which holds an interface; the others are written by a fresh
// encoder each time.
func TestNewGobCodecBuildsDescriptorsOnce(t *testing.T) {
	type cmd struct {
		Key  string
		Vals []int
	}
	type anyCmd struct{ V any }
	c := NewGobCodec[cmd, string]()
	if assert.NotNil(t, c.cmd) && assert.NotNil(t, c.res) {
		assert.NotEmpty(t, c.cmd.prefix, "a struct's descriptors")
	}
	fresh := NewGobCodec[anyCmd, func()]()
	assert.Nil(t, fresh.cmd, "a type holding an interface")
	assert.Nil(t, fresh.res, "a type gob cannot encode (a func)")
}
