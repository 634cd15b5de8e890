package linearize

import (
	"hash/fnv"
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
		})
	}
}

// BenchmarkPorcupineKV checks each of porcupine's histories with Check and
// KVModel (ours) and with porcupine's own test model (porcupine), in one
// run, so that the two can be compared file by file (benchstat -col /model).
func BenchmarkPorcupineKV(b *testing.B) {
	for _, c := range porcupineKV {
		ops := readPorcupineKV(b, c.name)
		want := porcupine.Illegal
		if c.ok {
			want = porcupine.Ok
		}
		b.Run("file="+c.name+"/model=ours", func(b *testing.B) {
			for b.Loop() {
				r, err := Check(KVModel(), ops, nil, time.Minute, "", c.name)
				if err != nil || r.Verdict != want {
					b.Fatalf("%v, %v: want %v", r.Verdict, err, want)
				}
			}
		})
		b.Run("file="+c.name+"/model=porcupine", func(b *testing.B) {
			for b.Loop() {
				if porcupine.CheckOperations(porcupineTestModel, ops) != c.ok {
					b.Fatalf("want %v", want)
				}
			}
		})
	}
}
