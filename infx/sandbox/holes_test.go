package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// TestHole: a hole is exactly as long as the value it stands for (every
// length from 9 bytes), holds its marks, and every part of it cut by
// bytes is Residual.
func TestHole(t *testing.T) {
	for n := 0; n < 260; n++ {
		h, ok := Hole(7, n)
		if ok != (n >= 9) {
			t.Fatalf("Hole(7, %d): ok %v", n, ok)
		}
		if !ok {
			continue
		}
		if len(h) != n || !HasHole(h) || !utf8.ValidString(h) {
			t.Fatalf("Hole(7, %d) = %q (%d bytes)", n, h, len(h))
		}
		for i := 0; i < n; i++ {
			for j := i + 1; j <= n; j++ {
				if !Residual("x" + h[i:j] + "y") {
					t.Fatalf("Hole(7, %d)[%d:%d] = %q is not residual", n, i, j, h[i:j])
				}
			}
		}
	}
	// a hole quoted by Go or bash, in any form, is residual too
	for n := 9; n < 200; n++ {
		h, _ := Hole(3, n)
		bq, err := syntax.Quote(h, syntax.LangBash)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{strconv.Quote(h), strconv.QuoteToASCII(h), fmt.Sprintf("%+q", h), bq, strings.ToUpper(strconv.QuoteToASCII(h))} {
			if !Residual("x" + q) {
				t.Fatalf("Hole(3, %d) quoted as %s is not residual", n, q)
			}
		}
	}
	if a, _ := Hole(1, 20); a == func() string { b, _ := Hole(2, 20); return b }() {
		t.Error("two holes of one length are the same")
	}
	if _, ok := Hole(256, 20); ok {
		t.Error("hole 256 made")
	}
	for _, v := range []string{"mi355x-amds_06", "a", "x.y:z/w@v+u,t-s"} {
		if !HoleValue(v) {
			t.Errorf("HoleValue(%q) = false", v)
		}
	}
	for _, v := range []string{"", "a b", "a\tb", "a\nb", "-x", "a*", "a?", "a[b", "a=b", "a$b", "a%b", "a'b", `a"b`, `a\b`, "a~", "#a", "a{b}", "é", strings.Repeat("a", MaxHoleValue+1)} {
		if HoleValue(v) {
			t.Errorf("HoleValue(%q) = true", v)
		}
	}
}

// TestHolesAreTheValues: a run whose input holds a hole and that never
// looks at it, its holes replaced by the values (SubstituteHoles), is the
// run of each value — for a command recorded with a variable built from
// the value, a value a function exports, a file written with it, a
// container's -e and --env-file; a run that looks at it (an argument of a
// command the sandbox answers, its input, a path, a wrapper's operand,
// text run as a script, a container's name, a file a command reads, a
// pattern, a directory PATH names, a declared name) ends with a
// *HoleError.
func TestHolesAreTheValues(t *testing.T) {
	cfg := func(x string, holes bool) Config {
		return Config{
			Env:      []string{"X=" + x, "PATH=/usr/bin:/bin"},
			Commands: map[string]Handler{"server": func(context.Context, *Call) error { return nil }},
			IsServer: func(argv []string) bool { return len(argv) > 0 && argv[0] == "server" },
			Holes:    holes,
		}
	}
	copies := []string{
		`export Y="${X}-x"; server --port 1`,
		`f() { export Z=$1; }; f "$X"; server`,
		`echo "run $X" > /tmp/out; server`,
		`docker run --rm -e RES=$X -e "B=${X}_b" --env=C=$X img server --x 1`,
		`printf 'A=%s\n' "$X" > /tmp/env; docker run --env-file /tmp/env img server`,
		`Y=${X:-none}; [[ -n $Y ]] && export Y; server`,
		`for a in $X b; do echo "$a"; done > /tmp/l; export W=$X; server`,
	}
	looks := []string{
		`server --name "$X"`,
		`echo "$X" | grep -q mi && server`,
		`Y=$(basename "$X"); server`,
		`if [ -d "/tmp/$X" ]; then server; fi`,
		`env -u "$X" server`,
		`bash -c "echo $X"`,
		`docker run --name "$X" img server`,
		`printf 'A=%s\n' "$X" > /tmp/e; grep A /tmp/e; server`,
		`printf '%s\n' "$X" > /tmp/env; docker run --env-file /tmp/env img server`,
		`case $X in *_06) export F=1;; esac; server`,
		`Y=${X%_*}; server`,
		`export PATH=$X; bash myscript`,
		`for a in $X; do export "L_$a"=1; done; server`,
	}
	for _, v := range []string{"mi355x-amds_06", "node-a_1.b:c/d"} {
		h, ok := Hole(0, len(v))
		if !ok {
			t.Fatal(v)
		}
		subst := strings.NewReplacer(h, v)
		for _, src := range copies {
			want, err := runSrc("c.sh", src, cfg(v, false))
			if err != nil {
				t.Fatalf("%q with %s: %v", src, v, err)
			}
			holed, err := runSrc("c.sh", src, cfg(h, true))
			if err != nil {
				t.Errorf("%q with a hole: %v, want a copy", src, err)
				continue
			}
			substitutedIs(t, src, holed, subst, v, want)
			if len(want.Commands) == 0 {
				t.Errorf("%q records no command", src)
			}
		}
		for _, src := range looks {
			_, err := runSrc("l.sh", src, cfg(h, true))
			var he *HoleError
			if !errors.As(err, &he) || !errors.Is(err, ErrHoleInspected) {
				t.Errorf("%q with a hole: %v, want a look at it", src, err)
			}
		}
	}
}

// substitutedIs fails unless the run of src with a hole, its holes
// replaced by subst, is want, the run with the value v.
func substitutedIs(t *testing.T, src string, holed *Trace, subst *strings.Replacer, v string, want *Trace) {
	t.Helper()
	got, ok := SubstituteHoles(holed, subst)
	if !ok {
		t.Errorf("%q: a residual after substitution", src)
		return
	}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if string(gj) != string(wj) {
		t.Errorf("%q: the run with a hole, substituted, is not the run of %s:\n got %s\nwant %s", src, v, gj, wj)
	}
}

// TestSubstituteHoles: the result has the values in place of the holes in
// strings, map keys, slices, pointers and interfaces, the original is
// untouched, what holds no hole is shared with it, and a hole cut by
// bytes or not named, two keys that become one, or an unexported field
// that may hold a string make it unusable.
func TestSubstituteHoles(t *testing.T) {
	h, _ := Hole(0, 12)
	subst := strings.NewReplacer(h, "value-of-12!")
	type inner struct {
		S string
		M map[string]string
		A any
	}
	in := &inner{S: "a " + h, M: map[string]string{h: h + "x"}, A: []string{h}}
	out, ok := SubstituteHoles(in, subst)
	if !ok || out.S != "a value-of-12!" || out.M["value-of-12!"] != "value-of-12!x" || out.A.([]string)[0] != "value-of-12!" {
		t.Fatalf("%v %+v", ok, out)
	}
	if in.S != "a "+h || in.M[h] != h+"x" {
		t.Error("the original changed")
	}
	// what holds no hole is shared, not copied
	plain := &inner{S: "no hole", M: map[string]string{"k": "v"}}
	if got, ok := SubstituteHoles(plain, subst); !ok || got != plain {
		t.Errorf("a value without holes was copied (%v)", ok)
	}
	mixed := []*inner{plain, in}
	if got, ok := SubstituteHoles(mixed, subst); !ok || got[0] != plain || got[1] == in || &got[0] == &mixed[0] {
		t.Errorf("the slice holding a hole: %v, element without holes shared %v", ok, got[0] == plain)
	}
	for _, bad := range []*inner{
		{S: h[:5]},
		{S: func() string { o, _ := Hole(1, 12); return o }()},
		{M: map[string]string{h: "1", "value-of-12!": "2"}},
	} {
		if _, ok := SubstituteHoles(bad, subst); ok {
			t.Errorf("%+v: usable", bad)
		}
	}
	type hidden struct {
		S string
		s string
	}
	if _, ok := SubstituteHoles(hidden{S: "x", s: "y"}, subst); ok {
		t.Error("an unexported string field: usable")
	}
	type numbers struct {
		S string
		n int
	}
	if got, ok := SubstituteHoles(numbers{S: h, n: 3}, subst); !ok || got.n != 3 || got.S != "value-of-12!" {
		t.Errorf("%+v %v", got, ok)
	}
	// []string slices shared by several values (a run's commands share
	// their environment listing) are gone through once, each answered the
	// same: the slice holding a hole replaced in both, a slice of it
	// (another length) on its own, the one without a hole kept
	type cmd struct {
		Env []string
	}
	env := []string{"A=1", "R=" + h, "Z=2"}
	none := []string{"A=1"}
	type named []string
	type run struct {
		Cmds []cmd
		N    named
	}
	got, ok := SubstituteHoles(run{Cmds: []cmd{{env}, {env}, {env[:2]}, {none}, {none}}, N: named{h}}, subst)
	want := []string{"A=1", "R=value-of-12!", "Z=2"}
	if !ok || !slices.Equal(got.Cmds[0].Env, want) || !slices.Equal(got.Cmds[1].Env, want) || !slices.Equal(got.Cmds[2].Env, want[:2]) || got.N[0] != "value-of-12!" {
		t.Fatalf("%v %+v", ok, got)
	}
	if &got.Cmds[0].Env[0] != &got.Cmds[1].Env[0] || &got.Cmds[3].Env[0] != &none[0] || env[1] != "R="+h {
		t.Error("a shared slice was not answered once, or the original changed")
	}
	for _, bad := range [][]string{{"A=1", h[:4]}, {`B=\ue100`}} {
		if _, ok := SubstituteHoles(cmd{bad}, subst); ok {
			t.Errorf("%q: usable", bad)
		}
	}
}

// TestHasHoleAnyOffset: HasHole reads ASCII eight bytes at a time, so a
// hole's rune, a cut of one, or a byte that is not UTF-8 is found at
// every offset and at either end, and other text is not taken for one.
func TestHasHoleAnyOffset(t *testing.T) {
	h, _ := Hole(5, 12)
	for pre := 0; pre < 20; pre++ {
		for post := 0; post < 10; post++ {
			a, b := strings.Repeat("a", pre), strings.Repeat("b", post)
			for _, in := range []string{h, h[:1], h[1:2], h[len(h)-1:], "\xff", "\xc3", "\uE000", "\U000F0100", "\u07FF"} {
				if !HasHole(a+in+b) || !hasHoleBytes([]byte(a+in+b)) {
					t.Fatalf("HasHole(%q) = false", a+in+b)
				}
			}
			for _, in := range []string{"", "—", "é", "漢字", "\U0001F600", "\u07BF"} {
				if HasHole(a+in+b) || hasHoleBytes([]byte(a+in+b)) {
					t.Fatalf("HasHole(%q) = true", a+in+b)
				}
			}
			for _, e := range []string{`\ue000`, `\UE001`, `\U000F0100`, `\u07c0`, `\356`, `\xEE`, `\xdf`, `\363`} {
				if !Residual(a + e + b) {
					t.Fatalf("Residual(%q) = false", a+e+b)
				}
			}
			for _, e := range []string{`\n`, `\u00e9`, `\x41`, `\\`, `\`, `\u07b`, `\355`} {
				if Residual(a + e + b) {
					t.Fatalf("Residual(%q) = true", a+e+b)
				}
			}
		}
	}
}

// TestLibraryStubFuncs: the stub text's functions, in order, parsed once
// per Cache; a text that does not parse defines none.
func TestLibraryStubFuncs(t *testing.T) {
	c := &Cache{}
	got := c.libraryStubFuncs("a() { :; }\nb() { :; }\nif true; then c() { :; }; fi\n")
	if strings.Join(got, ",") != "a,b,c" {
		t.Fatalf("got %q", got)
	}
	again := c.libraryStubFuncs("a() { :; }\nb() { :; }\nif true; then c() { :; }; fi\n")
	if &again[0] != &got[0] {
		t.Error("parsed again")
	}
	if bad := c.libraryStubFuncs("a() {"); len(bad) != 0 {
		t.Errorf("a text that does not parse: %q", bad)
	}
}

// TestHoleWorldsRuns: with the values the holes stand for known
// (Config.Worlds), a run that decides what it would look at the same way
// in every world — the prefix of a runner name, a file test that no world's
// file answers otherwise, `env | grep` of lines without the value, a
// Slurm job named after it and found by name — is, its holes replaced, the
// run of each value; a run whose worlds would go different ways (a file
// one world has, a last character, grep's status) or that looks otherwise
// ends with a *HoleError.
func TestHoleWorldsRuns(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "b300-nv_01.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"b300-nv_01", "b300-nv_17"} {
		// a directory in both worlds, whose files differ
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, d, "f"), []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w := newHoleWorlds([]string{"b300-nv_01", "b300-nv_17"}, Config{Env: []string{"SGLANG_A=1"}, Dir: dir, ReadRoots: []string{dir}})
	decided := []string{
		`export L=launch_${X%%_*}.sh; server --l "$L"`,
		`if [ -f "$X.log" ]; then export F=1; fi; [ -e "other_${X}" ] || export G=0; server`,
		`env | grep -E '^SGLANG_' | sort > /tmp/s; server`,
		`salloc --partition=p -N 1 --no-shell --job-name="$X"; JOB_ID=$(squeue --name="$X" -u u -h -o %A); srun --jobid=$JOB_ID --job-name "$X" server --id "$JOB_ID"`,
		`squeue -n "$X" -h -o %i > /tmp/j; server`,
		`scancel --user="$USER" --name="inferencex-$X" 2>/dev/null || true; scancel -n "$X"; server`,
		`J="inferencex-$X"; X="$J" server --x 1; export X=other; server`,
	}
	looks := []string{
		`if [ -f "$X.json" ]; then server; fi`,
		`export P=${X: -1}; server`,
		`export S=${X#b300-nv_}; server`,
		`echo "$X" | grep -q 17 && server`,
		`salloc --partition="$X" --no-shell; server`,
		`squeue -o "$X"; server`,
		`srun "$X" server`,
		`OLDPWD=$X; cd -; export F=$(cat f); server`,
		`HOME=$X; cd; grep -q 17 f && exit 1; server`,
		`if [ -d "$X" ]; then cd "$X"; fi; server`,
		`X=b300-nv_01 server`,
		`export X=b300-nv_17; server`,
	}
	for _, src := range decided {
		w.check(t, src, false)
	}
	for _, src := range looks {
		w.check(t, src, true)
	}
}

// holeWorlds is a run's hole for X in the worlds of values vals (all of
// one length), over a base Config (Env gets X and PATH first; a server
// command is answered and is a server launch).
type holeWorlds struct {
	vals   []string
	hole   string
	worlds []*strings.Replacer
	base   Config
}

func newHoleWorlds(vals []string, base Config) holeWorlds {
	w := holeWorlds{vals: vals, base: base}
	w.hole, _ = Hole(0, len(vals[0]))
	for _, v := range vals {
		w.worlds = append(w.worlds, strings.NewReplacer(w.hole, v))
	}
	return w
}

// cfg is the Config of a run with X=x, with the worlds when holes.
func (w holeWorlds) cfg(x string, holes bool) Config {
	c := w.base
	c.Env = append([]string{"X=" + x, "PATH=/usr/bin:/bin"}, w.base.Env...)
	c.Commands = map[string]Handler{"server": func(context.Context, *Call) error { return nil }}
	c.IsServer = func(argv []string) bool { return len(argv) > 0 && argv[0] == "server" }
	c.Holes = holes
	if holes {
		c.Worlds = w.worlds
	}
	return c
}

// check runs src with the hole for X and fails unless it looks at it
// (a *HoleError) when wantLook, else unless it is decided in every world:
// its run, each world's values put back, is the run with that value.
func (w holeWorlds) check(t *testing.T, src string, wantLook bool) {
	t.Helper()
	holed, err := runSrc("w.sh", src, w.cfg(w.hole, true))
	if wantLook {
		var he *HoleError
		if !errors.As(err, &he) {
			t.Errorf("%q with a hole: %v, want a look at it", src, err)
		}
		return
	}
	if err != nil {
		t.Errorf("%q with a hole: %v, want it decided in every world", src, err)
		return
	}
	for i, v := range w.vals {
		want, err := runSrc("w.sh", src, w.cfg(v, false))
		if err != nil {
			t.Fatalf("%q with %s: %v", src, v, err)
		}
		substitutedIs(t, src, holed, w.worlds[i], v, want)
	}
}

// TestGetenvsLooksAtWhatItReads: a program that reads some variables of
// its environment (Call.Getenvs) gets their values, the last assignment
// of a name winning and an unset one left out, and in a run with holes
// looks at those only: a hole in another variable is copied, one in a
// variable it reads is a look.
func TestGetenvsLooksAtWhatItReads(t *testing.T) {
	var got map[string]string
	base := Config{Env: []string{"A=1", "B=2"}}
	w := newHoleWorlds([]string{"b300-nv_01", "b300-nv_17"}, base)
	cfg := func(x string, holes bool, names ...string) Config {
		c := w.cfg(x, holes)
		c.Commands["prog"] = func(_ context.Context, call *Call) error {
			got = call.Getenvs(names...)
			return nil
		}
		return c
	}
	if _, err := runSrc("g.sh", `B=3 prog; server`, cfg(w.hole, true, "A", "B", "UNSET")); err != nil {
		t.Fatalf("reading A and B with a hole in X: %v, want a copy", err)
	}
	if want := map[string]string{"A": "1", "B": "3"}; !maps.Equal(got, want) {
		t.Errorf("Getenvs = %v, want %v", got, want)
	}
	_, err := runSrc("g.sh", `prog; server`, cfg(w.hole, true, "A", "X"))
	var he *HoleError
	if !errors.As(err, &he) {
		t.Errorf("reading X, the hole: %v, want a look at it", err)
	}
}

// TestSedReplacementHole: a sed script that is one s command with the
// hole in its replacement only copies it (sedCopiesHole) — the file it
// edits (a run's write, an image file, a recipe in a clone the run only
// names) holds the values where the values' runs hold them — and any
// other place of a hole in sed is a look: the pattern, the flags, a
// replacement with & or a backslash, a second script, a world whose value
// holds the delimiter, and a file that already holds a hole (sedInPlace).
func TestSedReplacementHole(t *testing.T) {
	names := newHoleWorlds([]string{"b300-nv_01", "b300-nv_17"}, Config{})
	prefix := `printf 'name: x\nb: 1_0\n' > /tmp/r; `
	for _, src := range []string{
		prefix + `sed -i "s/^name:.*/name: \"$X\"/" /tmp/r; server`,
		prefix + `sed "s/^name:.*/name: $X/" /tmp/r > /tmp/o; server`,
		prefix + `sed -i -e "s|^name: .*|name: $X-job|g" /tmp/r; server`,
		prefix + `sed -i "s/^name:.*/name: \"$X\"/" /opt/image/recipe.yaml; server`,
	} {
		names.check(t, src, false)
	}
	for _, src := range []string{
		prefix + `sed -i "s/$X/y/" /tmp/r; server`,
		prefix + `sed -i "s/^name:.*/& $X/" /tmp/r; server`,
		prefix + `sed -i "s/^name:.*/\U$X/" /tmp/r; server`,
		prefix + `sed -i "s/^name:.*/name: $X/w /tmp/o" /tmp/r; server`,
		prefix + `sed -i -e "s/^name:.*/name: $X/" -e 's/_0/Q/' /tmp/r; server`,
		prefix + `sed -i "s/[n]ame:.*/name: $X/" /tmp/r; server`,
		prefix + `sed -i "/^name/s/.*/name: $X/" /tmp/r; server`,
		`printf '%s\n' "$X" > /tmp/s; sed -i 's/_0/Q/' /tmp/s; server`,
	} {
		names.check(t, src, true)
	}
	// a value holding the delimiter would end the replacement there
	slashed := newHoleWorlds([]string{"b300/nv_01", "b300/nv_17"}, Config{})
	slashed.check(t, prefix+`sed -i "s/^name:.*/name: $X/" /tmp/r; server`, true)
	slashed.check(t, prefix+`sed -i "s|^name:.*|name: $X|" /tmp/r; server`, false)
}

// TestSlurmNames: which arguments of salloc, srun, sbatch and squeue are a
// job's name (slurmJobName, squeueName), and what squeue reads of its
// arguments without them (squeueAsked): a name holding "-j" asks about a
// job by name, not by id.
func TestSlurmNames(t *testing.T) {
	for _, c := range []struct {
		args []string
		i    int
		want bool
	}{
		{[]string{"salloc", "--job-name=N"}, 1, true},
		{[]string{"salloc", "-N", "1", "--job-name", "N"}, 4, true},
		{[]string{"srun", "-J", "N", "bash", "x"}, 2, true},
		{[]string{"srun", "--partition", "--job-name=N"}, 2, false},       // the partition's value
		{[]string{"srun", "--jobid=1", "bash", "--job-name=N"}, 3, false}, // bash's operand
		{[]string{"sbatch", "--time", "N"}, 2, false},
		{[]string{"salloc", "-J"}, 1, false},
		{[]string{"salloc", "N"}, 1, false},
	} {
		if got := slurmJobName(c.args, c.i); got != c.want {
			t.Errorf("slurmJobName(%q, %d) = %v", c.args, c.i, got)
		}
	}
	for _, c := range []struct {
		args []string
		i    int
		want bool
	}{
		{[]string{"squeue", "--name=N"}, 1, true},
		{[]string{"squeue", "--name", "N"}, 2, true},
		{[]string{"squeue", "-n", "N", "-h"}, 2, true},
		{[]string{"squeue", "-n", "N", "-h"}, 3, false},
		{[]string{"squeue", "-o", "N"}, 2, false},
		{[]string{"squeue", "--name", "--name"}, 2, true},
	} {
		if got := squeueName(c.args, c.i); got != c.want {
			t.Errorf("squeueName(%q, %d) = %v", c.args, c.i, got)
		}
	}
	if got, want := squeueAsked([]string{"squeue", "--name=x-job", "-u", "u", "-n", "y-jobs", "-h", "-o", "%A"}), "--name= -u u -n -h -o %A"; got != want {
		t.Errorf("squeueAsked = %q, want %q", got, want)
	}
	// a run allocated by salloc finds its job's id by a name holding "-j"
	tr, err := runSrc("q.sh", `salloc --no-shell --job-name=x-job; export J=$(squeue --name=x-job -h -o %A); server`, Config{
		Commands: map[string]Handler{"server": func(context.Context, *Call) error { return nil }},
		IsServer: func(argv []string) bool { return len(argv) > 0 && argv[0] == "server" },
	})
	if err != nil {
		t.Fatal(err)
	}
	if c := tr.Commands[len(tr.Commands)-1]; !slices.Contains(c.Env, "J=1") {
		t.Errorf("server env %q, want J=1", c.Env)
	}
}
