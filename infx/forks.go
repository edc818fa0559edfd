package infx

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/go-git/go-git/v5"

	"github.com/cookbook-sync/cookbook-sync/infx/srtslurm"
)

// SrtSlurmCheckout is a local checkout of one srt-slurm repository, as
// `--srt-slurm-dir OWNER/NAME[@REF]=DIR` gives it (ParseSrtSlurmDir): the
// checkout an InferenceX launcher's `git clone` of that repository
// (runners/launch_*.sh) stands for.
type SrtSlurmCheckout struct {
	// Repo is the repository, "owner/name" on GitHub (compared without
	// regard to case, as GitHub does): NVIDIA/srt-slurm or a fork such as
	// functionstackx/srt-slurm-nv.
	Repo string `json:"repo"`
	// Ref is the ref the checkout stands for: a branch or tag name, or a
	// commit (7 to 40 lower-case hex digits, matched by prefix); "" stands
	// for every ref of Repo.
	Ref string `json:"ref,omitempty"`
	// Dir is the checkout's work tree.
	Dir string `json:"dir"`
}

// Flag is the checkout as a --srt-slurm-dir value with dir for its
// directory: "owner/name@ref=dir", "owner/name=dir" without a ref.
func (c SrtSlurmCheckout) Flag(dir string) string {
	s := c.Repo
	if c.Ref != "" {
		s += "@" + c.Ref
	}
	return s + "=" + dir
}

var (
	reRepoForm = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9-]*)/([A-Za-z0-9._-]+)(?:@(.*))?$`)
	reHexRef   = regexp.MustCompile(`^[0-9a-f]{7,40}$`)
	reOwnerRep = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$`)
)

// ParseSrtSlurmDir reads one --srt-slurm-dir value: DIR (a checkout of
// NVIDIA/srt-slurm, Ref ""), or OWNER/NAME[@REF]=DIR (a checkout of that
// repository at REF). A value is of the second form when it holds '=' and
// does not start with '/', '.' or '~' (a directory whose name holds '='
// is written ./NAME or absolute); the first '=' ends OWNER/NAME[@REF].
// Errors name the value: an empty value or DIR, an OWNER/NAME that is not a
// GitHub repository name, an empty REF or one git does not allow (space,
// control characters, ~ ^ : ? * [ \, "..", "@{").
func ParseSrtSlurmDir(v string) (SrtSlurmCheckout, error) {
	if v == "" {
		return SrtSlurmCheckout{}, errors.New(`"": empty (want DIR or OWNER/NAME[@REF]=DIR)`)
	}
	left, dir, ok := strings.Cut(v, "=")
	if !ok || strings.HasPrefix(v, "/") || strings.HasPrefix(v, ".") || strings.HasPrefix(v, "~") {
		return SrtSlurmCheckout{Repo: SrtSlurmRepo, Dir: v}, nil
	}
	m := reRepoForm.FindStringSubmatch(left)
	if m == nil || m[2] == "." || m[2] == ".." {
		return SrtSlurmCheckout{}, fmt.Errorf("%q: %q is not OWNER/NAME[@REF] (want DIR or OWNER/NAME[@REF]=DIR, e.g. functionstackx/srt-slurm-nv@df5baa93=../srt-slurm-nv; a directory whose name holds '=' is written ./%s)", v, left, v)
	}
	c := SrtSlurmCheckout{Repo: m[1] + "/" + m[2], Dir: dir}
	if strings.Contains(left, "@") {
		c.Ref = m[3]
		if c.Ref == "" {
			return SrtSlurmCheckout{}, fmt.Errorf("%q: empty REF after '@' (leave out @REF for any ref of %s)", v, c.Repo)
		}
		if strings.ContainsAny(c.Ref, " ~^:?*[\\\x7f") || strings.Contains(c.Ref, "..") || strings.Contains(c.Ref, "@{") ||
			strings.IndexFunc(c.Ref, func(r rune) bool { return r < 0x20 }) >= 0 {
			return SrtSlurmCheckout{}, fmt.Errorf("%q: REF %q is not a git ref or commit", v, c.Ref)
		}
	}
	if dir == "" {
		return SrtSlurmCheckout{}, fmt.Errorf("%q: empty DIR after '='", v)
	}
	if strings.EqualFold(c.Repo, SrtSlurmRepo) {
		c.Repo = SrtSlurmRepo
	}
	return c, nil
}

// serves reports whether the checkout stands for repo at ref: the same
// repository and, when c.Ref is set, the same ref (commits: one a prefix
// of the other, both of at least 7 hex digits).
func (c SrtSlurmCheckout) serves(repo, ref string) bool {
	if !strings.EqualFold(c.Repo, repo) {
		return false
	}
	if c.Ref == "" || c.Ref == ref {
		return true
	}
	return reHexRef.MatchString(c.Ref) && reHexRef.MatchString(ref) && (strings.HasPrefix(ref, c.Ref) || strings.HasPrefix(c.Ref, ref))
}

// forkCheckout returns the checkout of ws.SrtSlurmForks that stands for
// repo at ref: one given for that ref before one given for every ref.
func (ws *Workspace) forkCheckout(repo, ref string) (SrtSlurmCheckout, bool) {
	var any *SrtSlurmCheckout
	for i, c := range ws.SrtSlurmForks {
		if !c.serves(repo, ref) {
			continue
		}
		if c.Ref != "" {
			return c, true
		}
		if any == nil {
			any = &ws.SrtSlurmForks[i]
		}
	}
	if any != nil {
		return *any, true
	}
	return SrtSlurmCheckout{}, false
}

// forkState is what a fork checkout is, read once per directory: its HEAD
// commit ("" when it is not a git work tree: isGit false) and how its
// src/srtctl matches the NVIDIA releases (err: it could not be read).
type forkState struct {
	isGit bool
	head  string
	match srtslurm.SrtctlMatch
	err   error
}

// fork reads (once per directory, safe for concurrent use) what the
// checkout at dir is.
func (ws *Workspace) fork(dir string) *forkState {
	ws.forkMu.Lock()
	defer ws.forkMu.Unlock()
	if st := ws.forkStates[dir]; st != nil {
		return st
	}
	st := &forkState{}
	st.head, st.isGit = CheckoutHead(dir)
	tree, files, err := srtslurm.HashSrtctl(dir)
	if err == nil {
		st.match, err = srtslurm.MatchSrtctl(tree, files)
	}
	st.err = err
	if ws.forkStates == nil {
		ws.forkStates = map[string]*forkState{}
	}
	ws.forkStates[dir] = st
	return st
}

// CheckoutHead reads the commit checked out in dir (go-git; 40 hex
// digits, "" when HEAD names no commit yet) and whether dir is the root of
// a git work tree at all (false: a plain directory, or a directory inside
// a work tree whose root is elsewhere: nothing is looked up above dir).
func CheckoutHead(dir string) (commit string, isGit bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	r, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: false, EnableDotGitCommonDir: true})
	if err != nil {
		return "", false
	}
	if h, err := r.Head(); err == nil {
		return h.Hash().String(), true
	}
	return "", true
}

// forkNeeds says which checkout a fork point needs and which flag takes
// it: "check out OWNER/NAME at commit C and pass --srt-slurm-dir
// OWNER/NAME@C8=DIR" (C8: the commit's first 8 digits), "at branch B"
// for a branch, "at its default branch" without a ref.
func forkNeeds(repo, ref string) string {
	switch {
	case ref == "":
		return fmt.Sprintf("check out %s at its default branch and pass --srt-slurm-dir %s=DIR", repo, repo)
	case reHexRef.MatchString(ref):
		return fmt.Sprintf("check out %s at commit %s and pass --srt-slurm-dir %s@%s=DIR", repo, ref, repo, ref[:min(8, len(ref))])
	default:
		return fmt.Sprintf("check out %s at branch %s and pass --srt-slurm-dir %s@%s=DIR", repo, ref, repo, ref)
	}
}

// maxNamed is how many differing files a note names before "and N more".
const maxNamed = 12

// forkPoint decides how a point whose launcher clones the srt-slurm fork
// sub.Repo renders: with the profile of the NVIDIA release whose
// src/srtctl is identical to the checkout's (returned as version, with
// the checkout as cfg and notes for the reader), or not at all. Errors
// (*PointError, unsupported): no checkout given for the fork (the note
// says which to check out and the flag), a fork not on GitHub, a checkout
// at another commit than the launcher's pin, an src/srtctl that cannot be
// read or is no NVIDIA release's (the note names the closest release and
// the files that differ); missing: the recipe is not in the checkout.
func (ws *Workspace) forkPoint(p Point, sub *Submission, where string) (_ Point, version string, cfg srtConfigs, notes []string, _ error) {
	unsupported := func(format string, a ...any) error {
		return &PointError{Status: StatusUnsupported, Pos: p.RefPos, Note: fmt.Sprintf(
			"the launcher submits %s with the srt-slurm fork %s: ", sub.File, where) + fmt.Sprintf(format, a...)}
	}
	if !reOwnerRep.MatchString(sub.Repo) {
		return p, "", cfg, nil, unsupported("a repository that is not on GitHub, whose rendering rules are not covered")
	}
	co, ok := ws.forkCheckout(sub.Repo, sub.Ref)
	if !ok {
		return p, "", cfg, nil, unsupported("it renders only from its checkout, with the rules of the NVIDIA/srt-slurm release its src/srtctl is identical to: %s", forkNeeds(sub.Repo, sub.Ref))
	}
	st := ws.fork(co.Dir)
	given := fmt.Sprintf("the checkout given for %s (%s)", co.Repo, co.Dir)
	commitPin := reHexRef.MatchString(sub.Ref)
	switch {
	case !st.isGit && commitPin:
		notes = append(notes, fmt.Sprintf("%s is not a git work tree: that it is at commit %s could not be checked", given, sub.Ref))
	case !st.isGit:
		notes = append(notes, fmt.Sprintf("%s is not a git work tree: its commit could not be checked; the launcher takes %s at run time (possible commit drift)", given, sub.RefText()))
	case st.head == "":
		return p, "", cfg, nil, unsupported("%s has no HEAD commit: %s", given, forkNeeds(sub.Repo, sub.Ref))
	case commitPin && !strings.HasPrefix(st.head, sub.Ref):
		return p, "", cfg, nil, unsupported("%s is at commit %s, the launcher runs commit %s: %s", given, st.head, sub.Ref, forkNeeds(sub.Repo, sub.Ref))
	case !commitPin:
		notes = append(notes, fmt.Sprintf("%s is at commit %s; the launcher takes %s at run time (possible commit drift)", given, st.head[:8], sub.RefText()))
	}
	if st.err != nil {
		return p, "", cfg, nil, unsupported("%s: %s", given, oneLine(st.err.Error()))
	}
	if st.match.Release == "" {
		named := st.match.Differs
		more := ""
		if len(named) > maxNamed {
			more = fmt.Sprintf(" and %d more", len(named)-maxNamed)
			named = named[:maxNamed]
		}
		return p, "", cfg, nil, unsupported("its src/srtctl (%s, tree %s) is no NVIDIA/srt-slurm release's: it differs from the closest, %s, in %d %s (%s%s), so its rendering rules are not covered",
			co.Dir, st.match.Tree[:min(8, len(st.match.Tree))], st.match.Closest, len(st.match.Differs), plural(len(st.match.Differs), "file"), strings.Join(named, ", "), more)
	}
	version, err := srtslurm.ProfileFor(st.match.Release)
	if err != nil {
		return p, "", cfg, nil, unsupported("its src/srtctl is NVIDIA/srt-slurm %s's, whose injected flags and env are not covered (%v)", st.match.Release, err)
	}
	same := st.match.Release
	if len(st.match.Same) > 1 {
		same = strings.Join(st.match.Same, " = ")
	}
	notes = append([]string{fmt.Sprintf("its src/srtctl is identical to NVIDIA/srt-slurm %s (tree %s): rendered with that release's injected flags and env", same, st.match.Tree[:8])}, notes...)
	cfg = srtConfigs{dir: co.Dir, version: sub.Repo + "@" + sub.RefText()}
	if sub.InCheckout {
		return p, version, cfg, notes, nil
	}
	f := filepath.Join(co.Dir, filepath.FromSlash(sub.CloneRel))
	if !isFile(f) {
		return p, "", cfg, nil, &PointError{Status: StatusMissing, Pos: p.RefPos, Note: fmt.Sprintf(
			"the launcher submits %s of its srt-slurm fork %s, which is not in %s", sub.CloneRel, where, given)}
	}
	p.Recipe = f
	return p, version, cfg, append(notes, fmt.Sprintf("recipe %s read from %s", sub.CloneRel, given)), nil
}

// plural is word with an s appended when n is not 1 ("file", "files").
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
