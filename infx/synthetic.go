package infx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/infx/helpers"
	"github.com/cookbook-sync/cookbook-sync/infx/sandbox"
)

// This file runs InferenceX runners/inject_synthetic_acceptance.py (called
// by runners/slurm_utils.sh inject_synthetic_acceptance and
// runners/launch_gb200-nv.sh before `srtctl apply`) through its Go version
// in package infx/helpers: in the sandbox the program is identified by the
// text of its files and its opt-in decided; the rewrite of the recipe is
// recorded (sandbox.Call.EditFile) and applied to the recipe text when the
// point's recipe is read (applyEdits), as the launcher's sed edits are.

// syntheticProgram is the RecipeEdit.Kind / FileEdit.Program of the
// injector's rewrite.
const syntheticProgram = "inject_synthetic_acceptance.py"

// syntheticEdit is the injector's recorded input (FileEdit.Data): the
// versions recognized and the invocation.
type syntheticEdit struct {
	IDs   []string               `json:"ids"`
	Input helpers.SyntheticInput `json:"input"`
}

// syntheticCmd answers `python3 …/inject_synthetic_acceptance.py CONFIG
// [FRAMEWORK]`: Unsupported when the text of the driver or of a module it
// imports is in no version of the table (named with its sha256); status 0
// and nothing recorded when the run leaves the recipe alone (no opt-in);
// else the rewrite recorded as an edit of CONFIG. What the program prints
// is not modelled (no script reads it).
func syntheticCmd(ctx context.Context, c *sandbox.Call) error {
	args := c.Args
	driver := args[1]
	read := func(name string) ([]byte, bool, error) {
		b, err := c.ReadFile(ctx, name)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		return b, err == nil, err
	}
	var src helpers.SyntheticSources
	b, ok, err := read(driver)
	if err != nil || !ok {
		return c.Unsupported("python3", fmt.Sprintf("%s cannot be read: %v", driver, err))
	}
	src.Driver = b
	pkg := path.Join(path.Dir(driver), "synthetic_injectors")
	if b, ok, err := read(pkg + "/__init__.py"); err != nil {
		return c.Unsupported("python3", err.Error())
	} else if ok {
		src.Init, src.HasInit = b, true
	}
	src.Modules = map[string][]byte{}
	for _, m := range helpers.ModulesOf(src.Init) {
		b, ok, err := read(pkg + "/" + m + ".py")
		if err != nil {
			return c.Unsupported("python3", err.Error())
		}
		if ok {
			src.Modules[m] = b
		}
	}
	prog, err := helpers.IdentifySynthetic(src)
	if err != nil {
		return c.Unsupported("python3", fmt.Sprintf("%s: %v", driver, err))
	}
	env := c.Getenvs(helpers.SyntheticEnv...)
	abs := driver
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(c.Dir(), abs)
	}
	in := helpers.SyntheticInput{Args: append([]string(nil), args[2:]...), Env: env,
		RefPath: filepath.Dir(filepath.Clean(abs)) + "/../benchmarks/speedbench-reference-al.yaml"}
	touch, err := prog.Touches(in)
	var exit *helpers.Exit
	if errors.As(err, &exit) {
		_, _ = fmt.Fprintln(c.Stderr(), exit.Msg) // a reader that stopped reading changes no status
		return sandbox.ExitStatus(exit.Status)
	}
	if err != nil {
		return c.Unsupported("python3", fmt.Sprintf("%s: %v", driver, err))
	}
	if !touch {
		return nil
	}
	if b, ok, err := read(in.RefPath); err != nil {
		return c.Unsupported("python3", fmt.Sprintf("%s reads %s: %v", driver, in.RefPath, err))
	} else if ok {
		in.RefYAML, in.RefFound = string(b), true
	}
	data, err := json.Marshal(syntheticEdit{IDs: prog.IDs, Input: in})
	if err != nil {
		return c.Unsupported("python3", err.Error())
	}
	c.EditFile(args[2], syntheticProgram, string(data))
	return nil
}

// applySynthetic runs the recorded injector on the recipe text. Errors
// say what the program does instead (exits non-zero: the launcher was
// followed as if it succeeded) or what is not modelled.
func applySynthetic(text []byte, e RecipeEdit) ([]byte, error) {
	var se syntheticEdit
	if err := json.Unmarshal([]byte(e.Text), &se); err != nil {
		return nil, fmt.Errorf("%s: %s: %v", e.At, syntheticProgram, err)
	}
	prog, err := helpers.SyntheticFromIDs(se.IDs)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", e.At, err)
	}
	out, err := prog.Apply(se.Input, text)
	var exit *helpers.Exit
	if errors.As(err, &exit) {
		return nil, fmt.Errorf("%s: runners/%s (%s) %v on this recipe, so the job is not the one rendered (the launcher was followed as if it succeeded)", e.At, syntheticProgram, strings.Join(se.IDs, ", "), exit)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: runners/%s (%s): %v", e.At, syntheticProgram, strings.Join(se.IDs, ", "), err)
	}
	return out, nil
}

// syntheticBy names the injector run of e for a launch.HarnessEdit:
// "runners/inject_synthetic_acceptance.py (<version ids>) at <where>".
func syntheticBy(e RecipeEdit) string {
	var se syntheticEdit
	_ = json.Unmarshal([]byte(e.Text), &se) // applySynthetic reported a bad one already
	return fmt.Sprintf("runners/%s (%s) at %s", syntheticProgram, strings.Join(se.IDs, ", "), e.At)
}

// syntheticNote says, for the reader of a render, that the injector
// rewrites the recipe and which of its versions ran, with what.
func syntheticNote(e RecipeEdit) string {
	var se syntheticEdit
	_ = json.Unmarshal([]byte(e.Text), &se) // applySynthetic reported a bad one already
	var set []string
	for _, n := range helpers.SyntheticEnv {
		if v, ok := se.Input.Env[n]; ok {
			set = append(set, n+"="+v)
		}
	}
	return fmt.Sprintf("runners/%s (%s) rewrites the recipe before srtctl reads it (%s; %s): the synthetic acceptance it injects is harness-only",
		syntheticProgram, strings.Join(se.IDs, ", "), e.At, strings.Join(set, " "))
}
