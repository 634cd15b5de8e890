package viewtest

import (
	"fmt"
	"strconv"

	"github.com/replab/replab/harness/runfile"
)

// A Panel is what a run's page shows beside its lanes: the event at the
// cursor, every host's state there, and the verdict's operations.
type Panel struct {
	Cursor int                  // the event at the cursor, by index
	Hosts  map[string]HostState // by host ID, as the page's data-host says
	Ops    []VerdictOp          // the verdict's operations, as listed
}

// A HostState is what the page shows of one host's state, or what a run
// file says it should.
type HostState struct {
	Status string            `json:"status"` // "up" or "down"
	Fields map[string]string `json:"fields"` // by name; "down" for each while down
}

// A VerdictOp is one of the verdict's operations as the page lists it.
type VerdictOp struct {
	Op   int    `json:"op"`   // by index in the run file's Ops
	Role string `json:"role"` // "violating" or "witness"
}

// panelScript reads the panel from the page's DOM: the cursor's index
// (#cursor's data-index), the state panel's cells (data-host, data-field;
// a host's header has its data-status) and the verdict's operations
// (#ops li, data-op and data-role).
const panelScript = `(() => {
	const hosts = {};
	for (const th of document.querySelectorAll('#states th[data-host]')) hosts[th.dataset.host] = {status: th.dataset.status, fields: {}};
	for (const td of document.querySelectorAll('#states td[data-host]')) hosts[td.dataset.host].fields[td.dataset.field] = td.textContent;
	const ops = [...document.querySelectorAll('#ops li[data-op]')].map(li => ({op: Number(li.dataset.op), role: li.dataset.role}));
	return {cursor: document.getElementById('cursor').dataset.index, hosts, ops};
})()`

// Panel reads what the page shows beside its lanes.
func (b *Browser) Panel() (Panel, error) {
	var got struct {
		Cursor string               `json:"cursor"`
		Hosts  map[string]HostState `json:"hosts"`
		Ops    []VerdictOp          `json:"ops"`
	}
	if err := b.Eval(panelScript, &got); err != nil {
		return Panel{}, err
	}
	c, err := strconv.Atoi(got.Cursor)
	if err != nil {
		return Panel{}, fmt.Errorf("the cursor's index %q: %w", got.Cursor, err)
	}
	return Panel{Cursor: c, Hosts: got.Hosts, Ops: got.Ops}, nil
}

// Want returns what the state panel should show after event c of f: each
// host's last state at or before c, or down if a kill at or before c is
// not followed by a restart, for every host that shows a state or goes
// down in f.
func Want(f *runfile.File, c int) map[string]HostState {
	down := make([]bool, len(f.Hosts))
	shows := make([]bool, len(f.Hosts))
	for i, e := range f.Events {
		// the kinds as sim names them (sim.KindKill, sim.KindRestart); this
		// package, which runs no world, does not import it
		switch e.Kind {
		case "kill":
			shows[e.Host] = true
			down[e.Host] = down[e.Host] || i <= c
		case "restart":
			if i <= c {
				down[e.Host] = false
			}
		}
	}
	last := make([][]string, len(f.Hosts)) // name, value, name, value...
	for _, s := range f.States {
		shows[s.Host] = true
		if s.Event > c {
			continue
		}
		last[s.Host] = last[s.Host][:0]
		for _, fl := range s.Fields {
			last[s.Host] = append(last[s.Host], fl.Name, fl.Value)
		}
	}
	out := map[string]HostState{}
	for h := range f.Hosts {
		if !shows[h] {
			continue
		}
		s := HostState{Status: "up", Fields: map[string]string{}}
		for i := 0; i < len(last[h]); i += 2 {
			s.Fields[last[h][i]] = last[h][i+1]
		}
		if down[h] {
			s.Status = "down"
			for name := range s.Fields {
				s.Fields[name] = "down"
			}
		}
		out[strconv.Itoa(h)] = s
	}
	return out
}
