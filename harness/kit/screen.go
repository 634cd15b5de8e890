package kit

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// forbidden are the packages a student's file may not import, whatever a
// kit allows, and what each could do: reach past the world the tests run
// in, to the process, the files or the harness's memory.
var forbidden = map[string]string{
	"os":      "the process, its files and its environment",
	"syscall": "the operating system",
	"runtime": "the process and its goroutines",
	"unsafe":  "any memory of the process, the test harness's included",
	"reflect": "the test harness's unexported state",
}

// exits are the calls that end the process or the goroutine they run on,
// by package.
var exits = map[string]string{"os": "Exit", "syscall": "Exit", "runtime": "Goexit"}

// screen returns what in the student's file name (slash-separated, from
// the kit's root), whose source is src, keeps it from being graded, each
// with its file and line: it does not parse, it declares an init function,
// it calls os.Exit, it carries a //go: directive other than //go:build, or
// it imports a package that is forbidden or not among allowed.
func screen(name string, src []byte, allowed []string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return []string{fmt.Sprintf("%v (the file does not parse)", err)}
	}
	type problem struct {
		line int
		what string
	}
	var found []problem
	at := func(pos token.Pos, format string, args ...any) {
		found = append(found, problem{fset.Position(pos).Line, fmt.Sprintf(format, args...)})
	}
	local := map[string]string{} // the name a file gives an import -> its path
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		root, _, _ := strings.Cut(p, "/")
		as := p[strings.LastIndex(p, "/")+1:] // the name the path gives the package
		if imp.Name != nil {
			as = imp.Name.Name
		}
		local[as] = p
		switch {
		case forbidden[root] != "":
			at(imp.Pos(), "imports %q, which a student's file may not: it could reach %s", p, forbidden[root])
		case !slices.Contains(allowed, p):
			at(imp.Pos(), "imports %q, which is not among the imports the kit allows (INSTRUCTORS.md lists them)", p)
		}
	}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
			at(fn.Pos(), "declares func init, which a student's file may not: it runs before the tests, outside them")
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && exits[local[x.Name]] == sel.Sel.Name {
			at(sel.Pos(), "calls %s.%s, which a student's file may not: it ends the test run", local[x.Name], sel.Sel.Name)
		}
		return true
	})
	for _, group := range f.Comments {
		for _, c := range group.List {
			if strings.HasPrefix(c.Text, "//go:") && !strings.HasPrefix(c.Text, "//go:build") {
				directive, _, _ := strings.Cut(c.Text, " ")
				at(c.Pos(), "has the directive %s, which a student's file may not (only //go:build)", directive)
			}
		}
	}
	slices.SortStableFunc(found, func(a, b problem) int { return a.line - b.line })
	var out []string
	for _, p := range found {
		out = append(out, fmt.Sprintf("%s:%d: %s", name, p.line, p.what))
	}
	return out
}
