package infx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/infx/helpers"
	"github.com/cookbook-sync/cookbook-sync/infx/sandbox"
)

// This file answers the inline helper programs of package infx/helpers
// that the scripts run with `python3 -c WORD` (the AMD models.yaml
// loaders, the node_excludes.yaml reader, the JSON normalizer): a program is known by the
// SHA-256 of WORD as written (sandbox.Call.RawArgs), before the shell
// substitutes its ${…}; its Go implementation runs on what the sandbox
// knows (the variables at the command, the files by the one read rule).

// inlineProgram answers `python3 -c WORD` when WORD's text is a known
// helper program: handled false for any other command. A text that reads
// amd_utils' models.yaml but is in no version of the table is Unsupported,
// naming its position and hash.
func inlineProgram(ctx context.Context, c *sandbox.Call) (handled bool, err error) {
	args := c.Args
	if len(args) < 3 || !strings.HasPrefix(path.Base(args[0]), "python") || args[1] != "-c" {
		return false, nil
	}
	raw, ok := c.RawArgs()
	if !ok {
		return false, nil
	}
	word := ""
	for i := 0; i+1 < len(raw); i++ {
		if raw[i] == "-c" {
			word = raw[i+1]
			break
		}
	}
	if word == "" {
		return false, nil
	}
	if helpers.IsJSONNormalize(word) {
		var stdin []byte
		if c.Stdin() != nil {
			// A read error ends the input like its end does.
			stdin, _ = io.ReadAll(io.LimitReader(c.Stdin(), 1<<20))
		}
		out, err := helpers.RunJSONNormalize(stdin)
		if err != nil {
			return true, c.Unsupported("python3", fmt.Sprintf("%s (sha256 %s) at %s: %v", out.Program.ID, helpers.Hash([]byte(word)), c.Pos, err))
		}
		_, _ = io.WriteString(c.Stdout(), out.Stdout) // a reader that stopped reading changes no status
		_, _ = io.WriteString(c.Stderr(), out.Stderr)
		if out.Status != 0 {
			return true, sandbox.ExitStatus(out.Status)
		}
		return true, nil
	}
	run := helpers.RunAMDModels
	switch {
	case helpers.IsNodeExcludes(word):
		run = helpers.RunNodeExcludes
	case helpers.IsAMDModels(word):
	case strings.Contains(word, "NODE_EXCLUDES_YAML") || strings.Contains(word, "node_excludes.yaml"):
		return true, c.Unsupported("python3", fmt.Sprintf("python3 -c program at %s (sha256 %s) reads node_excludes.yaml but is not a known version of the %s reader (infx/helpers)", c.Pos, helpers.Hash([]byte(word)), helpers.NodeExcludesPath))
	}
	if !helpers.IsAMDModels(word) && !helpers.IsNodeExcludes(word) {
		if strings.Contains(word, "MODELS_YAML") || strings.Contains(word, "models.yaml") {
			return true, c.Unsupported("python3", fmt.Sprintf("python3 -c program at %s (sha256 %s) reads models.yaml but is not a known version of the %s loader (infx/helpers)", c.Pos, helpers.Hash([]byte(word)), helpers.AMDModelsPath))
		}
		return false, nil
	}
	in := helpers.AMDModelsInput{
		Raw: word, Expanded: args[2],
		Var:    c.Lookup,
		Getenv: c.Getenv,
		ReadFile: func(name string) ([]byte, error) {
			b, err := c.ReadFile(ctx, name)
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%w: %v", helpers.ErrNoSuchFile, err)
			}
			return b, err
		},
		Memo: c.Memo,
	}
	out, err := run(in)
	if err != nil {
		return true, c.Unsupported("python3", fmt.Sprintf("%s (sha256 %s): %v", helpersID(word), helpers.Hash([]byte(word)), err))
	}
	_, _ = io.WriteString(c.Stdout(), out.Stdout) // a reader that stopped reading changes no status
	_, _ = io.WriteString(c.Stderr(), out.Stderr)
	if out.Status != 0 {
		return true, sandbox.ExitStatus(out.Status)
	}
	return true, nil
}

// helpersID names the table entry of a known text.
func helpersID(word string) string {
	if p, ok := helpers.Lookup(append(helpers.AMDModelsTable(), helpers.NodeExcludesTable()...), []byte(word)); ok {
		return p.ID + " (" + p.Path + ")"
	}
	return "python3 -c program"
}
