package infx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// TestParseSrtSlurmDir: the forms of --srt-slurm-dir and what is refused,
// each error naming the value.
func TestParseSrtSlurmDir(t *testing.T) {
	for v, want := range map[string]SrtSlurmCheckout{
		"../srt-slurm":               {Repo: SrtSlurmRepo, Dir: "../srt-slurm"},
		"/abs/a=b":                   {Repo: SrtSlurmRepo, Dir: "/abs/a=b"},
		"./x/y=z":                    {Repo: SrtSlurmRepo, Dir: "./x/y=z"},
		"srt-slurm":                  {Repo: SrtSlurmRepo, Dir: "srt-slurm"},
		"nvidia/srt-slurm=d":         {Repo: SrtSlurmRepo, Dir: "d"},
		"NVIDIA/srt-slurm@v1.0.44=d": {Repo: SrtSlurmRepo, Ref: "v1.0.44", Dir: "d"},
		"functionstackx/srt-slurm-nv@df5baa93=../f=g":         {Repo: "functionstackx/srt-slurm-nv", Ref: "df5baa93", Dir: "../f=g"},
		"cquil11/srt-slurm-nv@cam/sa-submission-q2-2026=/w/c": {Repo: "cquil11/srt-slurm-nv", Ref: "cam/sa-submission-q2-2026", Dir: "/w/c"},
		"edwingao28/srt-slurm=e":                              {Repo: "edwingao28/srt-slurm", Dir: "e"},
	} {
		got, err := ParseSrtSlurmDir(v)
		if err != nil || got != want {
			t.Errorf("%q → %+v, %v; want %+v", v, got, err, want)
		}
	}
	for v, want := range map[string]string{
		"":                          "empty",
		"foo=bar":                   `"foo=bar": "foo" is not OWNER/NAME[@REF]`,
		"a/b/c=d":                   `"a/b/c" is not OWNER/NAME[@REF]`,
		"a/..=d":                    "is not OWNER/NAME[@REF]",
		"owner/name@=d":             "empty REF after '@'",
		"owner/name@a b=d":          `REF "a b" is not a git ref`,
		"owner/name@a..b=d":         "is not a git ref",
		"owner/name@df5baa93=":      "empty DIR after '='",
		"functionstackx@df5baa93=d": "is not OWNER/NAME[@REF]",
	} {
		if _, err := ParseSrtSlurmDir(v); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q → %v, want %q", v, err, want)
		}
	}
	if got := (SrtSlurmCheckout{Repo: "o/n", Ref: "r"}).Flag("DIR"); got != "o/n@r=DIR" {
		t.Errorf("Flag %q", got)
	}
}

// TestForkCheckoutMatch: a checkout for a ref serves that ref (a commit by
// prefix either way, at least 7 digits) before one for every ref of the
// repository; the repository is matched without regard to case.
func TestForkCheckoutMatch(t *testing.T) {
	ws := &Workspace{SrtSlurmForks: []SrtSlurmCheckout{
		{Repo: "o/fork", Dir: "any"},
		{Repo: "O/Fork", Ref: "df5baa93", Dir: "pinned"},
		{Repo: "o/fork", Ref: "cam/b", Dir: "branch"},
	}}
	for _, c := range []struct{ repo, ref, dir string }{
		{"o/fork", "df5baa93f4caf5169dea2a4236ad2cc742fe40e7", "pinned"},
		{"o/fork", "df5baa9", "pinned"},
		{"o/fork", "df5baa94", "any"},
		{"o/fork", "cam/b", "branch"},
		{"o/fork", "", "any"},
		{"other/fork", "cam/b", ""},
	} {
		got, ok := ws.forkCheckout(c.repo, c.ref)
		if got.Dir != c.dir || ok != (c.dir != "") {
			t.Errorf("%s@%s → %q %v, want %q", c.repo, c.ref, got.Dir, ok, c.dir)
		}
	}
}

// forkPoint0 is point 0 of m2-fp8-h200-dynamo-sglang in the workspace at
// dir: its launcher clones someone/srt-slurm-fork at commit 01234567… and
// submits the clone's own recipes/sglang/m1/agentic/disagg-1p1d.yaml.
func forkPoint0(t *testing.T, dir string, forks ...SrtSlurmCheckout) (*Workspace, Point) {
	t.Helper()
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ws.SrtSlurmForks = forks
	pts, err := ws.Points("m2-fp8-h200-dynamo-sglang")
	if err != nil || len(pts) == 0 {
		t.Fatalf("points: %v", err)
	}
	return ws, pts[0]
}

// wantUnsupported fails unless err is an unsupported *PointError whose
// note holds want.
func wantUnsupported(t *testing.T, err error, want string) {
	t.Helper()
	var pe *PointError
	if !errors.As(err, &pe) || pe.Status != StatusUnsupported || !strings.Contains(pe.Note, want) {
		t.Errorf("got %v\nwant unsupported with %q", err, want)
	}
}

// TestForkWithoutCheckout: a fork point without its checkout says which
// repository and commit to check out and the flag that takes it; a
// checkout of another ref of the fork does not serve it.
func TestForkWithoutCheckout(t *testing.T) {
	const want = "the launcher submits recipes/sglang/m1/agentic/disagg-1p1d.yaml with the srt-slurm fork someone/srt-slurm-fork@0123456789abcdef0123456789abcdef01234567 (runners/launch_h200-x.sh:16:5): " +
		"it renders only from its checkout, with the rules of the NVIDIA/srt-slurm release its src/srtctl is identical to: " +
		"check out someone/srt-slurm-fork at commit 0123456789abcdef0123456789abcdef01234567 and pass --srt-slurm-dir someone/srt-slurm-fork@01234567=DIR"
	for _, forks := range [][]SrtSlurmCheckout{nil, {{Repo: "someone/srt-slurm-fork", Ref: "89abcdef", Dir: t.TempDir()}}} {
		ws, p := forkPoint0(t, "testdata/multinode", forks...)
		_, err := ws.Render(context.Background(), p, Options{})
		var pe *PointError
		if !errors.As(err, &pe) || pe.Status != StatusUnsupported || pe.Note != want {
			t.Errorf("forks %v: got %v\nwant %s", forks, err, want)
		}
	}
	for ref, needs := range map[string]string{
		"":      "check out o/f at its default branch and pass --srt-slurm-dir o/f=DIR",
		"cam/b": "check out o/f at branch cam/b and pass --srt-slurm-dir o/f@cam/b=DIR",
	} {
		if got := forkNeeds("o/f", ref); got != needs {
			t.Errorf("forkNeeds(%q) = %q", ref, got)
		}
	}
}

// gitCommitAll makes dir a git work tree with one commit of everything in
// it and returns the commit id.
func gitCommitAll(t *testing.T, dir string) string {
	t.Helper()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	h, err := wt.Commit("fork", &git.CommitOptions{Author: &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1e9, 0)}})
	if err != nil {
		t.Fatal(err)
	}
	return h.String()
}

// writeFile writes content to dir/rel, making its directories.
func writeFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	f := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestForkCheckoutCommit: a git checkout at another commit than the
// launcher pins is unsupported, naming both and what to check out; at the
// pinned commit, an src/srtctl that is no release's is unsupported, naming
// the closest release and the files that differ.
func TestForkCheckoutCommit(t *testing.T) {
	fork := t.TempDir()
	writeFile(t, fork, "src/srtctl/__init__.py", "# not srtctl\n")
	head := gitCommitAll(t, fork)
	co := SrtSlurmCheckout{Repo: "someone/srt-slurm-fork", Ref: "01234567", Dir: fork}
	ws, p := forkPoint0(t, "testdata/multinode", co)
	_, err := ws.Render(context.Background(), p, Options{})
	wantUnsupported(t, err, "the checkout given for someone/srt-slurm-fork ("+fork+") is at commit "+head+
		", the launcher runs commit 0123456789abcdef0123456789abcdef01234567: check out someone/srt-slurm-fork at commit 0123456789abcdef0123456789abcdef01234567 and pass --srt-slurm-dir someone/srt-slurm-fork@01234567=DIR")

	// the launcher pins the checkout's commit
	dir := editedMultinode(t, nil, func(l string) string {
		return strings.Replace(l, "0123456789abcdef0123456789abcdef01234567", head, 1)
	})
	co.Ref = ""
	ws, p = forkPoint0(t, dir, co)
	_, err = ws.Render(context.Background(), p, Options{})
	wantUnsupported(t, err, "its src/srtctl ("+fork+", tree ")
	wantUnsupported(t, err, "is no NVIDIA/srt-slurm release's: it differs from the closest, ")
	wantUnsupported(t, err, " more), so its rendering rules are not covered") // 12 files named, then the count
}

// copySrtctl copies the NVIDIA/srt-slurm checkout of ../shared's src/srtctl
// (c88ef731, v1.0.68) into a fork work tree in a temporary directory, with
// the fixture recipe the m2 launcher submits; it returns the directory.
func copySrtctl(t *testing.T) string {
	t.Helper()
	src := testutil.SharedPath(t, "corpus/upstream/srt-slurm/src/srtctl")
	fork := t.TempDir()
	if err := os.CopyFS(filepath.Join(fork, "src", "srtctl"), os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	recipe, err := os.ReadFile("testdata/multinode/benchmarks/multi_node/srt-slurm-recipes/sglang/m1/agentic/disagg-1p1d.yaml")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, fork, "recipes/sglang/m1/agentic/disagg-1p1d.yaml", string(recipe))
	return fork
}

// TestCorpusForkCheckout: a fork whose src/srtctl is NVIDIA's v1.0.68 byte
// for byte renders with v1.0.68's injected flags and env, its recipe read
// from the fork checkout (a plain directory: a note says its commit could
// not be checked; a git checkout at the launcher's pin: no such note); one
// byte changed in backends/sglang.py makes it unsupported, naming that file.
func TestCorpusForkCheckout(t *testing.T) {
	fork := copySrtctl(t)
	co := SrtSlurmCheckout{Repo: "someone/srt-slurm-fork", Ref: "0123456789ab", Dir: fork}
	ws, p := forkPoint0(t, "testdata/multinode", co)
	d, err := ws.Render(context.Background(), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Source.SrtSlurm != "v1.0.68" || d.Source.Recipe != "recipes/sglang/m1/agentic/disagg-1p1d.yaml" {
		t.Errorf("source %+v", d.Source)
	}
	want := []string{
		"srt-slurm fork someone/srt-slurm-fork@0123456789abcdef0123456789abcdef01234567 (runners/launch_h200-x.sh:16:5), as runners/launch_h200-x.sh (runner h200-x_0), runners/launch_h200-x.sh (runner h200-x_1) clone it; its src/srtctl is identical to NVIDIA/srt-slurm v1.0.68 (tree 3dcbaa33): rendered with that release's injected flags and env",
		"setup script install-extras.sh from the launcher's srtctl apply (runners/launch_h200-x.sh:40:17) replaces the recipe's setup_script",
		"the checkout given for someone/srt-slurm-fork (" + fork + ") is not a git work tree: that it is at commit 0123456789abcdef0123456789abcdef01234567 could not be checked",
		"recipe recipes/sglang/m1/agentic/disagg-1p1d.yaml read from the checkout given for someone/srt-slurm-fork (" + fork + ")",
	}
	if !slices.Equal(d.Notes, want) {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(d.Notes, "\n"), strings.Join(want, "\n"))
	}
	workers := 0
	for _, pr := range d.Processes {
		if len(pr.Args) > 0 && pr.Args[0].Origin.Detail == "srt-slurm v1.0.68" {
			workers++
		}
	}
	if workers == 0 {
		t.Errorf("no process carries srt-slurm v1.0.68's injected flags")
	}

	// a git checkout at the launcher's pin: rendered, no commit note
	gfork := copySrtctl(t)
	head := gitCommitAll(t, gfork)
	dir := editedMultinode(t, nil, func(l string) string {
		return strings.Replace(l, "0123456789abcdef0123456789abcdef01234567", head, 1)
	})
	ws, p = forkPoint0(t, dir, SrtSlurmCheckout{Repo: "someone/srt-slurm-fork", Ref: head[:8], Dir: gfork})
	if d, err := ws.Render(context.Background(), p, Options{}); err != nil || d.Source.SrtSlurm != "v1.0.68" || len(d.Notes) != 3 {
		t.Errorf("git checkout at the pin: %v %q", err, d.Notes)
	}

	// one byte changed
	f := filepath.Join(fork, "src", "srtctl", "backends", "sglang.py")
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	data[0] ^= 1
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ws, p = forkPoint0(t, "testdata/multinode", co)
	_, err = ws.Render(context.Background(), p, Options{})
	wantUnsupported(t, err, "is no NVIDIA/srt-slurm release's: it differs from the closest, v1.0.68, in 1 file (backends/sglang.py), so its rendering rules are not covered")
}
