package infx

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// flagValue returns the values of the first flag of p named f (nil when absent).
func flagValue(p launch.Process, f string) []string {
	for _, a := range p.Args {
		if a.Flag == f {
			return a.Values
		}
	}
	return nil
}

// TestMultinodeLauncherSubmission runs testdata/multinode's launcher (a
// reduced InferenceX runners/launch_*.sh) to its srtctl apply: the
// srt-slurm ref it clones becomes the rendering profile, its cp -rT of the
// checkout's recipe directory decides the file, its sed -i append adds a
// recipe key, its --setup-script replaces the recipe's, and a fd-9 flock
// redirect does not derail the run.
func TestMultinodeLauncherSubmission(t *testing.T) {
	ws, err := Open("testdata/multinode")
	if err != nil {
		t.Fatal(err)
	}
	pts, err := ws.Points("m1-fp8-h200-dynamo-sglang")
	if err != nil || len(pts) != 2 {
		t.Fatalf("points %d, %v", len(pts), err)
	}
	if pts[0].Status != StatusOK || !slices.Equal(pts[0].Launchers, []string{"runners/launch_h200-x.sh"}) {
		t.Fatalf("point 0: status %s launchers %v", pts[0].Status, pts[0].Launchers)
	}
	d, err := ws.Render(context.Background(), pts[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Source.SrtSlurm != "v1.0.44" || d.Source.File != "benchmarks/multi_node/srt-slurm-recipes/sglang/m1/agentic/disagg-1p1d.yaml" {
		t.Errorf("source %+v", d.Source)
	}
	want := []string{
		"srt-slurm NVIDIA/srt-slurm@v1.0.44 (runners/launch_h200-x.sh:8:5), as runners/launch_h200-x.sh (runner h200-x_0), runners/launch_h200-x.sh (runner h200-x_1) clone it; rendered with that ref's injected flags and env",
		"setup script install-extras.sh from the launcher's srtctl apply (runners/launch_h200-x.sh:40:17) replaces the recipe's setup_script",
		"recipe benchmarks/multi_node/srt-slurm-recipes/sglang/m1/agentic/disagg-1p1d.yaml, copied by the launcher to recipes/sglang/m1/agentic/disagg-1p1d.yaml",
	}
	if !slices.Equal(d.Notes, want) {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(d.Notes, "\n"), strings.Join(want, "\n"))
	}
	var workers int
	for _, p := range d.Processes {
		if p.Kind != launch.KindWorker {
			continue
		}
		workers++
		if v := flagValue(p, "--dist-timeout"); !slices.Equal(v, []string{"1800"}) {
			t.Errorf("%s: --dist-timeout %v, want [1800] (the launcher's sed -i append)", p.Role, v)
		}
		if pre := strings.Join(p.Preamble, " "); !strings.Contains(pre, "setup_script=install-extras.sh") || strings.Contains(pre, "recipe-setup.sh") {
			t.Errorf("%s: preamble %q, want the launcher's setup script", p.Role, pre)
		}
		if p.Args[0].Origin.Detail != "srt-slurm v1.0.44" {
			t.Errorf("%s: injected origin %q", p.Role, p.Args[0].Origin.Detail)
		}
	}
	if workers != 2 {
		t.Errorf("%d workers", workers)
	}

	// Row 1: the clone's own file, upstream-only without --srt-slurm-dir.
	_, err = ws.Render(context.Background(), pts[1], Options{})
	var pe *PointError
	if !errors.As(err, &pe) || pe.Status != StatusUpstreamOnly ||
		pe.Note != "recipe recipes/h200/8k1k/upstream-only.yaml is not copied from the checkout: the launcher submits the file of its srt-slurm clone NVIDIA/srt-slurm@v1.0.44 (runners/launch_h200-x.sh:8:5)" {
		t.Errorf("row 1 without --srt-slurm-dir: %v", err)
	}
	// With an srt-slurm checkout at another ref: rendered with the
	// launcher's profile, with a commit-drift note.
	ws.SrtSlurmDir, ws.SrtSlurmVersion = "testdata/multinode-srt", "v1.0.68"
	d, err = ws.Render(context.Background(), pts[1], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Source.SrtSlurm != "v1.0.44" || !slices.Contains(d.Notes, "recipe recipes/h200/8k1k/upstream-only.yaml read from the given srt-slurm checkout (v1.0.68); the launcher runs it at v1.0.44, where it may differ (possible commit drift)") {
		t.Errorf("row 1 with --srt-slurm-dir: source %+v notes %q", d.Source, d.Notes)
	}
	if v := flagValue(d.Processes[2], "--mem-fraction-static"); !slices.Equal(v, []string{"0.85"}) {
		t.Errorf("row 1 prefill --mem-fraction-static %v (process %s)", v, d.Processes[2].Role)
	}

	// A fork of srt-slurm without its checkout (forks_test.go: with it).
	pts, _ = ws.Points("m2-fp8-h200-dynamo-sglang")
	_, err = ws.Render(context.Background(), pts[0], Options{})
	if !errors.As(err, &pe) || pe.Status != StatusUnsupported || !strings.Contains(pe.Note, "the srt-slurm fork someone/srt-slurm-fork@0123456789abcdef0123456789abcdef01234567 (runners/launch_h200-x.sh:16:5): it renders only from its checkout") {
		t.Errorf("fork: %v", err)
	}
}

// TestMultinodeContainers: the srtslurm.yaml the launcher writes (heredoc,
// then a sed -i append) is srtctl's cluster config: the recipe's container
// alias resolves to the master image's squash, so the workers run the
// master config's image.
func TestMultinodeContainers(t *testing.T) {
	ws, err := Open("testdata/multinode")
	if err != nil {
		t.Fatal(err)
	}
	pts, _ := ws.Points("m1-fp8-h200-dynamo-sglang")
	d, err := ws.Render(context.Background(), pts[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range d.Processes {
		if p.Kind == launch.KindWorker {
			n++
			if p.Image != "lmsysorg/sglang:v0.5.16" {
				t.Errorf("%s worker image %q, want the master image", p.Role, p.Image)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d workers", n)
	}
	sub, err := ws.submission(pts[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"dynamo-sglang": "/squash/lmsysorg_sglang_v0.5.16.sqsh", "lmsysorg/sglang:v0.5.16": "/squash/lmsysorg_sglang_v0.5.16.sqsh", "nginx-sqsh": "/squash/nginx_1.27.4.sqsh"}
	if !maps.Equal(sub.Containers, want) || sub.ClusterYAML != "srtslurm.yaml" {
		t.Errorf("containers %v (%s), want %v", sub.Containers, sub.ClusterYAML, want)
	}
}

// TestAttachSrtSlurmConfigs: a /configs/ file a flag names is read from the
// srt-slurm checkout's configs/; a path out of it, or a file that is not
// there, stays path-only.
func TestAttachSrtSlurmConfigs(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "configs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "configs", "deepep_config.json"), []byte(`{"a":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "secret.json"), []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	procs := []launch.Process{{Kind: launch.KindWorker, Args: []launch.Arg{
		{Flag: "--deepep-config", Values: []string{"/configs/deepep_config.json"}},
		{Flag: "--other", Values: []string{"/configs/../secret.json"}},
		{Flag: "--missing", Values: []string{"/configs/nope.json"}},
	}}}
	AttachSrtSlurmConfigs(procs, dir, "v1.0.68", "v1.0.50")
	fc := procs[0].FileContents
	if len(fc) != 1 || fc[0].Path != "/configs/deepep_config.json" || fc[0].Content != `{"a":1}` ||
		fc[0].Origin.Detail != "srt-slurm configs/ read from the given srt-slurm checkout (v1.0.68); the launcher runs srt-slurm v1.0.50, where it may differ (possible commit drift)" {
		t.Errorf("file contents %+v", fc)
	}
	AttachSrtSlurmConfigs(procs, "", "", "")
	if len(procs[0].FileContents) != 1 {
		t.Errorf("dir \"\" attached something")
	}
}

// TestMultinodeApplyOutsideClone: a launcher whose srtctl apply names a
// file outside its srt-slurm clone and the checkout (a hostile or broken
// launcher) makes the point unsupported; nothing outside is read, even
// with --srt-slurm-dir.
func TestMultinodeApplyOutsideClone(t *testing.T) {
	dir := editedMultinode(t, nil, func(l string) string {
		return strings.Replace(l, `srtctl apply -f "$CONFIG_FILE"`, `srtctl apply -f ../../../../etc/passwd`, 1)
	})
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ws.SrtSlurmDir = "testdata/multinode-srt"
	pts, _ := ws.Points("m1-fp8-h200-dynamo-sglang")
	_, err = ws.Render(context.Background(), pts[0], Options{})
	var pe *PointError
	if !errors.As(err, &pe) || pe.Status != StatusUnsupported || !strings.Contains(pe.Note, "srtctl apply -f ../../../../etc/passwd names a file outside the srt-slurm clone and the checkout") {
		t.Errorf("got %v", err)
	}
}

// TestMultinodeRecipeTouched: what a launcher does to the recipe file
// between its copy and srtctl apply is applied when the sandbox can model
// it (appends, rewrites from the checkout) and makes the point unsupported
// otherwise (mv, rm, an unknown program, a copy from outside the checkout,
// a link out of it) — never a silent render of a stale file.
func TestMultinodeRecipeTouched(t *testing.T) {
	const recipeDir = "benchmarks/multi_node/srt-slurm-recipes/sglang/m1/agentic"
	for _, c := range []struct {
		name, line string
		setup      func(dir string) error
		env        string // an env var the rendered prefill worker must have ("" = none)
		unsup      string // the unsupported note must contain this ("" = renders)
	}{
		{name: "append", line: `printf 'environment:\n  APPENDED_BY_LAUNCHER: "1"\n' >> "$CONFIG_PATH"`, env: "APPENDED_BY_LAUNCHER=1"},
		{name: "rewrite from checkout", line: `cat "$GITHUB_WORKSPACE/` + recipeDir + `/other.yaml" > "$CONFIG_PATH"`, env: "OTHER_RECIPE=1",
			setup: func(dir string) error {
				src, err := os.ReadFile(filepath.Join(dir, recipeDir, "disagg-1p1d.yaml"))
				if err != nil {
					return err
				}
				return os.WriteFile(filepath.Join(dir, recipeDir, "other.yaml"), append(src, "environment:\n  OTHER_RECIPE: \"1\"\n"...), 0o644)
			}},
		{name: "mv", line: `mv /tmp/x.yaml "$CONFIG_PATH"`, unsup: "the launcher runs mv /tmp/x.yaml recipes/sglang/m1/agentic/disagg-1p1d.yaml on the recipe it submits"},
		{name: "rm", line: `rm -f "$CONFIG_PATH"`, unsup: "the launcher runs rm -f"},
		{name: "python", line: `python3 -c 'open("x","w")' "$CONFIG_PATH"`, unsup: "the launcher runs python3"},
		{name: "cp from outside", line: `cp /etc/hostname "$CONFIG_PATH"`, unsup: "the launcher copies /etc/hostname, which is outside the checkout (or a link out of it), to the recipe it submits"},
		// issue 10: the jail refuses the link and the run reports it.
		{name: "link out", line: `:`, unsup: "agentic/disagg-1p1d.yaml: a symbolic link resolves outside the checkout (refused",
			setup: func(dir string) error {
				p := filepath.Join(dir, recipeDir, "disagg-1p1d.yaml")
				if err := os.Remove(p); err != nil {
					return err
				}
				return os.Symlink("/etc/hostname", p)
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := renderWithLine(t, c.setup, c.line)
			var pe *PointError
			if c.unsup != "" {
				if !errors.As(err, &pe) || pe.Status != StatusUnsupported || !strings.Contains(pe.Note, c.unsup) {
					t.Errorf("got %v, want unsupported with %q", err, c.unsup)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, p := range d.Processes {
				if p.Role != launch.RolePrefill {
					continue
				}
				for _, e := range p.Env {
					if e.Name+"="+e.Value == c.env {
						found = true
					}
				}
			}
			if !found {
				t.Errorf("prefill worker lacks %s", c.env)
			}
		})
	}
}

// TestMultinodeDirCopyOverlays: a directory copied over the clone's
// (cp -rT) that does not hold the submitted file leaves the clone's own
// file in place: the point is upstream-only, not missing.
func TestMultinodeDirCopyOverlays(t *testing.T) {
	_, err := renderWithLine(t, nil, "CONFIG_FILE=recipes/sglang/m1/agentic/clone-only.yaml")
	var pe *PointError
	if !errors.As(err, &pe) || pe.Status != StatusUpstreamOnly || !strings.Contains(pe.Note, "recipe recipes/sglang/m1/agentic/clone-only.yaml is not copied from the checkout") {
		t.Errorf("got %v", err)
	}
}

// editedMultinode copies testdata/multinode into a temporary directory,
// runs setup on it (nil: none) and applies edit to the text of its
// launcher; it returns the copy's directory.
func editedMultinode(t *testing.T, setup func(dir string) error, edit func(launcher string) string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/multinode")); err != nil {
		t.Fatal(err)
	}
	if setup != nil {
		if err := setup(dir); err != nil {
			t.Fatal(err)
		}
	}
	l := filepath.Join(dir, "runners", "launch_h200-x.sh")
	src, err := os.ReadFile(l)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(l, []byte(edit(string(src))), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestMultinodeCopyFromWorkspaceIsNotATouch: a copy whose source holds the
// clone (rsync of the whole workspace elsewhere) does not change the
// submitted recipe; only a copy onto it does.
func TestMultinodeCopyFromWorkspaceIsNotATouch(t *testing.T) {
	if _, err := renderWithLine(t, nil, `rsync -a --exclude='.git/' "${GITHUB_WORKSPACE}/" /shared/workspace-copy/`); err != nil {
		t.Errorf("rsync of the workspace: %v", err)
	}
}

// TestMultinodeSedForms: in-place sed edits of the recipe are applied when
// the sandbox's sed takes them (-e, -E) and make the point unsupported
// when it does not (-i.bak, -s): never silently skipped.
func TestMultinodeSedForms(t *testing.T) {
	for _, c := range []struct{ line, env, unsup string }{
		{line: `sed -i -E -e 's/^(setup_script:).*/\1 "other.sh"/' -e '$a environment:\n  SED_E: "1"' "$CONFIG_PATH"`, env: "SED_E=1"},
		{line: `sed -i.bak '$a environment:\n  SED_BAK: "1"' "$CONFIG_PATH"`, unsup: "the sandbox cannot evaluate the edit"},
		{line: `sed -s -i '$a x: 1' "$CONFIG_PATH"`, unsup: "what srtctl reads is not modelled"},
	} {
		d, err := renderWithLine(t, nil, c.line)
		if c.unsup != "" {
			var pe *PointError
			if !errors.As(err, &pe) || pe.Status != StatusUnsupported || !strings.Contains(pe.Note, c.unsup) {
				t.Errorf("%s: got %v, want unsupported", c.line, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		found := false
		for _, p := range d.Processes {
			for _, e := range p.Env {
				found = found || p.Role == launch.RolePrefill && e.Name+"="+e.Value == c.env
			}
		}
		if !found {
			t.Errorf("%s: prefill worker lacks %s", c.line, c.env)
		}
	}
}

// renderWithLine renders point 0 of m1-fp8-h200-dynamo-sglang in a copy
// of testdata/multinode (setup run on it first, nil: none) whose launcher
// runs line just before its srtctl apply.
func renderWithLine(t *testing.T, setup func(dir string) error, line string) (launch.Deployment, error) {
	t.Helper()
	dir := editedMultinode(t, setup, func(l string) string {
		return strings.Replace(l, "SRTCTL_OUTPUT=", line+"\nSRTCTL_OUTPUT=", 1)
	})
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := ws.Points("m1-fp8-h200-dynamo-sglang")
	if err != nil {
		t.Fatal(err)
	}
	return ws.Render(context.Background(), pts[0], Options{})
}
