// cookbook-sync patch (issue 24): tests of QuietCalls.

package interp

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestQuietCalls: a command substitution of one quiet call runs the call
// handler once with its literal words and the shell's variables, gives no
// output and status 0 (the assignment's status is its last
// substitution's, as before), and a handler error ends the run; any other
// substitution, and every one under xtrace, runs in a subshell as before;
// a quiet call that answers something other than ":" fails loudly.
func TestQuietCalls(t *testing.T) {
	type call struct{ args, x string }
	run := func(src string, answer []string, herr error) (calls []call, out string, err error) {
		t.Helper()
		f, perr := syntax.NewParser().Parse(strings.NewReader(src), "q.sh")
		if perr != nil {
			t.Fatal(perr)
		}
		var buf bytes.Buffer
		r, nerr := New(StdIO(nil, &buf, &buf), QuietCalls(func(name string) bool { return name == "qc" }),
			CallHandler(func(ctx context.Context, args []string) ([]string, error) {
				if args[0] != "qc" {
					return args, nil
				}
				hc := HandlerCtx(ctx)
				calls = append(calls, call{strings.Join(args, " "), hc.Env.Get("X").String()})
				if herr != nil {
					return nil, herr
				}
				return answer, nil
			}))
		if nerr != nil {
			t.Fatal(nerr)
		}
		err = r.Run(context.Background(), f)
		return calls, buf.String(), err
	}
	calls, out, err := run("X=7\ny=$(qc a:1)v; echo \"$y $?\"\nz=$(qc b)$(false); echo $?\n", []string{":"}, nil)
	if err != nil || out != "v 0\n1\n" || len(calls) != 2 || calls[0] != (call{"qc a:1", "7"}) || calls[1].args != "qc b" {
		t.Errorf("quiet: calls %v, output %q, %v", calls, out, err)
	}
	boom := errors.New("over the bound")
	if _, out, err := run("y=$(qc a); echo after\n", []string{":"}, boom); !errors.Is(err, boom) || strings.Contains(out, "after") {
		t.Errorf("a handler error: %q, %v; want the run ended with it", out, err)
	}
	// not quiet: a word that is not one literal, a redirection, xtrace —
	// the subshell runs the call and then its answer
	for _, src := range []string{"X=1; y=$(qc \"$X\")\n", "y=$(qc a 2>/dev/null)\n", "set -x; y=$(qc a)\n"} {
		calls, _, err := run(src, []string{"true"}, nil)
		if err != nil || len(calls) != 1 {
			t.Errorf("%q: calls %v, %v; want one call through the subshell", src, calls, err)
		}
	}
	if _, _, err := run("y=$(qc a)\n", []string{"echo", "hi"}, nil); err == nil || !strings.Contains(err.Error(), "quiet call qc answered") {
		t.Errorf("a quiet call answering a command: %v, want a loud error", err)
	}
}
