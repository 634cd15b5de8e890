package runfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/replab/replab/sim"
)

// wireState is a State as JSON holds it: whole ("f"), as changes to the
// host's last state ("d"), or neither (down).
type wireState struct {
	Event  int        `json:"e"`
	Host   int        `json:"h"`
	Fields [][]string `json:"f,omitempty"`
	Delta  [][]string `json:"d,omitempty"`
}

// MarshalJSON writes the state whole, its fields as [name, value] pairs.
func (s State) MarshalJSON() ([]byte, error) {
	return json.Marshal(wireState{Event: s.Event, Host: s.Host, Fields: pairs(s.Fields)})
}

// UnmarshalJSON reads a state as MarshalJSON or Write writes it; a state
// written as changes ("d") is put back whole by Read.
func (s *State) UnmarshalJSON(b []byte) error {
	var w wireState
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return fmt.Errorf("state %s: %w", b, err)
	}
	if w.Fields != nil && w.Delta != nil {
		return fmt.Errorf("state of host %d after event %d has both f (whole) and d (changes)", w.Host, w.Event)
	}
	fields, err := unpair(w.Fields)
	if err == nil {
		s.delta, err = unpair(w.Delta)
	}
	if err != nil {
		return fmt.Errorf("state of host %d after event %d: %w", w.Host, w.Event, err)
	}
	s.Event, s.Host, s.Fields = w.Event, w.Host, fields
	return nil
}

func pairs(fields []sim.Field) [][]string {
	if fields == nil {
		return nil
	}
	out := make([][]string, len(fields))
	for i, f := range fields {
		out[i] = []string{f.Name, f.Value}
	}
	return out
}

func unpair(ps [][]string) ([]sim.Field, error) {
	if ps == nil {
		return nil, nil
	}
	out := make([]sim.Field, len(ps))
	for i, p := range ps {
		if len(p) != 2 {
			return nil, fmt.Errorf("field %d is %q, not [name, value]", i, p)
		}
		out[i] = sim.Field{Name: p[0], Value: p[1]}
	}
	return out, nil
}

// wireStates returns the states as Write writes them: a state that
// changes only values of the fields its host showed last is written as
// those changes.
func wireStates(states []State) []any {
	last := map[int][]sim.Field{}
	out := make([]any, len(states))
	for i, s := range states {
		prev := last[s.Host]
		last[s.Host] = s.Fields
		out[i] = s
		if s.Fields == nil || len(prev) != len(s.Fields) {
			continue
		}
		var changed []sim.Field
		for k, f := range s.Fields {
			if f.Name != prev[k].Name {
				changed = nil
				break
			}
			if f.Value != prev[k].Value {
				changed = append(changed, f)
			}
		}
		if changed != nil {
			out[i] = wireState{Event: s.Event, Host: s.Host, Delta: pairs(changed)}
		}
	}
	return out
}

// resolve puts back whole the states read as changes, naming the first
// that changes what its host did not show.
func (f *File) resolve() error {
	last := map[int][]sim.Field{}
	for i := range f.States {
		s := &f.States[i]
		if s.delta != nil {
			prev := last[s.Host]
			if prev == nil {
				return fmt.Errorf("run file: states[%d].d: host %d showed nothing before to change", i, s.Host)
			}
			fields := slices.Clone(prev)
			for j, d := range s.delta {
				k := slices.IndexFunc(fields, func(f sim.Field) bool { return f.Name == d.Name })
				if k < 0 {
					return fmt.Errorf("run file: states[%d].d[%d]: host %d showed no field %q before", i, j, s.Host, d.Name)
				}
				fields[k].Value = d.Value
			}
			s.Fields, s.delta = fields, nil
		}
		last[s.Host] = s.Fields
	}
	return nil
}
