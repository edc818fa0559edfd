package sandbox

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/infx/shellutil"
	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/interp"
)

// This file evaluates the file and process tools of a runner against the
// sandbox's view of the filesystem: ls, find, realpath, mktemp, sed -i of
// written files, the squash images enroot and unsquashfs make.

// ls lists what the sandbox can see: a staged checkpoint directory (model
// staging rule), or a file or directory inside the read roots; anything
// else does not exist here, as on a runner without it (status 2).
func (sb *sandbox) ls(ctx context.Context, hc interp.HandlerContext, args []string) error {
	var paths []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") || a == "-" {
			paths = append(paths, a)
		}
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	status := 0
	for _, a := range paths {
		entries, err := sb.readDir(ctx, a)
		if err == nil {
			for _, e := range entries {
				say(hc.Stdout, fmt.Sprintln(e.Name()))
			}
			continue
		}
		if st, err := sb.stat(ctx, a, true); err == nil && !st.IsDir() {
			say(hc.Stdout, fmt.Sprintln(a))
			continue
		}
		say(hc.Stderr, fmt.Sprintf("ls: cannot access '%s': No such file or directory\n", a))
		status = 2
	}
	if status != 0 {
		return interp.ExitStatus(status)
	}
	return nil
}

// find walks what the sandbox can see (the read roots; the container
// image's own files, such as /usr/local/cuda, do not exist here) with the
// predicates the scripts use: -type f|d, -name/-iname GLOB, -perm (any),
// -maxdepth N, -print, -quit. ok=false for anything else (an unknown
// command). A start path that does not exist is reported as find does
// (status 1).
func (sb *sandbox) find(ctx context.Context, hc interp.HandlerContext, args []string) (error, bool) {
	var starts []string
	i := 0
	for ; i < len(args) && !strings.HasPrefix(args[i], "-") && args[i] != "(" && args[i] != "!"; i++ {
		starts = append(starts, args[i])
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	typ, quit, maxDepth := byte(0), false, -1
	var names []string
	var inames []string
	for ; i < len(args); i++ {
		switch args[i] {
		case "-type":
			if i+1 >= len(args) || len(args[i+1]) != 1 {
				return nil, false
			}
			typ = args[i+1][0]
			i++
		case "-name", "-iname":
			if i+1 >= len(args) {
				return nil, false
			}
			if args[i] == "-name" {
				names = append(names, args[i+1])
			} else {
				inames = append(inames, strings.ToLower(args[i+1]))
			}
			i++
		case "-perm":
			i++
		case "-maxdepth":
			if i+1 >= len(args) {
				return nil, false
			}
			n, err := strconv.Atoi(args[i+1])
			if err != nil {
				return nil, false
			}
			maxDepth = n
			i++
		case "-print":
		case "-quit":
			quit = true
		default:
			return nil, false
		}
	}
	status := 0
	found := 0
	for _, st := range starts {
		root := sb.abs(ctx, st)
		if _, err := sb.jail.stat(root, true); err != nil {
			sb.refused(st, err)
			say(hc.Stderr, fmt.Sprintf("find: '%s': No such file or directory\n", st))
			status = 1
			continue
		}
		_ = sb.jail.walk(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == root {
					say(hc.Stderr, fmt.Sprintf("find: '%s': No such file or directory\n", st))
					status = 1
				}
				return nil
			}
			if quit && found > 0 {
				return filepath.SkipAll
			}
			depth := 0
			if rel, err := filepath.Rel(root, p); err == nil && rel != "." {
				depth = strings.Count(rel, string(filepath.Separator)) + 1
			}
			if maxDepth >= 0 && depth > maxDepth {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if typ == 'f' && !d.Type().IsRegular() || typ == 'd' && !d.IsDir() {
				return nil
			}
			for _, n := range names {
				if ok, _ := filepath.Match(n, d.Name()); !ok {
					return nil
				}
			}
			for _, n := range inames {
				if ok, _ := filepath.Match(n, strings.ToLower(d.Name())); !ok {
					return nil
				}
			}
			shown := st + strings.TrimPrefix(p, root)
			say(hc.Stdout, fmt.Sprintln(shown))
			found++
			if found > 10000 {
				return filepath.SkipAll
			}
			return nil
		})
	}
	if status != 0 {
		return interp.ExitStatus(status), true
	}
	return nil, true
}

// realpath answers `realpath [-e|-m|-s|-q] PATH…` and `readlink -f|-m
// PATH…`: the absolute, cleaned path as the script names it. The sandbox's
// world has no symbolic links (paths in the checkout are shown as the
// script names them, never as the host resolves them), and a path outside
// the sandbox is taken to exist as named (a runner's squash file, model
// directory). ok=false for other forms (readlink without -f, -e on a path
// the sandbox knows is absent).
func (sb *sandbox) realpath(ctx context.Context, args []string) (string, bool) {
	name := path.Base(args[0])
	var ops []string
	mustExist := false
	canon := name == "realpath"
	for _, a := range args[1:] {
		switch {
		case a == "-f" || a == "-m" || a == "--canonicalize" || a == "--canonicalize-missing":
			canon = true
		case a == "-e" || a == "--canonicalize-existing":
			canon, mustExist = true, true
		case a == "-s" || a == "-q" || a == "-z" || a == "--no-symlinks" || a == "--quiet":
		case strings.HasPrefix(a, "-"):
			return "", false
		default:
			ops = append(ops, a)
		}
	}
	if !canon || len(ops) == 0 {
		return "", false
	}
	var b strings.Builder
	for _, o := range ops {
		p := o
		if !filepath.IsAbs(p) {
			p = filepath.Join(interp.HandlerCtx(ctx).Dir, p)
		}
		p = filepath.Clean(p)
		if mustExist {
			if _, err := sb.stat(ctx, p, true); err != nil {
				return "", false
			}
		}
		b.WriteString(p + "\n")
	}
	return b.String(), true
}

// mktemp creates (in memory) and prints a temporary file or directory
// name: the template's trailing X's become digits of a counter, so runs are
// deterministic; the default template is $TMPDIR/tmp.XXXXXXXXXX.
func (sb *sandbox) mktemp(hc interp.HandlerContext, args []string) error {
	dir, tmpl, isDir := "", "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-d" || a == "--directory":
			isDir = true
		case a == "-p" || a == "--tmpdir":
			if i+1 < len(args) {
				dir = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--tmpdir="):
			dir = strings.TrimPrefix(a, "--tmpdir=")
		case a == "-t" || a == "-q" || a == "-u" || a == "--dry-run" || a == "--quiet":
		case strings.HasPrefix(a, "-"):
		default:
			tmpl = a
		}
	}
	if tmpl == "" {
		tmpl = "tmp.XXXXXXXXXX"
		if dir == "" {
			dir = hc.Env.Get("TMPDIR").String()
			sb.holeIn("TMPDIR", dir)
		}
	}
	if dir != "" && !strings.HasPrefix(tmpl, "/") {
		tmpl = filepath.Join(dir, tmpl)
	}
	sb.mu.Lock()
	sb.tmpCount++
	n := sb.tmpCount
	sb.mu.Unlock()
	// The last run of X's (GNU mktemp: at least 3, anywhere before a suffix).
	end := strings.LastIndex(tmpl, "XXX")
	if end < 0 {
		say(hc.Stderr, fmt.Sprintf("mktemp: too few X's in template '%s'\n", tmpl))
		return interp.ExitStatus(1)
	}
	start := end
	for start > 0 && tmpl[start-1] == 'X' {
		start--
	}
	for end < len(tmpl) && tmpl[end] == 'X' {
		end++
	}
	name := tmpl[:start] + fmt.Sprintf("%0*d", end-start, n) + tmpl[end:]
	if !isDir {
		sb.mu.Lock()
		if !sb.closed {
			sb.run.Writes[name] = ""
		}
		sb.mu.Unlock()
	}
	say(hc.Stdout, fmt.Sprintln(name))
	return nil
}

// isEvaluated reports whether shellutil evaluates the command name.
func isEvaluated(name string) bool {
	for _, c := range shellutil.Commands() {
		if c == name {
			return true
		}
	}
	return false
}

// squashOperand is the squash file of `unsquashfs -l FILE` or `enroot
// import -o FILE …`, "" for other forms.
func squashOperand(args []string) string {
	switch path.Base(args[0]) {
	case "unsquashfs":
		if len(args) >= 3 && args[1] == "-l" {
			return args[len(args)-1]
		}
	case "enroot":
		if len(args) >= 2 && args[1] == "import" {
			for i := 2; i+1 < len(args); i++ {
				if args[i] == "-o" || args[i] == "--output" {
					return args[i+1]
				}
			}
		}
	}
	return ""
}

// sedInPlace evaluates `sed -i [-e] EXPR… FILE…` when every FILE is one the
// run wrote (Trace.Writes): their text is replaced by sed's output.
// It reports false (not handled) otherwise, or when sed cannot evaluate the
// expression.
func (sb *sandbox) sedInPlace(args []string) bool {
	exprs, files, inPlace, ok := SedArgs(args)
	if !ok || !inPlace || len(files) == 0 {
		return false
	}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	out := map[string]string{}
	for _, f := range files {
		text, ok := sb.run.Writes[f]
		if !ok {
			return false
		}
		if sb.cfg.Holes && HasHole(text) {
			// sed reads the file: its script's addresses and patterns
			// look at what it holds (holes.go), as readKnown's readers do
			sb.inspectHole("the content of a file sed -i edits")
			return true
		}
		res, handled, _ := shellutil.RunCached(append([]string{"sed"}, exprs...), []byte(text), sb.facts, nil, &sb.cache.regexps)
		if !handled || res.Status != 0 {
			return false
		}
		out[f] = string(res.Stdout)
	}
	for f, t := range out {
		sb.run.Writes[f] = t
	}
	return true
}

// imagePatch records `sed -i SCRIPT FILE…` of files of the container
// image (each outside the read roots, not written by the run, an image
// file: imageFile) as Trace.Patches; false (nothing recorded) otherwise.
func (sb *sandbox) imagePatch(ctx context.Context, c *Call) bool {
	exprs, files, inPlace, ok := SedArgs(c.Args)
	if !ok || !inPlace || len(files) == 0 {
		return false
	}
	var paths []string
	for _, f := range files {
		if _, written, _ := sb.written(ctx, f); written {
			return false
		}
		p := sb.abs(ctx, f)
		if sb.jail.contains(p) || !sb.imageFile(ctx, p) {
			return false
		}
		paths = append(paths, filepath.Clean(p))
	}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.closed {
		return false
	}
	for _, p := range paths {
		sb.run.Patches = append(sb.run.Patches, FileEdit{Path: p, At: c.Pos, Seq: c.seq, Program: "sed -i", Data: strings.Join(exprs, " ")})
	}
	return true
}
