package simtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// A Finding is one place in world code that breaks the rule that a run is
// a function of its seed: what is there, and why it breaks a seed.
type Finding struct {
	Pos  token.Position
	What string // "starts a goroutine", "uses time.Sleep", ...
	Why  string
}

// String returns the finding as file:line:column: what: why.
func (f Finding) String() string {
	return fmt.Sprintf("%s: %s: %s", f.Pos, f.What, f.Why)
}

// Why each kind of finding breaks a seed.
const (
	whyGoroutine = "a world runs on one goroutine, and another goroutine runs when the Go scheduler says, not when the seed says; set a timer (host.After) or pass a callback instead"
	whyChannel   = "a world runs on one goroutine, so a channel operation that waits for another goroutine waits forever or races the world; call a function (the apply callback, an RPC's reply callback) instead"
	whyLock      = "a world runs one event at a time on one goroutine, so there is nothing to lock, and a lock that waits stops the world"
	whyClock     = "the wall clock differs from run to run and moves while the world stands still; use the host's virtual clock (host.Now)"
	whyWait      = "it waits on the wall clock, outside the world, where virtual time does not pass; set a timer on the host (host.After, host.NewTimer)"
	whyRand      = "the global generator is not seeded by the test, so its numbers differ from run to run; draw from the world's (host.World().Rand())"
)

// clockReads and clockWaits are the functions of package time that read
// or wait on the wall clock.
var (
	clockReads = []string{"Now", "Since", "Until"}
	clockWaits = []string{"Sleep", "After", "AfterFunc", "Tick", "NewTimer", "NewTicker"}
)

// randPrivate are the math/rand names that make or name a private
// generator rather than use the global one.
var randPrivate = []string{"New", "NewPCG", "NewChaCha8", "NewSource", "NewZipf", "Rand", "Source", "PCG", "ChaCha8", "Zipf"}

// SeedDriven returns what in one parsed file of world code breaks the
// one-goroutine, seed-driven rule: starting a goroutine, a channel
// operation, importing sync or sync/atomic, reading or waiting on the wall
// clock, or drawing from math/rand's global generator. It cannot see map
// iteration: that takes types, and the replay check finds it.
func SeedDriven(fset *token.FileSet, f *ast.File) []Finding {
	imports := map[string]string{} // local name -> import path
	var out []Finding
	report := func(n ast.Node, what, why string) {
		out = append(out, Finding{fset.Position(n.Pos()), what, why})
	}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := filepath.Base(path)
		if path == "math/rand/v2" {
			name = "rand"
		}
		if imp.Name != nil {
			name = imp.Name.Name
		}
		imports[name] = path
		if path == "sync" || path == "sync/atomic" {
			report(imp, "imports "+path, whyLock)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			report(n, "starts a goroutine", whyGoroutine)
		case *ast.SendStmt:
			report(n, "sends on a channel", whyChannel)
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				report(n, "receives from a channel", whyChannel)
			}
		case *ast.SelectStmt:
			report(n, "waits in a select", whyChannel)
			return true
		case *ast.SelectorExpr:
			pkg, ok := n.X.(*ast.Ident)
			if !ok {
				return true
			}
			name := n.Sel.Name
			switch imports[pkg.Name] {
			case "time":
				if slices.Contains(clockReads, name) {
					report(n, "uses time."+name, whyClock)
				} else if slices.Contains(clockWaits, name) {
					report(n, "uses time."+name, whyWait)
				}
			case "math/rand", "math/rand/v2":
				if !slices.Contains(randPrivate, name) {
					report(n, "uses rand."+name, whyRand)
				}
			}
		}
		return true
	})
	return out
}

// SeedDrivenDirs returns the findings of SeedDriven in the non-test Go
// files of each directory, in file order.
func SeedDrivenDirs(dirs ...string) ([]Finding, error) {
	fset := token.NewFileSet()
	var out []Finding
	for _, dir := range dirs {
		paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			return nil, err
		}
		if len(paths) == 0 {
			if _, err := os.Stat(dir); err != nil {
				return nil, fmt.Errorf("simtest: %v", err)
			}
		}
		for _, p := range paths {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
			if err != nil {
				return nil, fmt.Errorf("simtest: %v", err)
			}
			out = append(out, SeedDriven(fset, f)...)
		}
	}
	return out, nil
}

// CheckSeedDriven fails t once for each finding of SeedDriven in the
// non-test Go files of the directories (relative to the package's own):
// a course kit's tests check the student's code with it.
func CheckSeedDriven(t T, dirs ...string) {
	t.Helper()
	found, err := SeedDrivenDirs(dirs...)
	if err != nil {
		t.Fatalf("%v", err)
		return
	}
	for _, f := range found {
		t.Errorf("%s", f)
	}
}

// explainSeedDriven makes a failing test log what in the package under
// test breaks the seed-driven rule, if anything does: the likeliest cause
// of a failure that makes no sense.
func explainSeedDriven(t T) {
	found, err := SeedDrivenDirs(".")
	if err != nil || len(found) == 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "this package's code does %d thing(s) that break the rule that a run is a function of its seed, the likeliest cause of this failure:", len(found))
	for _, f := range found {
		b.WriteString("\n\t" + f.String())
	}
	t.Logf("%s", b.String())
}
