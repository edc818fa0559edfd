package infx

import (
	"bytes"
	"encoding/binary"
	"maps"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/cookbook-sync/cookbook-sync/runcache"
)

// The renderings PersistRenders keeps are stored one cache entry per
// config key — a render pack: every rendering of the key's points, by memo
// key — not one per point: a run with an empty cache wrote 1,694 files of
// about 19 KB each, and creating a file costs the kernel about 0.15 ms
// here (0.25 CPU-s for those files against 0.025 s for 170 files of the same
// bytes; issue 24). A pack is read at the first Render of one of its key's
// points, and written when the key is done (Forget) or at FlushRenders,
// merged with what the cache holds then: a pack only grows, and a point
// another run rendered is kept.

// renderPackMagic opens a pack's value (renderPackKind's format).
const renderPackMagic = "infx-render-pack/1\n"

// renderPackKind is the kind of a pack's runcache key.
const renderPackKind = "infx-render-pack/1"

// renderPack is one config key's pack in a Workspace's life.
type renderPack struct {
	// once reads the pack at the key's first Render: loaded is what it
	// held (memo key → encodeDeployment's bytes), nil once written.
	once   sync.Once
	mu     sync.Mutex
	loaded map[string][]byte
	// pending are the memo keys rendered without error and not written
	// yet (their deployments are in the memo until Forget).
	pending []string
	// flushMu makes one flush of the pack at a time (its read, merge and
	// write): two at once could each miss what the other adds.
	flushMu sync.Mutex
}

// pack is the config key's pack, read from the cache at its first use;
// nil without PersistRenders or when the trees are not digested.
func (ws *Workspace) pack(configKey string) *renderPack {
	key, ok := ws.packKey(configKey)
	if !ok {
		return nil
	}
	ws.packMu.Lock()
	pk := ws.packs[configKey]
	if pk == nil {
		if ws.packs == nil {
			ws.packs = map[string]*renderPack{}
		}
		pk = &renderPack{}
		ws.packs[configKey] = pk
	}
	ws.packMu.Unlock()
	pk.once.Do(func() {
		if data, ok := ws.disk.Get(key); ok {
			pk.loaded, _ = decodePack(data)
		}
	})
	return pk
}

// packKey is the cache key of a config key's pack: the executable (the
// Dir's), the trees' digest and the config key.
func (ws *Workspace) packKey(configKey string) (runcache.Key, bool) {
	var k runcache.Key
	if !ws.treesDigest(&k) {
		return k, false
	}
	return ws.disk.NewKey(renderPackKind).AddBytes(k[:]).Add(configKey).Sum(), true
}

// get is the stored rendering of a memo key, if the pack held one.
func (pk *renderPack) get(memoKey string) ([]byte, bool) {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	data, ok := pk.loaded[memoKey]
	return data, ok
}

// add marks a memo key rendered: written at the pack's next flush.
func (pk *renderPack) add(memoKey string) {
	pk.mu.Lock()
	pk.pending = append(pk.pending, memoKey)
	pk.mu.Unlock()
}

// flushPack writes the config key's pack when renderings are pending: the
// cache's pack as it is now, plus each pending rendering (taken from the
// memo). Called before Forget drops the memo's entries. A write that
// fails leaves them to be rendered again by a later run.
func (ws *Workspace) flushPack(configKey string) {
	ws.packMu.Lock()
	pk := ws.packs[configKey]
	ws.packMu.Unlock()
	if pk == nil {
		return
	}
	pk.flushMu.Lock()
	defer pk.flushMu.Unlock()
	pk.mu.Lock()
	pending := pk.pending
	pk.pending, pk.loaded = nil, nil // what is written is read back from the cache
	pk.mu.Unlock()
	if len(pending) == 0 {
		return
	}
	key, ok := ws.packKey(configKey)
	if !ok {
		return
	}
	ws.memoMu.Lock()
	var fresh []renderMemo
	var freshKeys []string
	for _, k := range pending {
		if m, ok := ws.memo[k]; ok && m.err == nil {
			// memo entries are never changed (Render hands out clones)
			fresh, freshKeys = append(fresh, m), append(freshKeys, k)
		}
	}
	ws.memoMu.Unlock()
	entries := map[string][]byte{}
	if data, ok := ws.disk.Get(key); ok {
		entries, _ = decodePack(data)
	}
	n := int64(0)
	for i, m := range fresh {
		if data, ok := encodeDeployment(m.d); ok {
			entries[freshKeys[i]] = data
			n++
		}
	}
	if n > 0 && ws.disk.Put(key, encodePack(entries)) == nil {
		ws.diskStored.Add(n)
	}
}

// FlushRenders writes every config key's pending renderings
// (PersistRenders), several keys at once. A caller that persists renders
// calls it when it is done rendering; Forget writes the key's before it
// drops them. Safe for concurrent use.
func (ws *Workspace) FlushRenders() {
	ws.packMu.Lock()
	keys := slices.Sorted(maps.Keys(ws.packs))
	ws.packMu.Unlock()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), len(keys))) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(keys); i = int(next.Add(1) - 1) {
				ws.flushPack(keys[i])
			}
		})
	}
	wg.Wait()
}

// encodePack is a pack's value: renderPackMagic, then each entry in memo
// key order as uvarint length, memo key, uvarint length, rendering.
func encodePack(entries map[string][]byte) []byte {
	size := len(renderPackMagic)
	for k, v := range entries {
		size += len(k) + len(v) + 2*binary.MaxVarintLen64
	}
	out := make([]byte, 0, size)
	out = append(out, renderPackMagic...)
	for _, k := range slices.Sorted(maps.Keys(entries)) {
		out = binary.AppendUvarint(out, uint64(len(k)))
		out = append(out, k...)
		out = binary.AppendUvarint(out, uint64(len(entries[k])))
		out = append(out, entries[k]...)
	}
	return out
}

// decodePack is the entries of a pack's value; ok false (and no entries)
// when it is not one encodePack wrote: another magic, a length past the
// end, a memo key twice or out of order. The renderings are slices of
// data.
func decodePack(data []byte) (map[string][]byte, bool) {
	rest, ok := bytes.CutPrefix(data, []byte(renderPackMagic))
	if !ok {
		return map[string][]byte{}, false
	}
	entries := map[string][]byte{}
	prev := ""
	for len(rest) > 0 {
		k, r, ok := cutPackPart(rest)
		if !ok {
			return map[string][]byte{}, false
		}
		v, r, ok := cutPackPart(r)
		if !ok || len(entries) > 0 && string(k) <= prev {
			return map[string][]byte{}, false
		}
		prev = string(k)
		entries[prev] = v
		rest = r
	}
	return entries, true
}

// cutPackPart cuts one length-prefixed part off data.
func cutPackPart(data []byte) (part, rest []byte, ok bool) {
	n, w := binary.Uvarint(data)
	if w <= 0 || n > uint64(len(data)-w) {
		return nil, nil, false
	}
	return data[w : w+int(n)], data[w+int(n):], true
}
