package require

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"testing"
)

// stopper is a T that counts reports and stops.
type stopper struct{ reports, stops int }

func (s *stopper) Helper()               {}
func (s *stopper) Errorf(string, ...any) { s.reports++ }
func (s *stopper) FailNow()              { s.stops++ }

func TestAFailedCheckStops(t *testing.T) {
	var s stopper
	Equal(&s, 1, 1)
	Len(&s, []int{1}, 1)
	if s.reports != 0 || s.stops != 0 {
		t.Fatalf("checks that held reported %d times and stopped %d", s.reports, s.stops)
	}
	Equal(&s, 1, 2)
	PanicsWithError(&s, "x", func() {})
	if s.reports != 2 || s.stops != 2 {
		t.Fatalf("two failed checks reported %d times and stopped %d", s.reports, s.stops)
	}
}

// exported returns the exported functions a package's non-test files
// declare.
func exported(t *testing.T, dir string) []string {
	t.Helper()
	pkgs, err := parser.ParseDir(token.NewFileSet(), dir, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, p := range pkgs {
		for name, f := range p.Files {
			if len(name) > 8 && name[len(name)-8:] == "_test.go" {
				continue
			}
			for _, d := range f.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.IsExported() {
					names[fn.Name.Name] = true
				}
			}
		}
	}
	return slices.Sorted(maps.Keys(names))
}

func TestEveryCheckHasATwin(t *testing.T) {
	checks, twins := exported(t, "../assert"), exported(t, ".")
	if len(checks) < 30 || !slices.Equal(checks, twins) {
		t.Errorf("assert has %v,\nrequire has %v", checks, twins)
	}
}
