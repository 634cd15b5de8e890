package labsim

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/harness/runview"
)

var viewCmd = &command{
	name:    "view",
	args:    "FILE [-out HTML]",
	short:   "draw a run file as a page to step through in a browser",
	arg:     "file",
	argHint: "(a run file, as a failing sweep writes it)",
	long: `
View draws a run file as one HTML page that a browser opens offline: a
lane per host over virtual time, the messages as arrows from send to
delivery (a lost one ends in a cross, a duplicate is dashed), the faults
shaded over the hosts they struck, the clients' operations as bars (the
violating one red, its witnesses amber), and beside them what every host
showed of its state after the event at the cursor (a killed host: down).

The page opens on the violation, or at the start of a run that passed.
← and → step from event to event (shift: ten); F and shift+F go to the
next and previous fault, V to the violation, N and P to the next and
previous event of the host or client chosen in the toolbar; + and −
zoom, 0 shows the whole run, a drag pans, the wheel zooms, and a click
puts the cursor on the nearest event. The filters hide hosts, kinds of
event and kinds of message.

View exits 2 if FILE cannot be read or is not a run file (the bad part
named).`,
	flags: func(fs *flag.FlagSet) action {
		out := fs.String("out", "", "write the page to `HTML` (default: FILE with .html for its extension)")
		return func(e *env, file string) error {
			page := *out
			if page == "" {
				page = pagePath(file)
			}
			if page == file {
				return usagef("-out %s: that is the run file itself", page)
			}
			f, err := loadRunFile(file)
			if err != nil {
				return err
			}
			if err := writePage(page, f); err != nil {
				return err
			}
			verdict := "passed"
			if f.Verdict.Problem != "" {
				verdict = fmt.Sprintf("failed (%s)", f.Verdict.Kind)
				if f.Verdict.At >= 0 {
					verdict += fmt.Sprintf(", opening on event %d where it shows", f.Verdict.At)
				}
			}
			run := fmt.Sprintf("%s seed %d", f.Scenario, f.Seed)
			if f.Plant != "" {
				run += fmt.Sprintf(" with %q planted", f.Plant)
			}
			fmt.Fprintf(e.stdout, "wrote %s: %s, %s on %s, %s\n", page, run,
				count(len(f.Events), "event"), count(len(f.Hosts), "host"), verdict)
			return nil
		}
	},
}

// loadRunFile reads the run file called name, refusing one that cannot be
// read or is not a run file of this version with a usage error naming it.
func loadRunFile(name string) (*runfile.File, error) {
	f, err := runfile.Load(name)
	var pe *os.PathError
	switch {
	case errors.As(err, &pe):
		return nil, usagef("%s: %v", name, pe.Err)
	case err != nil:
		return nil, usagef("%v", err)
	}
	return f, nil
}

// pagePath is where the page of the run file called file goes by default:
// beside it, .html for its extension.
func pagePath(file string) string {
	return strings.TrimSuffix(file, filepath.Ext(file)) + ".html"
}

// writePage writes the page of f (runview) to the file called name.
func writePage(name string, f *runfile.File) error {
	var b bytes.Buffer
	if err := runview.Write(&b, f); err != nil {
		return err
	}
	return os.WriteFile(name, b.Bytes(), 0o644)
}
