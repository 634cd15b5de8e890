package replab

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A figureNumber is a number the README quotes from a committed figure's
// CSV: the rows of docs/figures/<csv>.csv that where selects
// ("column=value" or "column^=prefix", separated by ";"; "" selects every
// row), reduced by agg (one: the only row's; mean, min, max, over the
// rows with a value; count: how many rows), of column
// col, written as format says ("%.1f"; "k" writes a whole number with its
// thousands apart, "998 158").
type figureNumber struct {
	csv, where, agg, col, format string
}

// readmeFigures are the README's phrases that quote the figures, each
// with %s where a number computed from the CSVs goes. Where the README
// says "about", it is not held to a number.
var readmeFigures = []struct {
	phrase  string
	numbers []figureNumber
}{
	// Paper 003's results on ours.
	{"| write transactions a second at 3 / 10 / 20 ops (`txn-acid-table1`) | %s / %s / %s | %s / %s / %s |", []figureNumber{
		acidTable("3", "write", "committed_per_s"), acidTable("10", "write", "committed_per_s"), acidTable("20", "write", "committed_per_s"),
		acidTable("3", "write", "paper_per_s"), acidTable("10", "write", "paper_per_s"), acidTable("20", "write", "paper_per_s")}},
	{"| read transactions a second at 3 / 10 / 20 ops | %s / %s / %s | %s / %s / %s |", []figureNumber{
		acidTable("3", "read", "committed_per_s"), acidTable("10", "read", "committed_per_s"), acidTable("20", "read", "committed_per_s"),
		acidTable("3", "read", "paper_per_s"), acidTable("10", "read", "paper_per_s"), acidTable("20", "read", "paper_per_s")}},
	{"| writes a second at 3 / 5 / 7 shards (`txn-acid-shards`) | %s / %s / %s; with a 1 ms disk write %s / %s / %s; with a log per shard %s / %s / %s |", []figureNumber{
		acidShards("0", "false", "3"), acidShards("0", "false", "5"), acidShards("0", "false", "7"),
		acidShards("1", "false", "3"), acidShards("1", "false", "5"), acidShards("1", "false", "7"),
		acidShards("1", "true", "3"), acidShards("1", "true", "5"), acidShards("1", "true", "7")}},
	{"| write latency, 1 vs 3 transaction managers (`txn-acid-crash`) | %s vs %s ms mean |", []figureNumber{
		acidCrash(ourClient, "1 TM", "latency_mean_ms", "%.1f"), acidCrash(ourClient, "3 TMs", "latency_mean_ms", "%.1f")}},
	{"| read vs write latency, 1 transaction manager (`txn-acid-reads`) | %s vs %s ms mean |", []figureNumber{
		{"txn-acid-reads", "client=" + ourClient + ";kind=read", "one", "latency_mean_ms", "%.2f"},
		{"txn-acid-reads", "client=" + ourClient + ";kind=write", "one", "latency_mean_ms", "%.2f"}}},
	{"| transactions failed by a transaction-manager leader crash | %s of %s (the one caught costs %s ms); %s of %s with paper 003's client |", []figureNumber{
		acidCrash(ourClient, "3 TMs, TM-leader crash", "failed", "%.0f"), acidCrash(ourClient, "3 TMs, TM-leader crash", "transactions", "%.0f"),
		acidCrash(ourClient, "3 TMs, TM-leader crash", "latency_max_ms", "%.0f"),
		acidCrash(paperClient, "3 TMs, TM-leader crash", "failed", "%.0f"), acidCrash(paperClient, "3 TMs, TM-leader crash", "transactions", "%.0f")}},
	{"without contention all four combinations commit %s–%s a second alike; over 10 keys write intents commit more (%s–%s against %s–%s a second) at a third of the latency (mean %s–%s against %s–%s ms), though more of their transactions fail (%s–%s %% against %s–%s %%)", []figureNumber{
		acidVs("10000", "", "min", "committed_per_s", "%.0f"), acidVs("10000", "", "max", "committed_per_s", "%.0f"),
		acidVs("10", "write-intents", "min", "committed_per_s", "%.0f"), acidVs("10", "write-intents", "max", "committed_per_s", "%.0f"),
		acidVs("10", "lock-waits", "min", "committed_per_s", "%.0f"), acidVs("10", "lock-waits", "max", "committed_per_s", "%.0f"),
		acidVs("10", "write-intents", "min", "latency_mean_ms", "%.1f"), acidVs("10", "write-intents", "max", "latency_mean_ms", "%.1f"),
		acidVs("10", "lock-waits", "min", "latency_mean_ms", "%.1f"), acidVs("10", "lock-waits", "max", "latency_mean_ms", "%.1f"),
		acidVs("10", "write-intents", "min", "failed_pct", "%.0f"), acidVs("10", "write-intents", "max", "failed_pct", "%.0f"),
		acidVs("10", "lock-waits", "min", "failed_pct", "%.0f"), acidVs("10", "lock-waits", "max", "failed_pct", "%.0f")}},

	// Paper 004's results on ours.
	{"| moveMoney p50 / p95 / p99, 1 worker, 3 nodes (`nami-latency`) | %s / %s / %s ms |", []figureNumber{
		namiLatency("moveMoney", "p50_ms", "%.1f"), namiLatency("moveMoney", "p95_ms", "%.0f"), namiLatency("moveMoney", "p99_ms", "%.0f")}},
	{"| commit p50 / p95 / p99 | %s / %s / %s ms |", []figureNumber{
		namiLatency("commit", "p50_ms", "%.1f"), namiLatency("commit", "p95_ms", "%.1f"), namiLatency("commit", "p99_ms", "%.1f")}},
	{"| transactions a second at 40 workers: single node / 3 nodes / 5 nodes, 2-way (`nami-workers`) | %s / %s / %s | %s (RocksDB) / %s / %s |", []figureNumber{
		namiWorkers("single node (for RocksDB)", "40", "txns_per_s"), namiWorkers("Nami 3 nodes", "40", "txns_per_s"), namiWorkers("Nami 5 nodes, 2-way", "40", "txns_per_s"),
		namiWorkers("single node (for RocksDB)", "40", "paper_ops_per_s"), namiWorkers("Nami 3 nodes", "40", "paper_ops_per_s"), namiWorkers("Nami 5 nodes, 2-way", "40", "paper_ops_per_s")}},
	{"(at 1, a heartbeat's wait for %s of %s transactions holds it back)", []figureNumber{
		namiWorkers("Nami 3 nodes", "1", "txns_slow"), namiWorkers("Nami 3 nodes", "1", "txns")}},
	{"| with vs without the commit cache, 5 workers (`nami-cache`) | %s vs %s a second; over a hot set of %s accounts %s vs %s, p95 %s vs %s ms | %s vs %s, p95 %s vs %s ms |", []figureNumber{
		namiCache("30000", "with", "txns_per_s", "%.0f"), namiCache("30000", "without", "txns_per_s", "%.0f"),
		{"nami-cache", "accounts^=3;cache=with", "min", "accounts", "%.0f"},
		namiCache("300", "with", "txns_per_s", "%.0f"), namiCache("300", "without", "txns_per_s", "%.0f"),
		namiCache("300", "with", "p95_ms", "%.1f"), namiCache("300", "without", "p95_ms", "%.1f"),
		namiCache("30000", "with", "paper_ops_per_s", "%.0f"), namiCache("30000", "without", "paper_ops_per_s", "%.0f"),
		namiCache("30000", "with", "paper_p95_ms", "%.0f"), namiCache("30000", "without", "paper_p95_ms", "%.0f")}},
	{"and %s of %s decisions still fetched with the cache", []figureNumber{
		namiCache("30000", "with", "decisions_remote", "%.0f"), namiCache("30000", "with", "decisions", "%.0f")}},
	{"the cache spares %s of %s decisions a fetch", []figureNumber{
		namiCache("300", "with", "decisions_cache_saved", "%.0f"), namiCache("300", "with", "decisions", "%.0f")}},

	// Sharded transactions.
	{"single-shard transactions scale with the shards (%s, %s, %s and %s a second on 1, 2, 4 and 8 shards", []figureNumber{
		txnScaling("1", "single_shard_per_s", "k"), txnScaling("2", "single_shard_per_s", "k"), txnScaling("4", "single_shard_per_s", "k"), txnScaling("8", "single_shard_per_s", "k")}},
	{"cross-shard ones stay at %s–%s a second, capped by the coordinator leader's CPU (its host handles %s–%s messages a transaction, at 20 µs each) though its log batches %s–%s decisions an entry", []figureNumber{
		{"txn-scaling", "", "min", "cross_shard_per_s", "k"}, {"txn-scaling", "", "max", "cross_shard_per_s", "k"},
		{"txn-scaling", "", "min", "coordinator_leader_msgs_per_cross_txn", "%.1f"}, {"txn-scaling", "", "max", "coordinator_leader_msgs_per_cross_txn", "%.1f"},
		{"txn-scaling", "", "min", "decisions_per_entry", "%.0f"}, {"txn-scaling", "", "max", "decisions_per_entry", "%.0f"}}},

	// The head-to-head.
	{"| log-ordered | %s (p99 %s ms) | %s | %s | %s |", []figureNumber{
		headToHead(logOrdered, "30000", "false", "one", "txns_per_s", "%.0f"), headToHead(logOrdered, "30000", "false", "one", "p99_ms", "%.0f"),
		headToHead(logOrdered, "1000", "false", "one", "txns_per_s", "%.0f"), headToHead(logOrdered, "100", "false", "one", "txns_per_s", "%.0f"),
		headToHead(logOrdered, "10", "false", "one", "txns_per_s", "%.0f")}},
	{"| 2PC, best to worst combination | %s–%s (p99 %s–%s ms) | %s–%s | %s–%s | %s–%s |", []figureNumber{
		headToHead("2PC", "30000", "false", "max", "txns_per_s", "%.0f"), headToHead("2PC", "30000", "false", "min", "txns_per_s", "%.0f"),
		headToHead("2PC", "30000", "false", "min", "p99_ms", "%.0f"), headToHead("2PC", "30000", "false", "max", "p99_ms", "%.0f"),
		headToHead("2PC", "1000", "false", "max", "txns_per_s", "%.0f"), headToHead("2PC", "1000", "false", "min", "txns_per_s", "%.0f"),
		headToHead("2PC", "100", "false", "max", "txns_per_s", "%.0f"), headToHead("2PC", "100", "false", "min", "txns_per_s", "%.0f"),
		headToHead("2PC", "10", "false", "max", "txns_per_s", "%.0f"), headToHead("2PC", "10", "false", "min", "txns_per_s", "%.0f")}},
	{"| log-ordered, from a leader kill on | %s (p99 %s ms) | %s | %s | %s |", []figureNumber{
		headToHead(logOrdered, "30000", "true", "one", "txns_per_s_after_kill", "%.0f"), headToHead(logOrdered, "30000", "true", "one", "p99_ms", "%.0f"),
		headToHead(logOrdered, "1000", "true", "one", "txns_per_s_after_kill", "%.0f"), headToHead(logOrdered, "100", "true", "one", "txns_per_s_after_kill", "%.0f"),
		headToHead(logOrdered, "10", "true", "one", "txns_per_s_after_kill", "%.0f")}},
	{"| 2PC, from a leader kill on | %s–%s (p99 %s–%s ms) | %s–%s | %s–%s | %s–%s |", []figureNumber{
		headToHead("2PC", "30000", "true", "max", "txns_per_s_after_kill", "%.0f"), headToHead("2PC", "30000", "true", "min", "txns_per_s_after_kill", "%.0f"),
		headToHead("2PC", "30000", "true", "min", "p99_ms", "%.0f"), headToHead("2PC", "30000", "true", "max", "p99_ms", "%.0f"),
		headToHead("2PC", "1000", "true", "max", "txns_per_s_after_kill", "%.0f"), headToHead("2PC", "1000", "true", "min", "txns_per_s_after_kill", "%.0f"),
		headToHead("2PC", "100", "true", "max", "txns_per_s_after_kill", "%.0f"), headToHead("2PC", "100", "true", "min", "txns_per_s_after_kill", "%.0f"),
		headToHead("2PC", "10", "true", "max", "txns_per_s_after_kill", "%.0f"), headToHead("2PC", "10", "true", "min", "txns_per_s_after_kill", "%.0f")}},
	{"(%s against %s a second, lock waits and presumed abort, whose p99 is shorter: %s against %s ms)", []figureNumber{
		headToHead(logOrdered, "30000", "true", "one", "txns_per_s_after_kill", "%.0f"), headToHead("2PC/2PL: lock waits, presumed abort", "30000", "true", "one", "txns_per_s_after_kill", "%.0f"),
		headToHead("2PC/2PL: lock waits, presumed abort", "30000", "true", "one", "p99_ms", "%.0f"), headToHead(logOrdered, "30000", "true", "one", "p99_ms", "%.0f")}},

	// Frangipani.
	{"one client does %s operations per virtual second, %s× kvraft on `Start` (%s), which does %s× kvraft on 10 ms heartbeats (%s; the report: %s against %s, %s×)", []figureNumber{
		frangipani("basic", "ops_per_s", "frangipani", "k"), frangipani("basic", "ops_per_s_vs_kvraft_on_start", "frangipani", "%.0f"),
		frangipani("basic", "ops_per_s", "kvraft_on_Start", "%.0f"), frangipaniRatio("basic", "kvraft_on_Start", "kvraft_on_10ms_heartbeats"),
		frangipani("basic", "ops_per_s", "kvraft_on_10ms_heartbeats", "%.0f"),
		frangipani("basic", "ops_per_s", "report_optimized_raft", "%.0f"), frangipani("basic", "ops_per_s", "report_my_kv_raft", "%.0f"),
		frangipaniRatio("basic", "report_optimized_raft", "report_my_kv_raft")}},
	{"frangipani does %s operations per second per client against kvraft on `Start`'s %s (%s×; %s–%s× per seed over five seeds;", []figureNumber{
		frangipani("linearizable", "ops_per_s_per_client", "frangipani", "%.2f"), frangipani("linearizable", "ops_per_s_per_client", "kvraft_on_Start", "%.2f"),
		frangipani("linearizable", "ops_per_s_vs_kvraft_on_start", "frangipani", "%.2f"),
		frangipani("linearizable", "ops_per_s_vs_kvraft_on_start_min", "frangipani", "%.2f"), frangipani("linearizable", "ops_per_s_vs_kvraft_on_start_max", "frangipani", "%.2f")}},
	{"where locks only, the report's design, does %s (%s×) and the report's Frangipani did %s (%s× its Raft on `Start`)", []figureNumber{
		frangipani("linearizable", "ops_per_s_per_client", "frangipani_locks_only", "%.2f"), frangipani("linearizable", "ops_per_s_vs_kvraft_on_start", "frangipani_locks_only", "%.2f"),
		frangipani("linearizable", "ops_per_s_per_client", "report_frangipani", "%.0f"), frangipani("linearizable", "ops_per_s_vs_kvraft_on_start", "report_frangipani", "%.1f")}},
	{"while kvraft climbs to %s at 50;", []figureNumber{{"frangipani-contention", "pause_max_ms=5;system=kvraft, replicating on Start;clients=50", "one", "ops_per_s", "k"}}},
	{"against kvraft's %s at 50 clients", []figureNumber{{"frangipani-contention", "pause_max_ms=0;system=kvraft, replicating on Start;clients=50", "one", "ops_per_s", "k"}}},

	// Figures.
	{"where a candidate needs every live vote (%s s on average, %s s at most over %s runs)", []figureNumber{
		{"live-nodes", liveSlow, "mean", "election_s", "%.1f"}, {"live-nodes", liveSlow, "max", "election_s", "%.1f"}, {"live-nodes", liveSlow, "count", "election_s", "%.0f"}}},
	{"up to a mean of %s s at 500–500 ms (%s of %s trials hit the 30 s cap)", []figureNumber{
		{"timeout-range", slowRange, "mean", "first_put_s", "%.0f"}, {"timeout-range", slowRange + ";completed=false", "count", "first_put_s", "%.0f"}, {"timeout-range", slowRange, "count", "first_put_s", "%.0f"}}},
}

// readmeCaptions are phrases the README quotes from docs/figures/index.md
// (a caption's number computed from the settings, not a CSV's): each must
// be in both.
var readmeCaptions = []string{"past 163 KB a value"}

const (
	ourClient   = "our client (retries under its Txid)"
	paperClient = "paper 003's client (one try per transaction)"
	logOrdered  = "log-ordered (paper 004), 2-way"
	liveSlow    = "variant=ours, killed server silent, slow network (15 ms);live_servers=16"
	slowRange   = "network=slow network (15 ms);election_max_ms=500"
)

func txnScaling(shards, col, format string) figureNumber {
	return figureNumber{"txn-scaling", "shards=" + shards, "one", col, format}
}

func acidTable(ops, kind, col string) figureNumber {
	return figureNumber{"txn-acid-table1", "ops_per_txn=" + ops + ";kind=" + kind, "one", col, "%.0f"}
}

func acidShards(diskMs, logPerShard, shards string) figureNumber {
	return figureNumber{"txn-acid-shards", "disk_write_ms=" + diskMs + ";log_per_shard=" + logPerShard + ";shards=" + shards + ";kind=write", "one", "committed_per_s", "%.0f"}
}

func acidCrash(client, scenario, col, format string) figureNumber {
	return figureNumber{"txn-acid-crash", "client=" + client + ";scenario=" + scenario, "one", col, format}
}

// acidVs selects txn-acid-vs-2pl's runs without a kill over keys keys,
// under conflicts (any if "").
func acidVs(keys, conflicts, agg, col, format string) figureNumber {
	where := "coordinator_leader_killed=false;keys=" + keys
	if conflicts != "" {
		where += ";conflicts=" + conflicts
	}
	return figureNumber{"txn-acid-vs-2pl", where, agg, col, format}
}

func namiLatency(op, col, format string) figureNumber {
	return figureNumber{"nami-latency", "cluster=Nami 3 nodes;operation=" + op, "one", col, format}
}

func namiWorkers(cluster, workers, col string) figureNumber {
	return figureNumber{"nami-workers", "cluster=" + cluster + ";workers=" + workers, "one", col, "%v"}
}

func namiCache(accounts, cache, col, format string) figureNumber {
	return figureNumber{"nami-cache", "accounts=" + accounts + ";cache=" + cache, "one", col, format}
}

// headToHead selects txn-vs-logorder's rows of the designs whose names
// begin with design.
func headToHead(design, accounts, killed, agg, col, format string) figureNumber {
	return figureNumber{"txn-vs-logorder", "design^=" + design + ";accounts=" + accounts + ";leader_killed=" + killed, agg, col, format}
}

func frangipani(test, metric, col, format string) figureNumber {
	return figureNumber{"frangipani-tables", "test=" + test + ";metric=" + metric, "one", col, format}
}

// frangipaniRatio is the ratio of two columns of a frangipani-tables
// test's ops_per_s, to one decimal.
func frangipaniRatio(test, num, den string) figureNumber {
	return figureNumber{"frangipani-tables", "test=" + test + ";metric=ops_per_s", "ratio", num + "/" + den, "%.1f"}
}

// TestREADMEQuotesTheFigures checks that every phrase of readmeFigures is
// in the README with the numbers the committed CSVs give, and every phrase
// of readmeCaptions in the README and the index, so that the
// README cannot drift from docs/figures: regenerate the figures and this
// test says which sentence to bring up to date.
func TestREADMEQuotesTheFigures(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	text := strings.Join(strings.Fields(string(readme)), " ")
	index, err := os.ReadFile(filepath.Join("docs", "figures", "index.md"))
	require.NoError(t, err)
	for _, c := range readmeCaptions {
		assert.Contains(t, text, c, "the README")
		assert.True(t, strings.Contains(string(index), c), "docs/figures/index.md should say %q, as the README does", c)
	}
	tables := map[string][][]string{}
	for _, q := range readmeFigures {
		var args []any
		for _, n := range q.numbers {
			if tables[n.csv] == nil {
				f, err := os.Open(filepath.Join("docs", "figures", n.csv+".csv"))
				require.NoError(t, err)
				tables[n.csv], err = csv.NewReader(f).ReadAll()
				require.NoError(t, f.Close())
				require.NoError(t, err, n.csv)
			}
			v, err := n.value(tables[n.csv])
			require.NoError(t, err, "%s: %s", q.phrase, n.csv)
			args = append(args, formatFigure(n.format, v))
		}
		want := fmt.Sprintf(q.phrase, args...)
		assert.True(t, strings.Contains(text, want), "the README should say %q, as docs/figures gives it", want)
	}
}

// value computes n from its CSV's rows (the header first).
func (n figureNumber) value(rows [][]string) (float64, error) {
	col := func(name string) int {
		for i, c := range rows[0] {
			if c == name {
				return i
			}
		}
		return -1
	}
	var picked [][]string
	for _, row := range rows[1:] {
		ok := true
		for _, cond := range strings.FieldsFunc(n.where, func(r rune) bool { return r == ';' }) {
			name, want, prefix := strings.Cut(cond, "^=")
			if !prefix {
				name, want, _ = strings.Cut(cond, "=")
			}
			i := col(name)
			if i < 0 {
				return 0, fmt.Errorf("no column %q", name)
			}
			if prefix && !strings.HasPrefix(row[i], want) || !prefix && row[i] != want {
				ok = false
			}
		}
		if ok {
			picked = append(picked, row)
		}
	}
	if len(picked) == 0 {
		return 0, fmt.Errorf("no row where %s", n.where)
	}
	cell := func(row []string, name string) (float64, error) {
		i := col(name)
		if i < 0 {
			return 0, fmt.Errorf("no column %q", name)
		}
		return strconv.ParseFloat(row[i], 64)
	}
	if n.agg == "ratio" {
		num, den, _ := strings.Cut(n.col, "/")
		a, err := cell(picked[0], num)
		if err != nil {
			return 0, err
		}
		b, err := cell(picked[0], den)
		return a / b, err
	}
	if n.agg == "count" {
		return float64(len(picked)), nil
	}
	if n.agg == "one" && len(picked) != 1 {
		return 0, fmt.Errorf("%d rows where %s, not one", len(picked), n.where)
	}
	sum, lo, hi, cells := 0.0, math.Inf(1), math.Inf(-1), 0
	for _, row := range picked {
		if i := col(n.col); n.agg != "one" && i >= 0 && row[i] == "" {
			continue // a row without this value (txn-scaling's one shard has no cross-shard rate)
		}
		cells++
		v, err := cell(row, n.col)
		if err != nil {
			return 0, err
		}
		sum, lo, hi = sum+v, min(lo, v), max(hi, v)
	}
	if cells == 0 {
		return 0, fmt.Errorf("no value of %s where %s", n.col, n.where)
	}
	switch n.agg {
	case "one":
		return sum, nil
	case "mean":
		return sum / float64(cells), nil
	case "min":
		return lo, nil
	case "max":
		return hi, nil
	}
	return 0, fmt.Errorf("unknown aggregate %q", n.agg)
}

// formatFigure writes v as format says; "k" writes it whole with its
// thousands apart.
func formatFigure(format string, v float64) string {
	if format != "k" {
		return fmt.Sprintf(format, v)
	}
	s := strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + " " + s[i:]
	}
	return s
}
