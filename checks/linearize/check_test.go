package linearize

import (
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// record records that client called in at ms call and got out at ms ret.
func record(h *History, client int, in KVInput, out KVOutput, call, ret int) {
	h.Return(h.Call(client, in, at(call)), out, at(ret))
}

// stuckModel is KVModel whose steps on key, but for the first free of
// them, wait for porcupine's timeout: with free 0, the key's check runs out
// of time whatever the machine.
func stuckModel(key string, free int64) Model {
	m := KVModel()
	var steps atomic.Int64
	m.StepContext = func(ctx context.Context, state, input, output any) (bool, any) {
		if input.(KVInput).Key == key && steps.Add(1) > free {
			<-ctx.Done()
			return false, state
		}
		return kvStep(state, input, output)
	}
	return m
}

func TestOutOfTimeNamesTheUnfinishedKeys(t *testing.T) {
	t.Parallel()
	var h History
	for i, k := range []string{"a", "stuck", "b"} {
		record(&h, i, put(k, "1"), KVOutput{}, 0, 1)
	}
	r, err := Check(stuckModel("stuck", 0), h.Operations(), nil, 200*time.Millisecond, t.TempDir(), "stuck")
	require.NoError(t, err)
	assert.Equal(t, porcupine.Unknown, r.Verdict)
	assert.Equal(t, []string{`key "stuck"`}, r.Unfinished, "only the stuck key ran out")
	assert.Equal(t, 200*time.Millisecond, r.Timeout)
	assert.Empty(t, r.HTML)
	assert.Contains(t, r.Problem(), `ran out of its 200ms`)
	assert.Contains(t, r.Problem(), `on key "stuck": the result is unknown`)
}

func TestViolationOutranksUnfinished(t *testing.T) {
	t.Parallel()
	var h History
	record(&h, 0, put("stuck", "1"), KVOutput{}, 0, 1)
	record(&h, 1, get("bad"), got("never written", 1), 0, 1)
	r, err := Check(stuckModel("stuck", 0), h.Operations(), nil, 200*time.Millisecond, "", "")
	require.NoError(t, err)
	assert.Equal(t, porcupine.Illegal, r.Verdict)
	assert.Equal(t, `key "bad"`, r.Violation)
	assert.Empty(t, r.Unfinished)
}

func TestUnnamedPartitionsAreNumbered(t *testing.T) {
	t.Parallel()
	var h History
	for i, k := range []string{"b", "a"} {
		record(&h, i, get(k), got("", 0), 0, 1)
	}
	record(&h, 2, get("c"), got("x", 0), 2, 3)
	m := KVModel()
	m.PartName = nil
	r, err := Check(m, h.Operations(), nil, time.Minute, "", "")
	require.NoError(t, err)
	assert.Equal(t, "partition 2", r.Violation, "c is the third key in order")
	m.Partition = nil
	r, err = Check(m, h.Operations(), nil, time.Minute, "", "")
	require.NoError(t, err)
	assert.Equal(t, "partition 0", r.Violation, "one partition, the whole history")
}

func TestTimeoutMustBePositive(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		timeout time.Duration
		err     string
	}{
		{-time.Second, "linearize: timeout -1s is not positive (NoTimeout is no limit)"},
		{0, "linearize: timeout 0s is not positive (NoTimeout is no limit)"},
	} {
		_, err := Check(KVModel(), nil, nil, c.timeout, "", "")
		assert.EqualError(t, err, c.err)
	}
}

func TestNoTimeoutIsNoLimit(t *testing.T) {
	t.Parallel()
	var h History
	record(&h, 0, put("x", "1"), KVOutput{}, 0, 2)
	record(&h, 1, get("x"), got("1", 1), 1, 3)
	record(&h, 0, get("y"), got("", 0), 4, 5)
	r, err := Check(KVModel(), h.Operations(), nil, NoTimeout, "", "")
	require.NoError(t, err)
	assert.True(t, r.OK(), r.Problem())
	assert.Equal(t, NoTimeout, r.Timeout)
	record(&h, 1, get("y"), got("never written", 1), 6, 7)
	r, err = Check(KVModel(), h.Operations(), nil, NoTimeout, "", "")
	require.NoError(t, err)
	assert.Equal(t, porcupine.Illegal, r.Verdict)
	assert.NotNil(t, r.Explanation, "the explaining search has no limit either")
}

func TestEmptyHistoryIsLinearizable(t *testing.T) {
	t.Parallel()
	r, err := Check(KVModel(), nil, nil, NoTimeout, t.TempDir(), "empty")
	require.NoError(t, err)
	assert.True(t, r.OK())
	assert.Zero(t, r.Ops)
}

func TestStoppedStepsFail(t *testing.T) {
	t.Parallel()
	calls := 0
	inner := porcupine.Model{Step: func(state, input, output any) (bool, any) { calls++; return true, "next" }}
	var stop atomic.Bool
	m := stoppable(inner, stop.Load)
	ok, next := m.Step("state", nil, nil)
	assert.True(t, ok)
	assert.Equal(t, "next", next)
	stop.Store(true)
	ok, next = m.Step("state", nil, nil)
	assert.False(t, ok)
	assert.Equal(t, "state", next, "a stopped step keeps the state")
	assert.Equal(t, 1, calls, "a stopped step does not call the model")

	inner = porcupine.Model{StepContext: func(ctx context.Context, state, input, output any) (bool, any) { calls++; return true, "next" }}
	stop.Store(false)
	m = stoppable(inner, stop.Load)
	ok, _ = m.StepContext(context.Background(), "state", nil, nil)
	assert.True(t, ok)
	stop.Store(true)
	ok, next = m.StepContext(context.Background(), "state", nil, nil)
	assert.False(t, ok)
	assert.Equal(t, "state", next)
	assert.Equal(t, 2, calls)
}

func TestOnlyOperationsThatNeverOverlapAreSequential(t *testing.T) {
	t.Parallel()
	op := func(call, ret int64) porcupine.Operation { return porcupine.Operation{Call: call, Return: ret} }
	assert.True(t, sequential(nil))
	assert.True(t, sequential([]porcupine.Operation{op(0, 1), op(2, 3), op(4, math.MaxInt64)}), "the last may never return")
	assert.False(t, sequential([]porcupine.Operation{op(0, 2), op(2, 3)}), "touching intervals overlap")
	assert.False(t, sequential([]porcupine.Operation{op(0, 3), op(2, 4)}))
	assert.False(t, sequential([]porcupine.Operation{op(0, math.MaxInt64), op(2, 3)}), "one that never returned overlaps all after it")
}

func TestReplayStepsInOrder(t *testing.T) {
	t.Parallel()
	var h History
	record(&h, 0, put("x", "1"), KVOutput{}, 0, 1)
	record(&h, 0, appendOp("x", "2"), KVOutput{}, 2, 3)
	record(&h, 1, get("x"), got("12", 2), 4, 5)
	ctx := context.Background()
	assert.Equal(t, porcupine.Ok, replay(ctx, KVModel().Model, h.Operations()))
	record(&h, 1, get("x"), got("1", 1), 6, 7)
	assert.Equal(t, porcupine.Illegal, replay(ctx, KVModel().Model, h.Operations()))
	done, cancel := context.WithCancel(ctx)
	cancel()
	assert.Equal(t, porcupine.Unknown, replay(done, stuckModel("stuck", 0).Model, h.Operations()), "a step of a model with StepContext sees ctx")
}

// When several keys' histories are not linearizable, the check names the
// first in its order (smallest first), whichever it found first in time:
// here "second" is found first, while "first" waits for it, and "first"
// is named, run after run.
func TestFirstViolationInOrderIsNamed(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var h History
	record(&h, 0, get("first"), got("never written", 1), 0, 1)
	record(&h, 1, get("second"), got("never written", 1), 0, 1)
	for range 20 {
		found := make(chan struct{})
		var once sync.Once
		m := KVModel()
		m.StepContext = func(ctx context.Context, state, input, output any) (bool, any) {
			switch input.(KVInput).Key {
			case "first":
				<-found
			case "second":
				defer once.Do(func() { close(found) })
			}
			return kvStep(state, input, output)
		}
		r, err := Check(m, h.Operations(), nil, time.Minute, "", "")
		require.NoError(t, err)
		assert.Equal(t, `key "first"`, r.Violation)
	}
}
