package kit

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"text/template"
)

// The files of a kit that are for its instructor: how to grade, and the
// hashes of the files a student must not change.
const (
	instructorsFile = "INSTRUCTORS.md"
	sumsFile        = "SHA256SUMS"
)

// stdImports are the packages of the standard library a student's file
// may import: none reaches past the world the tests run in (the process,
// files, the network, the test harness's memory).
var stdImports = []string{
	"bytes", "cmp", "container/heap", "container/list", "container/ring",
	"encoding/binary", "encoding/gob", "encoding/json", "errors", "fmt",
	"hash/crc32", "hash/fnv", "log", "maps", "math", "math/bits", "math/rand",
	"math/rand/v2", "slices", "sort", "strconv", "strings", "sync", "time",
	"unicode", "unicode/utf8",
}

// isStudent reports whether the file at p, slash-separated from the kit's
// root, is one the student writes.
func (sp spec) isStudent(p string) bool {
	if strings.HasSuffix(p, "_test.go") {
		return false
	}
	for _, pattern := range sp.student {
		if ok, _ := path.Match(pattern, p); ok {
			return true
		}
	}
	return false
}

// kitImports returns the import paths of the kit's packages that a
// student's file may import, in a kit named module.
func (sp spec) kitImports(module string) []string {
	var out []string
	for _, p := range sp.imports {
		out = append(out, module+"/"+p)
	}
	return out
}

var instructorsTemplate = template.Must(template.ParseFS(templates, "templates/instructors/"+instructorsFile+".tmpl"))

// instructors returns the kit's INSTRUCTORS.md.
func (sp spec) instructors(kind, module string) ([]byte, error) {
	quote := func(list []string) string {
		var q []string
		for _, s := range list {
			q = append(q, "`"+s+"`")
		}
		return strings.Join(q, ", ")
	}
	seeds := "one seed"
	if sp.seeds != 1 {
		seeds = fmt.Sprintf("%d seeds", sp.seeds)
	}
	var b bytes.Buffer
	err := instructorsTemplate.Execute(&b, map[string]string{
		"Lab":     kind,
		"Module":  module,
		"Student": quote(sp.student),
		"Std":     quote(stdImports),
		"Kit":     quote(sp.kitImports(module)),
		"Seeds":   seeds,
	})
	return b.Bytes(), err
}

// sums returns the SHA256SUMS of the kit's files: a line for each file
// but the student's, as sha256sum writes it.
func (sp spec) sums(files map[string][]byte) []byte {
	var b bytes.Buffer
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if !sp.isStudent(name) && name != sumsFile {
			fmt.Fprintf(&b, "%x  %s\n", sha256.Sum256(files[name]), name)
		}
	}
	return b.Bytes()
}
