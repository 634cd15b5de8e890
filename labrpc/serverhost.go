package labrpc

import "github.com/replab/replab/sim"

// ServerHost returns the host of the server the end is connected to: the
// server last added under the name the end points at, even while that
// server is deleted (its host dead, say), so that a node can name its
// peers by host in what it shows of its state. It returns nil if the end
// is not connected, no server was ever added under the name, or the server
// runs outside every host.
func (e *ClientEnd) ServerHost() *sim.Host {
	if !e.connected {
		return nil
	}
	return e.net.hostOf[e.server]
}
