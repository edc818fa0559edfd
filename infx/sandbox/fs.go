package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/expand"
	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/interp"
	"mvdan.cc/sh/v3/syntax"
)

// This file is the interpreter's view of the filesystem (its open, stat,
// access and read-dir handlers): the read roots through the jail, what the
// run wrote, mounts, sourced scripts marked, staged checkpoints, and the
// runner's own files as unknown.

// errHostState: a read of the runner's device or kernel state.
var errHostState = errors.New("the runner's system files, devices and kernel state are not in the runner table")

// systemPath reports whether p is a file of the runner's or the image's
// system (not the checkout, a staged model or the job's storage):
// /etc, /usr, /opt, /lib*, /bin, /sbin, /var, /root, /boot, /run, /sys,
// /proc and /dev (except the standard streams).
func systemPath(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr":
		return false
	}
	for _, d := range []string{"/etc", "/usr", "/opt", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/var", "/root", "/boot", "/run", "/sys", "/proc", "/dev"} {
		if within(p, d) {
			return true
		}
	}
	return false
}

// maxRead bounds, in bytes, a file the sandbox reads for a command (a
// text utility's operand, cat's): a larger one is not known (its content
// would be cut short).
const maxRead = 1 << 20

// unknownRead is a read whose answer the sandbox cannot know (readKnown).
type unknownRead struct {
	name string // the path as the script named it
	why  string
	// image: the file is one of the container image (outside the
	// checkout and the read roots; not the runner's /proc, /sys or /dev,
	// a clone or a staged checkpoint): a condition's read of it may be a
	// choice (coverUnknown).
	image bool
}

// Error says which file and why its content is not known.
func (e *unknownRead) Error() string {
	return fmt.Sprintf("a read of %s: its content is not known to the sandbox (%s)", e.name, e.why)
}

// readKnown is the sandbox's one rule for reads (issue 20): a read is
// answered only from what the sandbox knows — what the run wrote (whole:
// a write cut short at the sandbox's bound is not known), the runner's
// documented device files (Config.HostFiles), /dev/null, and a regular
// file inside the read roots (at most maxRead bytes; a file not there is
// known to be absent: fs.ErrNotExist). Anything else — a path outside the
// checkout and the read roots, the runner's system files and pseudo-files
// (/proc, /sys, /dev), a file of a git clone or a staged checkpoint, a
// directory the script entered that the sandbox does not have, a file
// larger than maxRead — is an *unknownRead, never an empty file: a caller
// whose result the script uses makes the run Unsupported with it. A link
// out of a read root ends the run (refused).
func (sb *sandbox) readKnown(ctx context.Context, name string) ([]byte, error) {
	b, err := sb.readKnownFile(ctx, name)
	if sb.cfg.Holes {
		// a command the sandbox answers reads the file: its path and
		// what it holds are looked at (holes.go)
		sb.holeIn("a path", name)
		if hasHoleBytes(b) { // (holeIn without copying b to a string)
			sb.inspectHole("the content of a file a command reads")
		}
	}
	return b, err
}

// readKnownFile is readKnown without the hole rule.
func (sb *sandbox) readKnownFile(ctx context.Context, name string) ([]byte, error) {
	if why := sb.unfollowedWhy(); why != "" && name != "/dev/null" && !strings.HasPrefix(name, procSubstPrefix) {
		return nil, &unknownRead{name: name, why: why}
	}
	data, written, why := sb.written(ctx, name)
	if written {
		if why != "" {
			return nil, &unknownRead{name: name, why: why}
		}
		return []byte(data), nil
	}
	if name == "/dev/null" || strings.HasPrefix(name, procSubstPrefix) {
		// A process substitution the command it feeds never wrote to
		// (`: >(cat)`): its reader sees the pipe's end.
		return nil, nil
	}
	p := sb.abs(ctx, name)
	if v, ok := sb.cfg.HostFiles[p]; ok {
		return []byte(v), nil
	}
	if !sb.jail.contains(p) {
		return nil, &unknownRead{name: name, why: sb.unknownWhy(ctx, p), image: sb.imageFile(ctx, p)}
	}
	b, err := sb.jail.readFile(p, maxRead+1)
	if err != nil {
		sb.refused(name, err)
		if errors.Is(err, errNotRegular) {
			return nil, &unknownRead{name: name, why: errNotRegular.Error()}
		}
		return nil, &os.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if len(b) > maxRead {
		return nil, &unknownRead{name: name, why: fmt.Sprintf("larger than the %d bytes the sandbox reads", maxRead)}
	}
	return b, nil
}

// written is what the run wrote to name (Trace.Writes: by the name the
// script wrote it by, else by its logical absolute path, as Call.WriteFile
// records it); unknown, when not "", says why that content is not what the
// file holds (more was written than the sandbox keeps, or a command it
// does not evaluate wrote it).
func (sb *sandbox) written(ctx context.Context, name string) (data string, ok bool, unknown string) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if data, ok = sb.run.Writes[name]; ok {
		return data, true, sb.unknownWrites[name]
	}
	if !filepath.IsAbs(name) {
		lp := filepath.Join(interp.HandlerCtx(ctx).Dir, name)
		if data, ok = sb.run.Writes[lp]; ok {
			return data, true, sb.unknownWrites[lp]
		}
	}
	return "", false, ""
}

// imageFile reports whether p, outside the read roots, is a file of the
// container image: not the runner's /proc, /sys or /dev, a git clone's,
// a staged checkpoint's, or one under a directory the script entered that
// the sandbox does not have.
func (sb *sandbox) imageFile(ctx context.Context, p string) bool {
	if within(p, "/proc") || within(p, "/sys") || within(p, "/dev") || sb.inClone(p) || sb.isCloneDir(p) {
		return false
	}
	for _, mp := range sb.stagedDirs(interp.HandlerCtx(ctx).Env) {
		if within(p, mp) {
			return false
		}
	}
	sb.fsmu.Lock()
	defer sb.fsmu.Unlock()
	for d := range sb.unknownDirs {
		if within(p, d) {
			return false
		}
	}
	return true
}

// unknownWhy says why a path outside the read roots is not known.
func (sb *sandbox) unknownWhy(ctx context.Context, p string) string {
	switch {
	case systemPath(p):
		return errHostState.Error()
	case sb.inClone(p) || sb.isCloneDir(p):
		return "a file of a git clone the run made: the repository's content at the ref is not read"
	}
	for _, mp := range sb.stagedDirs(interp.HandlerCtx(ctx).Env) {
		if within(p, mp) {
			return "a file of the staged checkpoint, whose content is not read"
		}
	}
	return "outside the checkout and the read roots"
}

// unknown ends the run at the position last reached (a read's redirection
// is marked: markReads) as Unsupported with an unknown read.
func (sb *sandbox) unknown(err *unknownRead) {
	sb.mu.Lock()
	if sb.stopReason == nil {
		sb.stopReason = &Unsupported{Pos: sb.lastPos(), Command: "read", Msg: err.Error()}
	}
	sb.mu.Unlock()
	sb.stop()
}

// unknownPathError is the error a text utility's file operand gets for a
// read the sandbox cannot know (readKnown): not fs.ErrNotExist, so the
// utility is not evaluated (and is Unsupported where its result is used).
func unknownPathError(name string, u *unknownRead) error {
	return &os.PathError{Op: "open", Path: name, Err: errors.New("its content is not known to the sandbox: " + u.why)}
}

// refused ends the run when err is the jail's refusal of a path that
// resolves outside the checkout (errJailEscape): the script sees no file,
// and the run reports the path, at the command last reached.
func (sb *sandbox) refused(name string, err error) {
	if !errors.Is(err, errJailEscape) {
		return
	}
	sb.mu.Lock()
	if sb.stopReason == nil {
		sb.stopReason = &Unsupported{Pos: sb.lastPos(), Command: "read",
			Msg: fmt.Sprintf("a read of %s: %v", name, errJailEscape)}
	}
	sb.mu.Unlock()
	sb.stop()
}

// isHostDir reports whether the caller's working directory
// (Config.Dir) is a directory on this machine.
func isHostDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func (sb *sandbox) open(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	sb.holeIn("a path", path)
	if path == "/dev/null" {
		return nopRW{}, nil
	}
	if path == "/dev/stderr" || path == "/dev/stdout" {
		return nopRW{}, nil
	}
	p := sb.abs(ctx, path)
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_APPEND|os.O_TRUNC) != 0 {
		lp := path
		if !filepath.IsAbs(lp) {
			lp = filepath.Join(interp.HandlerCtx(ctx).Dir, lp)
		}
		return &sink{sb: sb, name: path, logical: lp, appendMode: flag&os.O_APPEND != 0}, nil
	}
	if !strings.HasPrefix(path, procSubstPrefix) && sb.refuseAfterUnfollowed(path) {
		// a fenced child that stopped may have changed it (fence.go)
		return nil, &os.PathError{Op: "open", Path: path, Err: errStopped}
	}
	data, written, why := sb.written(ctx, path)
	if written && why == "" {
		return readOnly{strings.NewReader(data)}, nil
	}
	if n := sb.libName(); n != "" && filepath.Base(p) == n {
		// The library as the script names it (or Library.Path), marked
		// like a script, followed by its stubs.
		text, err := sb.prepare(p, true)
		if err != nil {
			return nil, err
		}
		return readOnly{withSource(path, text)}, nil
	}
	sb.mu.Lock()
	sourced := sb.sourcing == p
	if sourced {
		sb.sourcing = ""
	}
	sb.mu.Unlock()
	if (sourced || strings.HasSuffix(p, ".sh")) && sb.jail.isFile(p) {
		// A sourced script: marked so its commands carry their file:line
		// and context.
		text, err := sb.prepare(p, false)
		if err == nil {
			return readOnly{withSource(path, text)}, nil
		}
	}
	if written || !sb.jail.contains(p) && path != "/dev/stdin" {
		// Not known (readKnown): a redirection, `source`, `$(< …)`,
		// mapfile and read all use what they read.
		b, err := sb.readKnown(ctx, path)
		var u *unknownRead
		if errors.As(err, &u) {
			sb.mu.Lock()
			at := sb.lastPos()
			sb.mu.Unlock()
			if sb.coverUnknown(at, "read", u) {
				// In a condition whose outcome becomes a choice.
				return nil, &os.PathError{Op: "open", Path: path, Err: u}
			}
			sb.unknown(u)
			return nil, &os.PathError{Op: "open", Path: path, Err: u}
		}
		if err == nil {
			return readOnly{bytes.NewReader(b)}, nil
		}
	}
	// Through the jail: a regular file inside a read root (a FIFO or
	// device would block or never end; a link out of the root is
	// refused and ends the run).
	f, err := sb.jail.open(p)
	if err != nil {
		sb.refused(path, err)
		var pe *os.PathError
		if errors.As(err, &pe) && errors.Is(pe.Err, errNotRegular) {
			// A FIFO or device: what a read gives is not known.
			u := &unknownRead{name: path, why: errNotRegular.Error()}
			sb.unknown(u)
			return nil, &os.PathError{Op: "open", Path: path, Err: u}
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	}
	return readOnlyFile{f}, nil
}

// withSource brackets a sourced file's text with the BASH_SOURCE updates
// bash makes: the file's name (as the script named it) in front while it
// runs, removed after. The text is read in place (not copied: a library
// of 100 KB is sourced by every point), and the source builtin's parser
// (parseSourced) knows it by name and text.
func withSource(name, text string) *sourcedText {
	return &sourcedText{name: name, text: text, Reader: io.MultiReader(strings.NewReader(sourcePrefix(name)),
		strings.NewReader(text), strings.NewReader(sourceSuffix))}
}

// sourcePrefix is the line withSource puts in front of a sourced text:
// the file's name pushed on BASH_SOURCE.
func sourcePrefix(name string) string {
	return "BASH_SOURCE=(" + bashQuote(name) + " \"${BASH_SOURCE[@]}\")\n"
}

// sourceSuffix is what withSource puts after a sourced text: the name
// popped off BASH_SOURCE.
const sourceSuffix = "\nBASH_SOURCE=(\"${BASH_SOURCE[@]:1}\")\n"

// sourcedText is what the open handler gives the source builtin for a
// prepared file (withSource): its bytes, and the name and prepared text
// they are made of.
type sourcedText struct {
	name, text string
	io.Reader
}

// parsedSource is the source builtin's parse of one sourced text, shared
// by every name the text is sourced by: body is the parse of the text
// and sourceSuffix after one empty line (nil when it does not parse), its
// statements at the lines and columns they have under sourcePrefix's
// line; named holds, by the builtin's path and the name, the tree
// parseSourced gave (the name's prefix statement, then body's), or the
// error of parsing the bracketed text itself.
type parsedSource struct {
	body  *syntax.File
	named map[string]namedSource
	use   treeUse
	// hole is HasHole of the text, once holeKnown (a hole run's first
	// source of it)
	hole, holeKnown bool
}

// namedSource is one name's parse of a sourced text.
type namedSource struct {
	file *syntax.File
	err  error
}

// namedSourcesMax bounds parsedSource.named: past it, a name's tree is
// made again each time (a slice of the body's statements).
const namedSourcesMax = 64

// parseSourced is the interpreter's parser for the source and .
// builtins (interp.SourceParser, the patch in
// internal/third_party/mvdan-sh): a prepared file (sourcedText) is parsed
// once per Cache — by its prepared text, which is all the bytes depend on
// but for the name in the prefix line — and its tree shared by every name
// it is sourced by (the interpreter only reads it: issue 24, main job,
// complete trees: one library text was sourced by five names, five trees
// of 146 KB each); anything else is parsed as the builtin would.
//
// A name's tree is the parse of its prefix line (line 1, as in the
// bracketed text) followed by the body's statements: the same statements
// at the same lines and columns as the parse of the bracketed text (the
// prefix is one complete line, after which the parser starts afresh);
// only byte offsets differ, which neither the interpreter nor the sandbox
// reads of a sourced tree. A text whose body does not parse is parsed
// bracketed, by name, so its error names the file as the builtin's does.
func (sb *sandbox) parseSourced(path string, f io.Reader) (*syntax.File, error) {
	sb.holeIn("the path of a sourced file", path)
	ro, ok := f.(readOnly)
	var st *sourcedText
	if ok {
		st, ok = ro.r.(*sourcedText)
	}
	if !ok {
		if sb.cfg.Holes {
			// text run as a script: a hole in it would be parsed
			data, err := io.ReadAll(f)
			if err != nil {
				return nil, err
			}
			if hasHoleBytes(data) {
				sb.inspectHole("the text of a sourced file")
			}
			f = bytes.NewReader(data)
		}
		return syntax.NewParser().Parse(f, path)
	}
	name := path + "\x00" + st.name
	c := sb.cache
	c.mu.Lock()
	ps, ok := c.sourced[st.text]
	var hole, holeKnown bool
	if ok {
		c.touch(&ps.use)
		hole, holeKnown = ps.hole, ps.holeKnown
	}
	c.mu.Unlock()
	if sb.cfg.Holes {
		// (the text's hole test is kept with its parse: a library is
		// sourced thousands of times a run)
		if !holeKnown {
			hole = HasHole(st.text)
			if ok {
				c.mu.Lock()
				ps.hole, ps.holeKnown = hole, true
				c.mu.Unlock()
			}
		}
		if hole {
			sb.inspectHole("the text of a sourced file")
		}
	}
	if ok {
		c.mu.Lock()
		ns, named := ps.named[name]
		c.mu.Unlock()
		if named {
			return ns.file, ns.err
		}
	}
	if !ok {
		body, err := syntax.NewParser().Parse(strings.NewReader("\n"+st.text+sourceSuffix), path)
		if err != nil {
			body = nil
		}
		c.mu.Lock()
		if had, ok := c.sourced[st.text]; ok {
			ps = had
		} else {
			ps = &parsedSource{body: body}
			if c.n < cacheMax {
				if c.sourced == nil {
					c.sourced = map[string]*parsedSource{}
				}
				c.sourced[st.text] = ps
				c.keep(&ps.use, len(st.text))
			}
		}
		c.mu.Unlock()
	}
	var ns namedSource
	if prefix := sourcePrefix(st.name); ps.body != nil && strings.IndexByte(prefix, '\n') == len(prefix)-1 {
		// (a name the quoting leaves a newline in takes two lines: the
		// body's statements would sit a line above the bracketed
		// text's, so it is parsed bracketed)
		if pre, err := syntax.NewParser().Parse(strings.NewReader(prefix), path); err == nil && len(pre.Stmts) == 1 && pre.Last == nil {
			stmts := make([]*syntax.Stmt, 0, 1+len(ps.body.Stmts))
			stmts = append(append(stmts, pre.Stmts[0]), ps.body.Stmts...)
			ns.file = &syntax.File{Name: path, Stmts: stmts, Last: ps.body.Last}
		}
	}
	if ns.file == nil {
		ns.file, ns.err = syntax.NewParser().Parse(f, path)
	}
	c.mu.Lock()
	if len(ps.named) < namedSourcesMax {
		if ps.named == nil {
			ps.named = map[string]namedSource{}
		}
		ps.named[name] = ns
	}
	c.mu.Unlock()
	return ns.file, ns.err
}

// libName is Config.Library's base name, "" without a library.
func (sb *sandbox) libName() string {
	if sb.cfg.Library == nil {
		return ""
	}
	return sb.cfg.Library.Name
}

// prepare returns the marked text of a sourced script (cached): parsed,
// marked, printed back. lib: Config.Library, read from its Path when
// given, with its Stubs appended; a library that is not there gives the
// stubs alone.
func (sb *sandbox) prepare(p string, lib bool) (string, error) {
	if sb.refuseAfterUnfollowed(p) {
		// even one sourced before: the fenced child may have changed it
		return "", errStopped
	}
	sb.mu.Lock()
	if t, ok := sb.prepared[p]; ok {
		sb.mu.Unlock()
		return t, nil
	}
	var src []byte
	if lib && sb.hasLib {
		src = sb.lib
	}
	sb.mu.Unlock()
	if src == nil {
		if sb.jail.isFile(p) {
			data, err := sb.jail.readInput(p)
			if err != nil {
				sb.refused(p, err)
				return "", err
			}
			src = data
		}
	}
	name := sb.displayName(p)
	tkey := name
	if lib {
		tkey += "\x00lib\x00" + sb.cfg.Library.Stubs
	}
	sb.cache.mu.Lock()
	if t, ok := sb.cache.texts[tkey][string(src)]; ok {
		sb.cache.mu.Unlock()
		// The functions it declares (parseScript registered them when
		// the text was made).
		if len(src) > 0 {
			if _, err := sb.parseScript(name, src); err != nil {
				return "", err
			}
		}
		sb.mu.Lock()
		sb.prepared[p] = t
		sb.mu.Unlock()
		return t, nil
	}
	sb.cache.mu.Unlock()
	var b strings.Builder
	if len(src) > 0 {
		file, err := sb.parseScript(name, src)
		if err != nil {
			sb.inputError(err)
			return "", err
		}
		if err := syntax.NewPrinter().Print(&b, file); err != nil {
			return "", err
		}
	}
	if lib {
		b.WriteString("\n" + sb.cfg.Library.Stubs)
	}
	sb.mu.Lock()
	sb.prepared[p] = b.String()
	sb.mu.Unlock()
	sb.cache.mu.Lock()
	if sb.cache.texts == nil {
		sb.cache.texts = map[string]map[string]string{}
	}
	if sb.cache.texts[tkey] == nil {
		sb.cache.texts[tkey] = map[string]string{}
	}
	if _, had := sb.cache.texts[tkey][string(src)]; !had && sb.cache.n < cacheMax {
		sb.cache.texts[tkey][string(src)] = b.String()
		sb.cache.n++
	}
	sb.cache.mu.Unlock()
	return b.String(), nil
}

// displayName shows a path relative to the first read root containing it.
func (sb *sandbox) displayName(p string) string {
	for _, r := range sb.roots {
		if rel, err := filepath.Rel(r, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return p
}

// stagedDirs are the staged checkpoint directories of the current
// environment: the absolute paths held by the variables Config.ModelDir
// names. Model staging rule: each holds a complete checkpoint.
func (sb *sandbox) stagedDirs(env expand.Environ) []string {
	if sb.cfg.ModelDir == nil {
		return nil
	}
	var out []string
	env.Each(func(name string, v expand.Variable) bool {
		if sb.cfg.ModelDir(name) {
			sb.holeIn("a staged checkpoint's directory", v.String())
			if s := v.String(); strings.HasPrefix(s, "/") {
				out = append(out, filepath.Clean(s))
			}
		}
		return true
	})
	return out
}

// modelRoots are the directories of staged checkpoints the environment
// names (Config.ModelRoot).
func (sb *sandbox) modelRoots(env expand.Environ) []string {
	if sb.cfg.ModelRoot == nil {
		return nil
	}
	var out []string
	env.Each(func(name string, v expand.Variable) bool {
		if sb.cfg.ModelRoot(name) {
			sb.holeIn("a staged checkpoints' directory", v.String())
			if s := v.String(); strings.HasPrefix(s, "/") && filepath.Clean(s) != "/" {
				out = append(out, filepath.Clean(s))
			}
		}
		return true
	})
	return out
}

// stagedFiles are what a staged checkpoint directory holds for probes.
var stagedFiles = []string{"config.json", "model-00001-of-00001.safetensors", "model.safetensors.index.json", "tokenizer.json", "tokenizer_config.json"}

func (sb *sandbox) stat(ctx context.Context, name string, follow bool) (fs.FileInfo, error) {
	if sb.cfg.Holes && HasHole(name) {
		if st, err, ok := sb.statWorlds(ctx, name, follow); ok {
			return st, err
		}
		sb.inspectHole("a path")
	}
	st, err, _ := sb.statIn(ctx, name, follow, false)
	return st, err
}

// statWorlds answers a stat of a path holding holes from its value in
// each of Config.Worlds (worlds): ok when every world's answer is the
// same — it exists in all or in none, with the same mode, size and time —
// and none of them would stop the run (statIn's probe). The answer is
// the first world's.
func (sb *sandbox) statWorlds(ctx context.Context, name string, follow bool) (fs.FileInfo, error, bool) {
	vals := sb.worlds(name)
	if len(vals) == 0 {
		return nil, nil, false
	}
	var first fs.FileInfo
	var firstErr error
	for i, v := range vals {
		st, err, pure := sb.statIn(ctx, v, follow, true)
		if !pure {
			return nil, nil, false
		}
		if i == 0 {
			first, firstErr = st, err
			continue
		}
		if (err == nil) != (firstErr == nil) || err == nil && (st.Mode() != first.Mode() || st.Size() != first.Size() || !st.ModTime().Equal(first.ModTime())) {
			return nil, nil, false
		}
	}
	if firstErr != nil {
		// the error names the path as the script wrote it
		return nil, &os.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}, true
	}
	return first, nil, true
}

// statIn is stat of a path without holes. probe: nothing is recorded and
// the run is not stopped; pure is false when the answer would stop it (a
// read after a fenced child stopped, a system file, a path out of the
// read roots) — the answer is then not the run's.
func (sb *sandbox) statIn(ctx context.Context, name string, follow, probe bool) (_ fs.FileInfo, _ error, pure bool) {
	if !strings.HasPrefix(name, procSubstPrefix) {
		if probe {
			if sb.unfollowedWhy() != "" {
				return nil, nil, false
			}
		} else if sb.refuseAfterUnfollowed(name) {
			// whether it exists, after a fenced child that stopped, is
			// not known (fence.go)
			return nil, &os.PathError{Op: "stat", Path: name, Err: errStopped}, false
		}
	}
	p := sb.abs(ctx, name)
	if dir, base := filepath.Split(p); dir == "/usr/bin/" && (sb.onRunner(base) || isEvaluated(base)) {
		// The commands the sandbox answers `command -v` for as installed
		// at /usr/bin (lookup) are there for a test too.
		return stagedInfo{name: base, exec: true}, nil, true
	}
	sb.fsmu.Lock()
	made := sb.made[p]
	sb.fsmu.Unlock()
	if made {
		// A squash image the run imported or found valid (squashOperand).
		return stagedInfo{name: filepath.Base(p)}, nil, true
	}
	sb.fsmu.Lock()
	entered := sb.unknownDirs[p]
	sb.fsmu.Unlock()
	if sb.vdirs[p] || sb.isCloneDir(p) || entered {
		return stagedInfo{name: filepath.Base(p), dir: true}, nil, true
	}
	if systemPath(p) && !sb.jail.contains(p) {
		// The runner's (or the image's) own files: whether they exist is
		// not known here, so a test of one cannot be answered.
		if probe {
			return nil, nil, false
		}
		sb.mu.Lock()
		if sb.stopReason == nil {
			sb.stopReason = &Unsupported{Pos: sb.lastPos(), Command: "test",
				Msg: fmt.Sprintf("a test of %s: the runner's system files are not in the sandbox", name)}
		}
		sb.mu.Unlock()
		sb.stop()
		return nil, &os.PathError{Op: "stat", Path: name, Err: errHostState}, false
	}
	if !sb.jail.contains(p) {
		if sb.inClone(p) {
			// A file of a git clone the run made: its content is the
			// repository's at the ref, not known here, but a launcher's
			// test that it exists holds (the caller resolves what it is).
			return stagedInfo{name: filepath.Base(p)}, nil, true
		}
		for _, root := range sb.modelRoots(interp.HandlerCtx(ctx).Env) {
			// Model staging: an entry of a Config.ModelRoot directory is a
			// staged checkpoint directory.
			if p == root || filepath.Dir(p) == root {
				return stagedInfo{name: filepath.Base(p), dir: true}, nil, true
			}
		}
		for _, mp := range sb.stagedDirs(interp.HandlerCtx(ctx).Env) {
			// Model staging: a Config.ModelDir directory holds a complete checkpoint.
			if p == mp {
				return stagedInfo{name: filepath.Base(p), dir: true}, nil, true
			}
			if within(p, mp) {
				return stagedInfo{name: filepath.Base(p)}, nil, true
			}
		}
		return nil, &os.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}, true
	}
	st, err := sb.jail.stat(p, follow)
	if err != nil {
		if probe && errors.Is(err, errJailEscape) {
			return nil, nil, false
		}
		sb.refused(name, err)
		return nil, &os.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}, true
	}
	return st, nil, true
}

// access answers test -r/-w/-x and cd's permission check from the
// sandbox's view: what exists here (the read roots through the mounts, the
// staged checkpoints, the temporary directory) is readable, writable (into
// memory) and searchable; nothing else exists. The host is never asked.
func (sb *sandbox) access(ctx context.Context, name string, mode interp.AccessMode) error {
	if _, err := sb.stat(ctx, name, true); err != nil {
		return err
	}
	return nil
}

func (sb *sandbox) readDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	sb.holeIn("a path", name)
	if sb.refuseAfterUnfollowed(name) {
		return nil, &os.PathError{Op: "readdir", Path: name, Err: errStopped}
	}
	p := sb.abs(ctx, name)
	if sb.vdirs[p] || sb.isCloneDir(p) {
		return nil, nil // an empty directory of the run's own
	}
	if !sb.jail.contains(p) {
		for _, mp := range sb.stagedDirs(interp.HandlerCtx(ctx).Env) {
			if p == mp {
				var out []fs.DirEntry
				for _, f := range stagedFiles {
					out = append(out, fs.FileInfoToDirEntry(stagedInfo{name: f}))
				}
				return out, nil
			}
		}
		return nil, &os.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	ents, err := sb.jail.readDir(p)
	if err != nil {
		sb.refused(name, err)
		return nil, &os.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return ents, nil
}

// stagedInfo is a file or directory of a staged checkpoint.
type stagedInfo struct {
	name string
	dir  bool
	exec bool
}

func (s stagedInfo) Name() string { return s.name }
func (s stagedInfo) Size() int64  { return 1 << 20 }
func (s stagedInfo) Mode() fs.FileMode {
	if s.dir {
		return fs.ModeDir | 0o755
	}
	if s.exec {
		return 0o755
	}
	return 0o644
}
func (s stagedInfo) ModTime() time.Time { return time.Unix(0, 0) }
func (s stagedInfo) IsDir() bool        { return s.dir }
func (s stagedInfo) Sys() any           { return noOwnerStat() }

// enterUnknown lets `cd DIR` / `pushd DIR` enter a directory outside
// everything the sandbox has (the checkout and read roots, its own logical
// directories, clones, staged checkpoints, the runner's system
// directories): on a runner it exists (`cd ../../..` above the checkout),
// so the cd succeeds, and what the script then reads there is not known
// (readKnown) — rather than the cd failing and later relative reads
// answering from the directory the script left.
// It returns why the directory is not known ("" when it is).
func (sb *sandbox) enterUnknown(ctx context.Context, hc interp.HandlerContext, args []string) string {
	target := ""
	for _, a := range args[1:] {
		if a == "-" || !strings.HasPrefix(a, "-") {
			target = a
		}
	}
	if target == "" || target == "-" || strings.HasPrefix(target, "+") {
		return ""
	}
	p := sb.abs(ctx, target)
	why := sb.unknownDir(ctx, hc, p)
	if systemPath(p) || why == "" {
		return ""
	}
	sb.fsmu.Lock()
	if sb.unknownDirs == nil {
		sb.unknownDirs = map[string]bool{}
	}
	sb.unknownDirs[p] = true
	sb.fsmu.Unlock()
	return why
}

// unknownDir says why the directory p (a real path) is not one the
// sandbox has, "" when it is: inside a read root, its own logical
// directories, a clone, a staged checkpoint. The runner's system
// directories are not known either.
func (sb *sandbox) unknownDir(ctx context.Context, hc interp.HandlerContext, p string) string {
	if sb.jail.contains(p) || sb.vdirs[p] || sb.isCloneDir(p) || sb.inClone(p) {
		return ""
	}
	for _, mp := range sb.stagedDirs(hc.Env) {
		if within(p, mp) {
			return ""
		}
	}
	return sb.unknownWhy(ctx, p)
}
