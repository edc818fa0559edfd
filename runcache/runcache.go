// Package runcache is cookbook-sync's content-addressed cache across runs,
// in the manner of golangci-lint's and go's own build cache: an entry is
// found by a key that covers everything its value depends on — the
// executable that computed it (the go command's build ID, which ends in the
// hash of the linked file, else its bytes: `go run` and `go test` builds
// carry no version), what was asked, and the bytes of every input the work
// read — so an entry is either exactly what a fresh run would compute or
// never looked up. Nothing is invalidated by time; entries unused for days
// are removed (Trim), which only means computing them again.
//
// Entries are files written atomically (a temporary file in the same
// directory, then rename), so concurrent runs can share one directory; an
// entry that does not read back exactly (truncated, corrupt, from another
// program or another key) is a miss, never trusted, and the next Put
// replaces it.
package runcache

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// magic starts every entry file (and names the entry format's version).
const magic = "cookbook-sync runcache v1\n"

// Dir is an opened cache directory. Its zero value is not usable; Open
// makes one. Safe for concurrent use (by goroutines and by processes).
type Dir struct {
	path string
	// exe names the running executable by its content (Executable).
	exe string
}

// DefaultDir is the cache directory used when the user names none:
// os.UserCacheDir()/cookbook-sync ($XDG_CACHE_HOME or ~/.cache on Linux,
// ~/Library/Caches on macOS, %LocalAppData% on Windows). Errors: those of
// os.UserCacheDir (no home directory).
func DefaultDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "cookbook-sync"), nil
}

// Open makes (if needed) and opens the cache directory path, and reads
// the running executable's bytes for the keys (Executable). Errors: the
// directory cannot be made or is not a directory; the executable cannot be
// read (then nothing could be keyed safely).
func Open(path string) (*Dir, error) {
	if path == "" {
		return nil, errors.New("runcache: no directory")
	}
	exe, err := Executable()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, fmt.Errorf("cache directory: %w", err)
	}
	return &Dir{path: path, exe: exe}, nil
}

// Path is the directory d was opened on.
func (d *Dir) Path() string { return d.path }

// Executable names the running program's file (os.Executable) by its
// content: part of every key, so a rebuilt tool — another version, a local
// edit, a test binary — never reads another build's entries. It is
// "go-buildid:" and the Go build ID the go command stamped into an ELF
// executable (goBuildID: its last part is the hash of the linked file),
// read from the file's note instead of the whole file (52 MB: a twelfth of
// a warm run); else the hex SHA-256 of the file's bytes. Errors: the
// executable cannot be found or read.
func Executable() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("runcache: the running executable: %w", err)
	}
	f, err := os.Open(p)
	if err != nil {
		return "", fmt.Errorf("runcache: the running executable: %w", err)
	}
	defer func() { _ = f.Close() }() // read only: a failed close loses nothing
	if id, ok := goBuildID(f); ok {  // (read at offsets: f's own stays at its start)
		return "go-buildid:" + id, nil
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("runcache: the running executable: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// goBuildID is the Go build ID of ELF executable f, as the go command
// writes it (golang/go src/cmd/go/internal/work/buildid.go: the linker's
// ".note.go.buildid" note, name "Go", type 4, its content rewritten by the
// go command to "actionID/contentID" parts, the last the hash of the
// linked file): ok only for that form — two to four parts of at least 20
// characters of the URL-safe base64 alphabet — so a build ID a build system
// sets to a constant ("redacted", or none: -buildid=) is never taken for a
// content name, and the file is hashed instead.
func goBuildID(f io.ReaderAt) (string, bool) {
	ef, err := elf.NewFile(f)
	if err != nil {
		return "", false
	}
	sec := ef.Section(".note.go.buildid")
	if sec == nil || sec.Size > 4096 {
		return "", false
	}
	note, err := sec.Data()
	if err != nil || len(note) < 16 {
		return "", false
	}
	bo := ef.ByteOrder
	nameSz, descSz, typ := bo.Uint32(note[0:]), bo.Uint32(note[4:]), bo.Uint32(note[8:])
	if nameSz != 4 || typ != 4 || string(note[12:16]) != "Go\x00\x00" || uint64(descSz) > uint64(len(note)-16) {
		return "", false
	}
	id := string(note[16 : 16+descSz])
	parts := strings.Split(id, "/")
	if len(parts) < 2 || len(parts) > 4 {
		return "", false
	}
	for _, part := range parts {
		if len(part) < 20 || strings.TrimLeft(part, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			return "", false
		}
	}
	return id, true
}

// Key is an entry's key: the SHA-256 of a Keyer's parts.
type Key [32]byte

// String is the key in hex.
func (k Key) String() string { return hex.EncodeToString(k[:]) }

// Keyer builds a Key from parts, each length-prefixed (so no two lists of
// parts give the same bytes). It starts with the kind of entry and the
// executable's name (Executable; NewKey).
type Keyer struct{ b bytes.Buffer }

// NewKey starts a key for an entry of kind (e.g. "coverage-report/1": the
// caller's value format and version) computed by d's executable.
func (d *Dir) NewKey(kind string) *Keyer {
	k := &Keyer{}
	k.Add(kind)
	k.Add(d.exe)
	return k
}

// Add appends one part.
func (k *Keyer) Add(part string) *Keyer {
	fmt.Fprintf(&k.b, "%d:", len(part))
	k.b.WriteString(part)
	return k
}

// AddBytes appends one part given as bytes.
func (k *Keyer) AddBytes(part []byte) *Keyer {
	fmt.Fprintf(&k.b, "%d:", len(part))
	k.b.Write(part)
	return k
}

// Sum is the key of the parts added so far.
func (k *Keyer) Sum() Key { return sha256.Sum256(k.b.Bytes()) }

// EntryPath is the file key's entry is (or would be) stored in:
// DIR/xx/xxxx…, the key in hex under its first two digits, as git's
// objects.
func (d *Dir) EntryPath(key Key) string { return d.file(key) }

// file is the entry file of key: two levels, as git's objects.
func (d *Dir) file(key Key) string {
	h := key.String()
	return filepath.Join(d.path, h[:2], h)
}

// header is what precedes the value in key's entry file: the magic, the
// key again (an entry copied to another name is foreign) and the value's
// length and SHA-256 sum (a truncated or altered entry is corrupt).
func header(key Key, value []byte, sum [32]byte) []byte {
	return fmt.Appendf(nil, "%s%s\n%d %s\n", magic, key, len(value), hex.EncodeToString(sum[:]))
}

// Get is the value stored under key, and whether there is one that reads
// back exactly: a missing, truncated, corrupt or foreign entry is a miss
// (false), never an error.
func (d *Dir) Get(key Key) ([]byte, bool) {
	value, _, ok := d.GetSum(key)
	return value, ok
}

// GetSum is Get with the value's SHA-256, which reading the entry checks
// anyway.
func (d *Dir) GetSum(key Key) (value []byte, sum [32]byte, ok bool) {
	p := d.file(key)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, sum, false
	}
	defer d.mark(p, time.Now())
	// header: magic, key line, "len sha" line
	rest, ok := bytes.CutPrefix(data, []byte(magic))
	if !ok {
		return nil, sum, false
	}
	keyLine, rest, ok := bytes.Cut(rest, []byte{'\n'})
	if !ok || string(keyLine) != key.String() {
		return nil, sum, false
	}
	_, value, ok = bytes.Cut(rest, []byte{'\n'})
	if !ok {
		return nil, sum, false
	}
	sum = sha256.Sum256(value)
	if !bytes.Equal(header(key, value, sum), data[:len(data)-len(value)]) {
		return nil, [32]byte{}, false
	}
	return value, sum, true
}

// Put stores value under key atomically: readers see the old entry, none,
// or the whole new one; of concurrent writers of one key the last rename
// wins (their values are equal: the key decides the value). Errors: the
// entry cannot be written (a full disk, a read-only directory): the caller
// goes on without the cache.
func (d *Dir) Put(key Key, value []byte) error {
	p := d.file(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return writeAtomic(p, header(key, value, sha256.Sum256(value)), value)
}

// writeAtomic writes the parts to a temporary file beside p and renames
// it to p: a reader sees the old file, none, or the whole new one.
func writeAtomic(p string, parts ...[]byte) error {
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	var werr error
	for _, part := range parts {
		if werr == nil {
			_, werr = f.Write(part)
		}
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, p)
	}
	if werr != nil {
		_ = os.Remove(tmp) // best effort: a stray temporary file is never read
		return werr
	}
	return nil
}

// Trimming, as go's build cache does it (cmd/go/internal/cache Trim): an
// entry read is marked used (its modification time, refreshed at most once
// per MarkInterval); once per TrimInterval (recorded in the file trim.txt)
// entries unused for TrimAge are removed. Trimming changes what is found,
// never what a run answers: a removed entry is computed again.
const (
	MarkInterval = time.Hour
	TrimInterval = 24 * time.Hour
	TrimAge      = 5 * 24 * time.Hour
)

// mark refreshes an entry's modification time when older than
// MarkInterval (best effort: an entry that cannot be touched may be
// trimmed and computed again).
func (d *Dir) mark(p string, now time.Time) {
	if st, err := os.Stat(p); err == nil && now.Sub(st.ModTime()) > MarkInterval {
		_ = os.Chtimes(p, now, now)
	}
}

// Trim removes the entries not used for TrimAge, at most once per
// TrimInterval (trim.txt holds the last trim's time, Unix seconds), and
// temporary files a writer left (older than MarkInterval). now is the
// current time (a parameter for tests). Errors: the directory cannot be
// read; an entry that cannot be removed is left.
func (d *Dir) Trim(now time.Time) error {
	stamp := filepath.Join(d.path, "trim.txt")
	if data, err := os.ReadFile(stamp); err == nil {
		var last int64
		if _, err := fmt.Sscanf(string(data), "%d", &last); err == nil && now.Sub(time.Unix(last, 0)) < TrimInterval {
			return nil
		}
	}
	subs, err := os.ReadDir(d.path)
	if err != nil {
		return err
	}
	for _, s := range subs {
		if !s.IsDir() || len(s.Name()) != 2 {
			continue
		}
		ents, err := os.ReadDir(filepath.Join(d.path, s.Name()))
		if err != nil {
			continue
		}
		for _, e := range ents {
			info, err := e.Info()
			if err != nil {
				continue
			}
			age := now.Sub(info.ModTime())
			if age > TrimAge || strings.HasPrefix(e.Name(), ".tmp-") && age > MarkInterval {
				_ = os.Remove(filepath.Join(d.path, s.Name(), e.Name())) // left when it cannot be: trimmed next time
			}
		}
	}
	return writeAtomic(stamp, fmt.Appendf(nil, "%d\n", now.Unix()))
}
