package txncheck_test

import (
	"fmt"
	"time"

	"github.com/replab/replab/checks/txncheck"
)

// Two clients record transactions as they run. The second reads key 1
// after the first appended to it, but key 2 before: read skew, which
// snapshot isolation forbids and read committed allows.
func Example() {
	var h txncheck.History
	ms := time.Millisecond

	a := h.Invoke(0, []txncheck.Op{txncheck.Append(1, 10), txncheck.Append(2, 20)}, 0*ms)
	b := h.Invoke(1, []txncheck.Op{txncheck.Read(1), txncheck.Read(2)}, 1*ms)
	h.Complete(a, txncheck.OK, []txncheck.Op{txncheck.Append(1, 10), txncheck.Append(2, 20)}, 2*ms)
	h.Complete(b, txncheck.OK, []txncheck.Op{txncheck.Read(1, 10), txncheck.Read(2)}, 3*ms)
	c := h.Invoke(0, []txncheck.Op{txncheck.Read(2)}, 4*ms)
	h.Complete(c, txncheck.OK, []txncheck.Op{txncheck.Read(2, 20)}, 5*ms)

	for _, m := range []txncheck.Model{txncheck.ReadCommitted, txncheck.SnapshotIsolation} {
		r, err := txncheck.Check(&h, m)
		if err != nil {
			panic(err)
		}
		fmt.Print(r)
	}
	// Output:
	// valid under read-committed: 3 transactions
	// invalid under snapshot-isolation: 3 transactions; weakest model violated: snapshot-isolation; 1 anomaly
	// G-single: T0 → T1 → T0
	//   T0 < T1: T1 read T0's append of 10 to key 1
	//   T1 < T0: T1 read key 2 = nil, the version before T0's append of 20 to key 2
}
