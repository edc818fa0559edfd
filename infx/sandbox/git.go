package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/interp"
)

// GitClone is one `git clone` a run made (such as a multi-node launcher
// cloning srt-slurm), with the ref it checked out after.
type GitClone struct {
	// URL is the repository URL as written; Branch the --branch/-b value.
	URL    string `json:"url"`
	Branch string `json:"branch,omitempty"`
	// Dir is the logical directory the clone was made in (absolute).
	Dir string `json:"dir"`
	// Ref is the last `git checkout REF` run inside Dir ("" when none: the
	// clone stays on Branch, or on the repository's default branch).
	Ref string `json:"ref,omitempty"`
	// At is where the clone is written, RefAt where the checkout is.
	At    Pos `json:"at"`
	RefAt Pos `json:"refAt,omitempty"`
}

// Checkout is the ref the clone runs: the checked-out ref, else the
// cloned branch, else "" (the default branch at run time).
func (g GitClone) Checkout() string {
	if g.Ref != "" {
		return g.Ref
	}
	return g.Branch
}

// CheckoutAt is where Checkout is written (the checkout, else the clone).
func (g GitClone) CheckoutAt() Pos {
	if g.Ref != "" {
		return g.RefAt
	}
	return g.At
}

// Repo is the clone's repository as owner/name for github.com URLs
// ("NVIDIA/srt-slurm"), else the URL.
func (g GitClone) Repo() string {
	u, err := url.Parse(g.URL)
	if err != nil || u.Host != "github.com" {
		return g.URL
	}
	return strings.TrimSuffix(strings.Trim(u.Path, "/"), ".git")
}

// CopyInto is one `cp -r[T] SRC DST` (or `cp -r SRC/. DST`) a run made:
// the directory SRC (a real path, inside the read roots) now shows at the
// logical directory DST.
type CopyInto struct {
	Src string `json:"src"`
	Dst string `json:"dst"`
	At  Pos    `json:"at"`
	// Opaque: the source is outside the read roots (or a link out of
	// them): Dst holds something whose content is not known here.
	Opaque bool `json:"opaque,omitempty"`
}

// git evaluates the git commands a launcher runs to get srt-slurm: `git
// clone [opts] URL [DIR]` makes DIR an (empty) directory of the run and
// records the clone; `git checkout REF` (in the clone's directory, or
// with -C DIR) records the ref. Nothing is fetched. Other git commands are
// benign (status 0, no output).
func (sb *sandbox) git(ctx context.Context, hc interp.HandlerContext, args []string, site callSite) error {
	dir := hc.Dir
	i := 1
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		switch args[i] {
		case "-C":
			if i+1 < len(args) {
				d := args[i+1]
				if !filepath.IsAbs(d) {
					d = filepath.Join(dir, d)
				}
				dir = filepath.Clean(d)
				i++
			}
		case "-c":
			i++
		}
		i++
	}
	if i >= len(args) {
		return nil
	}
	sub, rest := args[i], args[i+1:]
	switch sub {
	case "clone":
		var pos []string
		branch := ""
		for j := 0; j < len(rest); j++ {
			a := rest[j]
			switch {
			case a == "--branch" || a == "-b":
				if j+1 < len(rest) {
					branch = rest[j+1]
					j++
				}
			case strings.HasPrefix(a, "--branch="):
				branch = strings.TrimPrefix(a, "--branch=")
			case a == "--depth" || a == "--origin" || a == "-o" || a == "--reference" || a == "--filter" ||
				a == "-j" || a == "--jobs" || a == "-c" || a == "--config" || a == "--separate-git-dir" || a == "--template":
				j++
			case strings.HasPrefix(a, "-"):
			default:
				pos = append(pos, a)
			}
		}
		if len(pos) == 0 {
			return nil
		}
		target := ""
		if len(pos) > 1 {
			target = pos[1]
		} else {
			target = strings.TrimSuffix(path.Base(strings.TrimRight(pos[0], "/")), ".git")
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		target = filepath.Clean(target)
		sb.mu.Lock()
		n := len(sb.run.Clones)
		sb.run.Clones = append(sb.run.Clones, GitClone{URL: pos[0], Branch: branch, Dir: target, At: site.at})
		sb.mu.Unlock()
		// The clone is an empty directory of the run's own that exists
		// only in memory (nothing is fetched or made on disk): what the
		// launcher copies into it shows through mounts.
		real := fmt.Sprintf("%s/clone-%d", cloneDirRoot, n)
		sb.fsmu.Lock()
		sb.cloneDirs = append(sb.cloneDirs, real)
		sb.fsmu.Unlock()
		sb.mount(target, real)
	case "checkout", "switch":
		ref := ""
		for j := 0; j < len(rest); j++ {
			a := rest[j]
			if a == "--" {
				break
			}
			if strings.HasPrefix(a, "-") {
				if a == "-b" || a == "-B" || a == "-c" || a == "-C" {
					j++ // a new branch name, then the start point
				}
				continue
			}
			ref = a
			break
		}
		if ref == "" {
			return nil
		}
		sb.mu.Lock()
		defer sb.mu.Unlock()
		for k := len(sb.run.Clones) - 1; k >= 0; k-- {
			c := &sb.run.Clones[k]
			if within(dir, c.Dir) {
				c.Ref, c.RefAt = ref, site.at
				return nil
			}
		}
	case "rev-parse":
		if site.kind == ctxPlain {
			return nil
		}
		if len(rest) == 1 && rest[0] == "HEAD" {
			sb.mu.Lock()
			var clone *GitClone
			for k := len(sb.run.Clones) - 1; k >= 0; k-- {
				if within(dir, sb.run.Clones[k].Dir) {
					clone = &sb.run.Clones[k]
					break
				}
			}
			sb.mu.Unlock()
			if clone != nil {
				if sha := sb.cloneCommit(*clone); sha != "" {
					say(hc.Stdout, fmt.Sprintln(sha))
					return nil
				}
			}
		}
		why := fmt.Sprintf("%s in %s: the commit it names is not known to the sandbox", strings.Join(ShortArgv(args), " "), ctxWord(site.kind))
		sb.mu.Lock()
		if sb.stopReason == nil {
			sb.stopReason = &Unsupported{Pos: site.at, Command: "git", Msg: why}
		}
		sb.mu.Unlock()
		sb.stop()
		return errStopped
	}
	return nil
}

// cloneCommit is the commit a clone's checkout names, when known: a full
// commit id, or a tag Config.TagCommit knows; "" for a branch (it moves)
// or anything else.
func (sb *sandbox) cloneCommit(c GitClone) string {
	ref := c.Checkout()
	if isFullSHA(ref) {
		return ref
	}
	if sb.cfg.TagCommit != nil {
		return sb.cfg.TagCommit(c.Repo(), ref)
	}
	return ""
}

func isFullSHA(s string) bool {
	return len(s) == 40 && strings.Trim(s, "0123456789abcdef") == ""
}

// cpInto records `cp [-r] SRC… DST` of files or directories of the read
// roots: DST shows SRC from then on (a mount: nothing is written). A
// directory needs -r (or -a); with -T, or a SRC ending in "/.", DST is
// SRC's copy itself; otherwise, when DST is an existing directory (or ends
// in "/", or several sources are given), each copy is DST/<base of SRC>.
// Copies of anything the sandbox cannot read are not recorded.
func (sb *sandbox) cpInto(ctx context.Context, hc interp.HandlerContext, args []string, site callSite) {
	recursive, noTarget := false, false
	var ops []string
	for _, a := range args[1:] {
		switch {
		case a == "--no-target-directory":
			noTarget = true
		case strings.HasPrefix(a, "--"):
			if a == "--recursive" || a == "--archive" {
				recursive = true
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			recursive = recursive || strings.ContainsAny(a, "rRa")
			noTarget = noTarget || strings.Contains(a, "T")
		default:
			ops = append(ops, a)
		}
	}
	if len(ops) < 2 || noTarget && len(ops) != 2 {
		return
	}
	dst := ops[len(ops)-1]
	if !filepath.IsAbs(dst) {
		dst = filepath.Join(hc.Dir, dst)
	}
	intoDir := len(ops) > 2 || strings.HasSuffix(ops[len(ops)-1], "/")
	dst = filepath.Clean(dst)
	if rd := sb.real(dst); sb.isCloneDir(rd) || sb.vdirs[rd] || sb.jail.isDir(rd) {
		intoDir = true
	}
	for _, src := range ops[:len(ops)-1] {
		realSrc := sb.abs(ctx, src)
		st, err := sb.jail.stat(realSrc, true)
		if !sb.jail.contains(realSrc) || errors.Is(err, errJailEscape) {
			// A source out of the sandbox's view (outside the checkout, or
			// a link out of it): what lands at the destination is not
			// known.
			to := dst
			if intoDir && !noTarget {
				to = filepath.Join(dst, filepath.Base(filepath.Clean(src)))
			}
			sb.mu.Lock()
			sb.run.Copies = append(sb.run.Copies, CopyInto{Src: src, Dst: to, At: site.at, Opaque: true})
			sb.mu.Unlock()
			continue
		}
		if err != nil || st.IsDir() && !recursive || !st.IsDir() && !st.Mode().IsRegular() {
			continue
		}
		to := dst
		if intoDir && !noTarget && !(st.IsDir() && strings.HasSuffix(src, "/.")) {
			to = filepath.Join(dst, filepath.Base(filepath.Clean(realSrc)))
		}
		sb.mount(to, realSrc)
		sb.mu.Lock()
		sb.run.Copies = append(sb.run.Copies, CopyInto{Src: realSrc, Dst: to, At: site.at})
		sb.mu.Unlock()
	}
}

// cloneDirRoot holds the logical directories standing for git clones: a
// path with a NUL byte, which is never a file on any disk.
const cloneDirRoot = "/\x00cookbook-sync-clones"

// isCloneDir reports whether the real path p is a git clone's directory.
func (sb *sandbox) isCloneDir(p string) bool {
	sb.fsmu.Lock()
	defer sb.fsmu.Unlock()
	for _, d := range sb.cloneDirs {
		if p == d {
			return true
		}
	}
	return false
}

// inClone reports whether the real path p is inside a git clone's
// directory (and not a directory the run made there).
func (sb *sandbox) inClone(p string) bool {
	sb.fsmu.Lock()
	defer sb.fsmu.Unlock()
	for _, d := range sb.cloneDirs {
		if within(p, d) && p != d {
			return true
		}
	}
	return false
}
