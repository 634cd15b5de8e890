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
	Value   string // Get
	Version int64  // Get: the key's version
	OK      bool   // CPut: whether the version matched
}

// kvState is one key's value and version: every write bumps the version.
type kvState struct {
	value   string
	version int64
}

// KVModel returns the sequential specification of a key/value store with
// versions, partitioned by key (in sorted key order). An output of nil is
// an operation that never returned: any result is allowed, and a write may
// or may not have taken effect (see History.Operations).
func KVModel() porcupine.Model {
	return porcupine.Model{
		Partition: partitionByKey,
		Init:      func() any { return kvState{} },
		// A step that leaves the state as it was returns state itself, not
		// st: boxing st again would allocate on every Get.
		Step: func(state, input, output any) (bool, any) {
			st, in := state.(kvState), input.(KVInput)
			out, known := output.(KVOutput)
			switch in.Kind {
			case Get:
				return !known || (out.Value == st.value && out.Version == st.version), state
			case Put:
				return true, kvState{in.Value, st.version + 1}
			case Append:
				return true, kvState{st.value + in.Value, st.version + 1}
			default: // CPut
				match := in.Version == st.version
				if known && out.OK != match {
					return false, state
				}
				if match {
					return true, kvState{in.Value, st.version + 1}
				}
				return true, state
			}
		},
		DescribeOperation: func(input, output any) string {
			in := input.(KVInput)
			out, known := output.(KVOutput)
			res := "?"
			switch {
			case !known:
			case in.Kind == Get:
				res = fmt.Sprintf("%q v%d", out.Value, out.Version)
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
			st := state.(kvState)
			return fmt.Sprintf("%q v%d", st.value, st.version)
		},
	}
}

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
