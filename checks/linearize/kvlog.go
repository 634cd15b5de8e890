package linearize

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// ReadKVLog reads a key/value history in the line format of porcupine's
// and Jepsen's logs, one event a line:
//
//	{:process 3, :type :invoke, :f :append, :key "7", :value "x 3 12 y"}
//	{:process 3, :type :ok, :f :append, :key "7", :value "x 3 12 y"}
//
// The operations are :get, :put and :append; the types are :invoke, :ok,
// :fail (the operation did not take effect) and :info (the outcome is
// unknown: it may or may not have taken effect, as if it never returned).
// An operation still open at the end never returned. A get's value nil is
// the empty value. The logs record no versions, so a get is checked by its
// value alone. An event's line number is its time, and its process is the
// operation's client. Blank lines are skipped; anything else that is not
// such an event is an error naming its line.
func ReadKVLog(r io.Reader) ([]porcupine.Operation, error) {
	var h History
	open := map[int]int{} // process → its open operation's id
	scan := bufio.NewScanner(r)
	scan.Buffer(nil, maxKVLine)
	line := 1
	for ; scan.Scan(); line++ {
		text := strings.TrimSpace(scan.Text())
		if text == "" {
			continue
		}
		if jepsenRegister.MatchString(text) {
			return nil, fmt.Errorf("line %d: %w", line, ErrRegisterLog)
		}
		ev, err := parseKVEvent(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		at := time.Duration(line)
		id, isOpen := open[ev.process]
		if ev.typ == "invoke" {
			if isOpen {
				return nil, fmt.Errorf("line %d: process %d invokes while its %v is open", line, ev.process, h.ops[id].Input.(KVInput).Kind)
			}
			open[ev.process] = h.Call(ev.process, ev.in, at)
			continue
		}
		if !isOpen {
			return nil, fmt.Errorf("line %d: process %d completes an operation it did not invoke", line, ev.process)
		}
		if in := h.ops[id].Input.(KVInput); in.Kind != ev.in.Kind || in.Key != ev.in.Key {
			return nil, fmt.Errorf("line %d: process %d completes %v(%q) but invoked %v(%q)", line, ev.process, ev.in.Kind, ev.in.Key, in.Kind, in.Key)
		}
		delete(open, ev.process)
		switch {
		case ev.typ == "ok" && ev.in.Kind == Get:
			h.Return(id, KVOutput{Value: ev.in.Value}, at)
		case ev.typ == "ok":
			h.Return(id, KVOutput{}, at)
		case ev.typ == "fail":
			h.Return(id, KVOutput{Failed: true}, at)
		}
		// "info": the operation stays open, as if it never returned.
	}
	if err := scan.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, fmt.Errorf("line %d: longer than %d MB, which no event of a key/value log is", line, maxKVLine>>20)
	} else if err != nil {
		return nil, err
	}
	return h.Operations(), nil
}

// maxKVLine is the longest line ReadKVLog reads.
const maxKVLine = 16 << 20

// ErrRegisterLog says that a log is one of Jepsen's register tests (the
// format of porcupine's test_data/jepsen/etcd_*.log: a process, a type
// and :read, :write or :cas on one register, tab-separated), which
// ReadKVLog does not read: only key/value logs.
var ErrRegisterLog = errors.New("a Jepsen register log (:read, :write and :cas on one register, as in porcupine's test_data/jepsen/etcd_*.log): registers are not supported, only key/value logs ({:process P, :type T, :f :get, :put or :append, :key K, :value V} a line)")

// jepsenRegister matches a line of a Jepsen register log.
var jepsenRegister = regexp.MustCompile(`^(INFO\s+jepsen\.util - )?\d+\t:(invoke|ok|fail|info)\t:(read|write|cas)\t`)

// A kvEvent is one line of a key/value log.
type kvEvent struct {
	process int
	typ     string // invoke, ok, fail or info
	in      KVInput
}

// parseKVEvent parses one event, {:process P, :type T, :f F, :key K, :value V}.
func parseKVEvent(text string) (kvEvent, error) {
	var ev kvEvent
	rest, ok := strings.CutPrefix(text, "{")
	if !ok || !strings.HasSuffix(rest, "}") {
		return ev, fmt.Errorf("%q is not a {...} map", text)
	}
	rest = rest[:len(rest)-1]
	seen := map[string]bool{}
	for rest = strings.TrimLeft(rest, " ,"); rest != ""; rest = strings.TrimLeft(rest, " ,") {
		var name, value string
		var err error
		if name, rest, err = kvToken(rest); err != nil {
			return ev, err
		}
		rest = strings.TrimLeft(rest, " ")
		if value, rest, err = kvToken(rest); err != nil {
			return ev, err
		}
		if seen[name] {
			return ev, fmt.Errorf("%s given twice", name)
		}
		seen[name] = true
		if err := ev.set(name, value); err != nil {
			return ev, err
		}
	}
	for _, name := range []string{":process", ":type", ":f", ":key"} {
		if !seen[name] {
			return ev, fmt.Errorf("%q has no %s", text, name)
		}
	}
	return ev, nil
}

// set sets the field name to value, as kvToken returned them.
func (ev *kvEvent) set(name, value string) error {
	switch name {
	case ":process":
		p, err := strconv.Atoi(value)
		if err != nil || p < 0 {
			return fmt.Errorf(":process %s is not a process number", value)
		}
		ev.process = p
	case ":type":
		switch value {
		case ":invoke", ":ok", ":fail", ":info":
			ev.typ = value[1:]
		default:
			return fmt.Errorf(":type %s is none of :invoke, :ok, :fail, :info", value)
		}
	case ":f":
		switch value {
		case ":get":
			ev.in.Kind = Get
		case ":put":
			ev.in.Kind = Put
		case ":append":
			ev.in.Kind = Append
		default:
			return fmt.Errorf(":f %s is none of :get, :put, :append", value)
		}
	case ":key", ":value":
		s := ""
		if value != "nil" {
			var err error
			if s, err = strconv.Unquote(value); err != nil || value[0] != '"' {
				return fmt.Errorf("%s %s is not a string or nil", name, value)
			}
		}
		if name == ":key" {
			ev.in.Key = s
		} else {
			ev.in.Value = s
		}
	default:
		return fmt.Errorf("unknown field %s", name)
	}
	return nil
}

// kvToken splits the token that begins s off the rest of s: a string in
// double quotes (with backslash escapes), or a word up to a space or comma.
func kvToken(s string) (token, rest string, err error) {
	if s == "" || s[0] == ',' {
		return "", "", fmt.Errorf("a field has no value")
	}
	if s[0] != '"' {
		end := strings.IndexAny(s, " ,")
		if end < 0 {
			end = len(s)
		}
		return s[:end], s[end:], nil
	}
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return s[:i+1], s[i+1:], nil
		}
	}
	return "", "", fmt.Errorf("string %s has no closing quote", s)
}
