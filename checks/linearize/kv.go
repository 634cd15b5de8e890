package linearize

import (
	"fmt"
	"maps"
	"slices"

	"github.com/anishathalye/porcupine"
)

// KVKind names a key/value operation.
type KVKind int

// The key/value operations.
const (
	Get    KVKind = iota
	Put           // set the value
	Append        // append to the value
	CPut          // set the value if the version matches
)

// String returns the operation's name.
func (k KVKind) String() string {
	return [...]string{"get", "put", "append", "cput"}[k]
}

// KVInput is a key/value operation as called.
type KVInput struct {
	Kind    KVKind
	Key     string
	Value   string
	Version int64 // CPut: the version the caller expects
}

// KVOutput is what a key/value operation returned.
type KVOutput struct {
	Value     string // Get: the value read
	Version   int64  // Get: the key's version, if Versioned
	Versioned bool   // Get: the client saw the version; if not, only the value is checked
	OK        bool   // CPut: whether the version matched
	Failed    bool   // the operation is known not to have taken effect
}

// KVModel returns the sequential specification of a key/value store with
// versions, partitioned by key (in sorted key order). A get is checked by
// its value, and by its version if it saw one (KVOutput.Versioned). An
// output with Failed set is an operation known not to have taken effect;
// an output of nil is one that never returned: any result is allowed, and
// a write may or may not have taken effect (see History.Operations).
func KVModel() Model {
	return Model{PartName: kvPartName, Validate: kvValidate, Model: porcupine.Model{
		Partition: partitionByKey,
		Init:      func() any { return newKVState() },
		Step:      kvStep,
		Equal:     kvEqual,
		Hash:      kvHash,
		DescribeOperation: func(input, output any) string {
			in := input.(KVInput)
			out, known := output.(KVOutput)
			res := "?"
			switch {
			case !known:
			case out.Failed:
				res = "failed"
			case in.Kind == Get && out.Versioned:
				res = fmt.Sprintf("%q v%d", out.Value, out.Version)
			case in.Kind == Get:
				res = fmt.Sprintf("%q", out.Value)
			case in.Kind == CPut:
				res = fmt.Sprint(out.OK)
			default:
				res = "ok"
			}
			switch in.Kind {
			case Get:
				return fmt.Sprintf("get(%q) → %s", in.Key, res)
			case CPut:
				return fmt.Sprintf("cput(%q, %q, v%d) → %s", in.Key, in.Value, in.Version, res)
			default:
				return fmt.Sprintf("%v(%q, %q) → %s", in.Kind, in.Key, in.Value, res)
			}
		},
		DescribeState: func(state any) string {
			st := state.(*kvState)
			return fmt.Sprintf("%q v%d", st, st.version)
		},
	}}
}

// kvStep is the model's step: whether a key in state could return output
// to input, and the key's state after. A step that leaves the state as it
// was returns state itself.
func kvStep(state, input, output any) (bool, any) {
	st, in := state.(*kvState), input.(KVInput)
	out, known := output.(KVOutput)
	if known && out.Failed {
		return true, state
	}
	switch in.Kind {
	case Get:
		return !known || ((!out.Versioned || out.Version == st.version) && st.is(out.Value)), state
	case Put:
		return true, st.put(in.Value)
	case Append:
		return true, st.append(in.Value)
	default: // CPut
		match := in.Version == st.version
		if known && out.OK != match {
			return false, state
		}
		if match {
			return true, st.put(in.Value)
		}
		return true, state
	}
}

// kvValidate refuses an input that is not a KVInput of a known kind, and
// an output that is neither a KVOutput nor nil.
func kvValidate(input, output any) error {
	in, ok := input.(KVInput)
	switch {
	case !ok:
		return fmt.Errorf("input %#v is not a KVInput", input)
	case in.Kind < Get || in.Kind > CPut:
		return fmt.Errorf("input kind %d is none of get, put, append, cput", int(in.Kind))
	}
	if _, ok := output.(KVOutput); !ok && output != nil {
		return fmt.Errorf("output %#v is not a KVOutput (or nil, never returned)", output)
	}
	return nil
}

// kvPartName names the partition of a key/value input: its key.
func kvPartName(input any) string { return fmt.Sprintf("key %q", input.(KVInput).Key) }

// partitionByKey splits a history into one per key, in sorted key order.
// It counts each key's operations first, so that each part is allocated
// once, at its size.
func partitionByKey(history []porcupine.Operation) [][]porcupine.Operation {
	counts := map[string]int{}
	for _, op := range history {
		counts[op.Input.(KVInput).Key]++
	}
	keys := slices.Sorted(maps.Keys(counts))
	parts := make([][]porcupine.Operation, len(keys))
	index := counts // from here on, a key's part
	for i, k := range keys {
		parts[i] = make([]porcupine.Operation, 0, counts[k])
		index[k] = i
	}
	for _, op := range history {
		i := index[op.Input.(KVInput).Key]
		parts[i] = append(parts[i], op)
	}
	return parts
}
