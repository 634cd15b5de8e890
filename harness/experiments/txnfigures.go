package experiments

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/plots"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/replab/replab/sim"
)

func txnLatencyExperiment() Experiment {
	return Experiment{
		Name:        "txn-latency",
		Reproduces:  "Raft-based KV with transactions paper, Fig. 4",
		Description: "latency (mean, p95) of shardtxn operations against 1 to 150 clients: Get/Set on disjoint keys in paper 000's design (relayed by the coordinator, Gets from the leader's state) and ours, Set on overlapping keys, read-only vs 2PC transactions across shards, 2PC against the CPU cost of a message, Add vs Xfer",
		Seed:        1,
		Full:        "measures each point over the paper's 30 s instead of 0.5 s (2PC under a heavier CPU cost as many times longer, up to 10 minutes)",
		Run:         runTxnLatency,
	}
}

// A txnKind is one operation that txn-latency measures, on a panel.
type txnKind struct {
	panel, name string
	op          func(e *txnEnv) txnOp
	// conf, if set, changes the deployment's configuration: paper 000's
	// one-phase read-only transactions, its Gets from the leader's state,
	// its coordinator relaying simple operations.
	conf func(c *shardtxn.Config)
	// relayed clients send every transaction to the coordinators, as paper
	// 000's did.
	relayed bool
	// cost, if not zero, is the CPU time each message costs its host,
	// instead of the experiments' serviceTime; the kind is measured over a
	// window as much longer, and drawn by its mean alone.
	cost time.Duration
	// disk, if not zero, gives every server host a disk whose every write
	// takes that long (txnEnv.setDisk); the kind is measured over a window
	// diskStretch times longer, and drawn by its mean alone.
	disk time.Duration
}

// meanOnly reports whether k is drawn by its mean alone.
func (k txnKind) meanOnly() bool { return k.cost != 0 || k.disk != 0 }

// paperDisk is the disk write under which panelCost measures 2PC: a
// slow disk's, a few times an SSD's sync; diskStretch is how many times
// longer than the others that line is measured, as it commits fewer.
const (
	paperDisk   = 10 * time.Millisecond
	diskStretch = 10
)

// The names of panel (a)'s operations, which the caption compares, and
// the panels the caption speaks of.
const (
	getPaper  = "Get, relayed, from the leader's state (paper 000's)"
	setPaper  = "Set, relayed (paper 000's)"
	getLogged = "Get through the log (ours)"
	setOurs   = "Set (ours)"
	panelA    = "(a) Get and Set on disjoint keys"
	panelCost = "(c) 2PC (Set, Set) under heavier costs (mean)"
)

// txnCosts are the CPU costs of a message under which panelCost measures
// 2PC: the experiments' own and heavier ones.
func txnCosts() []time.Duration {
	return []time.Duration{serviceTime, 200 * time.Microsecond, 500 * time.Microsecond, time.Millisecond}
}

// paperTimeout is paper 000's clients' HTTP timeout, which its 2PC
// transactions reached at 150 clients.
const paperTimeout = 5 * time.Second

func txnKinds() []txnKind {
	own := func(build func(a, b string, n int) []shardtxn.Op) func(e *txnEnv) txnOp {
		return func(e *txnEnv) txnOp {
			return txn(func(client, n int) []shardtxn.Op { a, b := e.keys(client); return build(a, b, n) })
		}
	}
	get := own(func(a, _ string, _ int) []shardtxn.Op { return []shardtxn.Op{shardtxn.Get(a)} })
	set := own(func(a, _ string, n int) []shardtxn.Op { return []shardtxn.Op{shardtxn.Set(a, strconv.Itoa(n))} })
	twoPC := own(func(a, b string, n int) []shardtxn.Op {
		return []shardtxn.Op{shardtxn.Set(a, strconv.Itoa(n)), shardtxn.Set(b, strconv.Itoa(n))}
	})
	kinds := []txnKind{
		{panel: panelA, name: getPaper, op: get, relayed: true, conf: func(c *shardtxn.Config) { c.LocalReads, c.Relay = true, true }},
		{panel: panelA, name: setPaper, op: set, relayed: true, conf: func(c *shardtxn.Config) { c.Relay = true }},
		{panel: panelA, name: getLogged, op: get},
		{panel: panelA, name: setOurs, op: set},
		{panel: "(b) Set on 10 keys all clients share", name: "Set", op: func(e *txnEnv) txnOp {
			return txn(func(client, n int) []shardtxn.Op {
				return []shardtxn.Op{shardtxn.Set(fmt.Sprintf("c%d", (client+n)%10), strconv.Itoa(n))}
			})
		}},
		{panel: "(c) transactions across two shards", name: "read-only (Get, Get), one phase", conf: func(c *shardtxn.Config) { c.OnePhaseReads = true },
			op: own(func(a, b string, _ int) []shardtxn.Op { return []shardtxn.Op{shardtxn.Get(a), shardtxn.Get(b)} })},
		{panel: "(c) transactions across two shards", name: "2PC (Set, Set)", op: twoPC},
	}
	for _, c := range txnCosts() {
		kinds = append(kinds, txnKind{panel: panelCost, name: costName(c), op: twoPC, cost: c})
	}
	kinds = append(kinds, txnKind{panel: panelCost, name: diskLine, op: twoPC, disk: paperDisk})
	return append(kinds,
		txnKind{panel: "(d) Add and Xfer", name: "Add (one shard)", op: func(e *txnEnv) txnOp {
			return func(ck *shardtxn.Clerk, client, _ int, done func(bool)) {
				a, _ := e.keys(client)
				must(ck.Add(a, 1, func(o shardtxn.Outcome) { done(o.Committed) }))
			}
		}},
		txnKind{panel: "(d) Add and Xfer", name: "Xfer (two shards)", op: func(e *txnEnv) txnOp {
			return func(ck *shardtxn.Clerk, client, n int, done func(bool)) {
				a, b := e.keys(client)
				if n%2 == 0 {
					a, b = b, a
				}
				must(ck.Xfer(a, b, 1, func(o shardtxn.Outcome) { done(o.Committed) }))
			}
		}})
}

// diskLine names panelCost's line with a disk.
var diskLine = fmt.Sprintf("%v a message, %v a disk write", serviceTime, paperDisk)

// costName names panelCost's line for a CPU cost per message.
func costName(c time.Duration) string {
	if c == serviceTime {
		return fmt.Sprintf("%v a message (ours)", c)
	}
	return fmt.Sprintf("%v a message", c)
}

// window is how long k is measured when the others are measured over w:
// as many times longer as its messages cost more, so that about as many
// transactions end, or diskStretch times with a disk, up to ten minutes.
func (k txnKind) window(w time.Duration) time.Duration {
	switch {
	case k.disk != 0:
		return min(w*diskStretch, 10*time.Minute)
	case k.cost != 0:
		return min(w*time.Duration(k.cost/serviceTime), 10*time.Minute)
	}
	return w
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// txnWindow is how long txn-latency measures each point: the paper's 30 s
// with -full, else half a second (64 runs of up to 150 clients: a few CPU
// seconds).
func txnWindow(full bool) time.Duration {
	if full {
		return 30 * time.Second
	}
	return time.Second / 2
}

func runTxnLatency(p Params) (*Result, error) {
	clients := txnClients()
	kinds := txnKinds()
	window := txnWindow(p.Full)
	stats := make([]plots.Stats, len(kinds)*len(clients))
	rpcs := make([]float64, len(stats))        // per operation ended
	quiet := make([]time.Duration, len(stats)) // at the window's end, since the last operation ended
	// Panel (c)'s 2PC is the cost panel's line at our own cost: run once.
	same := func(k txnKind) int {
		if k.cost != serviceTime {
			return -1
		}
		return slices.IndexFunc(kinds, func(o txnKind) bool { return o.cost == 0 && o.name == "2PC (Set, Set)" })
	}
	err := parallel(len(stats), func(i int) error {
		k, n := kinds[i/len(clients)], clients[i%len(clients)]
		if same(k) >= 0 {
			return nil
		}
		cfg := shardtxn.DefaultConfig()
		if k.conf != nil {
			k.conf(&cfg)
		}
		e, err := newTxnEnv(p.Seed, 2, true, cfg)
		if err != nil {
			return err
		}
		e.relayed = k.relayed
		if err := e.setDisk(k.disk); err != nil {
			return err
		}
		if k.cost != 0 {
			net := network()
			net.ServiceTime = k.cost
			if err := e.c.Net().SetParams(net); err != nil {
				return err
			}
		}
		if k.name == "Add (one shard)" || k.name == "Xfer (two shards)" {
			if err := e.fund(n); err != nil {
				return err
			}
		}
		sent := e.c.Net().GetTotalCount()
		l := e.start(n, k.op(e))
		e.w.Run(k.window(window))
		l.stopped = true
		stats[i] = plots.Summarize(millis(l.took))
		rpcs[i] = float64(e.c.Net().GetTotalCount()-sent) / float64(max(len(l.took), 1))
		quiet[i] = k.window(window)
		if len(l.at) > 0 {
			quiet[i] = e.w.Now() - l.at[len(l.at)-1]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for ki, k := range kinds {
		if o := same(k); o >= 0 {
			copy(stats[ki*len(clients):(ki+1)*len(clients)], stats[o*len(clients):])
			copy(rpcs[ki*len(clients):(ki+1)*len(clients)], rpcs[o*len(clients):])
			copy(quiet[ki*len(clients):(ki+1)*len(clients)], quiet[o*len(clients):])
		}
	}
	tab := plots.NewTable("panel", "operation", "clients", "completed", "latency_mean_ms", "latency_p95_ms", "rpcs_per_op", "quiet_at_end_s")
	var charts []*plots.Chart
	var bands []plots.Band
	var notes []string
	for ki, k := range kinds {
		mean, p95 := plots.Band{Name: k.name + " mean"}, plots.Band{Name: k.name + " p95"}
		if k.meanOnly() {
			mean.Name = k.name
		}
		for ci, n := range clients {
			st := stats[ki*len(clients)+ci]
			tab.Add(k.panel, k.name, n, st.N, st.Mean, st.P95, rpcs[ki*len(clients)+ci], quiet[ki*len(clients)+ci].Seconds())
			mean.X, mean.Mid = append(mean.X, float64(n)), append(mean.Mid, st.Mean)
			p95.X, p95.Mid = append(p95.X, float64(n)), append(p95.Mid, st.P95)
		}
		if k.meanOnly() {
			bands = append(bands, mean)
		} else {
			bands = append(bands, mean, p95)
		}
		notes = append(notes, fmt.Sprintf("%s %s: mean %.2f ms with %d client, %.2f ms with %d", k.panel[:3], k.name, mean.Mid[0], clients[0], mean.Mid[len(clients)-1], clients[len(clients)-1]))
		if ki == len(kinds)-1 || kinds[ki+1].panel != k.panel {
			axes := plots.Axes{Title: k.panel, X: "concurrent clients (log scale)", Y: "latency (ms)", LogX: true}
			if k.panel == panelCost {
				timeout := plots.Band{Name: fmt.Sprintf("paper 000's client timeout, %v", paperTimeout)}
				for _, n := range clients {
					timeout.X, timeout.Mid = append(timeout.X, float64(n)), append(timeout.Mid, float64(paperTimeout/time.Millisecond))
				}
				axes.Y, axes.LogY, bands = "latency (ms, log scale)", true, append(bands, timeout)
			}
			ch, err := plots.Lines(axes, bands...)
			if err != nil {
				return nil, err
			}
			charts, bands = append(charts, ch), nil
		}
	}
	at := func(panel, name string, ci int) plots.Stats {
		ki := slices.IndexFunc(kinds, func(k txnKind) bool { return k.panel == panel && k.name == name })
		return stats[ki*len(clients)+ci]
	}
	last := len(clients) - 1
	one, many := func(name string) plots.Stats { return at(panelA, name, 0) }, func(name string) plots.Stats { return at(panelA, name, last) }
	caption := fmt.Sprintf("Latency (mean, solid; p95, dashed) of shardtxn operations against %s concurrent clients (the paper's eight counts), each running one operation after another for %v of virtual time "+
		"(the paper ran 30 s; `-full` does), on paper 000's deployment: three hosts, each a coordinator replica and a replica of both shards; %s uplinks, %s of CPU per message. "+
		"Our transactions on one shard go straight to it; transactions across shards take 2PC through the coordinator (five round trips), "+
		"but for the read-only ones of (c), which take paper 000's one-phase optimisation (not strictly serializable). "+
		"(a) Paper 000's design beside ours. Its clients sent everything to the coordinator leader, which relayed a simple operation to its shard (shardtxn's Relay), "+
		"and its shards served a Get from the leader's state, without a log entry (LocalReads): so its Set cost more than its Get. "+
		"Run so here, with one client, a Get takes %.2f ms on average and a Set %.2f ms (%.1f times as long); ours, straight to the shard and through its log, take %.2f and %.2f ms, so our curves lie on each other "+
		"(with %d clients: the paper's %.2f and %.2f, ours %.2f and %.2f ms). "+
		"The paper's Get is not linearizable: a leader cut off from its shard answers from a state the shard has moved past until it steps down; "+
		"shardtxn's TestLocalReadsAreNotLinearizable stages that on a pinned seed, and porcupine rejects the history. %s",
		joinInts(clients), window, uplinkSpeed(), messageCPU(),
		one(getPaper).Mean, one(setPaper).Mean, one(setPaper).Mean/one(getPaper).Mean, one(getLogged).Mean, one(setOurs).Mean,
		clients[last], many(getPaper).Mean, many(setPaper).Mean, many(getLogged).Mean, many(setOurs).Mean,
		costFindings(clients, window, func(name string, ci int) txnPoint {
			i := slices.IndexFunc(kinds, func(k txnKind) bool { return k.panel == panelCost && k.name == name })*len(clients) + ci
			return txnPoint{stats[i], rpcs[i], quiet[i]}
		}))
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{{Name: "txn-latency", Caption: caption, Charts: charts}}}, nil
}

// A txnPoint is what txn-latency measured of one kind at one client
// count: the latencies of the operations that ended, the RPCs sent per
// operation ended, and how long before the window's end the last ended.
type txnPoint struct {
	lat   plots.Stats
	rpcs  float64
	quiet time.Duration
}

// costFindings says what panelCost shows: what our 2PC commits at the
// most clients under each CPU cost of a message, against what paper 000's
// could have (its clients at its 5 s timeout); what cost would bring our
// mean to that timeout; how, under the heaviest, a queue longer than the
// timeouts multiplies the messages until nothing ends; and what a slow
// disk does. at returns the line named name's point with clients[ci]
// clients.
func costFindings(clients []int, window time.Duration, at func(name string, ci int) txnPoint) string {
	last := len(clients) - 1
	n := clients[last]
	costs := txnCosts()
	mean := func(c time.Duration) float64 { return at(costName(c), last).lat.Mean }
	rate := func(name string, k txnKind) float64 {
		return float64(at(name, last).lat.N) / k.window(window).Seconds()
	}
	var rates []string
	for _, c := range costs {
		k, pt := txnKind{cost: c}, at(costName(c), last)
		if w := k.window(window); pt.quiet > w/2 {
			rates = append(rates, fmt.Sprintf("at %v a message %d transactions in all, the last of them %.1f s into its %v window, at a mean of %.0f ms", c, pt.lat.N, (w-pt.quiet).Seconds(), w, pt.lat.Mean))
			continue
		}
		rates = append(rates, fmt.Sprintf("%.0f a second at %v a message (mean %.0f ms)", rate(costName(c), k), c, mean(c)))
	}
	cross := "more than the heaviest here"
	target := float64(paperTimeout / time.Millisecond)
	for i := 1; i < len(costs); i++ {
		lo, hi := mean(costs[i-1]), mean(costs[i])
		if lo < target && hi >= target {
			// Linear in log-log between the two costs.
			f := (math.Log(target) - math.Log(lo)) / (math.Log(hi) - math.Log(lo))
			c := math.Exp(math.Log(float64(costs[i-1])) + f*(math.Log(float64(costs[i]))-math.Log(float64(costs[i-1]))))
			cross = fmt.Sprintf("between the %v and the %v runs' (about %v, %.0f times ours, by interpolation)", costs[i-1], costs[i], time.Duration(c).Round(10*time.Microsecond), c/float64(serviceTime))
			break
		}
	}
	// The RPCs per transaction under the heaviest cost with the most
	// clients, against those with fewer but more than one (one client's
	// transactions share the heartbeats with no one).
	heaviest := costName(costs[len(costs)-1])
	fewest, most := math.Inf(1), 0.0
	for ci := 1; ci < last; ci++ {
		r := at(heaviest, ci).rpcs
		fewest, most = min(fewest, r), max(most, r)
	}
	return fmt.Sprintf("(c) In the paper, 2PC's mean and p95 both reached the clients' %v HTTP timeout at %d clients, so it committed at most %.0f transactions a second (%d clients, one at a time each, over %v); "+
		"ours reaches %.1f ms there. The lower (c) panel runs our 2PC with each message costing its host more CPU (over a window as many times longer, up to 10 minutes): "+
		"with %d clients it commits %s. Its mean would reach the paper's %v at %d clients at a cost %s. "+
		"At %v a message it does not just queue: with %d clients it sends %.0f RPCs per transaction ended, against %.0f to %.0f with fewer, "+
		"as the clients (%v) and the coordinator (%v) time out on a queue longer than they wait and send again, into the same queue, until nothing ends: a collapse, which the paper's mean and p95 both at its timeout look like. "+
		"A slow disk does not do it: with every host's disk taking %v a write (a Raft save waits for it, and a host's messages for its saves; writes commit in groups) 2PC commits %.0f a second with %d clients, at a mean of %.0f ms. "+
		"Paper 000 does not say where its time went; it ran nine Raft replicas (hashicorp/raft, snapshotting to BoltDB) in three containers on one machine, its clients in a fourth, over HTTP.",
		paperTimeout, n, float64(n)/paperTimeout.Seconds(), n, paperTimeout, mean(serviceTime), n, strings.Join(rates, ", "), paperTimeout, n, cross,
		costs[len(costs)-1], n, at(heaviest, last).rpcs, fewest, most, txntest.ClerkTimeout, shardtxn.DefaultConfig().RPCTimeout,
		paperDisk, rate(diskLine, txnKind{disk: paperDisk}), n, at(diskLine, last).lat.Mean)
}

// txnClients are paper 000's client counts in Fig. 4.
func txnClients() []int { return []int{1, 2, 5, 10, 20, 50, 100, 150} }

// joinInts writes ns as "1, 2 and 5".
func joinInts(ns []int) string {
	var s []string
	for _, n := range ns {
		s = append(s, strconv.Itoa(n))
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// fund gives clients 0..n-1's keys a balance, for Add and Xfer.
func (e *txnEnv) fund(n int) error {
	ck := e.clerk()
	for i := range n {
		a, b := e.keys(i)
		done := false
		must(ck.Txn([]shardtxn.Op{shardtxn.Set(a, "100"), shardtxn.Set(b, "100")}, func(shardtxn.Outcome) { done = true }))
		if !e.w.RunUntil(func() bool { return done }, time.Minute) {
			return fmt.Errorf("funding client %d's keys did not end", i)
		}
	}
	return nil
}

func txnFailoverExperiment() Experiment {
	return Experiment{
		Name:        "txn-failover",
		Reproduces:  "Raft-based KV with transactions paper, Fig. 5",
		Description: "Get and Set rates of shardtxn over time, 4 Get clients and 1 Set client, in paper 000's design and ours, with the host leading the coordinators and both shards killed at 10 s",
		Seed:        1,
		Run:         runTxnFailover,
	}
}

// A failoverDesign is a way txn-failover runs the service: paper 000's
// (clients sending everything to the coordinators, which relay simple
// operations; Gets from the shard leader's state) or ours.
type failoverDesign struct {
	key     string // in the CSV
	name    string
	relayed bool
	conf    func(c *shardtxn.Config)
}

func failoverDesigns() []failoverDesign {
	return []failoverDesign{
		{key: "paper000", name: "paper 000's design: relayed by the coordinator, Gets from the leader's state", relayed: true, conf: func(c *shardtxn.Config) { c.Relay, c.LocalReads = true, true }},
		{key: "ours", name: "our design: straight to the shard, Gets through its log"},
	}
}

// The timeline of txn-failover.
const (
	failoverBin    = 100 * time.Millisecond
	failoverKillAt = 10 * time.Second
	failoverLength = 20 * time.Second
	// failoverSettled is how long after the kill the rates "after" count from.
	failoverSettled = 2 * time.Second
)

// A failoverOutcome is what one design's run of txn-failover measured.
type failoverOutcome struct {
	host           int           // the host killed
	counts         [2][]int      // Gets and Sets ended per bin
	getGap, setGap time.Duration // the longest stretch from the kill with none ended
	leaders        []string      // each group's leader's host at the end
	before, after  [2]float64    // Gets and Sets per second before the kill and once settled
	faults         []fault.Interval
}

func runFailoverDesign(seed int64, d failoverDesign) (*failoverOutcome, error) {
	dep := txntest.Deployment{Shards: 2, Replicas: 3, Shared: true, Config: shardtxn.DefaultConfig()}
	if d.conf != nil {
		d.conf(&dep.Config)
	}
	layout, err := eagerFirstHost(dep)
	if err != nil {
		return nil, err
	}
	e, err := buildTxnEnv(seed, dep, layout)
	if err != nil {
		return nil, err
	}
	e.relayed = d.relayed
	start := e.w.Now()
	gets := e.start(4, txn(func(client, _ int) []shardtxn.Op { return []shardtxn.Op{shardtxn.Get(fmt.Sprintf("c%d", client%2))} }))
	sets := e.start(1, txn(func(_, n int) []shardtxn.Op {
		return []shardtxn.Op{shardtxn.Set(fmt.Sprintf("c%d", n%2), strconv.Itoa(n))}
	}))
	e.w.Run(failoverKillAt)
	leader, ok := e.c.Leader(0)
	if !ok {
		return nil, fmt.Errorf("no coordinator leader at %v", failoverKillAt)
	}
	o := &failoverOutcome{host: e.c.HostOf(0, leader)}
	for g := 1; g < e.c.Groups(); g++ {
		if l, ok := e.c.Leader(g); !ok || e.c.HostOf(g, l) != o.host {
			return nil, fmt.Errorf("at %v h%d leads the coordinators but not shard %d, as the paper's killed host did", failoverKillAt, o.host, g-1)
		}
	}
	if err := e.c.Apply(fault.Fault{Kind: fault.Kill, Host: o.host}); err != nil {
		return nil, err
	}
	e.w.Run(failoverLength - failoverKillAt)
	gets.stopped, sets.stopped = true, true
	for s, l := range []*txnLoad{gets, sets} {
		o.counts[s] = make([]int, failoverLength/failoverBin)
		for _, at := range l.at {
			if k := int((at - start) / failoverBin); k < len(o.counts[s]) {
				o.counts[s][k]++
			}
		}
		rate := func(from, to time.Duration) float64 {
			n := 0
			for _, v := range o.counts[s][from/failoverBin : to/failoverBin] {
				n += v
			}
			return float64(n) / (to - from).Seconds()
		}
		o.before[s], o.after[s] = rate(0, failoverKillAt), rate(failoverKillAt+failoverSettled, failoverLength)
	}
	o.getGap, o.setGap = gap(gets.at, start+failoverKillAt).Round(time.Millisecond), gap(sets.at, start+failoverKillAt).Round(time.Millisecond)
	for g := range e.c.Groups() {
		if l, ok := e.c.Leader(g); ok {
			o.leaders = append(o.leaders, fmt.Sprintf("h%d", e.c.HostOf(g, l)))
		} else {
			o.leaders = append(o.leaders, "none")
		}
	}
	o.faults = e.c.Log().Shift(-start).Intervals(failoverLength)
	return o, nil
}

func runTxnFailover(p Params) (*Result, error) {
	designs := failoverDesigns()
	outs := make([]*failoverOutcome, len(designs))
	if err := parallel(len(designs), func(i int) (err error) {
		outs[i], err = runFailoverDesign(p.Seed, designs[i])
		return err
	}); err != nil {
		return nil, err
	}
	tab := plots.NewTable("design", "time_s", "gets_per_s", "sets_per_s")
	var charts []*plots.Chart
	var notes, said []string
	for i, d := range designs {
		o := outs[i]
		series := []plots.Series{{Name: "Gets per second"}, {Name: "Sets per second"}}
		for k := range o.counts[0] {
			t := (time.Duration(k) * failoverBin).Seconds()
			g, s := float64(o.counts[0][k])/failoverBin.Seconds(), float64(o.counts[1][k])/failoverBin.Seconds()
			tab.Add(d.key, t, g, s)
			for j, v := range []float64{g, s} {
				series[j].X, series[j].Y = append(series[j].X, t), append(series[j].Y, v)
			}
		}
		ch, err := plots.TimeSeries(plots.Axes{Title: fmt.Sprintf("(%c) %s", 'a'+i, d.name), X: "time (s)", Y: "operations per second"}, o.faults, series...)
		if err != nil {
			return nil, err
		}
		charts = append(charts, ch)
		change := func(s int) float64 { return 100 * (o.after[s]/o.before[s] - 1) }
		notes = append(notes, fmt.Sprintf("%s: killed h%d (the leader of the coordinators and both shards) at %v: no Get completed for %v, no Set for %v; "+
			"Gets %.0f/s before, %.0f/s from %v after; Sets %.0f/s and %.0f/s; leaders at the end: coordinators %s, shards %s",
			d.name, o.host, failoverKillAt, o.getGap, o.setGap, o.before[0], o.after[0], failoverSettled, o.before[1], o.after[1], o.leaders[0], strings.Join(o.leaders[1:], " and ")))
		said = append(said, fmt.Sprintf("(%c) In %s, no Get completed for %v and no Set for %v; before the kill the clients made %.0f Gets and %.0f Sets a second, from %v after it %.0f and %.0f (%+.0f %% and %+.0f %%), "+
			"with the coordinators led from %s and the shards from %s.",
			'a'+i, d.name, o.getGap, o.setGap, o.before[0], o.before[1], failoverSettled, o.after[0], o.after[1], change(0), change(1), o.leaders[0], strings.Join(o.leaders[1:], " and ")))
	}
	rc := shardtxn.DefaultConfig().RSM.Raft
	caption := fmt.Sprintf("Gets (4 clients) and Sets (1 client) per second, in %v bins, on two keys of two shards; at %v the host h%d is killed (shaded), "+
		"and with it every replica it held, as paper 000 stopped a container. As in the paper, that host led the coordinator group and both shards: "+
		"its replicas campaign first (an election timeout of %v–%v against the others' %v–%v), so they win the first elections. "+
		"Both designs stall until the shards have elected new leaders, and the relayed one until the coordinators have too (the paper: less than a second for both Gets and Sets). %s "+
		"The paper saw a slight decrease after recovery, which it put down to the new shard leaders spreading across containers.",
		failoverBin, failoverKillAt, outs[0].host, rc.ElectionMin, rc.ElectionMin+eagerSpread, rc.ElectionMin, rc.ElectionMax, strings.Join(said, " "))
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{{Name: "txn-failover", Caption: caption, Charts: charts}}}, nil
}

// eagerSpread is the spread of the election timeouts of eagerFirstHost's
// replicas on h0.
const eagerSpread = time.Millisecond

// eagerFirstHost returns a layout of dep (shared hosts) in which the
// replicas on h0 campaign first: their election timeout is the shortest
// the others' can be, give or take eagerSpread (a node refuses votes for
// ElectionMin after it starts, so a shorter one would only lose), and
// they win every first election unless another node's timeout falls in
// that spread too. So h0 leads the coordinators and every shard, as the
// host paper 000 killed in its Fig. 5 did.
func eagerFirstHost(dep txntest.Deployment) (func(*cluster.Config), error) {
	eager := dep
	eager.Config.RSM.Raft.ElectionMax = eager.Config.RSM.Raft.ElectionMin + eagerSpread
	eager.Config.RSM.MaxRaftState = snapshotAt
	if err := eager.Config.Validate(); err != nil {
		return nil, err
	}
	fast, err := eager.Cluster()
	if err != nil {
		return nil, err
	}
	return func(cfg *cluster.Config) {
		for g := range cfg.Groups {
			normal, first := cfg.Groups[g].Factory, fast.Groups[g].Factory
			cfg.Groups[g].Factory = func(n cluster.Node) (cluster.Replica, []*labrpc.Service, error) {
				if n.Me == 0 { // on h0
					return first(n)
				}
				return normal(n)
			}
		}
	}, nil
}

func txnScalingExperiment() Experiment {
	return Experiment{
		Name:        "txn-scaling",
		Reproduces:  "shardtxn's own: throughput against the number of shards",
		Description: "committed transactions per second on one shard and across two, against 1 to 8 shards of three hosts each; decisions per coordinator log entry",
		Seed:        1,
		Run:         runTxnScaling,
	}
}

func runTxnScaling(p Params) (*Result, error) {
	const perShard = 30 // clients per shard
	shards := []int{1, 2, 4, 8}
	window := time.Second / 2
	type point struct {
		single, cross    float64
		batch, decisions float64
		leaderMsgs       float64 // messages the coordinator leader's host handled per cross-shard transaction
	}
	points := make([]point, len(shards))
	err := parallel(2*len(shards), func(i int) error {
		s, cross := shards[i/2], i%2 == 1
		if cross && s == 1 {
			return nil // no two shards to cross
		}
		e, err := newTxnEnv(p.Seed, s, false, shardtxn.DefaultConfig())
		if err != nil {
			return err
		}
		handled := map[*sim.Host]int{} // requests and replies each host received, each costing it CPU
		stop := e.c.Net().Watch(func(m labrpc.Message) {
			if m.To != nil {
				handled[m.To]++
			}
		})
		defer stop()
		l := e.start(perShard*s, txn(func(client, n int) []shardtxn.Op {
			a, b := e.keys(client)
			if cross {
				return []shardtxn.Op{shardtxn.Set(a, strconv.Itoa(n)), shardtxn.Set(b, strconv.Itoa(n))}
			}
			return []shardtxn.Op{shardtxn.Set(a, strconv.Itoa(n))}
		}))
		e.w.Run(window)
		l.stopped = true
		rate := float64(len(l.at)) / window.Seconds()
		if !cross {
			points[i/2].single = rate
			return nil
		}
		points[i/2].cross = rate
		if leader, ok := e.c.Leader(0); ok {
			d, n := e.c.Replica(0, leader).(*shardtxn.CoordServer).Batching()
			points[i/2].decisions, points[i/2].batch = float64(d), float64(d)/float64(max(n, 1))
			points[i/2].leaderMsgs = float64(handled[e.c.Hosts()[e.c.HostOf(0, leader)]]) / float64(max(len(l.at), 1))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	tab := plots.NewTable("shards", "clients", "single_shard_per_s", "cross_shard_per_s", "decisions_per_entry", "coordinator_leader_msgs_per_cross_txn")
	single, cross, linear := plots.Band{Name: "on one shard"}, plots.Band{Name: "across two shards (2PC)"}, plots.Band{Name: "linear in shards, from one"}
	var notes []string
	var msgs []float64 // the coordinator leader's messages per cross-shard transaction, by shards
	for i, s := range shards {
		pt := points[i]
		x := float64(s)
		single.X, single.Mid = append(single.X, x), append(single.Mid, pt.single)
		linear.X, linear.Mid = append(linear.X, x), append(linear.Mid, points[0].single*x)
		if s == 1 {
			tab.Add(s, perShard*s, pt.single, "", "", "")
			notes = append(notes, fmt.Sprintf("1 shard: %.0f transactions per second", pt.single))
			continue
		}
		tab.Add(s, perShard*s, pt.single, pt.cross, pt.batch, pt.leaderMsgs)
		msgs = append(msgs, pt.leaderMsgs)
		cross.X, cross.Mid = append(cross.X, x), append(cross.Mid, pt.cross)
		notes = append(notes, fmt.Sprintf("%d shards: %.0f single-shard (%.2f× linear) and %.0f cross-shard transactions per second; %.1f decisions per coordinator log entry",
			s, pt.single, pt.single/(points[0].single*x), pt.cross, pt.batch))
	}
	ch, err := plots.Lines(plots.Axes{Title: "Throughput against shards", X: "shards", Y: "committed transactions per second"}, single, cross, linear)
	if err != nil {
		return nil, err
	}
	last := points[len(points)-1]
	caption := fmt.Sprintf("Transactions per second that %d clients per shard commit over %v, each setting a key of its own (one shard) or two keys on two shards (2PC), "+
		"against the number of shard groups, every replica on a host of its own (%s uplinks, %s of CPU per message). "+
		"Single-shard transactions skip the coordinator and scale with the shards; cross-shard ones all pass through the coordinator leader, whose log batches many decisions into one entry "+
		"but whose CPU caps them: its host handled %.1f to %.1f messages (requests and replies) per cross-shard transaction, at %v of CPU each, which kept its CPU busy %.0f %% of the time with %d shards.",
		perShard, window, uplinkSpeed(), messageCPU(), slices.Min(msgs), slices.Max(msgs), serviceTime, 100*last.cross*last.leaderMsgs*serviceTime.Seconds(), shards[len(shards)-1])
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{{Name: "txn-scaling", Caption: caption, Charts: []*plots.Chart{ch}}}}, nil
}
