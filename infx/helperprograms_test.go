package infx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/infx/helpers"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// TestInlineProgramUnknown: a python3 -c program that reads models.yaml
// but whose text is in no version of the table stops the run, naming its
// position and hash; one that reads nothing of the sort stays the
// unknown-command rule's.
func TestInlineProgramUnknown(t *testing.T) {
	word := `"
import yaml
models = yaml.safe_load(open('${MODELS_YAML}'))
print('A=1')
"`
	src := "MODELS_YAML=/m.yaml\neval \"$(python3 -c " + word + ")\"\nvllm serve m\n"
	run, err := runScript("s.sh", []byte(src), ScriptOptions{Name: "s.sh"})
	if err != nil {
		t.Fatal(err)
	}
	if run.Stop == nil || !strings.Contains(run.Stop.Msg, helpers.Hash([]byte(word))) || !strings.Contains(run.Stop.Msg, "s.sh:2:9") {
		t.Fatalf("stop = %v; want Unsupported naming s.sh:2:9 and sha256 %s", run.Stop, helpers.Hash([]byte(word)))
	}
}

// TestCorpusAMDModelsLoader runs the real models.yaml loader of
// server_sglang.sh (its lines 79-188, as written) in the sandbox: the
// handler knows the text, the shell evals what it prints.
func TestCorpusAMDModelsLoader(t *testing.T) {
	root := testutil.UpstreamInferenceX(t)
	utils := filepath.Join(root, "benchmarks", "multi_node", "amd_utils")
	b, err := os.ReadFile(filepath.Join(utils, "server_sglang.sh"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	loader := strings.Join(lines[78:188], "\n")
	src := "MODELS_YAML=" + filepath.Join(utils, "models.yaml") + "\nMODEL_NAME=DeepSeek-R1-0528\nexport MORI_MAX_DISPATCH_TOKENS_PREFILL=16384 PREFILL_TP_SIZE=8\n" +
		loader + "\nvllm serve \"$MODEL_BASE_FLAGS|$PREFILL_CHUNKED_PREFILL_SIZE_DP|$DECODE_MEM_FRACTION_STATIC|$PREFILL_CUDA_GRAPH_BS_NO_DP_END\"\n"
	run, err := runScript("s.sh", []byte(src), ScriptOptions{Name: "s.sh", ReadRoots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	if run.Stop != nil {
		t.Fatalf("stop: %v", run.Stop)
	}
	var got string
	for _, c := range run.Commands {
		if len(c.Argv) == 3 && c.Argv[0] == "vllm" {
			got = c.Argv[2]
		}
	}
	want := "--decode-log-interval 1000 --log-level warning --watchdog-timeout 3600 --load-balance-method round_robin --kv-cache-dtype fp8_e4m3 --attention-backend aiter --disaggregation-transfer-backend mori|131072|0.85|128"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
