package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/cookbook-sync/cookbook-sync/coverage"
	"github.com/cookbook-sync/cookbook-sync/report"
)

// coverageFlagTree is the coverage command as the program builds it: its
// own flags, the root's persistent ones, --help, and --deadline (which
// run() puts on the root).
func coverageFlagTree(t *testing.T) *pflag.FlagSet {
	t.Helper()
	root := newRootCmd(io.Discard, io.Discard)
	root.PersistentFlags().Duration("deadline", 0, "as run() registers it")
	cov, _, err := root.Find([]string{"coverage"})
	if err != nil || cov.Name() != "coverage" {
		t.Fatalf("coverage command: %v", err)
	}
	cov.InitDefaultHelpFlag()
	if err := cov.ParseFlags(nil); err != nil { // merges the persistent flags
		t.Fatal(err)
	}
	return cov.Flags()
}

// TestCoverageFooterCarriesEveryFlag: every flag of the coverage command
// (read from the cobra tree, so a flag added later is covered) is listed in
// coverageFooterFlags, and, when given, every one that changes the result
// is carried into the Markdown footer command — input directories as
// placeholders with their checkout's commit after the command, never
// their local path. Only the flags listed as not changing the result are
// dropped.
func TestCoverageFooterCarriesEveryFlag(t *testing.T) {
	fs := coverageFlagTree(t)
	var all []string
	fs.VisitAll(func(f *pflag.Flag) { all = append(all, f.Name) })
	for _, ff := range coverageFooterFlags {
		if !slices.Contains(all, ff.name) {
			t.Errorf("coverageFooterFlags lists --%s, which the coverage command does not have", ff.name)
		}
	}
	var dropped []string
	for _, name := range all {
		switch footerKindOf(name) {
		case 0:
			t.Errorf("--%s is not in coverageFooterFlags: say whether it changes the result (footerDir, footerValue) or not (footerDropped)", name)
		case footerDropped:
			dropped = append(dropped, name)
		}
	}
	// the explicit list of flags that do not change the result
	if want := []string{"cache-dir", "deadline", "format", "help", "no-cache"}; !slices.Equal(dropped, want) {
		t.Errorf("flags dropped from the footer %q, want %q", dropped, want)
	}

	// Give every flag that changes the result, as a user would.
	tmp := t.TempDir()
	local := func(name string) string { return filepath.Join(tmp, "local-"+name) }
	var args, wants []string
	rep := &report.Report{}
	dirs := map[string]*report.RepoInfo{}
	fs.VisitAll(func(f *pflag.Flag) {
		kind := footerKindOf(f.Name)
		if kind == footerDropped {
			return
		}
		if kind == footerDir {
			vals := []string{local(f.Name)}
			switch {
			case f.Name == "srt-slurm-dir":
				// a fork's checkout: OWNER/NAME@REF=DIR
				args = append(args, "--"+f.Name, "o/fork@df5baa93="+local("fork"))
			case f.Value.Type() == "stringArray":
				vals = append(vals, local(f.Name+"-2"))
			}
			for _, v := range vals {
				args = append(args, "--"+f.Name, v)
				dirs[v] = &report.RepoInfo{Dir: v, Repo: "owner/" + f.Name, Commit: strings.Repeat(string(rune('a'+len(dirs))), 40)}
			}
			return
		}
		switch f.Value.Type() {
		case "bool":
			args = append(args, "--"+f.Name)
			wants = append(wants, " --"+f.Name+" ")
		case "string":
			args = append(args, "--"+f.Name, "v-"+f.Name)
			wants = append(wants, " --"+f.Name+" v-"+f.Name+" ")
		case "stringArray":
			args = append(args, "--"+f.Name, "a-"+f.Name, "--"+f.Name, "b *"+f.Name)
			wants = append(wants, " --"+f.Name+" a-"+f.Name+" --"+f.Name+" 'b *"+f.Name+"' ")
		case "int":
			args = append(args, "--"+f.Name, "7")
			wants = append(wants, " --"+f.Name+" 7 ")
		case "duration":
			args = append(args, "--"+f.Name, "17s")
			wants = append(wants, " --"+f.Name+" 17s ")
		default:
			t.Fatalf("--%s: a %s flag: teach this test its value", f.Name, f.Value.Type())
		}
	})
	args = append(args, "--format", "markdown", "--deadline", "9m")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	// the report records each checkout read, with its commit
	rep.InferenceX = *dirs[local("infx")]
	rep.Cookbook, rep.PagesRepo = dirs[local("cookbook")], dirs[local("cookbook-2")]
	rep.VLLMRecipes, rep.SrtSlurm = dirs[local("vllm-recipes")], dirs[local("srt-slurm-dir")]
	if rep.Cookbook == nil || rep.PagesRepo == nil || rep.VLLMRecipes == nil || rep.SrtSlurm == nil {
		t.Fatalf("directory flags: %v", dirs)
	}
	hint, inputs := coverageFooter(fs, rep)
	where := report.HintWhere(inputs)
	for _, w := range append(wants,
		"cookbook-sync coverage --infx <InferenceX> --cookbook <sglang> --cookbook <sglang-docs> --vllm-recipes <vllm-recipes> --srt-slurm-dir o/fork@df5baa93=<fork> --srt-slurm-dir <srt-slurm> ") {
		if !strings.Contains(hint+" ", w) {
			t.Errorf("footer lacks %q:\n%s", w, hint)
		}
	}
	if !strings.HasSuffix(hint, " --format json") || strings.Count(hint, "--format") != 1 || strings.Contains(hint, "--deadline") || strings.Contains(hint, "--help") {
		t.Errorf("footer %q: want --format json once at the end, no --deadline", hint)
	}
	wantWhere := "where `<InferenceX>` is `owner/infx@" + rep.InferenceX.Commit + "`, `<sglang>` is `owner/cookbook@" + rep.Cookbook.Commit +
		"`, `<sglang-docs>` is `owner/cookbook@" + rep.PagesRepo.Commit + "`, `<vllm-recipes>` is `owner/vllm-recipes@" + rep.VLLMRecipes.Commit +
		"`, `<fork>` is `o/fork` (not a git checkout: no commit), `<srt-slurm>` is `owner/srt-slurm-dir@" + rep.SrtSlurm.Commit + "`"
	if where != wantWhere {
		t.Errorf("where:\n%s\nwant\n%s", where, wantWhere)
	}
	for _, s := range []string{hint, where} {
		if strings.Contains(s, tmp) || strings.Contains(s, "local-") {
			t.Errorf("footer names a local path: %s", s)
		}
	}
}

// Without any flag (the embedded demo) the footer is the bare command.
func TestCoverageFooterDemo(t *testing.T) {
	fs := coverageFlagTree(t)
	if err := fs.Parse([]string{"--format", "markdown"}); err != nil {
		t.Fatal(err)
	}
	hint, inputs := coverageFooter(fs, &report.Report{InferenceX: report.RepoInfo{Dir: "(embedded demo)/inferencex"}})
	if hint != "cookbook-sync coverage --format json" || len(inputs) != 0 {
		t.Errorf("demo footer %q %v", hint, inputs)
	}
}

// TestCoverageFooterNoLocalPath: a real run on checkouts in temporary
// directories, its Markdown cut so that the footer is printed: the footer
// reproduces the run with placeholders and commits, and no local path
// appears anywhere in the Markdown.
func TestCoverageFooterNoLocalPath(t *testing.T) {
	infx, cb := demoDirs(t)
	h := commitDemoCookbook(t, cb)
	cmd := newCoverageCmd()
	args := []string{"--infx", infx, "--cookbook", cb, "--config-key", "qwen3.5-fp8-gb300-*", "--config-key", "*-mtp", "--allow-unverified", "--policy", "current", "--format", "markdown"}
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	o := coverageOptions{infx: infx, cookbook: []string{cb}, configKeys: []string{"qwen3.5-fp8-gb300-*", "*-mtp"}, allowUnverified: true, policy: "current",
		format: "markdown", flags: cmd.Flags(), mdLimit: 2500}
	rep, err := coverage.Run(context.Background(), o.libOptions())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := printReport(&b, rep, o); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	checkMarkdown(t, out, "❌ Check 3: 1 gap — differs 1 (of 3 config keys; not verified (allowed) 2)", infx, cb, filepath.Dir(infx))
	want := " The whole report: `cookbook-sync coverage --infx <InferenceX> --cookbook <sglang> --config-key 'qwen3.5-fp8-gb300-*' --config-key '*-mtp' --policy current --allow-unverified --format json`" +
		", where `<InferenceX>` is `SemiAnalysisAI/InferenceX` (not a git checkout: no commit), `<sglang>` is `sgl-project/sglang@" + h.String() + "`.\n"
	if !strings.HasSuffix(out, want) {
		t.Errorf("markdown does not end with the footer %q:\n%s", want, out)
	}
}
