package labsim

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/replab/replab/harness/shrink"
	"github.com/replab/replab/harness/sweep"
	"github.com/replab/replab/harness/testbed"
)

var galleryCmd = &command{
	name:  "gallery",
	args:  "[-out DIR] [-only TEXT]",
	short: "every planted bug's first failing seed, shrunk, as a page to step through",
	long: `
Gallery shows each classic mistake the services can switch back on (their
planted bugs) as a failing run to step through: for every planted bug it
runs the scenario that hunts it (docs/planted-bugs.md) from seed 1 until a
seed fails (at most 20 seeds), shrinks that run as 'labsim shrink' does,
records the shrunk run and draws it as 'labsim view' does, into
DIR/SERVICE-BUG.html, and writes DIR/index.md, a table of the bugs with
their scenario, seed, the kind of violation, the run before and after
shrinking, and a link to each page. A bug whose hunter's seeds are not
testbed runs is listed unshrunk, without a page.

It takes minutes (every bug is hunted, then shrunk); -only keeps the bugs
whose name holds TEXT. The same code gives the same gallery.`,
	flags: func(fs *flag.FlagSet) action {
		out := fs.String("out", "gallery", "write the pages and index.md into `DIR`")
		only := fs.String("only", "", "only the planted bugs whose name (with its package, \"raft: ...\") holds `TEXT`")
		return func(e *env, _ string) error {
			var bugs []sweep.Bug
			for _, b := range sweep.Bugs() {
				if strings.Contains(b.String(), *only) {
					bugs = append(bugs, b)
				}
			}
			if len(bugs) == 0 {
				return usagef("-only %q: no planted bug's name holds it ('labsim sweep SCENARIO -plant list' lists them)", *only)
			}
			if err := os.MkdirAll(*out, 0o755); err != nil {
				return err
			}
			rows := []string{"| bug | scenario, first failing seed | kind | before | after | page |", "|---|---|---|---|---|---|"}
			for _, b := range bugs {
				row, err := galleryPage(e, b, *out)
				if err != nil {
					return fmt.Errorf("%v: %w", b, err)
				}
				rows = append(rows, row)
			}
			index := filepath.Join(*out, "index.md")
			if err := os.WriteFile(index, []byte(galleryIndex(e, rows)), 0o644); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "wrote %s: %s\n", index, count(len(bugs), "planted bug"))
			return nil
		}
	},
}

// galleryPage hunts planted bug b with its hunter, shrinks the first
// failing seed, writes the shrunk run's page into dir, and returns the
// bug's row of the gallery's table.
func galleryPage(e *env, b sweep.Bug, dir string) (string, error) {
	hunter, err := sweep.Hunter(b)
	if err != nil {
		return "", err
	}
	sc, bug, err := plantBug(hunter, b.String())
	if err != nil {
		return "", err
	}
	start := time.Now()
	o, failed := sweep.FirstFailure(sc, 20, 1)
	if !failed {
		return "", fmt.Errorf("%s found it in none of seeds 1-20", hunter.Name)
	}
	kind := testbed.ProblemKind(o.Problem)
	head := fmt.Sprintf("| %s | %s %d | %s |", b, hunter.Name, o.Seed, kind)
	if sc.Build == nil {
		fmt.Fprintf(e.stdout, "%v: %s seed %d, not shrunk: its seeds are not testbed runs\n", b, hunter.Name, o.Seed)
		return head + " not shrunk: its seeds are not testbed runs | | |", nil
	}
	res, err := shrink.Shrink(func() (testbed.Run, error) { return sc.Build(o.Seed, "", nil) }, shrink.Options{})
	if err != nil {
		return "", err
	}
	f, err := recordShrunk(sc, hunter.Name, bug, o.Seed, res.Edits)
	if err != nil {
		return "", err
	}
	name := galleryName(b)
	if err := writePage(filepath.Join(dir, name), f); err != nil {
		return "", err
	}
	fmt.Fprintf(e.stdout, "%v: %s seed %d, %s: %v → %v (%.1fs)\n", b, hunter.Name, o.Seed, res.Kind, res.Original, res.Shrunk, time.Since(start).Seconds())
	return fmt.Sprintf("%s %v | %v | [%s](%s) |", head, res.Original, res.Shrunk, name, name), nil
}

// galleryName is the file name of b's page: its service and name, in
// lower case, with runs of anything but letters and digits as one dash.
func galleryName(b sweep.Bug) string {
	var s strings.Builder
	dash := false
	for _, r := range strings.ToLower(b.Service + " " + b.Name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			s.WriteRune(r)
			dash = false
		} else if !dash {
			s.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(s.String(), "-") + ".html"
}

// galleryIndex is the gallery's index.md around its table's rows.
func galleryIndex(e *env, rows []string) string {
	return `# A gallery of planted bugs

Each service can switch back on the mistakes its papers (or the field) warn
of: its planted bugs. For each, the scenario that hunts it
([planted-bugs.md](../planted-bugs.md)) ran from seed 1 until a seed failed;
that run was shrunk ([shrinking.md](../shrinking.md)) to the smallest run
that still fails with the same kind of violation, and drawn as a page to
step through in a browser, offline: a lane per host, the messages as
arrows, the faults shaded, the clients' operations as bars (the violating
one red, its witnesses amber), and every server's state at the cursor. Each
page opens on the violation; ← and → step through the events around it.

Regenerate it with ` + "`" + e.cmd() + ` gallery -out docs/gallery` + "`" + `; ` + "`" + e.cmd() + ` shrink SCENARIO -seed N -plant BUG` + "`" + `
writes any one row's run file, which ` + "`" + `labsim replay` + "`" + ` runs again.

` + strings.Join(rows, "\n") + "\n"
}
