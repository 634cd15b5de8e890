// Package kit writes course kits and grades what students hand in.
//
// A kit is a standalone Go module a course can hand out: the simulator
// packages a lab's test catalogue runs on, copied from this module with
// their import paths rewritten to the kit's module path; a skeleton of the
// package the student writes, whose every function says "not implemented"
// until it is written; the catalogue as that package's tests; a go.mod and
// go.sum; a README for the student; GUIDE.md, on writing Raft for a
// deterministic world; INSTRUCTORS.md, on grading; and SHA256SUMS, the
// hashes of the files a student must not change.
//
// GradeStudent grades what a student hands in: it refuses files it does
// not expect and code that could reach past the tests, runs the catalogue
// in a fresh kit on seeds it chooses, and grades that run. Grade turns a
// `go test -json` run of the catalogue into a sheet that says it is
// practice, not a grade.
package kit

import (
	"bufio"
	"bytes"
	"embed"
	"errors"
	"fmt"
	"go/format"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/replab/replab"
	"github.com/replab/replab/kvraft/kvtest"
	"github.com/replab/replab/raft/rafttest"
)

// ourModule is the module path the copied sources import each other by.
const ourModule = "github.com/replab/replab"

//go:embed templates
var templates embed.FS

// A spec says what goes into a kit.
type spec struct {
	// packages are copied whole: their non-test Go files.
	packages []string
	// tests are the catalogues' test files, copied as they are: the lab's,
	// and the Raft lab's in the key/value kit, so that a student can check
	// the Raft the service stands on.
	tests []string
	// templates are the directories of templates/ whose files go into
	// the kit, at the same paths without .tmpl.
	templates []string
	// requires are the modules of our go.mod the kit needs.
	requires []string
	// catalogue lists the lab's graded tests.
	catalogue func() []Graded
	// checks are the other tests the kit hands out in the lab's package:
	// they earn no points, and a grade sheet lists how they ended.
	checks []string
	// student are the files the student writes, as path.Match patterns
	// from the kit's root; a test file (_test.go) is never the student's.
	student []string
	// imports are the kit's packages (by their path in the kit) that the
	// student's files may import, besides stdImports.
	imports []string
	// seeds is how many seeds each test runs by default, and so in a
	// grade.
	seeds int
}

// A Graded is a test of a lab's catalogue: the name of its test function,
// the part of the lab it belongs to, and its points.
type Graded struct {
	Name, Part string
	Points     int
}

// Catalogue returns the graded tests of the lab that the kit called kind
// hands out, in the catalogue's order.
func Catalogue(kind string) ([]Graded, error) {
	sp, ok := specs[kind]
	if !ok {
		return nil, fmt.Errorf("kit: unknown lab %q (there are %s)", kind, strings.Join(Kinds(), ", "))
	}
	return sp.catalogue(), nil
}

func raftCatalogue() []Graded {
	var out []Graded
	for _, t := range rafttest.Tests() {
		out = append(out, Graded{t.Name, t.Part, t.Points})
	}
	return out
}

func kvraftCatalogue() []Graded {
	var out []Graded
	for _, t := range kvtest.Tests() {
		out = append(out, Graded{t.Name, t.Part, t.Points})
	}
	return out
}

var specs = map[string]spec{
	"raft": {
		packages:  []string{"sim", "sim/plant", "sim/simtest", "harness/runfile", "labrpc", "chaos", "chaos/fault", "harness/cluster", "raft/raftapi", "raft/rafttest"},
		tests:     []string{"raft/catalogue_test.go"},
		templates: []string{"raft-skeleton", "raft"},
		catalogue: raftCatalogue,
		checks:    []string{"TestCatalogueComplete", "TestSeedDriven"},
		student:   []string{"raft/*.go"},
		imports:   []string{"labrpc", "raft/raftapi", "sim", "sim/plant"},
		seeds:     len(rafttest.DefaultSeeds),
	},
	"kvraft": {
		packages:  []string{"sim", "sim/plant", "sim/simtest", "harness/runfile", "labrpc", "chaos", "chaos/fault", "harness/cluster", "raft/raftapi", "raft/rafttest", "checks/linearize", "kvraft/kvtest"},
		tests:     []string{"raft/catalogue_test.go", "kvraft/catalogue_test.go"},
		templates: []string{"raft-skeleton", "kvraft"},
		requires:  []string{"github.com/anishathalye/porcupine"},
		catalogue: kvraftCatalogue,
		checks:    []string{"TestCatalogueComplete", "TestSeedDriven"},
		student:   []string{"raft/*.go", "kvraft/*.go"},
		imports:   []string{"labrpc", "raft", "raft/raftapi", "sim", "sim/plant"},
		seeds:     len(kvtest.DefaultSeeds),
	},
}

// Kinds returns the kits there are, sorted.
func Kinds() []string {
	return slices.Sorted(maps.Keys(specs))
}

// Write writes the kit called kind into dir, as a module named module.
// dir must be empty or not exist.
func Write(kind, dir, module string) error {
	sp, ok := specs[kind]
	if !ok {
		return fmt.Errorf("kit: unknown kit %q (there are %s)", kind, strings.Join(Kinds(), ", "))
	}
	if err := CheckModulePath(module); err != nil {
		return err
	}
	if err := checkEmpty(dir); err != nil {
		return err
	}
	files, err := sp.files(kind, module)
	if err != nil {
		return err
	}
	return writeFiles(dir, files)
}

// writeFiles writes each of files, by its slash-separated path, under dir.
func writeFiles(dir string, files map[string][]byte) error {
	for _, name := range slices.Sorted(maps.Keys(files)) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// files returns the files of the kit called kind as a module named
// module: each file's contents by its slash-separated path in the kit.
func (sp spec) files(kind, module string) (map[string][]byte, error) {
	out := map[string][]byte{}
	src := replab.Sources
	for _, pkg := range sp.packages {
		entries, err := fs.ReadDir(src, pkg)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			b, err := fs.ReadFile(src, path.Join(pkg, name))
			if err != nil {
				return nil, err
			}
			if out[path.Join(pkg, name)], err = rewriteGo(b, module); err != nil {
				return nil, fmt.Errorf("kit: %s/%s: %v", pkg, name, err)
			}
		}
	}
	for _, name := range sp.tests {
		b, err := fs.ReadFile(src, name)
		if err != nil {
			return nil, err
		}
		if out[name], err = rewriteGo(b, module); err != nil {
			return nil, fmt.Errorf("kit: %s: %v", name, err)
		}
	}
	guide, err := fs.ReadFile(src, guidePath)
	if err != nil {
		return nil, err
	}
	out["GUIDE.md"] = guide
	for _, dir := range sp.templates {
		root := path.Join("templates", dir)
		err = fs.WalkDir(templates, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(templates, p)
			if err != nil {
				return err
			}
			name := strings.TrimSuffix(strings.TrimPrefix(p, root+"/"), ".tmpl")
			if !strings.HasSuffix(name, ".go") {
				out[name] = rewrite(b, module)
				return nil
			}
			if out[name], err = rewriteGo(b, module); err != nil {
				return fmt.Errorf("kit: template %s: %v", p, err)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	gomod, gosum, err := sp.modFiles(module)
	if err != nil {
		return nil, err
	}
	out["go.mod"] = gomod
	if len(gosum) > 0 {
		out["go.sum"] = gosum
	}
	if out[instructorsFile], err = sp.instructors(kind, module); err != nil {
		return nil, err
	}
	out[sumsFile] = sp.sums(out)
	return out, nil
}

// guidePath is where our module keeps the guide the kit has as GUIDE.md.
const guidePath = "docs/writing-raft.md"

// rewrite points the imports of our packages at the kit's module, and
// mentions of the guide at the kit's copy. Paths to our command stay ours:
// the kit does not carry it, and a student installs labsim from replab.
func rewrite(b []byte, module string) []byte {
	return []byte(strings.NewReplacer(
		ourModule+"/cmd/", ourModule+"/cmd/", // first, so that it wins over the next
		ourModule+"/", module+"/",
		guidePath, "GUIDE.md",
	).Replace(string(b)))
}

// rewriteGo rewrites a Go file's imports and formats it, since the new
// paths may sort differently.
func rewriteGo(b []byte, module string) ([]byte, error) {
	return format.Source(rewrite(b, module))
}

// modFiles returns the kit's go.mod and go.sum: our Go version, and the
// versions and checksums of the modules the kit requires.
func (sp spec) modFiles(module string) (gomod, gosum []byte, err error) {
	ours, err := fs.ReadFile(replab.Sources, "go.mod")
	if err != nil {
		return nil, nil, err
	}
	sums, err := fs.ReadFile(replab.Sources, "go.sum")
	if err != nil {
		return nil, nil, err
	}
	goVersion := ""
	versions := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(ours))
	for sc.Scan() {
		f := strings.Fields(strings.TrimPrefix(sc.Text(), "require "))
		switch {
		case len(f) == 2 && f[0] == "go":
			goVersion = f[1]
		case len(f) >= 2 && strings.Contains(f[0], ".") && strings.HasPrefix(f[1], "v"):
			versions[f[0]] = f[1] // a required module and its version
		}
	}
	if goVersion == "" {
		return nil, nil, errors.New("kit: our go.mod has no go line")
	}
	var mod, sum bytes.Buffer
	fmt.Fprintf(&mod, "module %s\n\ngo %s\n", module, goVersion)
	for _, req := range sp.requires {
		v, ok := versions[req]
		if !ok {
			return nil, nil, fmt.Errorf("kit: our go.mod does not require %s", req)
		}
		fmt.Fprintf(&mod, "\nrequire %s %s\n", req, v)
		for _, line := range strings.Split(string(sums), "\n") {
			if strings.HasPrefix(line, req+" "+v+" ") || strings.HasPrefix(line, req+" "+v+"/go.mod ") {
				sum.WriteString(line + "\n")
			}
		}
	}
	return mod.Bytes(), sum.Bytes(), nil
}

// CheckModulePath returns an error unless p can name the kit's module: a
// path of slash-separated elements of letters, digits and . _ ~ -.
func CheckModulePath(p string) error {
	if p == "" {
		return errors.New("kit: the module path is empty")
	}
	for _, elem := range strings.Split(p, "/") {
		if elem == "" || elem == "." || elem == ".." {
			return fmt.Errorf("kit: module path %q has an empty, . or .. element", p)
		}
		for _, r := range elem {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._~-", r)) {
				return fmt.Errorf("kit: module path %q has the character %q", p, r)
			}
		}
	}
	return nil
}

// checkEmpty returns an error unless dir is an empty directory or does
// not exist.
func checkEmpty(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("kit: %v", err)
	case len(entries) > 0:
		return fmt.Errorf("kit: %s is not empty: a kit goes into a new directory", dir)
	}
	return nil
}
