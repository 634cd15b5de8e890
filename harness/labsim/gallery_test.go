package labsim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/harness/sweep"
)

// TestGalleryOfOneBug draws the gallery of one planted bug: its row says
// where it was found and how small its run became, and its page is the
// shrunk run's.
func TestGalleryOfOneBug(t *testing.T) {
	dir := t.TempDir()
	r := labsim(realEnv(), "gallery", "-out", dir, "-only", "rsm: no de-duplication")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "wrote "+filepath.Join(dir, "index.md")+": 1 planted bug\n")
	index, err := os.ReadFile(filepath.Join(dir, "index.md"))
	require.NoError(t, err)
	page := "rsm-no-de-duplication-a-retried-write-applies-twice.html"
	assert.Contains(t, string(index), "| rsm: no de-duplication: a retried write applies twice | kv-linearizability 1 | linearizability | 25 faults, 1 869 operations, 30s, 5 servers, 5 clients | 0 faults, 35 operations, 1.406s, 1 server, 1 client | ["+page+"]("+page+") |\n")
	html, err := os.ReadFile(filepath.Join(dir, page))
	require.NoError(t, err)
	assert.Contains(t, string(html), `no de-duplication: a retried write applies twice`, "the page names the bug planted")
	assert.Contains(t, string(html), `planted, shrunk`, "and says the run is shrunk")
}

// TestGalleryRefusesAnUnknownBug checks that -only naming no bug is
// refused, naming what it was given.
func TestGalleryRefusesAnUnknownBug(t *testing.T) {
	r := labsim(realEnv(), "gallery", "-out", t.TempDir(), "-only", "no such bug")
	assert.Equal(t, exitUsage, r.code)
	assertOneError(t, r, `-only "no such bug": no planted bug's name holds it`)
}

// TestGalleryNamesEveryBugApart checks that no two planted bugs' pages
// share a file name.
func TestGalleryNamesEveryBugApart(t *testing.T) {
	seen := map[string]sweep.Bug{}
	for _, b := range sweep.Bugs() {
		name := galleryName(b)
		other, taken := seen[name]
		assert.False(t, taken, "%v and %v share %s", b, other, name)
		seen[name] = b
	}
	assert.Equal(t, "raft-votedfor-not-persisted.html", galleryName(sweep.Bug{Service: "raft", Name: "votedFor not persisted"}))
}

// TestGalleryShowsEveryBug checks that docs/gallery has a row for every
// planted bug, and the page each row links to ('labsim gallery -out
// docs/gallery' writes them again).
func TestGalleryShowsEveryBug(t *testing.T) {
	index, err := os.ReadFile(filepath.Join("..", "..", "docs", "gallery", "index.md"))
	require.NoError(t, err)
	for _, b := range sweep.Bugs() {
		row := "| " + b.String() + " | "
		if !assert.Contains(t, string(index), row, "docs/gallery/index.md has no row for %v", b) {
			continue
		}
		line, _, _ := strings.Cut(string(index)[strings.Index(string(index), row):], "\n")
		if strings.Contains(line, "not shrunk") {
			continue
		}
		page := galleryName(b)
		assert.Contains(t, line, "]("+page+")", "%v's row links to its page", b)
		assert.FileExists(t, filepath.Join("..", "..", "docs", "gallery", page))
	}
}
