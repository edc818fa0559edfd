package infx

import (
	"bytes"
	"context"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/runcache"
)

// TestRenderPackForm: a pack's value lists its entries in memo key order
// (the same bytes for the same entries) and reads back to them; another
// magic, a cut length, a memo key twice or out of order read as no pack.
func TestRenderPackForm(t *testing.T) {
	entries := map[string][]byte{"b": []byte("2"), "a": []byte("one"), "": nil}
	data := encodePack(entries)
	want := renderPackMagic + "\x00\x00" + "\x01a\x03one" + "\x01b\x012"
	if string(data) != want {
		t.Fatalf("pack %q, want %q", data, want)
	}
	got, ok := decodePack(data)
	if !ok || len(got) != 3 || string(got["a"]) != "one" || string(got["b"]) != "2" || len(got[""]) != 0 {
		t.Fatalf("read back %q, %v", got, ok)
	}
	for name, bad := range map[string]string{
		"another magic":     "infx-render-pack/0\n\x01a\x01x",
		"a cut length":      renderPackMagic + "\x01a\x05one",
		"a cut key":         renderPackMagic + "\x05a",
		"no rendering":      renderPackMagic + "\x01a",
		"a key twice":       renderPackMagic + "\x01a\x01x\x01a\x01y",
		"keys out of order": renderPackMagic + "\x01b\x01x\x01a\x01y",
		"a varint past 64":  renderPackMagic + "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
	} {
		if got, ok := decodePack([]byte(bad)); ok || len(got) != 0 {
			t.Errorf("%s: read as a pack of %d entries", name, len(got))
		}
	}
}

// TestRenderPacksAcrossRuns: the renderings of a config key's points are
// stored in one cache entry (its render pack), written by FlushRenders or
// Forget; another Workspace over the same tree reads every one back (equal
// to a fresh rendering) and writes nothing; a Workspace that renders a
// point the pack lacks adds it, keeping the others.
func TestRenderPacksAcrossRuns(t *testing.T) {
	ws, pts := batchWorkspace(t, "[8, 16, 32]", nil)
	if len(pts) != 3 {
		t.Fatalf("%d points, want 3", len(pts))
	}
	dir := t.TempDir()
	cache, err := runcache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	open := func() *Workspace {
		w, err := Open(ws.Root)
		if err != nil {
			t.Fatal(err)
		}
		w.RememberRenders()
		w.PersistRenders(cache)
		return w
	}
	first := open()
	var want []launch.Deployment
	for _, p := range pts[:2] {
		d, err := first.Render(ctx, p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, d)
	}
	if _, stored := first.PersistedRenders(); stored != 0 {
		t.Fatalf("%d renderings stored before the flush, want 0", stored)
	}
	first.FlushRenders()
	if hits, stored := first.PersistedRenders(); hits != 0 || stored != 2 {
		t.Fatalf("hits %d, stored %d, want 0 and 2", hits, stored)
	}
	if n := cacheEntries(t, dir); n != 1 {
		t.Errorf("%d cache entries, want 1 (the key's pack)", n)
	}

	second := open()
	for i, p := range pts[:2] {
		d, err := second.Render(ctx, p, Options{})
		if err != nil || !reflect.DeepEqual(d, want[i]) {
			t.Fatalf("point %d read back: %v, or another deployment", i, err)
		}
	}
	second.Forget(pts[0].ConfigKey)
	second.FlushRenders()
	if hits, stored := second.PersistedRenders(); hits != 2 || stored != 0 {
		t.Errorf("hits %d, stored %d, want 2 and 0", hits, stored)
	}

	third := open()
	if _, err := third.Render(ctx, pts[2], Options{}); err != nil {
		t.Fatal(err)
	}
	third.Forget(pts[2].ConfigKey) // writes the pack
	if hits, stored := third.PersistedRenders(); hits != 0 || stored != 1 {
		t.Errorf("hits %d, stored %d, want 0 and 1", hits, stored)
	}
	fourth := open()
	for _, p := range pts {
		if _, err := fourth.Render(ctx, p, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	if hits, _ := fourth.PersistedRenders(); hits != 3 {
		t.Errorf("%d of the 3 points read back after a Workspace added one, want all", hits)
	}
	if n := cacheEntries(t, dir); n != 1 {
		t.Errorf("%d cache entries, want 1 (the key's pack)", n)
	}
}

// TestRenderPackCorrupt: a pack whose rendering no longer reads back (its
// bytes changed under the entry's checksum: here a pack written with a
// rendering cut short) is rendered again, and the answer is the fresh one.
func TestRenderPackCorrupt(t *testing.T) {
	ws, pts := batchWorkspace(t, "[8]", nil)
	cache := persistRenders(t, ws)
	want, err := ws.Render(context.Background(), pts[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	ws.FlushRenders()
	key, ok := ws.packKey(pts[0].ConfigKey)
	if !ok {
		t.Fatal("no pack key")
	}
	data, ok := cache.Get(key)
	if !ok {
		t.Fatal("no pack stored")
	}
	entries, ok := decodePack(data)
	if !ok || len(entries) != 1 {
		t.Fatalf("pack of %d entries, %v", len(entries), ok)
	}
	for k, v := range entries {
		entries[k] = bytes.Clone(v[:len(v)-1])
	}
	if err := cache.Put(key, encodePack(entries)); err != nil {
		t.Fatal(err)
	}
	again, err := Open(ws.Root)
	if err != nil {
		t.Fatal(err)
	}
	again.RememberRenders()
	again.PersistRenders(cache)
	got, err := again.Render(context.Background(), pts[0], Options{})
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%v, or another deployment", err)
	}
	if hits, _ := again.PersistedRenders(); hits != 0 {
		t.Errorf("a rendering cut short was read back (%d hits)", hits)
	}
}

// persistRenders makes ws remember its renders and keep them in a new
// cache directory, which it returns.
func persistRenders(t *testing.T, ws *Workspace) *runcache.Dir {
	t.Helper()
	cache, err := runcache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws.RememberRenders()
	ws.PersistRenders(cache)
	return cache
}

// cacheEntries counts the entries of a runcache directory (its two-letter
// subdirectories' files).
func cacheEntries(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if !d.IsDir() && strings.Contains(rel, string(filepath.Separator)) && !strings.HasPrefix(d.Name(), ".tmp-") {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
