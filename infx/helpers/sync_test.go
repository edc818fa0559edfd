package helpers

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// TestRunSync: the runs of sync.py the model gives, with what the program
// (843c6254f's text, run by python3 3.11 on these arguments) prints and
// exits with; the runs that wait are its run in the job that published a
// result.
func TestRunSync(t *testing.T) {
	const (
		noIPs    = "Error: NODE_IPS argument is empty or not set.\n"
		mismatch = "Error: Number of ports must match number of node IPs or only one port should be given for all.\n"
	)
	for _, c := range []struct {
		name    string
		argv    []string
		stdout  string
		status  int
		printed bool
	}{
		{"no node IP", []string{"barrier", "--node-ips", " , ", "--node-ports", " 5000 ,"}, noIPs, 1, true},
		{"empty node IPs", []string{"barrier", "--node-ips", "", "--node-ports", "5000"}, noIPs, 1, true},
		{"three ports for two IPs", []string{"barrier", "--node-ips", "a,b", "--node-ports", "1,2,3"}, mismatch, 1, true},
		{"no port", []string{"barrier", "--node-ips", "a,b", "--node-ports", ",,", "--wait-for-all-ports"}, mismatch, 1, true},
		{"mismatch before the wait", []string{"barrier", "--node-ips", "10.0.0.1,10.0.0.2", "--node-ports", "1,2,3", "--enable-port", "--wait-for-all-health"}, mismatch, 1, true},
		// ValueError before NODE_IPS is looked at: a traceback whose text
		// depends on the Python version and the script's path.
		{"a port that is not an int", []string{"barrier", "--node-ips", "a,b", "--node-ports", "1,x"}, "", 1, false},
		{"ValueError before the empty IPs", []string{"barrier", "--node-ips", "", "--node-ports", "x"}, "", 1, false},
		// Neither a port to open nor anything to wait for: nothing printed.
		{"nothing to wait for", []string{"barrier", "--node-ips", "a,,b", "--node-ports", "1,2"}, "", 0, true},
		{"int() forms, the last value wins", []string{"barrier", "--node-ips", ",", "--node-ips", "a", "--node-ports", "+1_0", "--timeout", " +1_200 "}, "", 0, true},
		{"one port per IP, empty items skipped", []string{"barrier", "--node-ips", "a,b,c", "--node-ports", "8000, 8001,,8002"}, "", 0, true},
		// The launchers' barriers (server_sglang.sh at 843c6254f).
		{"container creation barrier", []string{"barrier", "--local-ip", "10.0.0.1", "--local-port", "5000", "--enable-port", "--node-ips", "10.0.0.1,10.0.0.2", "--node-ports", "5000", "--wait-for-all-ports", "--timeout", "300"}, "", 0, false},
		{"servers up", []string{"barrier", "--node-ips", "10.0.0.1,10.0.0.2", "--node-ports", "8000", "--wait-for-all-ports", "--timeout", "1800"}, "", 0, false},
		{"health barrier", []string{"barrier", "--node-ips=node-1,node-2", "--node-ports=30000,30001", "--wait-for-all-health", "--health-endpoint", "/health", "--timeout=0"}, "", 0, false},
		{"proxy closes", []string{"wait", "--remote-ip", "10.0.0.1", "--remote-port", "30000"}, "", 0, false},
	} {
		out, err := RunSync(c.argv)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if out.Stdout != c.stdout || out.Stderr != "" || out.Status != c.status || out.Printed != c.printed {
			t.Errorf("%s: stdout %q stderr %q status %d printed %v; want %q \"\" %d %v", c.name, out.Stdout, out.Stderr, out.Status, out.Printed, c.stdout, c.status, c.printed)
		}
	}
}

// TestRunSyncRefusals: argparse's errors and help (whose text is not
// reproduced) and inputs with which the barrier cannot pass are errors,
// never a guessed output.
func TestRunSyncRefusals(t *testing.T) {
	ok := []string{"--node-ips", "a", "--node-ports", "1"}
	for name, argv := range map[string][]string{
		"no subcommand":             nil,
		"unknown subcommand":        {"sync", "--node-ips", "a"},
		"help":                      {"barrier", "-h"},
		"top-level option":          {"--help"},
		"missing --node-ports":      {"barrier", "--node-ips", "a"},
		"missing --remote-port":     {"wait", "--remote-ip", "a"},
		"unknown option":            {"barrier", "--node-ips", "a", "--node-ports", "1", "--close-grace", "5"},
		"abbreviation":              {"barrier", "--node-ip", "a", "--node-ports", "1"},
		"stray argument":            append([]string{"barrier", "x"}, ok...),
		"value missing":             {"barrier", "--node-ips", "--node-ports", "1"},
		"value starting with -":     append([]string{"barrier", "--timeout", "-5"}, ok...),
		"flag with a value":         append([]string{"barrier", "--enable-port=1"}, ok...),
		"empty explicit value":      {"barrier", "--node-ips=", "--node-ports", "1"},
		"--timeout x":               append([]string{"barrier", "--timeout", "x"}, ok...),
		"--timeout 1__0":            append([]string{"barrier", "--timeout", "1__0"}, ok...),
		"--remote-port 1.5":         {"wait", "--remote-ip", "a", "--remote-port", "1.5"},
		"non-ASCII port":            {"barrier", "--node-ips", "a", "--node-ports", "\u0661"},
		"enable without local":      append([]string{"barrier", "--enable-port", "--wait-for-all-ports"}, ok...),
		"local port 0":              append([]string{"barrier", "--enable-port", "--local-ip", "a", "--local-port", "0"}, ok...),
		"port outside 1-65535":      {"barrier", "--node-ips", "a", "--node-ports", "70000", "--wait-for-all-ports"},
		"address no node has":       {"barrier", "--node-ips", "a b", "--node-ports", "1", "--wait-for-all-health"},
		"endpoint without /":        append([]string{"barrier", "--wait-for-all-health", "--health-endpoint", "health"}, ok...),
		"remote port outside range": {"wait", "--remote-ip", "a", "--remote-port", "65536"},
		"remote address empty":      {"wait", "--remote-ip", "", "--remote-port", "1"},
	} {
		out, err := RunSync(argv)
		var nr *SyncNotReproduced
		if !errors.As(err, &nr) {
			t.Errorf("%s: %+v %v, want *SyncNotReproduced", name, out, err)
		}
	}
}

// TestCorpusSync: sync.py of the complete InferenceX tree of ../shared
// (843c6254f) is a known version, the one SyncCorpusSHA256 names.
func TestCorpusSync(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testutil.UpstreamInferenceX(t), SyncPath))
	if err != nil {
		t.Fatal(err)
	}
	p, ok := LookupSync(b)
	if !ok {
		t.Fatalf("%s (sha256 %s) is in no version of SyncTable", SyncPath, Hash(b))
	}
	if p.ID != "sync.py@96e94c1b" || p.SHA256 != SyncCorpusSHA256 {
		t.Errorf("version %s (sha256 %s), want sync.py@96e94c1b (%s)", p.ID, p.SHA256, SyncCorpusSHA256)
	}
}

// TestSyncTable: the table and the exclusions are disjoint, each hash is
// the hex SHA-256 of a text once, and every version is cited by a commit.
func TestSyncTable(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range SyncTable() {
		if len(p.SHA256) != 64 || seen[p.SHA256] || len(p.Commits) == 0 || p.Path != SyncPath {
			t.Errorf("version %+v", p)
		}
		seen[p.SHA256] = true
		if _, ex := SyncExcluded()[p.SHA256]; ex {
			t.Errorf("%s is both in the table and excluded", p.ID)
		}
	}
	if len(seen) != 5 {
		t.Errorf("%d versions, want 5", len(seen))
	}
}

// TestMirrorSyncTable: every text of sync.py at a commit of the InferenceX
// history since 2026-06-01 that touched it (all refs, full history), and
// the one in effect on main on 2026-06-01, is in the table or excluded
// with a reason; every commit the table cites holds its version's text.
func TestMirrorSyncTable(t *testing.T) {
	gitDir := testutil.MirrorGitDir(t, testutil.MirrorInferenceX)
	git := func(args ...string) ([]byte, error) {
		return exec.Command("git", append([]string{"--git-dir", gitDir}, args...)...).Output()
	}
	show := func(c string) ([]byte, bool) {
		b, err := git("show", c+":"+SyncPath)
		return b, err == nil
	}
	known := map[string]bool{}
	for _, p := range SyncTable() {
		known[p.SHA256] = true
		for _, c := range p.Commits {
			b, ok := show(c)
			if !ok || Hash(b) != p.SHA256 {
				t.Errorf("%s cites %s, whose %s is not its text", p.ID, c, SyncPath)
			}
		}
	}
	log, err := git("log", "--all", "--full-history", "--since=2026-06-01", "--format=%H", "--", SyncPath)
	if err != nil {
		t.Fatal(err)
	}
	commits := strings.Fields(string(log))
	first, err := git("rev-list", "-1", "--before=2026-06-01T00:00:00Z", "main")
	if err != nil {
		t.Fatal(err)
	}
	commits = append(commits, strings.TrimSpace(string(first)))
	texts := map[string][]string{}
	for _, c := range commits {
		b, ok := show(c)
		if !ok {
			continue // the file removed at c
		}
		texts[Hash(b)] = append(texts[Hash(b)], c[:9])
	}
	var hashes []string
	for h := range texts {
		hashes = append(hashes, h)
	}
	sort.Strings(hashes)
	for _, h := range hashes {
		if why, ex := SyncExcluded()[h]; ex {
			t.Logf("excluded %s (%s): %s", h[:8], strings.Join(texts[h], " "), why)
			continue
		}
		if !known[h] {
			t.Errorf("%s (sha256 %s) at %s is in no version of the table and not excluded", SyncPath, h, strings.Join(texts[h], " "))
		}
	}
	for h := range known {
		if texts[h] == nil {
			t.Errorf("table version %s is at no commit of the history since 2026-06-01", h)
		}
	}
	for h := range SyncExcluded() {
		if texts[h] == nil {
			t.Errorf("excluded version %s is at no commit of the history since 2026-06-01", h)
		}
	}
	if len(texts) != 6 {
		t.Errorf("%d texts since 2026-06-01, want 6 (5 in the table, 1 excluded)", len(texts))
	}
}
