package infx

import (
	"context"
	"fmt"
	"io"

	"github.com/cookbook-sync/cookbook-sync/infx/helpers"
	"github.com/cookbook-sync/cookbook-sync/infx/sandbox"
)

// syncCmd runs `python3 PATH/sync.py ARGS…` — SemiAnalysisAI/InferenceX
// benchmarks/multi_node/amd_utils/sync.py, the barrier / wait of the AMD
// multi-node launchers (server_sglang.sh, server_vllm.sh) — by its model,
// helpers.RunSync (cmd_barrier, cmd_wait: every node's task runs and its
// servers come up; a barrier that times out ends the job with no published
// result), when the text of the file at PATH is a version of
// helpers.SyncTable: what the model prints is printed, its status is the
// command's. Unsupported, naming the file: a text in no version (with its
// sha256, and why when helpers.SyncExcluded leaves it out), a run the model
// does not reproduce (argparse errors, help, a barrier that cannot pass),
// or a run whose output is not reproduced where the script uses that
// output (a $(…), the left of a pipe). Output the model does not reproduce
// is otherwise not printed: it goes to the job's log, or to a file whose
// content is then not known.
func syncCmd(ctx context.Context, c *sandbox.Call) error {
	file := c.Args[1]
	src, err := c.ReadFile(ctx, file)
	if err != nil {
		return c.Unsupported("python3", fmt.Sprintf("%s cannot be read: %v", file, err))
	}
	prog, ok := helpers.LookupSync(src)
	if !ok {
		h := helpers.Hash(src)
		msg := fmt.Sprintf("%s (sha256 %s) is not a known version of %s (infx/helpers.SyncTable)", file, h, helpers.SyncPath)
		if why, ex := helpers.SyncExcluded()[h]; ex {
			msg += "; that version is left out of the table: " + why
		}
		return c.Unsupported("python3", msg)
	}
	out, err := helpers.RunSync(c.Args[2:])
	if err != nil {
		return c.Unsupported("python3", fmt.Sprintf("%s (%s): %v", file, prog.ID, err))
	}
	if !out.Printed && c.Use == sandbox.UseValue {
		return c.Unsupported("python3", fmt.Sprintf("%s (%s): the script uses its output, and what it prints is not reproduced (what a barrier prints while it waits depends on timings; a traceback on the Python version)", file, prog.ID))
	}
	if !out.Printed {
		// to a file, a later read of it is refused
		c.UnknownOutput(fmt.Sprintf("%s (%s) wrote it, and what it prints is not reproduced", file, prog.ID))
	}
	// A reader that stopped reading changes no status.
	_, _ = io.WriteString(c.Stdout(), out.Stdout)
	_, _ = io.WriteString(c.Stderr(), out.Stderr)
	return sandbox.ExitStatus(out.Status)
}
