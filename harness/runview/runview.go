// Package runview draws a run file as one self-contained HTML page: a
// step-through viewer of the run that works offline.
//
//	f, err := runfile.Read(name)
//	...
//	err = runview.Write(w, f)
//
// The page shows a lane per host over virtual time, the messages as arrows
// from send to delivery (the lost ones ending in a cross, the duplicated
// ones dashed), the faults shaded over the hosts they struck, the clients'
// operations as bars (the violating one red, its witnesses amber), and
// beside them every host's inspected state at the cursor. The cursor is an
// event: ← and → step through the events, and keys and buttons jump to the
// next fault, the next event of a host or client, or the violation. The
// page opens on the violation (the verdict's At), or at the start of a run
// that passed.
//
// The page is one file: its script and style are inlined, and the run is
// embedded as JSON in a <script type="application/json"> element, escaped
// by html/template so that no text of the run can end that element. Its
// sources (view.html, view.css, view.js) are files of this package, built
// in with embed: plain JavaScript, no build step.
//
// The run is embedded in columns (one array per event field, strings in a
// table) and the page draws only the stretch of time in view on a canvas,
// so that a run of tens of thousands of events opens and steps quickly.
package runview

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/sim"
)

var (
	//go:embed view.html
	viewHTML string
	//go:embed view.css
	viewCSS string
	//go:embed view.js
	viewJS string
)

var pageTemplate = template.Must(template.New("view.html").Parse(viewHTML))

// Write writes the page of f to w. It refuses a run file whose parts do not
// fit together (see runfile.File.Check), with an error naming the field.
func Write(w io.Writer, f *runfile.File) error {
	p, err := build(f)
	if err != nil {
		return err
	}
	return pageTemplate.Execute(w, struct {
		Title string
		CSS   template.CSS
		JS    template.JS
		Run   *page
	}{Title: title(f), CSS: template.CSS(viewCSS), JS: template.JS(viewJS), Run: p})
}

// title is the page's title: the scenario and seed, and what the checks
// found.
func title(f *runfile.File) string {
	verdict := "passed"
	if f.Verdict.Problem != "" {
		verdict = f.Verdict.Kind
		if verdict == "" {
			verdict = "failed"
		}
	}
	return fmt.Sprintf("%s: %s", runName(f), verdict)
}

// runName names f's run as the page's header does: its scenario and seed,
// the bug planted in it, and whether it was shrunk.
func runName(f *runfile.File) string {
	name := fmt.Sprintf("%s seed %d", f.Scenario, f.Seed)
	if f.Plant != "" {
		name += fmt.Sprintf(" with %q planted", f.Plant)
	}
	if f.Shrunk != nil {
		name += ", shrunk"
	}
	return name
}

// A page is the run as the page's script reads it: the events in columns,
// with the strings they repeat in tables, and what the script would
// otherwise work out on every load (which events are the two ends of a
// message, when each fault ends, which event begins and ends each
// operation) worked out here.
type page struct {
	Name    string          `json:"name"` // the run's name (runName)
	Drawn   []runfile.Param `json:"drawn"`
	Hosts   []string        `json:"hosts"`
	Clients []int           `json:"clients"` // the clients' numbers, in order
	Kinds   []sim.Kind      `json:"kinds"`   // the table of event kinds
	Whats   []string        `json:"whats"`   // the table of the events' What

	// The events, a column per field: T the virtual time in nanoseconds
	// since the event before (the first: since 0), K the kind (in Kinds), H
	// and P the host and peer (-1: none), ID, N the size, W the What (in
	// Whats, -1: none).
	T  []int64  `json:"t"`
	K  []int    `json:"k"`
	H  []int    `json:"h"`
	P  []int    `json:"p"`
	ID []uint64 `json:"id"`
	N  []int    `json:"n"`
	W  []int    `json:"w"`

	Msgs   []msg   `json:"msgs"`
	Faults []fault `json:"faults"`
	Down   [][]int `json:"down"` // by host: the events it went down and came back at, alternately
	// States are, by host, the states it showed, in order: each the index
	// of the event after which it showed them, and its fields as pairs of
	// a name (in FieldNames) and a value; no fields: the host is down.
	States     [][]hostState   `json:"states"`
	FieldNames []string        `json:"fieldNames"`
	Ops        []op            `json:"ops"`
	Verdict    runfile.Verdict `json:"verdict"`
	Summary    runfile.Summary `json:"summary"`
}

// A msg is one message drawn as an arrow: the events of its two ends (a
// request's send and delivery, a reply's answer and return), and what it
// was.
type msg struct {
	From, To int // event indices; To is the loss for a lost one
	Flags    int // msgReply, msgDup, msgLost
}

// MarshalJSON writes a msg as an array: [from, to, flags].
func (m msg) MarshalJSON() ([]byte, error) {
	return fmt.Appendf(nil, "[%d,%d,%d]", m.From, m.To, m.Flags), nil
}

// The flags of a msg.
const (
	msgReply = 1 << iota // a reply, not a request
	msgDup               // a request delivered a second time
	msgLost              // lost on the way: To is the loss
)

// A fault is a runfile.Fault with the time it ended (the run's end if it
// was never healed) and the event that applied it.
type fault struct {
	At    int64  `json:"at"`
	Text  string `json:"text"`
	Hosts []int  `json:"hosts"` // none: the network as a whole
	Heal  bool   `json:"heal"`
	// Shade are the hosts whose lanes are shaded while it lasts: those it
	// cuts off (a partition's smallest side), none for a kill (the lane
	// shows its host down).
	Shade []int `json:"shade"`
	End   int64 `json:"end"`
	Event int   `json:"event"` // -1 if the events do not show it
}

// A hostState is one state a host showed, whole or as the values that
// changed since the host's state before: [event, [name, value, ...], 1]
// whole, [event, [name, value, ...]] changes, [event, null] down.
type hostState struct {
	Event  int
	Fields []any // name index, value, name index, value...; nil: down
	Whole  bool  // Fields are every field, not only those that changed
}

// MarshalJSON writes a hostState as an array: [event, fields] or, whole,
// [event, fields, 1].
func (s hostState) MarshalJSON() ([]byte, error) {
	if s.Whole {
		return json.Marshal([]any{s.Event, s.Fields, 1})
	}
	return json.Marshal([]any{s.Event, s.Fields})
}

// An op is a runfile.Op with the events that began and ended it (-1 if the
// events do not show them).
type op struct {
	runfile.Op
	Invoke int `json:"invoke"`
	Ret    int `json:"ret"`
}

// build checks f and works out its page.
func build(f *runfile.File) (*page, error) {
	if err := f.Check(); err != nil {
		return nil, err
	}
	p := &page{
		Name: runName(f), Drawn: f.Drawn, Hosts: f.Hosts,
		Verdict: f.Verdict, Summary: f.Summary,
	}
	if p.Drawn == nil {
		p.Drawn = []runfile.Param{}
	}
	if p.Hosts == nil {
		p.Hosts = []string{}
	}
	p.columns(f.Events)
	p.Msgs = messages(f.Events)
	p.Faults = faults(f, end(f))
	p.Down = downtimes(f)
	p.states(f)
	p.ops(f)
	return p, nil
}

// end returns the run's last virtual time: the summary's, or the last
// event's or operation's if later.
func end(f *runfile.File) int64 {
	t := f.Summary.Now
	if n := len(f.Events); n > 0 {
		t = max(t, f.Events[n-1].At)
	}
	for _, o := range f.Ops {
		t = max(t, o.Call, o.Return)
	}
	for _, x := range f.Faults {
		t = max(t, x.At)
	}
	return t
}

// columns fills in the page's event columns and their tables.
func (p *page) columns(events []runfile.Event) {
	n := len(events)
	p.T, p.K, p.H, p.P = make([]int64, n), make([]int, n), make([]int, n), make([]int, n)
	p.ID, p.N, p.W = make([]uint64, n), make([]int, n), make([]int, n)
	kinds, whats := map[sim.Kind]int{}, map[string]int{}
	p.Kinds, p.Whats = []sim.Kind{}, []string{}
	for i, e := range events {
		k, ok := kinds[e.Kind]
		if !ok {
			k = len(p.Kinds)
			kinds[e.Kind] = k
			p.Kinds = append(p.Kinds, e.Kind)
		}
		w := -1
		if e.What != "" {
			if w, ok = whats[e.What]; !ok {
				w = len(p.Whats)
				whats[e.What] = w
				p.Whats = append(p.Whats, e.What)
			}
		}
		p.T[i], p.K[i], p.H[i], p.P[i], p.ID[i], p.N[i], p.W[i] = e.At, k, e.Host, e.Peer, e.ID, e.Size, w
		if i > 0 {
			p.T[i] -= events[i-1].At
		}
	}
}

// messages pairs the events of each call into the arrows drawn: the
// request from its send to its delivery (and to each duplicate delivery),
// the reply from the server's answer to the caller's return, and a lost
// request or reply from where it left to its loss. A call is named by its
// ID; the arrows come in the order of the events that began them.
func messages(events []runfile.Event) []msg {
	type call struct{ send, reply int }
	calls := map[uint64]*call{}
	var out []msg
	for i, e := range events {
		c := calls[e.ID]
		switch e.Kind {
		case sim.KindSend:
			calls[e.ID] = &call{send: i, reply: -1}
		case sim.KindDeliver, sim.KindDup:
			if c != nil {
				flags := 0
				if e.Kind == sim.KindDup {
					flags = msgDup
				}
				out = append(out, msg{From: c.send, To: i, Flags: flags})
			}
		case sim.KindReply:
			if c != nil {
				c.reply = i
			}
		case sim.KindLost:
			if c != nil {
				if c.reply >= 0 {
					out = append(out, msg{From: c.reply, To: i, Flags: msgReply | msgLost})
					c.reply = -1
				} else {
					out = append(out, msg{From: c.send, To: i, Flags: msgLost})
				}
			}
		case sim.KindDone:
			if c != nil && c.reply >= 0 {
				out = append(out, msg{From: c.reply, To: i, Flags: msgReply})
			}
			delete(calls, e.ID)
		}
	}
	slices.SortStableFunc(out, func(a, b msg) int { return a.From - b.From })
	return out
}

// faults returns f's faults, each with the time it ended (the end of the
// run if nothing ended it) and the event that applied it.
//
// What ends a fault is read from the faults' texts, as the fault log
// writes them (see chaos/fault's Format): the first word says the kind. A
// fault that heals ends those in force of the kinds it heals (see
// healedBy): a heal ends every partition, isolation and cut; a restart,
// rejoin, uncut or drift back to x1 ends the fault of its kind on the same
// hosts; a network mode switched off ends the mode. A fault that strikes
// ends the faults it replaces: a partition the link faults before it, a
// network mode (another delay rule, say) the same mode.
func faults(f *runfile.File, end int64) []fault {
	out := make([]fault, len(f.Faults))
	var open []int
	next := 0 // the next event to look at for a fault's own
	for i, x := range f.Faults {
		out[i] = fault{At: x.At, Text: x.Text, Hosts: x.Hosts, Heal: x.Heal, Shade: shaded(x, f.Hosts), End: end, Event: -1}
		if out[i].Hosts == nil {
			out[i].Hosts = []int{}
		}
		for next < len(f.Events) && f.Events[next].At < x.At {
			next++
		}
		for j := next; j < len(f.Events) && f.Events[j].At == x.At; j++ {
			if f.Events[j].Kind == sim.KindFault && f.Events[j].What == x.Text {
				out[i].Event = j
				next = j + 1
				break
			}
		}
		word := firstWord(x.Text)
		ends := healedBy[word]
		if !x.Heal {
			ends = replacedBy[word]
		}
		open = slices.DeleteFunc(open, func(j int) bool {
			o := f.Faults[j]
			sameHosts := !slices.Contains(hostBound, word) || slices.Equal(o.Hosts, x.Hosts)
			if !slices.Contains(ends, firstWord(o.Text)) || !sameHosts {
				return false
			}
			out[j].End = x.At
			return true
		})
		if x.Heal {
			out[i].End = x.At
		} else {
			open = append(open, i)
		}
	}
	return out
}

// shaded returns the hosts whose lanes x shades: for a partition, the
// hosts of its smallest side (those it cuts off), read from its text
// ("partition {1 2 3 4} | {0}", each host named as the run's hosts are, or
// by its place among the hosts x strikes); none for a kill or a heal; else
// the hosts x strikes.
func shaded(x runfile.Fault, names []string) []int {
	word := firstWord(x.Text)
	switch {
	case x.Heal || word == "kill":
		return []int{}
	case word != "partition":
		return slices.Clip(append([]int{}, x.Hosts...))
	}
	var smallest [][]int
	for _, m := range sideText.FindAllStringSubmatch(x.Text, -1) {
		var side []int
		for _, name := range strings.Fields(m[1]) {
			h := slices.Index(names, name)
			if k, err := strconv.Atoi(name); h < 0 && err == nil && k >= 0 && k < len(x.Hosts) {
				h = x.Hosts[k]
			}
			if h < 0 {
				return slices.Clip(append([]int{}, x.Hosts...)) // a text not understood: every host it strikes
			}
			side = append(side, h)
		}
		switch {
		case len(smallest) == 0 || len(side) < len(smallest[0]):
			smallest = [][]int{side}
		case len(side) == len(smallest[0]):
			smallest = append(smallest, side)
		}
	}
	out := []int{}
	for _, side := range smallest {
		out = append(out, side...)
	}
	if len(out) == 0 {
		return slices.Clip(append([]int{}, x.Hosts...))
	}
	slices.Sort(out)
	return out
}

// sideText matches one side of a partition in a fault's text: {0 2 3}.
var sideText = regexp.MustCompile(`\{([^{}]*)\}`)

// healedBy says, by the first word of a healing fault's text, the kinds of
// fault it ends.
var healedBy = map[string][]string{
	"heal":        {"partition", "isolate", "cut"},
	"restart":     {"kill"},
	"rejoin":      {"isolate"},
	"uncut":       {"cut"},
	"drift":       {"drift"},
	"unreliable":  {"unreliable"},
	"reordering":  {"reordering"},
	"long":        {"long"},
	"duplication": {"duplicate"},
	"delay":       {"delay"},
}

// hostBound are the faults, by first word, that end only the fault of
// their kind on the hosts they name.
var hostBound = []string{"restart", "rejoin", "uncut", "drift"}

// replacedBy says, by the first word of a striking fault's text, the kinds
// of fault in force that it replaces.
var replacedBy = map[string][]string{
	"partition":  {"partition", "isolate", "cut"},
	"drift":      {"drift"},
	"unreliable": {"unreliable"},
	"reordering": {"reordering"},
	"long":       {"long"},
	"duplicate":  {"duplicate"},
	"delay":      {"delay"},
}

// firstWord returns the first word of s.
func firstWord(s string) string {
	w, _, _ := strings.Cut(s, " ")
	return w
}

// downtimes returns, by host, the events at which it was killed and
// restarted, in turn.
func downtimes(f *runfile.File) [][]int {
	out := make([][]int, len(f.Hosts))
	for h := range out {
		out[h] = []int{}
	}
	for i, e := range f.Events {
		if e.Host < 0 || (e.Kind != sim.KindKill && e.Kind != sim.KindRestart) {
			continue
		}
		down := len(out[e.Host])%2 == 1
		if down == (e.Kind == sim.KindRestart) {
			out[e.Host] = append(out[e.Host], i)
		}
	}
	return out
}

// states fills in the hosts' states and the table of their fields' names.
func (p *page) states(f *runfile.File) {
	p.States = make([][]hostState, len(f.Hosts))
	for h := range p.States {
		p.States[h] = []hostState{}
	}
	names := map[string]int{}
	p.FieldNames = []string{}
	last := make([][]sim.Field, len(f.Hosts)) // what each host showed last
	for _, s := range f.States {
		st := hostState{Event: s.Event}
		before := last[s.Host]
		last[s.Host] = s.Fields
		if s.Fields == nil {
			p.States[s.Host] = append(p.States[s.Host], st)
			continue
		}
		// the values that changed, if the names are those the host showed
		// last, in the same order; else the whole state
		st.Whole = len(before) != len(s.Fields)
		for i := 0; i < len(s.Fields) && !st.Whole; i++ {
			st.Whole = before[i].Name != s.Fields[i].Name
		}
		st.Fields = []any{}
		for i, fl := range s.Fields {
			if !st.Whole && before[i].Value == fl.Value {
				continue
			}
			k, ok := names[fl.Name]
			if !ok {
				k = len(p.FieldNames)
				names[fl.Name] = k
				p.FieldNames = append(p.FieldNames, fl.Name)
			}
			st.Fields = append(st.Fields, k, fl.Value)
		}
		p.States[s.Host] = append(p.States[s.Host], st)
	}
}

// ops fills in the operations, each with the invoke and return events that
// match it (a client's invocations and returns, in order, are its
// operations', in order), and the clients.
func (p *page) ops(f *runfile.File) {
	invokes, returns := map[uint64][]int{}, map[uint64][]int{}
	for i, e := range f.Events {
		switch e.Kind {
		case sim.KindInvoke:
			invokes[e.ID] = append(invokes[e.ID], i)
		case sim.KindReturn:
			returns[e.ID] = append(returns[e.ID], i)
		}
	}
	take := func(q map[uint64][]int, client int, at int64) int {
		id := uint64(client)
		for len(q[id]) > 0 && f.Events[q[id][0]].At < at {
			q[id] = q[id][1:]
		}
		if len(q[id]) == 0 || f.Events[q[id][0]].At != at {
			return -1
		}
		i := q[id][0]
		q[id] = q[id][1:]
		return i
	}
	p.Ops = make([]op, len(f.Ops))
	p.Clients = []int{}
	order := make([]int, len(f.Ops)) // the ops by return, to match returns in order
	for i, o := range f.Ops {
		p.Ops[i] = op{Op: o, Invoke: take(invokes, o.Client, o.Call), Ret: -1}
		order[i] = i
		if !slices.Contains(p.Clients, o.Client) {
			p.Clients = append(p.Clients, o.Client)
		}
	}
	slices.Sort(p.Clients)
	slices.SortStableFunc(order, func(a, b int) int {
		ra, rb := f.Ops[a].Return, f.Ops[b].Return
		switch {
		case ra < rb:
			return -1
		case ra > rb:
			return 1
		}
		return 0
	})
	for _, i := range order {
		if o := f.Ops[i]; o.Return >= 0 {
			p.Ops[i].Ret = take(returns, o.Client, o.Return)
		}
	}
}
