package runfile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/replab/replab/sim"
)

// Write writes f as JSON: one object whose lists (faults, events, states,
// ops) hold one element a line, so that a run file reads, greps and diffs
// line by line. It checks f first, as Read would.
func Write(w io.Writer, f *File) error {
	if err := f.Check(); err != nil {
		return err
	}
	return encode(w, f)
}

// encode writes f as Write does, unchecked.
func encode(w io.Writer, f *File) error {
	bw := bufio.NewWriter(w)
	var werr error
	put := func(s string) {
		if werr == nil {
			_, werr = bw.WriteString(s)
		}
	}
	value := func(v any) {
		b, err := json.Marshal(v)
		if err != nil && werr == nil {
			werr = err
		}
		put(string(b))
	}
	field := func(name string, v any, last bool) {
		put(`"` + name + `": `)
		value(v)
		if !last {
			put(",")
		}
		put("\n")
	}
	list := func(name string, n int, at func(i int) any) {
		put(`"` + name + `": [`)
		for i := range n {
			put("\n  ")
			value(at(i))
			if i < n-1 {
				put(",")
			}
		}
		if n > 0 {
			put("\n")
		}
		put("],\n")
	}
	put("{\n")
	field("version", f.Version, false)
	field("scenario", f.Scenario, false)
	if f.Plant != "" {
		field("plant", f.Plant, false)
	}
	field("seed", f.Seed, false)
	if len(f.Drawn) > 0 {
		list("drawn", len(f.Drawn), func(i int) any { return f.Drawn[i] })
	}
	field("hosts", nonNil(f.Hosts), false)
	list("faults", len(f.Faults), func(i int) any { return f.Faults[i] })
	list("events", len(f.Events), func(i int) any { return f.Events[i] })
	states := wireStates(f.States)
	list("states", len(states), func(i int) any { return states[i] })
	list("ops", len(f.Ops), func(i int) any { return f.Ops[i] })
	field("verdict", f.Verdict, false)
	if f.Shrunk != nil {
		field("shrunk", f.Shrunk, false)
	}
	field("summary", f.Summary, true)
	put("}\n")
	if werr != nil {
		return fmt.Errorf("run file: writing: %w", werr)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("run file: writing: %w", err)
	}
	return nil
}

// nonNil returns s, or an empty slice for nil, so that JSON shows [] and
// not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Read reads a run file and checks it: a file of another version, a
// truncated one, or one whose fields contradict each other (a host out of
// range, events out of time order, a state of an event past the last) is
// refused with an error naming the field.
func Read(r io.Reader) (*File, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("run file: reading: %w", err)
	}
	// The version first, so that a file of another layout is refused as
	// such rather than for a field this layout does not have.
	var head struct {
		Version *int `json:"version"`
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&head); err != nil {
		return nil, jsonError(data, err)
	}
	switch {
	case head.Version == nil:
		return nil, errors.New("run file: no version: not a run file")
	case *head.Version != Version:
		return nil, fmt.Errorf("run file version %d; this labsim reads version %d", *head.Version, Version)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, jsonError(data, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("run file: more after the run's object, at byte %d", dec.InputOffset())
	}
	if err := f.resolve(); err != nil {
		return nil, err
	}
	if err := f.Check(); err != nil {
		return nil, err
	}
	return &f, nil
}

// jsonError says what is wrong with data, which failed to decode with err.
func jsonError(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || (errors.As(err, &syn) && syn.Offset >= int64(len(bytes.TrimRight(data, " \t\r\n")))):
		return fmt.Errorf("run file: truncated after %d bytes: %v", len(data), err)
	case errors.As(err, &syn):
		return fmt.Errorf("run file: not JSON at byte %d: %v", syn.Offset, err)
	case errors.As(err, &typ) && typ.Field == "":
		return fmt.Errorf("run file: a JSON %s where a run's object belongs", typ.Value)
	case errors.As(err, &typ):
		return fmt.Errorf("run file: %s: a JSON %s where %s belongs", typ.Field, typ.Value, typ.Type)
	}
	return fmt.Errorf("run file: %w", err)
}

// Load reads the run file at path (see Read).
func Load(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	f, err := Read(fh)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Save writes f to the file at path (see Write).
func Save(path string, f *File) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := Write(fh, f); err != nil {
		fh.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return fh.Close()
}

// Check checks that f's fields agree with each other, and returns an error
// naming the first that does not.
func (f *File) Check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("run file: "+format, args...)
	}
	if f.Version != Version {
		return fmt.Errorf("run file version %d; this labsim reads version %d", f.Version, Version)
	}
	if f.Scenario == "" {
		return bad("scenario: empty")
	}
	if err := f.Shrunk.check(); err != nil {
		return bad("shrunk.%v", err)
	}
	n := len(f.Hosts)
	host := func(h int, none bool) error {
		if (h == -1 && none) || (h >= 0 && h < n) {
			return nil
		}
		return fmt.Errorf("host %d out of range (%d hosts)", h, n)
	}
	var prev int64
	for i, x := range f.Faults {
		if x.At < prev {
			return bad("faults[%d].at: %d before the fault before it (%d)", i, x.At, prev)
		}
		prev = x.At
		for j, h := range x.Hosts {
			if err := host(h, false); err != nil {
				return bad("faults[%d].hosts[%d]: %v", i, j, err)
			}
		}
	}
	prev = 0
	for i, e := range f.Events {
		if e.At < prev {
			return bad("events[%d].t: %d before the event before it (%d)", i, e.At, prev)
		}
		prev = e.At
		if !slices.Contains(sim.Kinds, e.Kind) {
			return bad("events[%d].k: unknown kind %q", i, e.Kind)
		}
		if err := host(e.Host, true); err != nil {
			return bad("events[%d].h: %v", i, err)
		}
		if err := host(e.Peer, true); err != nil {
			return bad("events[%d].p: %v", i, err)
		}
		if e.Size < 0 {
			return bad("events[%d].n: negative size %d", i, e.Size)
		}
	}
	last := 0
	for i, s := range f.States {
		switch {
		case s.Event < 0 || s.Event >= len(f.Events):
			return bad("states[%d].e: event %d past the %d events", i, s.Event, len(f.Events))
		case s.Event < last:
			return bad("states[%d].e: event %d before the state before it (event %d)", i, s.Event, last)
		}
		last = s.Event
		if err := host(s.Host, false); err != nil {
			return bad("states[%d].h: %v", i, err)
		}
	}
	for i, o := range f.Ops {
		switch {
		case o.Client < 0:
			return bad("ops[%d].client: negative client %d", i, o.Client)
		case o.Call < 0:
			return bad("ops[%d].call: negative time %d", i, o.Call)
		case o.Return != -1 && o.Return < o.Call:
			return bad("ops[%d].return: %d before its call at %d", i, o.Return, o.Call)
		}
	}
	v := f.Verdict
	for i, k := range v.Ops {
		if k < 0 || k >= len(f.Ops) {
			return bad("verdict.ops[%d]: no op %d (%d ops)", i, k, len(f.Ops))
		}
	}
	if v.At < -1 || v.At >= len(f.Events) {
		return bad("verdict.at: event %d past the %d events", v.At, len(f.Events))
	}
	if (v.Problem == "") != (v.Kind == "") {
		return bad("verdict: problem %q with kind %q: both or neither", v.Problem, v.Kind)
	}
	s := f.Summary
	if len(f.Events) > 0 && s.Now < prev {
		return bad("summary.now: %d before the last event (%d)", s.Now, prev)
	}
	if len(s.Hash) != 16 || !isHex(s.Hash) {
		return bad("summary.hash: %q is not 16 hex digits", s.Hash)
	}
	return nil
}

func isHex(s string) bool {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
