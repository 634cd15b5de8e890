package labrpc

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/replab/replab/sim"
)

func TestServerHost(t *testing.T) {
	w := sim.NewWorld(1)
	net := MakeNetwork(w)
	a, b := w.NewHost("a"), w.NewHost("b")
	e := net.MakeEnd("e", a)
	assert.Nil(t, e.ServerHost(), "an end connected to nothing")
	net.Connect("e", "s")
	assert.Nil(t, e.ServerHost(), "no server was ever added as s")
	net.AddServer("s", MakeServer(b))
	assert.Same(t, b, e.ServerHost())
	net.DeleteServer("s")
	assert.Same(t, b, e.ServerHost(), "s's host, while s is deleted")
	net.AddServer("s", MakeServer(a))
	assert.Same(t, a, e.ServerHost(), "the server added last as s")
	net.AddServer("s", MakeServer(nil))
	assert.Nil(t, e.ServerHost(), "a server outside every host")
}
