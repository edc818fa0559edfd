package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestVersionText pins what --version says for each kind of build
// information the go command stamps.
func TestVersionText(t *testing.T) {
	const rev = "856dd2619aad6f9b52131a459cb1b33dcfc1ae04"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "-buildmode", Value: "exe"}, {Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: "2026-07-01T12:00:00Z"}, {Key: "vcs.modified", Value: modified}}
	}
	for _, c := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"clean checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/cookbook-sync/cookbook-sync", Version: "(devel)"}, Settings: vcs("false")},
			"cookbook-sync version (devel), revision " + rev + ", committed 2026-07-01T12:00:00Z, go1.26.8"},
		{"modified work tree", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs("true")},
			"cookbook-sync version (devel), revision " + rev + "-dirty, committed 2026-07-01T12:00:00Z, go1.26.8"},
		{"installed module", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}},
			"cookbook-sync version v1.2.3, revision unknown (built without VCS information), go1.26.8"},
		{"-buildvcs=false", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "-buildvcs", Value: "false"}}},
			"cookbook-sync version (devel), revision unknown (built without VCS information), go1.26.8"},
		{"no build information", nil, "cookbook-sync version (devel), revision unknown (built without VCS information)"},
	} {
		if got := versionText(c.bi); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// TestVersionFlag runs --version in-process: exit 0, one line on stdout,
// nothing on stderr (the test binary has no VCS stamp of its own).
func TestVersionFlag(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--version"}, &out, &errb); code != exitOK {
		t.Fatalf("--version: exit %d, stderr %q", code, errb.String())
	}
	if !regexp.MustCompile(`^cookbook-sync version \S+, revision \S+`).MatchString(out.String()) || strings.Count(out.String(), "\n") != 1 || errb.Len() != 0 {
		t.Errorf("--version: stdout %q, stderr %q", out.String(), errb.String())
	}
}

// buildTools returns the git and go commands, skipping the test under
// -short or without them.
func buildTools(t *testing.T) (gitCmd, goCmd string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary (skipped under -short)")
	}
	gitCmd, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git on PATH")
	}
	goCmd, err = exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
		if _, err := os.Stat(goCmd); err != nil {
			t.Skip("no go command on PATH")
		}
	}
	return gitCmd, goCmd
}

// goBuild builds ./cmd/cookbook-sync of the module at dir into the test's
// temporary directory with the extra flags and returns its --version
// line. Modules come from the local module cache only (GOPROXY=off): the
// test never reaches the network.
func goBuild(t *testing.T, goCmd, dir string, flags ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cookbook-sync")
	args := append(append([]string{"build"}, flags...), "-o", bin, "./cmd/cookbook-sync")
	cmd := exec.Command(goCmd, args...)
	cmd.Dir = dir
	// GOFLAGS replaces any the environment sets (a -buildvcs=false there
	// would hide what the test checks); the flags say the rest.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s (in %s): %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", bin, err)
	}
	return strings.TrimSpace(string(out))
}

// TestVersionOfCloneBuild builds the binary from a fresh git clone of this
// repository (go build stamps the clone's VCS state) and checks that
// --version names the clone's HEAD, clean, with its commit time (and the
// version go stamps: (devel), or the pseudo-version of that commit).
func TestVersionOfCloneBuild(t *testing.T) {
	gitCmd, goCmd := buildTools(t)
	top, err := exec.Command(gitCmd, "-C", "../..", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skip("the module is not in a git checkout")
	}
	clone := filepath.Join(t.TempDir(), "clone")
	if out, err := exec.Command(gitCmd, "clone", "--quiet", strings.TrimSpace(string(top)), clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	head, err := exec.Command(gitCmd, "-C", clone, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	when, err := exec.Command(gitCmd, "-C", clone, "log", "-1", "--format=%ct").Output()
	if err != nil {
		t.Fatal(err)
	}
	got := goBuild(t, goCmd, clone, "-buildvcs=true")
	m := regexp.MustCompile(`^cookbook-sync version (\S+), revision ([0-9a-f]{40})(-dirty)?, committed (\S+), go`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("--version of the clone's build: %q", got)
	}
	rev := strings.TrimSpace(string(head))
	if m[2] != rev || m[3] != "" {
		t.Errorf("--version says revision %s%s, the clone's HEAD is %s (clean)", m[2], m[3], rev)
	}
	// a clean checkout's version is the pseudo-version of its commit
	if m[1] != "(devel)" && !strings.HasSuffix(m[1], "-"+rev[:12]) {
		t.Errorf("--version says version %s, want (devel) or a pseudo-version of %s", m[1], rev)
	}
	at, err := time.Parse(time.RFC3339, m[4])
	if err != nil || strconv.FormatInt(at.Unix(), 10) != strings.TrimSpace(string(when)) {
		t.Errorf("--version says committed %q, the clone's HEAD was committed at Unix time %s", m[4], when)
	}
}

// TestVersionOfBuildWithoutVCS builds the binary with -buildvcs=false:
// --version still answers, with version (devel) and "revision unknown".
func TestVersionOfBuildWithoutVCS(t *testing.T) {
	_, goCmd := buildTools(t)
	got := goBuild(t, goCmd, "../..", "-buildvcs=false")
	if !regexp.MustCompile(`^cookbook-sync version \(devel\), revision unknown \(built without VCS information\), go\S+$`).MatchString(got) {
		t.Errorf("--version of a -buildvcs=false build: %q", got)
	}
}
