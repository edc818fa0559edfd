package infx

import (
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/infx/sandbox"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// openChoices opens testdata/choices: an AMD runner whose scripts ask
// facts the sandbox does not know (the MEC firmware, /dev/shm, a file of
// the container image).
func openChoices(t *testing.T) *Workspace {
	t.Helper()
	ws, err := Open("testdata/choices")
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func joinedNotes(notes []string) string { return strings.Join(notes, "\n") }

// TestChoiceEnvDiffers: HSA_NO_SCRATCH_RECLAIM is set under two of the
// three MEC answers: rendered marked unknown with why; the rest of the
// command is the same under every answer.
func TestChoiceEnvDiffers(t *testing.T) {
	ws := openChoices(t)
	d := renderOne(t, ws, pointAt(t, ws, "c1-fp8-mi355x-vllm", 0, 4), Options{})
	env := envOf(d.Processes[0])
	e, ok := env["HSA_NO_SCRATCH_RECLAIM"]
	if !ok || e.Value != "1" {
		t.Fatalf("HSA_NO_SCRATCH_RECLAIM = %+v", e)
	}
	for _, want := range []string{"HSA_NO_SCRATCH_RECLAIM=1 when rocm-smi --showfw prints no MEC line or the MEC firmware is far below 177 (1) or the MEC firmware is below 177 (176)",
		"unset when the MEC firmware is 177 or later (177) or the MEC firmware is far above 177 (99999)", "c1_fp8_mi355x.sh:3:11"} {
		if !strings.Contains(e.Unknown, want) {
			t.Errorf("unknown %q lacks %q", e.Unknown, want)
		}
	}
	if env["VLLM_ROCM_USE_AITER"].Unknown != "" {
		t.Errorf("VLLM_ROCM_USE_AITER marked unknown: %+v", env["VLLM_ROCM_USE_AITER"])
	}
	for _, a := range d.Processes[0].Args {
		if a.Unknown != "" {
			t.Errorf("flag %s marked unknown", a.Flag)
		}
	}
	n := joinedNotes(d.Notes)
	if !strings.Contains(n, "not known: the MEC firmware version of mi355x") || strings.Contains(n, "the server command is the same") {
		t.Errorf("notes = %q", d.Notes)
	}
}

// TestChoiceFailingAnswerDropped: the 1G /dev/shm answer stops the script
// at its guard; the other two give the same command, rendered with notes.
func TestChoiceFailingAnswerDropped(t *testing.T) {
	ws := openChoices(t)
	d := renderOne(t, ws, pointAt(t, ws, "c2-fp8-mi355x-vllm", 0, 4), Options{})
	n := joinedNotes(d.Notes)
	for _, want := range []string{
		"on a machine where /dev/shm has 1G available (docker run's default --shm-size, 64 MiB), the script stops at benchmarks/single_node/fixed_seq_len/c2_fp8_mi355x.sh:8:9 (exit 1): no published result comes from it",
		"the server command is the same under every answer",
		"df prints nothing for /dev/shm; /dev/shm has the host DRAM available (3024G",
	} {
		if !strings.Contains(n, want) {
			t.Errorf("notes lack %q:\n%s", want, n)
		}
	}
	eqStrings(t, "args", argsText(d.Processes[0].Args), []string{"org/C2-FP8", "--tensor-parallel-size 8", "--kv-offload-gb 200"})
}

// TestChoiceImagePatch: the condition on the image's engine source is true
// or false; the command is the same, and the patch is a note.
func TestChoiceImagePatch(t *testing.T) {
	ws := openChoices(t)
	d := renderOne(t, ws, pointAt(t, ws, "c3-fp8-mi355x-sglang", 0, 4), Options{})
	n := joinedNotes(d.Notes)
	for _, want := range []string{
		"the condition at benchmarks/single_node/fixed_seq_len/c3_fp8_mi355x.sh:4:4 holds; the condition at benchmarks/single_node/fixed_seq_len/c3_fp8_mi355x.sh:4:4 does not hold",
		"the server command is the same under every answer",
		"the script patches the image's /sgl-workspace/sglang/python/sglang/srt/managers/multi_tokenizer_mixin.py when the condition at benchmarks/single_node/fixed_seq_len/c3_fp8_mi355x.sh:4:4 holds (sed -i at benchmarks/single_node/fixed_seq_len/c3_fp8_mi355x.sh:6:5): an engine source patch, not compared by Check 3",
	} {
		if !strings.Contains(n, want) {
			t.Errorf("notes lack %q:\n%s", want, n)
		}
	}
}

// TestChoiceFlagDiffers: a flag set under one kept answer only is marked
// unknown; the answer without a MEC line stops and is dropped.
func TestChoiceFlagDiffers(t *testing.T) {
	ws := openChoices(t)
	d := renderOne(t, ws, pointAt(t, ws, "c7-fp8-mi355x-vllm", 0, 4), Options{})
	var got *launch.Arg
	for i, a := range d.Processes[0].Args {
		if a.Flag == "--max-num-seqs" {
			got = &d.Processes[0].Args[i]
		}
	}
	if got == nil || strings.Join(got.Values, " ") != "64" || !strings.Contains(got.Unknown, "--max-num-seqs 64 when the MEC firmware is far below 177 (1) or the MEC firmware is below 177 (176); absent when the MEC firmware is 177 or later (177) or the MEC firmware is far above 177 (99999)") {
		t.Fatalf("--max-num-seqs = %+v", got)
	}
	if !strings.Contains(joinedNotes(d.Notes), "on a machine where rocm-smi --showfw prints no MEC line, the script stops at benchmarks/single_node/fixed_seq_len/c7_fp8_mi355x.sh:6:5 (exit 1)") {
		t.Errorf("notes = %q", d.Notes)
	}
}

// TestChoiceUnsupported: every answer stops before the server; the engine
// differs between answers; the answers need more runs than the budget (a
// probe asked again keeps its answer, but three facts asked in a loop of
// 100 iterations: 45 combinations);
// the body of an unknown condition reads the unknown file.
func TestChoiceUnsupported(t *testing.T) {
	ws := openChoices(t)
	for _, c := range []struct{ key, want string }{
		{"c4-fp8-mi355x-vllm", "no server launch: benchmarks/single_node/fixed_seq_len/c4_fp8_mi355x.sh:6:5: exit 1"},
		{"c5-fp8-mi355x-vllm", "the server processes differ between the answers to facts the sandbox does not know (the MEC firmware version of mi355x"},
		{"c6-fp8-mi355x-vllm", "more often than the 16 runs of every answer allow: the MEC firmware version of mi355x (not published; 177 is the threshold AMD documents) (rocm-smi --showfw at benchmarks/single_node/fixed_seq_len/c6_fp8_mi355x.sh:5:9); the space available on /dev/shm"},
		{"c8-fp8-mi355x-vllm", "c8_fp8_mi355x.sh:5:5"},
		{"c9-fp8-mi355x-vllm", "c9_fp8_mi355x.sh:4:12: a read of /opt/engine/mode.txt"},
	} {
		pe := renderErr(t, ws, c.key, 0, 4)
		if pe.Status != StatusUnsupported || !strings.Contains(pe.Note, c.want) {
			t.Errorf("%s: %s: %s\nwant %q", c.key, pe.Status, pe.Note, c.want)
		}
		// The same on every run.
		if again := renderErr(t, ws, c.key, 0, 4); again.Note != pe.Note {
			t.Errorf("%s: %q, then %q", c.key, pe.Note, again.Note)
		}
	}
}

// TestEnumerateChoices: the runs follow every combination depth first, a
// later choice point under each earlier answer, and stop at the budget.
func TestEnumerateChoices(t *testing.T) {
	tree := func(choices []int, depth, width int) *ScriptRun {
		r := &ScriptRun{Trace: &sandboxTrace{}}
		for i := 0; i < depth; i++ {
			k := 0
			if i < len(choices) {
				k = choices[i]
			}
			r.Choices = append(r.Choices, choiceOf(width, k, i))
		}
		return r
	}
	var seen []string
	runs, err := enumerateChoices(func(c []int) (*ScriptRun, error) {
		r := tree(c, 2, 3)
		var s []string
		for _, ch := range r.Choices {
			s = append(s, string(rune('0'+ch.Taken)))
		}
		seen = append(seen, strings.Join(s, ""))
		return r, nil
	})
	if err != nil || len(runs) != 9 || strings.Join(seen, " ") != "00 01 02 10 11 12 20 21 22" {
		t.Errorf("runs %d, err %v, order %q", len(runs), err, seen)
	}
	_, err = enumerateChoices(func(c []int) (*ScriptRun, error) { return tree(c, 3, 3), nil })
	if err == nil || !strings.Contains(err.Error(), "more often than the 16 runs") {
		t.Errorf("27 combinations: err %v", err)
	}
}

type sandboxTrace = sandbox.Trace

// choiceOf is a choice point of width answers, the k-th taken, at line i+1.
func choiceOf(width, k, i int) sandbox.Choice {
	answers := make([]string, width)
	for j := range answers {
		answers[j] = "answer " + string(rune('0'+j))
	}
	return sandbox.Choice{Pos: sandbox.Pos{File: "x.sh", Line: i + 1, Col: 1}, Command: "probe", Fact: "fact", Answers: answers, Taken: k}
}

// TestChoiceNoLauncher: a point whose runner label has no launcher (the
// naming rule's script, run directly) is rendered under every answer too.
func TestChoiceNoLauncher(t *testing.T) {
	ws := openChoices(t)
	d := renderOne(t, ws, pointAt(t, ws, "c10-fp8-mi300x-vllm", 0, 4), Options{})
	if e := envOf(d.Processes[0])["HSA_NO_SCRATCH_RECLAIM"]; !strings.Contains(e.Unknown, "unset when the MEC firmware is 177 or later (177)") {
		t.Errorf("HSA_NO_SCRATCH_RECLAIM = %+v", e)
	}
	if !strings.Contains(joinedNotes(d.Notes), "runner label mi300x is not in configs/runners.yaml") {
		t.Errorf("notes = %q", d.Notes)
	}
}
