package infx

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/interp"
)

// GitClone is one `git clone` a run made (a multi-node launcher cloning
// srt-slurm: InferenceX runners/launch_*.sh "Cloning srt-slurm
// repository..."), with the ref it checked out after.
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

// SrtctlApply is the `srtctl apply -f FILE[:selector]` that ends a
// multi-node launcher's run in the sandbox: what it submits is rendered by
// package infx/srtslurm, so the run stops there (nothing after it changes
// what the job runs).
type SrtctlApply struct {
	Argv []string `json:"argv"`
	// File is the -f value as written (FILE[:selector]); Dir the logical
	// working directory it is relative to.
	File string `json:"file"`
	Dir  string `json:"dir"`
	At   Pos    `json:"at"`
	// Env is the exported environment at the call (NAME=value, sorted).
	Env []string `json:"env,omitempty"`
	// SetupScript is the setup script override the job gets: --setup-script,
	// else SRTCTL_SETUP_SCRIPT exported by the launcher (sbatch passes the
	// environment on; srtctl do_sweep reads it).
	SetupScript string `json:"setupScript,omitempty"`
}

// errSrtctlApplied ends a run at its srtctl apply (see SrtctlApply).
var errSrtctlApplied = errors.New("srtctl apply reached")

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
				if sha := cloneCommit(*clone); sha != "" {
					fmt.Fprintln(hc.Stdout, sha)
					return nil
				}
			}
		}
		why := fmt.Sprintf("%s in %s: the commit it names is not known to the sandbox", strings.Join(shortArgv(args), " "), ctxWord(site.kind))
		sb.mu.Lock()
		if sb.stopReason == nil {
			sb.stopReason = &StopReason{At: site.at, Command: "git", Reason: why}
		}
		sb.mu.Unlock()
		sb.stop()
		return errStopped
	}
	return nil
}

// cloneCommit is the commit a clone's checkout names, when known: a full
// commit id, or a release tag of NVIDIA/srt-slurm (srtSlurmTags); "" for
// a branch (it moves) or anything else.
func cloneCommit(c GitClone) string {
	ref := c.Checkout()
	if isFullSHA(ref) {
		return ref
	}
	if c.Repo() == SrtSlurmRepo {
		return srtSlurmTags[ref]
	}
	return ""
}

func isFullSHA(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

// srtSlurmTagOf names the release tag of NVIDIA/srt-slurm a ref pinned by
// commit (full or abbreviated to 7+ hex digits) is at, or "" when it is at
// none.
func srtSlurmTagOf(ref string) string {
	if len(ref) < 7 || len(ref) > 40 {
		return ""
	}
	for _, r := range ref {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return ""
		}
	}
	for tag, sha := range srtSlurmTags {
		if strings.HasPrefix(sha, ref) {
			return tag
		}
	}
	return ""
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

// srtctl records `srtctl apply -f FILE` (the job submission of a
// multi-node launcher) and ends the run there (errSrtctlApplied). Other
// srtctl commands are benign.
func (sb *sandbox) srtctl(hc interp.HandlerContext, args []string, site callSite) error {
	if len(args) < 2 || args[1] != "apply" {
		return nil
	}
	file := ""
	for j := 2; j < len(args); j++ {
		switch a := args[j]; {
		case (a == "-f" || a == "--file" || a == "--config") && j+1 < len(args):
			file = args[j+1]
			j++
		case strings.HasPrefix(a, "--file="), strings.HasPrefix(a, "-f="):
			_, file, _ = strings.Cut(a, "=")
		}
	}
	setup := ""
	for j := 2; j < len(args); j++ {
		if args[j] == "--setup-script" && j+1 < len(args) {
			setup = args[j+1]
		} else if v, ok := strings.CutPrefix(args[j], "--setup-script="); ok {
			setup = v
		}
	}
	if setup == "" {
		if v := hc.Env.Get("SRTCTL_SETUP_SCRIPT"); v.Exported && v.String() != "" {
			setup = v.String()
		}
	}
	sb.mu.Lock()
	if sb.run.Srtctl == nil {
		sb.run.Srtctl = &SrtctlApply{Argv: append([]string(nil), args...), File: file, Dir: hc.Dir, At: site.at, Env: exported(hc.Env), SetupScript: setup}
	}
	sb.mu.Unlock()
	sb.stop()
	return errSrtctlApplied
}

// installers are the tool installers launchers pipe from curl into a
// shell: the sandbox models a successful install (the tool is then on the
// runner: onRunner) and the script text is not fetched or run.
var installers = map[string]string{
	"astral.sh": "uv", // https://astral.sh/uv/install.sh (runners/launch_*.sh "Installing srtctl...")
}

// installerURL reports whether a curl command line fetches a known tool
// installer (installers).
func installerURL(args []string) bool {
	for _, a := range args[1:] {
		if u, err := url.Parse(a); err == nil && u.Scheme == "https" {
			if _, ok := installers[u.Host]; ok && strings.HasSuffix(u.Path, "/install.sh") {
				return true
			}
		}
	}
	return false
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

// srtSlurmTags are the commits of the NVIDIA/srt-slurm release tags the
// InferenceX launchers pin (v1.0.25 … v1.0.68, read with `git ls-remote
// --tags https://github.com/NVIDIA/srt-slurm`): a launcher that checks
// `git rev-parse HEAD` of its clone gets the tag's commit, and a ref
// pinned by commit is rendered with the profile of the tag at that commit.
var srtSlurmTags = map[string]string{
	"v1.0.25": "3435776cd6db4c14f8b771ff7a3976deb62fe133",
	"v1.0.26": "b959ff7d78c396f3f47bb88a115d8a492326aafe",
	"v1.0.27": "f6eb42aee4664207dcf2ec601e3bd57bd527efd6",
	"v1.0.28": "ec7dd03e5c5cf5ca134b87fa9a85d46943ff3bc9",
	"v1.0.29": "c1b6b5c97f323baefad577d70c4e8392b6f537d9",
	"v1.0.30": "b93276c2d89992b8513ed44e830203bcfa16591f",
	"v1.0.31": "0f31474a9b3831af28b5f44c95913776daed9f38",
	"v1.0.32": "9d6bd641b61b44132404630fa055d81d3ddd45b0",
	"v1.0.33": "38723f6a6bf9bf5fb047ca940b1f19eefe6626ad",
	"v1.0.34": "a7a45c9a3e7d7bec5f00cd32b4d9b9439226b34b",
	"v1.0.35": "607e01b88bde16232816d9e84c8f27da31168f49",
	"v1.0.36": "cb651682117df129162cd276cf567ec70dc57b36",
	"v1.0.37": "6fd6000035c8d698d08a2807fcc93b462f658dd6",
	"v1.0.38": "c180328b98c3793ca84a1e24a030f90545eb7d5d",
	"v1.0.39": "a8be73c4f71ef5bd6f82e66f1013f5b8d359979b",
	"v1.0.40": "61f1e23ba8f63ac18f9658abd3ffc2a3821f4a0e",
	"v1.0.41": "0b1b3ab42db2ec08d318453b058a9ec2f397fca9",
	"v1.0.42": "6ae919e04e970134e4f3ecb59a2a563f0291eb95",
	"v1.0.43": "4fdecffa755844e0d06d80b4681ca4ba3cd47f54",
	"v1.0.44": "04e87fcc505d6d851451781a5499ca19a02ec2b4",
	"v1.0.45": "9d8d92b20c350a5d42f0709f5a0b64e30eb37d33",
	"v1.0.46": "cf2aacba17d614e9a551c58008aa13bf8c0c04e6",
	"v1.0.47": "7b0654ab119055b3ba5ced25ac14ab9566f3d049",
	"v1.0.48": "50cc900ad8bcf1f349362507a1d43ef5eb03aa44",
	"v1.0.49": "e32e591067fa90cae3641f46d8ff5e0f4c6e82c8",
	"v1.0.50": "e4019633c9e2bc25f38c44b81edf52bb0504d937",
	"v1.0.51": "2580a31ea55bc9e26ceab572f4884baffe1db154",
	"v1.0.52": "a8c415b594b1e37eb0528dd0e9dadc755c84da35",
	"v1.0.53": "217f94387abeddfed7149a71955dc523e07cd765",
	"v1.0.54": "d1c289bda5c31b9923919a36b6d8adac12a57a80",
	"v1.0.55": "7e6a9b648450f3558332bb2cd8fbdae8cedb25bb",
	"v1.0.56": "d640707ec0ede38f2e64cfb4b9e08eca9b11f1f9",
	"v1.0.57": "6e842d5d602b79ed36e440797e91a2fee28fca10",
	"v1.0.58": "3d39c9362bccbe9c714969efb6cf1ad4d5fbe950",
	"v1.0.59": "be40f34507586c005e704df8ea34f4e2a5fc8858",
	"v1.0.60": "41cd37192df730b5fc2242b58cc70fc0707fa0c9",
	"v1.0.61": "f6f9af4903db78c1261fd5930f01fde0f4f5cba5",
	"v1.0.62": "a19d945127fda752c05b54ab2b42be977f9c68e0",
	"v1.0.63": "465c6d0b1866150d879076a0742710ff31310b79",
	"v1.0.64": "c8d6fd1744fb6227d750425a536b3402660e41c1",
	"v1.0.65": "5201fe856ffbe3f0d2b8be6f2f40e09c52434c42",
	"v1.0.66": "2c3dc614cc5b6f473da0ab78f8a5c770cd60176d",
	"v1.0.67": "9b725227410470bf443ae2a5613f7838f50b52d9",
	"v1.0.68": "c88ef731636890ff6385a783e152c1790e15b194",
}
