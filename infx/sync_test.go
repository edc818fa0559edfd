package infx

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/infx/helpers"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// TestSyncUnknownVersion: a sync.py whose text is in no version of
// helpers.SyncTable stops the run where it is run, naming the file and its
// sha256 (never guessed, even where nothing uses its status).
func TestSyncUnknownVersion(t *testing.T) {
	dir := t.TempDir()
	text := "import sys\nsys.exit(0)\n"
	file := filepath.Join(dir, "sync.py")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "python3 " + file + " barrier --node-ips 10.0.0.1 --node-ports 5000 --wait-for-all-ports\nvllm serve m\n"
	run, err := runScript("s.sh", []byte(src), ScriptOptions{Name: "s.sh", ReadRoots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	h := helpers.Hash([]byte(text))
	if run.Stop == nil || !strings.Contains(run.Stop.Msg, file) || !strings.Contains(run.Stop.Msg, h) || run.Stop.Pos.Line != 1 {
		t.Fatalf("stop = %+v; want Unsupported at s.sh:1 naming %s and sha256 %s", run.Stop, file, h)
	}
}

// TestCorpusSyncBarrier runs the real sync.py of the complete InferenceX
// tree of ../shared (843c6254f) in the sandbox as server_sglang.sh does:
// the container creation barrier passes (status 0) in the run that
// published a result; an argument check's message is what the program
// prints, captured; a barrier whose waiting output is captured, or
// arguments argparse refuses, stop the run.
func TestCorpusSyncBarrier(t *testing.T) {
	root := testutil.UpstreamInferenceX(t)
	sync := filepath.Join(root, helpers.SyncPath)
	src := "D=" + filepath.Dir(sync) + `
if ! python3 $D/sync.py barrier --local-ip 10.0.0.1 --local-port 5000 --enable-port --node-ips 10.0.0.1,10.0.0.2 --node-ports 5000 --wait-for-all-ports --timeout 300; then exit 3; fi
python3 $D/sync.py wait --remote-ip 10.0.0.1 --remote-port 30000 || exit 4
msg=$(python3 $D/sync.py barrier --node-ips " , " --node-ports 5000); st=$?
vllm serve m --msg "$msg" --st $st
`
	run, err := runScript("s.sh", []byte(src), ScriptOptions{Name: "s.sh", ReadRoots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	if run.Stop != nil || run.Exit != 0 {
		t.Fatalf("stop %v, exit %d at %v; want the run to its end", run.Stop, run.Exit, run.ExitAt)
	}
	want := []string{"vllm", "serve", "m", "--msg", "Error: NODE_IPS argument is empty or not set.", "--st", "1"}
	if c := run.Commands[len(run.Commands)-1]; !slices.Equal(c.Argv, want) {
		t.Errorf("last command %q, want %q", c.Argv, want)
	}
	for name, line := range map[string]string{
		"captured waiting output": `x=$(python3 $D/sync.py barrier --node-ips 10.0.0.1 --node-ports 8000 --wait-for-all-ports)`,
		"argparse error":          `python3 $D/sync.py barrier --node-ips 10.0.0.1`,
		"output to a file, read":  "python3 $D/sync.py barrier --node-ips 10.0.0.1 --node-ports 8000 --wait-for-all-ports > /tmp/b.log\nx=$(cat /tmp/b.log)",
	} {
		src := "D=" + filepath.Dir(sync) + "\n" + line + "\nvllm serve m\n"
		run, err := runScript("s.sh", []byte(src), ScriptOptions{Name: "s.sh", ReadRoots: []string{root}})
		if err != nil {
			t.Fatal(err)
		}
		if at := strings.Count(line, "\n") + 2; run.Stop == nil || !strings.Contains(run.Stop.Msg, "sync.py@96e94c1b") || run.Stop.Pos.Line != at {
			t.Errorf("%s: stop = %+v; want Unsupported at s.sh:%d naming sync.py@96e94c1b", name, run.Stop, at)
		}
	}
}
