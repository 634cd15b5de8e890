package linearize

import (
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// porcupineKV lists porcupine's key/value histories (testdata/porcupine-kv)
// with the verdicts porcupine's own tests expect.
var porcupineKV = []struct {
	name string
	ok   bool
}{
	{"c01-ok", true}, {"c01-bad", false},
	{"c10-ok", true}, {"c10-bad", false},
	{"c50-ok", true}, {"c50-bad", false},
}

func readPorcupineKV(tb testing.TB, name string) []porcupine.Operation {
	tb.Helper()
	f, err := os.Open(filepath.Join("testdata", "porcupine-kv", name+".txt"))
	require.NoError(tb, err)
	defer f.Close()
	ops, err := ReadKVLog(f)
	require.NoError(tb, err)
	return ops
}

// porcupineTestModel is the model porcupine's own tests check these
// histories with, restated on our types: a key's state is its value alone,
// hashed whole with FNV-1a, and compared with ==.
var porcupineTestModel = porcupine.Model{
	Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
		return partitionByKey(history)
	},
	Init: func() any { return "" },
	Step: func(state, input, output any) (bool, any) {
		st, in := state.(string), input.(KVInput)
		switch in.Kind {
		case Get:
			return output.(KVOutput).Value == st, state
		case Put:
			return true, in.Value
		default:
			return true, st + in.Value
		}
	},
	Hash: func(state any) uint64 {
		h := fnv.New64a()
		h.Write([]byte(state.(string)))
		return h.Sum64()
	},
}

func TestPorcupineKVHistoriesGetPorcupinesVerdicts(t *testing.T) {
	t.Parallel()
	for _, c := range porcupineKV {
		t.Run(c.name, func(t *testing.T) {
			ops := readPorcupineKV(t, c.name)
			r, err := Check(KVModel(), ops, nil, time.Minute, t.TempDir(), c.name)
			require.NoError(t, err)
			assert.Equal(t, c.ok, porcupine.CheckOperations(porcupineTestModel, ops), "porcupine's model")
			if c.ok {
				assert.Equal(t, porcupine.Ok, r.Verdict, r.Problem())
				return
			}
			require.Equal(t, porcupine.Illegal, r.Verdict, r.Problem())
			html, err := os.ReadFile(r.HTML)
			require.NoError(t, err)
			assert.True(t, strings.Contains(string(html), "append("), "the failing key is drawn")
			checkExplanation(t, ops, r)
		})
	}
}

// checkExplanation checks r's explanation of ops' violation against
// porcupine's test model: the key it names is not linearizable, the
// model accepts the order it gives and not the stuck operation after it,
// every operation of the key that returned before the stuck one was called
// is in the order, and so is every write it names, completed before.
func checkExplanation(t *testing.T, ops []porcupine.Operation, r Result) {
	t.Helper()
	e := r.Explanation
	require.NotNil(t, e, r.Problem())
	assert.Equal(t, r.Violation, e.Part)
	key := e.Stuck.Input.(KVInput).Key
	assert.Equal(t, fmt.Sprintf("key %q", key), e.Part, "the stuck operation is on the key named")
	assert.Equal(t, ops[e.Stuck.Index], e.Stuck.Operation)
	var part []porcupine.Operation
	for _, op := range ops {
		if op.Input.(KVInput).Key == key {
			part = append(part, op)
		}
	}
	single := porcupineTestModel
	single.Partition = nil
	assert.Equal(t, porcupine.Illegal, porcupine.CheckOperationsTimeout(single, part, time.Minute), "porcupine's model finds the key not linearizable")
	state := single.Init()
	in := map[int]bool{}
	for _, i := range e.Order {
		in[i] = true
		assert.Equal(t, key, ops[i].Input.(KVInput).Key)
		var ok bool
		ok, state = single.Step(state, ops[i].Input, ops[i].Output)
		require.True(t, ok, "porcupine's model accepts the order, up to operation %d", i)
	}
	ok, _ := single.Step(state, e.Stuck.Input, e.Stuck.Output)
	assert.False(t, ok, "porcupine's model does not accept the stuck operation after the order")
	for i, op := range ops {
		if op.Input.(KVInput).Key == key && op.Return < e.Stuck.Call {
			assert.True(t, in[i], "operation %d returned before the stuck one was called", i)
		}
	}
	assert.NotEmpty(t, e.Writes)
	for _, w := range e.Writes {
		assert.True(t, in[w.Index], "write %d is in the order", w.Index)
		assert.NotEqual(t, Get, w.Input.(KVInput).Kind)
		assert.Less(t, w.Return, e.Stuck.Call)
	}
}

// BenchmarkPorcupineKV checks each of porcupine's histories with Check and
// KVModel (ours) and with porcupine's own test model (porcupine), in one
// run, so that the two can be compared file by file (benchstat -col
// /model). Besides wall time it reports the process's CPU time per check,
// which a machine shared with other work disturbs less.
func BenchmarkPorcupineKV(b *testing.B) {
	for _, c := range porcupineKV {
		ops := readPorcupineKV(b, c.name)
		want := porcupine.Illegal
		if c.ok {
			want = porcupine.Ok
		}
		b.Run("file="+c.name+"/model=ours", func(b *testing.B) {
			defer reportCPU(b)()
			for b.Loop() {
				r, err := Check(KVModel(), ops, nil, time.Minute, "", c.name)
				if err != nil || r.Verdict != want {
					b.Fatalf("%v, %v: want %v", r.Verdict, err, want)
				}
			}
		})
		b.Run("file="+c.name+"/model=porcupine", func(b *testing.B) {
			defer reportCPU(b)()
			for b.Loop() {
				if porcupine.CheckOperations(porcupineTestModel, ops) != c.ok {
					b.Fatalf("want %v", want)
				}
			}
		})
	}
}

func TestReadKVLog(t *testing.T) {
	t.Parallel()
	log := `{:process 0, :type :invoke, :f :put, :key "x", :value "a, \"b\""}
{:process 1, :type :invoke, :f :get, :key "x", :value nil}

{:process 0, :type :ok, :f :put, :key "x", :value "a, \"b\""}
{:process 1, :type :ok, :f :get, :key "x", :value nil}
{:process 0, :type :invoke, :f :append, :key "y", :value "c"}
{:process 0, :type :fail, :f :append, :key "y", :value "c"}
{:process 0, :type :invoke, :f :append, :key "y", :value "d"}
{:process 0, :type :info, :f :append, :key "y", :value "d"}
{:process 2, :type :invoke, :f :get, :key "y", :value nil}
`
	ops, err := ReadKVLog(strings.NewReader(log))
	require.NoError(t, err)
	type op struct {
		client       int
		in           KVInput
		call         int64
		out          any
		returnedLate bool
	}
	var gotOps []op
	for _, o := range ops {
		gotOps = append(gotOps, op{o.ClientId, o.Input.(KVInput), o.Call, o.Output, o.Return == math.MaxInt64})
	}
	assert.Equal(t, []op{
		{0, put("x", `a, "b"`), 1, KVOutput{}, false},
		{1, get("x"), 2, KVOutput{}, false},
		{0, appendOp("y", "c"), 6, KVOutput{Failed: true}, false},
		{0, appendOp("y", "d"), 8, nil, true}, // :info: may or may not have happened
		{2, get("y"), 10, nil, true},          // still open at the end
	}, gotOps)
	assert.Equal(t, int64(4), ops[0].Return)
	assert.Equal(t, int64(7), ops[2].Return)
}

func TestReadKVLogNamesTheBadLine(t *testing.T) {
	t.Parallel()
	const inv = `{:process 0, :type :invoke, :f :get, :key "x", :value nil}`
	for _, c := range []struct{ log, err string }{
		{`:process 0`, `line 1: ":process 0" is not a {...} map`},
		{`{:process 0, :type :invoke, :f :get, :key "x", :value nil`, `line 1: "{:process 0, :type :invoke, :f :get, :key \"x\", :value nil" is not a {...} map`},
		{`{:process x, :type :invoke, :f :get, :key "x", :value nil}`, `line 1: :process x is not a process number`},
		{`{:process -1, :type :invoke, :f :get, :key "x", :value nil}`, `line 1: :process -1 is not a process number`},
		{`{:process 0, :type :start, :f :get, :key "x", :value nil}`, `line 1: :type :start is none of :invoke, :ok, :fail, :info`},
		{`{:process 0, :type :invoke, :f :cas, :key "x", :value nil}`, `line 1: :f :cas is none of :get, :put, :append`},
		{`{:process 0, :type :invoke, :f :get, :key x, :value nil}`, `line 1: :key x is not a string or nil`},
		{`{:process 0, :type :invoke, :f :get, :key "x", :value "a\q"}`, `line 1: :value "a\q" is not a string or nil`},
		{`{:process 0, :type :invoke, :f :get, :key "x, :value nil}`, `line 1: string "x, :value nil has no closing quote`},
		{`{:process 0, :type :invoke, :f :get, :key "x", :value}`, `line 1: a field has no value`},
		{`{:process 0, :type :invoke, :f :get, :key , :value nil}`, `line 1: a field has no value`},
		{`{:process 0, :type :invoke, :f :get, :key "x", :time 3}`, `line 1: unknown field :time`},
		{`{:process 0, :process 1, :type :invoke, :f :get, :key "x"}`, `line 1: :process given twice`},
		{`{:process 0, :type :invoke, :f :get, :value nil}`, `line 1: "{:process 0, :type :invoke, :f :get, :value nil}" has no :key`},
		{inv + "\n" + inv, `line 2: process 0 invokes while its get is open`},
		{`{:process 0, :type :ok, :f :get, :key "x", :value nil}`, `line 1: process 0 completes an operation it did not invoke`},
		{inv + "\n" + `{:process 0, :type :ok, :f :put, :key "x", :value "1"}`, `line 2: process 0 completes put("x") but invoked get("x")`},
		{inv + "\n" + `{:process 0, :type :ok, :f :get, :key "y", :value nil}`, `line 2: process 0 completes get("y") but invoked get("x")`},
		{inv + "\n\n" + `{:process 0, :type :ok, :f :get, :key "x", :value "` + strings.Repeat("x", 16<<20) + `"}`, `line 3: longer than 16 MB, which no event of a key/value log is`},
	} {
		_, err := ReadKVLog(strings.NewReader(c.log))
		assert.EqualError(t, err, c.err, firstLine(c.log))
	}
}

// firstLine returns s up to its first newline, or its first 100 bytes.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s[:min(len(s), 100)]
}

// TestReadKVLogRefusesRegisters reads porcupine's Jepsen register logs,
// which are not key/value logs: the error says so, on their first line.
func TestReadKVLogRefusesRegisters(t *testing.T) {
	for _, c := range []struct{ log, line string }{
		{"INFO  jepsen.util - 0\t:invoke\t:read\tnil\n", "line 1"},
		{"\n3\t:ok\t:cas\t[4 4]\n", "line 2"},
	} {
		_, err := ReadKVLog(strings.NewReader(c.log))
		assert.ErrorIs(t, err, ErrRegisterLog)
		assert.ErrorContains(t, err, c.line+": a Jepsen register log")
	}
}
