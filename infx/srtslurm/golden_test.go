package srtslurm

import (
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var reGoldenRef = regexp.MustCompile(`\.(main|v\d+\.\d+\.\d+|[A-Za-z0-9][A-Za-z0-9_-]*)$`)

// goldenStep is one "## srun on" block of a golden file.
type goldenStep struct {
	header string
	env    []string
	pre    string // preamble label
	cmd    string
}

// parseGolden splits a golden rendering into header lines, steps,
// preambles (label → text) and files (name → content).
func parseGolden(text string) (header []string, steps []goldenStep, pre map[string]string, files map[string]string) {
	pre, files = map[string]string{}, map[string]string{}
	blocks := strings.Split(text, "\n## ")
	for i, b := range blocks {
		if i == 0 {
			header = strings.Split(strings.TrimRight(b, "\n"), "\n")
			continue
		}
		switch {
		case strings.HasPrefix(b, "srun on "):
			lines := strings.Split(strings.TrimRight(b, "\n"), "\n")
			s := goldenStep{header: lines[0]}
			for _, l := range lines[1:] {
				l = strings.TrimPrefix(l, "   ")
				switch {
				case strings.HasPrefix(l, "env "):
					s.env = append(s.env, strings.TrimPrefix(l, "env "))
				case strings.HasPrefix(l, "bash-preamble: "):
					s.pre = strings.TrimPrefix(l, "bash-preamble: ")
				default:
					s.cmd = l
				}
			}
			steps = append(steps, s)
		case strings.HasPrefix(b, "bash-preamble "):
			name, rest, _ := strings.Cut(b, "\n")
			label := strings.Fields(name)[1]
			pre[label] = strings.TrimRight(rest, "\n")
		case strings.HasPrefix(b, "file "):
			name, rest, _ := strings.Cut(b, "\n")
			files[strings.TrimPrefix(name, "file ")] = rest
		}
	}
	return
}

// goldenCase is one golden file with the rendering we make for it.
type goldenCase struct {
	name, want, got string
}

// goldenFile is one golden/oracle file: its first line "# recipe:
// <path>[:<selector>]" split into recipePath and sel, the rest of the file
// after that line, and the srt-slurm ref (version) named in the file name
// (<what>.<ref>.txt).
type goldenFile struct {
	goldenCase
	ref, recipePath, sel, rest, version string
}

// readGolden reads gf; a file name that names no srt-slurm ref is an
// error of the test (reported, ok false).
func readGolden(t *testing.T, gf string) (goldenFile, bool) {
	t.Helper()
	data, err := os.ReadFile(gf)
	if err != nil {
		t.Fatal(err)
	}
	g := goldenFile{goldenCase: goldenCase{name: filepath.Base(gf), want: string(data)}}
	first, rest, _ := strings.Cut(g.want, "\n")
	g.ref, g.rest = strings.TrimPrefix(first, "# recipe: "), rest
	g.recipePath, g.sel, _ = strings.Cut(g.ref, ":")
	m := reGoldenRef.FindStringSubmatch(strings.TrimSuffix(g.name, ".txt"))
	if m == nil {
		t.Errorf("%s: cannot tell the srt-slurm ref from the file name", g.name)
		return g, false
	}
	g.version = m[1]
	return g, true
}

// renderGoldens renders the recipe of every golden file in
// ../shared/golden/srt-slurm with the srt-slurm ref named in the file name
// (<what>.<ref>.txt), recipes read from ../shared/corpus/srt-slurm.
func renderGoldens(t *testing.T) []goldenCase {
	gdir := testutil.SharedPath(t, "golden/srt-slurm")
	rdir := testutil.SharedPath(t, "corpus/srt-slurm")
	files, err := filepath.Glob(filepath.Join(gdir, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files in %s (%v)", gdir, err)
	}
	var cases []goldenCase
	for _, gf := range files {
		g, ok := readGolden(t, gf)
		if !ok {
			continue
		}
		rec, err := Load(filepath.Join(rdir, g.recipePath))
		if err != nil {
			t.Errorf("%s: %v", g.name, err)
			continue
		}
		out, err := rec.Render(g.sel, Options{Version: g.version})
		if err != nil {
			t.Errorf("%s: %v", g.name, err)
			continue
		}
		out.Label = g.ref
		g.got = out.Text()
		cases = append(cases, g.goldenCase)
	}
	return cases
}

// TestGoldenSrtSlurm is the oracle of ../shared/golden/srt-slurm: for every
// golden file, the same srun steps in the same order, each with the same
// node list, task count and image, the same exported env (names, values,
// order) and the same command (shlex-joined argv). Node names and IPs are
// the README's fakes (nodeK, 10.0.0.K), which Render uses too.
func TestGoldenSrtSlurm(t *testing.T) {
	cases := renderGoldens(t)
	pass := 0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, gs, _, _ := parseGolden(c.got)
			_, ws, _, _ := parseGolden(c.want)
			if len(gs) != len(ws) {
				t.Errorf("%d srun steps, want %d", len(gs), len(ws))
			}
			for i := 0; i < len(gs) && i < len(ws); i++ {
				g, w := gs[i], ws[i]
				if g.header != w.header {
					t.Errorf("step %d header:\n got %s\nwant %s", i, g.header, w.header)
				}
				if strings.Join(g.env, "\n") != strings.Join(w.env, "\n") {
					t.Errorf("step %d (%s) env:\n got %q\nwant %q", i, w.header, g.env, w.env)
				}
				if g.cmd != w.cmd {
					t.Errorf("step %d (%s) command:\n got %s\nwant %s", i, w.header, g.cmd, w.cmd)
				}
				if (g.pre == "") != (w.pre == "") {
					t.Errorf("step %d (%s): preamble %q, want %q", i, w.header, g.pre, w.pre)
				}
			}
			if !t.Failed() {
				pass++
			}
		})
	}
	t.Logf("%d/%d golden renderings: every srun step's argv and env equal", pass, len(cases))
}

// TestGoldenSrtSlurmText compares the whole text of every golden rendering
// byte for byte: besides the steps, the header, the bash preambles (dynamo
// install, fingerprint) and the files srt-slurm writes (nginx.conf, TRT-LLM
// engine YAML).
func TestGoldenSrtSlurmText(t *testing.T) {
	cases := renderGoldens(t)
	pass := 0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.got == c.want {
				pass++
				return
			}
			gh, gs, gp, gfiles := parseGolden(c.got)
			wh, ws, wp, wfiles := parseGolden(c.want)
			for i := range wh {
				if i >= len(gh) || gh[i] != wh[i] {
					g := ""
					if i < len(gh) {
						g = gh[i]
					}
					t.Errorf("header line %d:\n got %s\nwant %s", i+1, g, wh[i])
				}
			}
			for i := 0; i < len(gs) && i < len(ws); i++ {
				if gp[gs[i].pre] != wp[ws[i].pre] {
					t.Errorf("step %d (%s) preamble %s/%s:\n got %s\nwant %s", i, ws[i].header, gs[i].pre, ws[i].pre, gp[gs[i].pre], wp[ws[i].pre])
				}
			}
			for n, w := range wfiles {
				if gfiles[n] != w {
					t.Errorf("file %s:\n got %q\nwant %q", n, gfiles[n], w)
				}
			}
			for n := range gfiles {
				if _, ok := wfiles[n]; !ok {
					t.Errorf("extra file %s", n)
				}
			}
			if !t.Failed() {
				t.Errorf("text differs from the golden file (layout or steps; see TestGoldenSrtSlurm)")
			}
		})
	}
	t.Logf("%d/%d golden renderings byte-identical", pass, len(cases))
}

// renderOracles renders the recipe of testdata/oracle/<what>.<ref>.txt
// (renderings made by running srt-slurm's own code, see
// testdata/oracle/README.md) with the ref named in the file name: with
// infx "", the oracles of recipes under testdata/ (read from this
// package); else those of benchmarks/… recipes, read from the InferenceX
// tree infx. An oracle whose second line is "# error: …" records a recipe
// srtctl refuses: Render must fail too (c.got is then "# error: <our error>").
func renderOracles(t *testing.T, infx string) []goldenCase {
	files, err := filepath.Glob(filepath.Join("testdata", "oracle", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no oracle files in testdata/oracle (%v)", err)
	}
	var cases []goldenCase
	for _, gf := range files {
		g, ok := readGolden(t, gf)
		if !ok {
			continue
		}
		c, name, ref := &g.goldenCase, g.name, g.ref
		p := g.recipePath
		if strings.HasPrefix(p, "testdata/") != (infx == "") {
			continue
		}
		if infx != "" {
			p = filepath.Join(infx, p)
		}
		wantErr := strings.HasPrefix(g.rest, "# error: ")
		rec, err := Load(p)
		var out *Rendering
		if err == nil {
			out, err = rec.Render(g.sel, Options{Version: g.version})
		}
		switch {
		case err != nil && wantErr:
			c.got = c.want // refused, as srtctl does
			t.Logf("%s: refused as by srtctl: %v", name, err)
		case err != nil:
			c.got = "# error: " + err.Error()
		case wantErr:
			out.Label = ref
			c.got = out.Text()
		default:
			out.Label = ref
			c.got = out.Text()
		}
		cases = append(cases, *c)
	}
	if len(cases) == 0 {
		t.Fatal("no oracle case")
	}
	return cases
}

// TestOracleText compares our rendering with every oracle rendering of
// testdata/oracle whose recipe is a fixture under testdata/ byte for byte
// (same comparison as TestGoldenSrtSlurmText), and checks that the recipes
// srtctl refuses are refused by Render too.
func TestOracleText(t *testing.T) {
	checkOracles(t, renderOracles(t, ""))
}

// TestGoldenOracleText is TestOracleText for the oracles of the InferenceX
// recipes (benchmarks/…), read from ../shared/corpus/upstream/InferenceX.
func TestGoldenOracleText(t *testing.T) {
	checkOracles(t, renderOracles(t, testutil.UpstreamInferenceX(t)))
}

// checkOracles compares each case's rendering with its oracle.
func checkOracles(t *testing.T, cases []goldenCase) {
	t.Helper()
	pass := 0
	dump := os.Getenv("ORACLE_GOT_DIR") // debugging aid: write our renderings there
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if dump != "" {
				if err := os.WriteFile(filepath.Join(dump, c.name), []byte(c.got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if c.got == c.want {
				pass++
				return
			}
			if strings.HasPrefix(c.got, "# error: ") {
				t.Fatalf("Render failed: %s", c.got)
			}
			if _, rest, _ := strings.Cut(c.want, "\n"); strings.HasPrefix(rest, "# error: ") {
				t.Fatalf("srtctl refuses this recipe (%s) but Render accepts it", strings.TrimSpace(rest))
			}
			diffText(t, c.got, c.want)
		})
	}
	t.Logf("%d/%d oracle renderings byte-identical (or refused as by srtctl)", pass, len(cases))
}

// diffText reports the first differing lines of got and want.
func diffText(t *testing.T, got, want string) {
	t.Helper()
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	n := 0
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, g, w)
			if n++; n >= 6 {
				t.Errorf("… (more differences)")
				return
			}
		}
	}
}
