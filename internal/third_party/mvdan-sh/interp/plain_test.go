// cookbook-sync patch (issue 24): tests of plainWord.

package interp

import (
	"context"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/expand"
	"mvdan.cc/sh/v3/syntax"
)

// plainConfig is an expansion config whose every lookup finds a value and
// whose globs match a file, so that a word plainWord wrongly took as plain
// would expand to something else.
func plainConfig() *expand.Config {
	return &expand.Config{
		Env: plainEnv{"A": {Set: true, Kind: expand.Indexed, List: []string{"x", "y z"}}, "@": {Set: true, Kind: expand.Indexed, List: []string{"p1", "p 2"}},
			"HOME": {Set: true, Kind: expand.String, Str: "/home/u"}, "IFS": {Set: true, Kind: expand.String, Str: ","},
			"X": {Set: true, Kind: expand.String, Str: "a b"}, "Y": {Set: true, Kind: expand.String, Str: "*"}},
		ReadDir2: func(string) ([]fs.DirEntry, error) {
			return []fs.DirEntry{fakeEntry("a"), fakeEntry("ab"), fakeEntry("b1")}, nil
		},
		CmdSubst: func(w io.Writer, _ *syntax.CmdSubst) error { _, err := w.Write([]byte("out")); return err },
	}
}

// checkPlain compares plainWord with expand.Fields and expand.Literal for
// every word of src; it returns how many words were plain as fields.
func checkPlain(t *testing.T, name, src string) int {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), name)
	if err != nil {
		return 0
	}
	n := 0
	syntax.Walk(f, func(node syntax.Node) bool {
		w, ok := node.(*syntax.Word)
		if !ok {
			return true
		}
		if s, ok := plainWord(w, true); ok {
			n++
			got, err := expand.Fields(plainConfig(), w)
			if err != nil || !slices.Equal(got, []string{s}) {
				t.Errorf("%s: %s: plain field %q, expand.Fields gives %q (%v)", name, w.Pos(), s, got, err)
			}
		}
		if s, ok := plainWord(w, false); ok {
			got, err := expand.Literal(plainConfig(), w)
			if err != nil || got != s {
				t.Errorf("%s: %s: plain literal %q, expand.Literal gives %q (%v)", name, w.Pos(), s, got, err)
			}
		}
		return true
	})
	return n
}

// TestPlainWord: the words plainWord takes as plain expand to their own
// text, and the ones with anything an expansion acts on are not taken.
func TestPlainWord(t *testing.T) {
	src := `echo a --x=1 'sq' "dq" '' a,b a:b/c.d %x @x +x !x -
echo ~ ~/x a~ 'a\b' "a\\b" a\ b $'x\ty' "" "$X" $X a* a? [ab] a{b,c} {a,b} '*' "*" "~" '{a,b}' "a$X" a=~/x
[ -f x ] [a [a] a]b ]
echo a "$X" b $X c* "${Y}" $(x) d "${Z:-q}"
echo a ${Y:=1} b
echo a ${A[i++]} b
echo a ${A[@]} b "${A[@]}" ${A[1+2]:1:2} c
echo a "$@" b "$*" "${A[*]}" "${!A[@]}" "${!H*}" "x$@y" "${A}" "${#A}" "" "$X$Y" "${X:-$Y}" $X "$X"`
	if n := checkPlain(t, "fixed.sh", src); n < 17 {
		t.Errorf("%d plain words, want at least 17", n)
	}
	for _, tc := range []struct {
		word   string
		fields bool
		plain  bool
	}{
		{"abc", true, true}, {"'a b'", true, true}, {`"a b"`, true, true},
		{"~", true, false}, {"~/x", false, false}, {`a\ b`, true, false}, {`"a\\b"`, false, false},
		{"$'x'", true, false}, {`""`, true, false}, {`"$X"`, true, false}, {"a*", true, false},
		{"a*", false, true}, {"a{b,c}", true, false}, {"a{b,c}", false, true}, {"[ab]", true, false},
		{"[", true, true}, {"]", true, true}, {"[ab", true, true}, {"a]b", true, true}, {"a[b]", true, false}, {"?", true, false},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader("echo "+tc.word), "")
		if err != nil {
			t.Fatal(err)
		}
		w := f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1]
		if _, ok := plainWord(w, tc.fields); ok != tc.plain {
			t.Errorf("plainWord(%s, fields %v): plain %v, want %v", tc.word, tc.fields, ok, tc.plain)
		}
	}
}

// TestPlainFields: a list of plain words gives their texts, no words gives
// what expand.Fields gives (nil), and one word that is not plain sends the
// whole list to expand.
func TestPlainFields(t *testing.T) {
	r := &Runner{}
	if got, ok := r.plainFields(nil); !ok || got != nil {
		t.Errorf("plainFields(nil) = %q, %v; want nil, true", got, ok)
	}
	if got, err := expand.Fields(plainConfig()); err != nil || got != nil {
		t.Errorf("expand.Fields() = %q, %v; want nil", got, err)
	}
	f, err := syntax.NewParser().Parse(strings.NewReader("echo a 'b c' \"d\" e f g h i j k\necho a $X b"), "")
	if err != nil {
		t.Fatal(err)
	}
	args := f.Stmts[0].Cmd.(*syntax.CallExpr).Args
	if got, ok := r.plainFields(args); !ok || strings.Join(got, "|") != "echo|a|b c|d|e|f|g|h|i|j|k" {
		t.Errorf("plainFields of 11 plain words = %q, %v", got, ok)
	}
	if got, ok := r.plainFields(f.Stmts[1].Cmd.(*syntax.CallExpr).Args); ok {
		t.Errorf("plainFields with $X = %q, true; want false", got)
	}
}

// TestCorpusPlainWord runs the comparison of TestPlainWord on every word of
// every shell script of the InferenceX tree in ../shared.
func TestCorpusPlainWord(t *testing.T) {
	root := testutil.SharedPath(t, "corpus/upstream/InferenceX")
	files, plain := 0, 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".sh") || strings.HasSuffix(p, ".slurm")) {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		plain += checkPlain(t, p, string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 || plain < 10000 {
		t.Errorf("%d scripts, %d plain words: the tree is not the complete one", files, plain)
	}
	t.Logf("%d scripts, %d plain words", files, plain)
}

// fakeEntry is a regular file of a directory listing.
type fakeEntry string

func (e fakeEntry) Name() string               { return string(e) }
func (e fakeEntry) IsDir() bool                { return false }
func (e fakeEntry) Type() fs.FileMode          { return 0 }
func (e fakeEntry) Info() (fs.FileInfo, error) { return nil, fs.ErrNotExist }

// plainEnv is a read-only environment of any kind of variable.
type plainEnv map[string]expand.Variable

func (e plainEnv) Get(name string) expand.Variable { return e[name] }

func (e plainEnv) Each(f func(name string, vr expand.Variable) bool) {
	for _, k := range slices.Sorted(maps.Keys(e)) {
		if !f(k, e[k]) {
			return
		}
	}
}

// TestParamWord: a lone double-quoted parameter (paramWord) gives what
// expand.Fields and expand.Literal give it, for variables set, empty,
// unset, arrays and name references, with and without nounset, on fixed
// words and every word of the InferenceX scripts in ../shared when present
// (the fixed ones always).
func TestParamWord(t *testing.T) {
	words := []string{`"$X"`, `"${X}"`, `"$E"`, `"$U"`, `"${U:-d}"`, `"${U-d}"`, `"${E:-d}"`, `"${E-d}"`, `"${X:-d}"`,
		`"${U:-}"`, `"${U:-'q'}"`, `"${U:-a b}"`, `"$A"`, `"${A:-d}"`, `"$R"`, `"${R:-d}"`, `"$RANDOM"`, `"$1"`, `"$#"`,
		`"${U:=d}"`, `"${X:+d}"`, `"${U:-$X}"`, `"${U:-~}"`, `"${#X}"`, `"${X/a/b}"`, `"${X:0:1}"`, `$X`, `"$X$X"`,
		`${U:-d}`, `${E-d}`, `$A`, `$R`, `${U}`, `$U`, `"$1"`, `"$2"`, `"$3"`, `"$9"`, `"$0"`, `"$?"`, `"${1:-d}"`, `"${3-d}"`,
		`"$@"`, `"${@}"`, `$@`, `"$*"`, `"${@:-d}"`, `"$$"`, `"$!"`,
		`"a $X b"`, `"$X$E"`, `"${U:-d}x$1"`, `"x$@y"`, `"a\$X"`, `"$X-$RANDOM"`, `"$A/x"`, `"$U/x"`, `"--p=${E-d}:$#"`,
		`--x=$X`, `--y=$Y`, `$X$E`, `$E$U`, `''$E`, `""$E`, `a"$X"b`, `--g=$G`, `~/$X`, `a$@`, `a"$@"`, `x{a,b}$X`, `a'*'$E`, `$E"$@"`}
	var extra []*syntax.Word
	if !testing.Short() {
		if dir, err := filepath.Abs(filepath.Join(testutil.ModuleRoot(), "..", "shared", "corpus", "upstream", "InferenceX")); err == nil {
			_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".sh") || strings.HasSuffix(p, ".slurm")) {
					return nil
				}
				data, err := os.ReadFile(p)
				if err != nil {
					return nil
				}
				f, err := syntax.NewParser().Parse(strings.NewReader(string(data)), p)
				if err != nil {
					return nil
				}
				syntax.Walk(f, func(n syntax.Node) bool {
					if w, ok := n.(*syntax.Word); ok {
						extra = append(extra, w)
					}
					return true
				})
				return nil
			})
		}
	}
	taken := 0
	for _, setup := range []string{`X="a b"; E=; A=(x "y z"); declare -n R=X; set -- p "q r"`, `X=; A=(); declare -A M; declare -n R=U`,
		`U=set; set -u; X=1; set -- one`, `set -u`, `set -- "" "" ""`, `IFS=,; X="a b"; Y="a,b"; G="*"`, `IFS=; X="a b"; E=`,
		`X="a*"; Y=" lead"; E=`} {
		r, err := New(Dir("/"))
		if err != nil {
			t.Fatal(err)
		}
		f, err := syntax.NewParser().Parse(strings.NewReader(setup), "")
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Run(context.Background(), f); err != nil {
			t.Fatal(err)
		}
		var ws []*syntax.Word
		for _, src := range words {
			wf, err := syntax.NewParser().Parse(strings.NewReader("echo "+src), "")
			if err != nil {
				t.Fatal(err)
			}
			ws = append(ws, wf.Stmts[0].Cmd.(*syntax.CallExpr).Args[1])
		}
		for _, w := range append(ws, extra...) {
			if s, ok := r.paramParts(w.Parts, true); ok {
				lit, err := expand.Literal(r.ecfg, w)
				if err != nil || lit != s {
					t.Errorf("%s: %s: paramParts (literal) %q; expand.Literal %q (%v)", setup, w.Pos(), s, lit, err)
				}
			}
			s, ok := r.paramWord(w)
			if !ok {
				continue
			}
			taken++
			fields, ferr := expand.Fields(r.ecfg, w)
			lit, lerr := expand.Literal(r.ecfg, w)
			if ferr != nil || lerr != nil || !slices.Equal(fields, []string{s}) || lit != s {
				t.Errorf("%s: %s: paramWord %q; expand.Fields %q (%v), expand.Literal %q (%v)", setup, w.Pos(), s, fields, ferr, lit, lerr)
			}
		}
		for _, w := range append(ws, extra...) {
			if got, ok := r.plainFields([]*syntax.Word{w}); ok {
				want, err := expand.Fields(r.ecfg, w)
				if err != nil || !slices.Equal(got, want) {
					t.Errorf("%s: %s: plainFields %q; expand.Fields %q (%v)", setup, w.Pos(), got, want, err)
				}
			}
		}
		for _, special := range []string{`"$RANDOM"`, `"${X:+d}"`, `"${U:-$X}"`, `$X`, `"$$"`, `"$!"`, `"$*"`} {
			wf, _ := syntax.NewParser().Parse(strings.NewReader("echo "+special), "")
			if s, ok := r.paramWord(wf.Stmts[0].Cmd.(*syntax.CallExpr).Args[1]); ok {
				t.Errorf("%s: paramWord(%s) = %q, taken", setup, special, s)
			}
		}
	}
	if taken < 30 {
		t.Errorf("%d words taken", taken)
	}
	t.Logf("%d words taken (%d from ../shared)", taken, len(extra))
}

// TestGuardedLiteral: a word made of a quiet call's command substitution
// and one plain or parameter part (guardedLiteral) gives what
// expand.Literal gives it, runs the quiet call once, and is not taken
// (nothing run) for a part it does not know.
func TestGuardedLiteral(t *testing.T) {
	calls := 0
	r, err := New(Dir("/"), QuietCalls(func(name string) bool { return name == "g" }),
		CallHandler(func(ctx context.Context, args []string) ([]string, error) {
			if args[0] == "g" {
				calls++
				return []string{":"}, nil
			}
			return args, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	setup, _ := syntax.NewParser().Parse(strings.NewReader(`X="a b"; E=; A=(x y); declare -n R=X`), "")
	if err := r.Run(context.Background(), setup); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		word  string
		taken bool
	}{
		{`$(g m)abc`, true}, {`$(g m)"x y"`, true}, {`$(g m)""`, true}, {`$(g m)'q'`, true}, {`$(g m)"$X"`, true},
		{`$(g m)$X`, true}, {`$(g m)"${U:-d}"`, true}, {`$(g m)${E-d}`, true}, {`$(g m)"$A"`, true}, {`$(g m)$R`, true},
		{`$(g m)~x`, false}, {`$(g m)a\ b`, false}, {`$(g m)$(h)`, false}, {`$(g m)"a$X"`, false}, {`$(h)abc`, false},
		{`$(g m)"$RANDOM"`, false}, {`$(g m)${X:+d}`, false}, {`$(g m)`, false}, {`$(g m)a$X`, false},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader("V="+tc.word), "")
		if err != nil {
			t.Fatal(err)
		}
		w := f.Stmts[0].Cmd.(*syntax.CallExpr).Assigns[0].Value
		before := calls
		got, ok := r.guardedLiteral(w)
		if ok != tc.taken {
			t.Errorf("%s: taken %v, want %v", tc.word, ok, tc.taken)
			continue
		}
		if !ok {
			if calls != before {
				t.Errorf("%s: not taken, but the quiet call ran", tc.word)
			}
			continue
		}
		if calls != before+1 {
			t.Errorf("%s: the quiet call ran %d times", tc.word, calls-before)
		}
		want, err := expand.Literal(r.ecfg, w)
		if err != nil || got != want {
			t.Errorf("%s: %q, expand.Literal gives %q (%v)", tc.word, got, want, err)
		}
	}
}

// FuzzPlainWords: for any word, every shortcut that takes it (plainFields,
// paramParts as a literal) gives what expand.Fields / expand.Literal
// give, under an environment with strings, an empty and an unset
// variable, an array, a name reference, positional parameters and a
// non-default IFS.
func FuzzPlainWords(f *testing.F) {
	for _, s := range []string{`a`, `"$X"`, `--x=$X`, `"${U:-d}"`, `a"$X"b`, `$E$U`, `"$@"`, `'q'$X`, `[`, `a*`, `~/x`, `"a $Y b"`, `${A}`, `"$R"`, `$1$2`} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, src string, commaIFS bool) {
		file, err := syntax.NewParser().Parse(strings.NewReader("echo "+src), "")
		if err != nil || len(file.Stmts) != 1 {
			return
		}
		call, ok := file.Stmts[0].Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) < 2 {
			return
		}
		setup := `X="a b"; Y="c,d"; E=; A=(x "y z"); declare -n R=X; set -- p "q r"`
		if commaIFS {
			setup += "; IFS=,"
		}
		r, err := New(Dir("/"))
		if err != nil {
			t.Fatal(err)
		}
		sf, err := syntax.NewParser().Parse(strings.NewReader(setup), "")
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Run(context.Background(), sf); err != nil {
			t.Fatal(err)
		}
		words := call.Args[1:]
		if got, ok := r.plainFields(words); ok {
			want, err := expand.Fields(r.ecfg, words...)
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("%q: plainFields %q; expand.Fields %q (%v)", src, got, want, err)
			}
		}
		for _, w := range words {
			if got, ok := r.paramParts(w.Parts, true); ok {
				want, err := expand.Literal(r.ecfg, w)
				if err != nil || got != want {
					t.Errorf("%q: paramParts %q; expand.Literal %q (%v)", src, got, want, err)
				}
			}
		}
	})
}

// FuzzGuardedLiteral: for any value after a quiet call's substitution
// (x=$(g m)VALUE), guardedLiteral, when it takes the word, gives what
// expand.Literal gives and runs the quiet call once; when it does not,
// it runs nothing.
func FuzzGuardedLiteral(f *testing.F) {
	for _, s := range []string{`abc`, `"$X"`, `$X`, `"${U:-d}"`, `""`, `'q'`, `"$A"`, `$R`, `~x`, `"a$X"`, `$(h)`, `"$@"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		file, err := syntax.NewParser().Parse(strings.NewReader("V=$(g m)"+value), "")
		if err != nil || len(file.Stmts) != 1 {
			return
		}
		call, ok := file.Stmts[0].Cmd.(*syntax.CallExpr)
		if !ok || len(call.Assigns) != 1 || call.Assigns[0].Value == nil || len(call.Args) != 0 {
			return
		}
		calls := 0
		r, err := New(Dir("/"), QuietCalls(func(name string) bool { return name == "g" }),
			CallHandler(func(ctx context.Context, args []string) ([]string, error) {
				if args[0] == "g" {
					calls++
					return []string{":"}, nil
				}
				return args, nil
			}))
		if err != nil {
			t.Fatal(err)
		}
		sf, _ := syntax.NewParser().Parse(strings.NewReader(`X="a b"; E=; A=(x y); declare -n R=X; set -- p "q r"`), "")
		if err := r.Run(context.Background(), sf); err != nil {
			t.Fatal(err)
		}
		w := call.Assigns[0].Value
		got, ok := r.guardedLiteral(w)
		if !ok {
			if calls != 0 {
				t.Errorf("%q: not taken, but the quiet call ran", value)
			}
			return
		}
		if calls != 1 {
			t.Errorf("%q: the quiet call ran %d times", value, calls)
		}
		want, err := expand.Literal(r.ecfg, w)
		if err != nil || got != want {
			t.Errorf("%q: guardedLiteral %q; expand.Literal %q (%v)", value, got, want, err)
		}
	})
}
