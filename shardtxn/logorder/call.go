package logorder

import (
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
)

// retryPause is how long a caller waits after a try that did not help
// before the next.
const retryPause = 10 * time.Millisecond

// ask sends method with args to the server pick chooses, and again to the
// one it chooses next, until accept takes a reply (made by newReply). A
// try that is lost, times out or is refused is followed by another after a
// short pause. Everything runs on host: if it dies, the asking ends.
func ask(host *sim.Host, timeout time.Duration, pick func() *labrpc.ClientEnd, method string, args any, newReply func() any, accept func(reply any) bool) {
	var current *bool // the try under way; an answer to another is ignored
	var try func()
	timer := host.NewTimer(func() { try() })
	try = func() {
		this := new(bool)
		current = this
		reply := newReply()
		pick().Call(method, args, reply, func(ok bool) {
			if this != current {
				return // timed out already
			}
			timer.Stop()
			if ok && accept(reply) {
				return
			}
			host.After(retryPause, try)
		})
		timer.Reset(timeout)
	}
	try()
}
