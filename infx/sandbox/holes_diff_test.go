package sandbox

// Differential tests of holes (holes.go), from a review that set out to
// break them: for each script, the run with holes in X (and Y) — when it
// ends without looking at one — with each value put back
// (SubstituteHoles) must equal the run of the value; a run that looks
// ends with a *HoleError. The Minimal cases are the counterexamples the
// review found, each fixed since.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type diffCase struct {
	name string
	src  string
	// pairs of (X, Y) values; empty Y means Y unset. Nil: diffDefaultVals.
	vals [][2]string
}

var diffDefaultVals = [][2]string{
	{"mi355x-amds_06", ""},
	{"mi355x-amds_19", ""},
	{"abcdefghi_1", ""},
	{"a.b:c/d@e+f", ""},
	{"123456789", ""},
	{"000000002", ""},
	{"abcdefghi", ""},
	{"neeeeeeee", ""},
	{"./././././.", ""},
}

// diffCfg is the run of X=x (and Y=y when set), with holes or not: a
// recorded `server` command shows what the script exported.
func diffCfg(x, y string, holes bool) Config {
	env := []string{"X=" + x, "PATH=/usr/bin:/bin"}
	if y != "" {
		env = append(env, "Y="+y)
	}
	return Config{
		Env:      env,
		Commands: map[string]Handler{"server": func(context.Context, *Call) error { return nil }},
		IsServer: func(argv []string) bool { return len(argv) > 0 && argv[0] == "server" },
		Holes:    holes,
	}
}

type diffRes struct {
	tr    *Trace
	err   error
	panic any
}

// diffRun runs src under cfg, recovering a panic into the result.
func diffRun(src string, cfg Config) (res diffRes) {
	defer func() {
		if p := recover(); p != nil {
			res.panic = p
		}
	}()
	res.tr, res.err = runSrc("c.sh", src, cfg)
	return res
}

// diffJSON is t as JSON, what two runs are compared by.
func diffJSON(t *Trace) string {
	b, _ := json.Marshal(t)
	return string(b)
}

// diffHoleFor is hole i of v's length ("" for "").
func diffHoleFor(v string, i int) string {
	if v == "" {
		return ""
	}
	h, ok := Hole(i, len(v))
	if !ok {
		panic(v)
	}
	return h
}

// diffCheck runs one case; it returns a one-line verdict.
func diffCheck(t *testing.T, c diffCase) string {
	vals := c.vals
	if vals == nil {
		vals = diffDefaultVals
	}
	verdict := ""
	holed := map[[2]int]diffRes{}
	for _, p := range vals {
		vx, vy := p[0], p[1]
		if !HoleValue(vx) || vy != "" && !HoleValue(vy) {
			t.Fatalf("%s: not a hole value %q %q", c.name, vx, vy)
		}
		hx, hy := diffHoleFor(vx, 0), diffHoleFor(vy, 1)
		key := [2]int{len(vx), len(vy)}
		hr, ok := holed[key]
		if !ok {
			hr = diffRun(c.src, diffCfg(hx, hy, true))
			holed[key] = hr
		}
		want := diffRun(c.src, diffCfg(vx, vy, false))
		if want.panic != nil {
			t.Errorf("%s: concrete %q: panic %v", c.name, vx, want.panic)
			verdict = "CONCRETE-PANIC"
			continue
		}
		if hr.panic != nil {
			t.Errorf("%s: holed: panic %v", c.name, hr.panic)
			verdict = "HOLED-PANIC"
			continue
		}
		if hr.err != nil {
			var he *HoleError
			if errors.As(hr.err, &he) && errors.Is(hr.err, ErrHoleInspected) {
				if verdict == "" {
					verdict = "LOOK(" + he.What + ")"
				}
				continue
			}
			if want.err == nil {
				t.Errorf("%s: holed error %v but concrete %q ok", c.name, hr.err, vx)
				verdict = "ERR-MISMATCH"
			} else if verdict == "" {
				verdict = "both-error"
			}
			continue
		}
		if want.err != nil {
			t.Errorf("%s: holed ok but concrete %q error %v", c.name, vx, want.err)
			verdict = "ERR-MISMATCH"
			continue
		}
		repl := []string{hx, vx}
		if hy != "" {
			repl = append(repl, hy, vy)
		}
		got, ok := SubstituteHoles(hr.tr, strings.NewReplacer(repl...))
		if !ok {
			if verdict == "" || verdict == "copy" {
				verdict = "RESIDUAL(ok=false)"
			}
			continue
		}
		gj, wj := diffJSON(got), diffJSON(want.tr)
		if gj != wj {
			t.Errorf("COUNTEREXAMPLE %s X=%q Y=%q:\n src: %s\n got %s\nwant %s", c.name, vx, vy, c.src, gj, wj)
			verdict = "COUNTEREXAMPLE"
			continue
		}
		if verdict == "" {
			verdict = "copy"
		}
	}
	return verdict
}

// diffRunCases checks every case (diffCheck) and logs the verdicts.
func diffRunCases(t *testing.T, cases []diffCase) {
	var sb strings.Builder
	for _, c := range cases {
		v := diffCheck(t, c)
		fmt.Fprintf(&sb, "%-28s %s\n", c.name, v)
	}
	t.Logf("verdicts:\n%s", sb.String())
}

// TestHolesDiffBasics: a copy and a look, the two outcomes.
func TestHolesDiffBasics(t *testing.T) {
	diffRunCases(t, []diffCase{
		{"sanity-copy", `export Y="${X}-x"; server`, nil},
		{"sanity-look", `server --name "$X"`, nil},
	})
}

// TestHolesDiffBatch1: printing variables (declare -p, export -p, set,
// env), getopts, select, pwd, cd, read, namerefs, declare -i/-u/-l,
// printf, sourced and read files, mapfile, IFS splits, associative arrays.
func TestHolesDiffBatch1(t *testing.T) {
	diffRunCases(t, []diffCase{
		{"declare-p", `declare -p X > /tmp/o; server`, nil},
		{"declare-p-arr", `a=("$X"); declare -p a > /tmp/o; server`, nil},
		{"xtrace-assign-file", `{ set -x; Z=$X; set +x; } 2>/tmp/log; server`, nil},
		{"xtrace-assign-exit", `set -x; Z=$X; exit 3`, nil},
		{"getopts-positional", `set -- "-$X"; getopts abcdefghimn o; export O=$o; server`, nil},
		{"getopts-optind", `set -- -a -b -c; OPTIND=$X; getopts abc o; export O=$o; server`, nil},
		{"select-reply", `select c in a b c; do export C=$c; break; done <<< "$X"; server`, nil},
		{"pwd-P", `PWD=$X; pwd -P > /tmp/o; server`, nil},
		{"pwd", `PWD=$X; pwd > /tmp/o; server`, nil},
		{"glob-PWD", `PWD=$X; echo * > /tmp/o; server`, nil},
		{"cd-home", `HOME=$X; cd; export P=$PWD; server`, nil},
		{"cd-dash", `OLDPWD=$X; cd - > /tmp/o; server`, nil},
		{"read-noname", `read -r <<< "$X"; export R=$REPLY; server`, nil},
		{"read-name", `read -r l <<< "$X"; export R=$l; server`, nil},
		{"nameref-target", `abcdefghi_1=hello; declare -n r=$X; export Z=$r; server`, nil},
		{"nameref-target2", `abcdefghi_1=hello; declare -n r="$X"; export Z="${r}"; server`, nil},
		{"declare-i", `declare -i n; n=$X; export N=$n; server`, nil},
		{"declare-u", `declare -u n; n=$X; export N=$n; server`, nil},
		{"declare-l", `declare -l n=$X; export N=$n; server`, nil},
		{"echo-dash", `echo -$X > /tmp/o; server`, nil},
		{"printf-s", `printf '%s\n' "$X" > /tmp/o; server`, nil},
		{"printf-fmt", `printf "$X" > /tmp/o; server`, nil},
		{"printf-v", `printf -v Z '%s' "$X"; export Z; server`, nil},
		{"at-Q", `Z=${X@Q}; export Z; server`, nil},
		{"local-p", `f() { local l=$X; local -p > /tmp/o; }; f; server`, nil},
		{"export-p", `export -p > /tmp/o; server`, nil},
		{"set-print", `set > /tmp/o; server`, nil},
		{"env-print", `env > /tmp/o; server`, nil},
		{"printenv", `printenv X > /tmp/o; server`, nil},
		{"cmdsub-file", `echo "$X" > /tmp/f; Z=$(< /tmp/f); export Z; server`, nil},
		{"cat-file", `echo "$X" > /tmp/f; Z=$(cat /tmp/f); export Z; server`, nil},
		{"source-file", `echo "Z=$X" > /tmp/f; source /tmp/f; export Z; server`, nil},
		{"mapfile", `mapfile -t arr <<< "$X"; export Z=${arr[0]}; server`, nil},
		{"readarray-d", `mapfile -d : -t arr <<< "$X"; export Z=${arr[0]}; server`, nil},
		{"IFS-colon-star", `set -- "$X" b; IFS=:; Z="$*"; export Z; server`, nil},
		{"IFS-colon-split", `IFS=:; set -- $X; export N=$#; server`, nil},
		{"for-split", `for a in $X; do export A=$a; done; server`, nil},
		{"assoc-key", `declare -A m; m[$X]=1; server`, nil},
		{"assoc-val", `declare -A m; m[k]=$X; export Z=${m[k]}; server`, nil},
		{"assoc-vals", `declare -A m; m[k]=$X; m[j]=b; export Z="${m[*]}"; server`, nil},
		{"array-count", `a=($X $X); export N=${#a[@]}; server`, nil},
		{"arith", `export N=$((X+1)); server`, nil},
		{"let", `let n=X+1; export N=$n; server`, nil},
		{"test-eq", `[[ $X -eq 0 ]] && export N=1; server`, nil},
		{"case", `case $X in a*) export N=1;; esac; server`, nil},
		{"eval", `eval "Z=$X"; export Z; server`, nil},
		{"bash-c-arg", `bash -c 'export Z=$1; server' _ "$X"`, nil},
		{"exit-msg", `echo "$X" >&2; exit 3`, nil},
		{"trap", `trap 'export Z=$X; server' EXIT; true`, nil},
		{"set-x-call", `set -x; server; true "$X"`, nil},
		{"PS4", `PS4=$X; set -x; Z=1; set +x; server`, nil},
	})
}

const diffPad = `p=aaaaaaaaaaaaaaaa; for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do p=$p$p; done; `

// TestHolesDiffCut: a hole cut by a read bound, in a pipe and a file.
func TestHolesDiffCut(t *testing.T) {
	vals := [][2]string{{"mi355x-amds_06", ""}, {"xi355x-amds_06", ""}, {"abcdefghi_1", ""}}
	diffRunCases(t, []diffCase{
		{"cut-pipe-tr", diffPad + `{ printf '%s' "$p"; printf '%s\n' "$X"; } | { tr a b >/dev/null; read -r l; [[ $l == i355x-amds_06 ]] && export M=1; server; }`, vals},
		{"cut-pipe-wc", diffPad + `{ printf '%s' "$p"; printf '%s\n' "$X"; } | { wc -c >/dev/null; read -r l; [[ $l == i355x-amds_06 ]] && export M=1; server; }`, vals},
		{"cut-file-tr", diffPad + `{ printf '%s' "$p"; printf '%s\n' "$X"; } > /tmp/big; { tr a b >/dev/null; read -r l; [[ $l == i355x-amds_06 ]] && export M=1; server; } < /tmp/big`, vals},
		{"cut-pipe-grep", diffPad + `{ printf '%s' "$p"; printf '%s\n' "$X"; } | { grep -q diffz; read -r l; [[ $l == i355x-amds_06 ]] && export M=1; server; }`, vals},
	})
}

var diffTwoVals = [][2]string{
	{"mi355x-amds_06", "mi355x-amds_06"},
	{"mi355x-amds_06", "mi355x-amds_19"},
	{"abcdefghi_1", "abcdefghi_1"},
	{"abcdefghi_1", "a.b:c/d@e+f"},
}

// TestHolesDiffBatch2: two holes (equal or not), wrappers, docker run
// -e/--env-file, bash -c and scripts, positional parameters, slices,
// indirection and the default operators.
func TestHolesDiffBatch2(t *testing.T) {
	v15 := [][2]string{{"mi355x-amds_061", ""}, {"mi355x-amds_192", ""}}
	diffRunCases(t, []diffCase{
		{"declare-p-15", `declare -p X > /tmp/o; server`, v15},
		{"mapfile-d-EE", `mapfile -d $'\xee' -t arr <<< "$X"; export N=${#arr[@]}; server`, nil},
		{"mapfile-d-colon-count", `mapfile -d : arr <<< "$X"; export N=${#arr[@]}; server`, nil},
		{"two-eq-test", `[[ $X == "$Y" ]] && export E=1; server`, diffTwoVals},
		{"two-assoc", `declare -A m; m[a]=$X; m[b]=$Y; server`, diffTwoVals},
		{"two-export", `export A=$X B=$Y; server`, diffTwoVals},
		{"two-write-same", `echo "$X" > /tmp/a; echo "$Y" > /tmp/a; server`, diffTwoVals},
		{"two-reassign-start", `X=$Y; server`, diffTwoVals},
		{"two-swap", `T=$X; X=$Y; Y=$T; server`, diffTwoVals},
		{"two-export-X-Y", `export X=$Y; server`, diffTwoVals},
		{"unset-reset", `unset X; export X=$Y; server`, diffTwoVals},
		{"x-to-self", `X=$X; export X; server`, nil},
		{"env-wrapper", `env A=$X server`, nil},
		{"env-i", `env -i A=$X server`, nil},
		{"nohup", `nohup server`, nil},
		{"timeout", `Z=$X timeout 5 server`, nil},
		{"docker-e", `docker run -e A=$X img server`, nil},
		{"docker-e-e", `docker run -e -e A=$X img server`, nil},
		{"docker-name-e", `docker run --name -e A=$X server`, nil},
		{"docker-w-e", `docker run -w -e A=$X img server`, nil},
		{"docker-e-name", `docker run -e X img server`, nil},
		{"docker-env-file", `printf 'A=%s\n' "$X" > /tmp/e; docker run --env-file /tmp/e img server`, nil},
		{"docker-env-file-comment", `printf '#%s=1\nA=%s\n' "$X" "$X" > /tmp/e; docker run --env-file /tmp/e img server`, nil},
		{"docker-bash-c", `docker run -e A=$X img bash -c 'export B=$A; server'`, nil},
		{"bash-c-env", `export Z=$X; bash -c 'export W=$Z; server'`, nil},
		{"bash-file-env", `echo 'export W=$Z; server' > /tmp/s.sh; export Z=$X; bash /tmp/s.sh`, nil},
		{"bash-file-arg", `echo 'export W=$1; server' > /tmp/s.sh; bash /tmp/s.sh "$X"`, nil},
		{"source-arg", `echo 'export W=$1; server' > /tmp/s.sh; source /tmp/s.sh "$X"`, nil},
		{"func-positional", `f() { export W="$1"; shift; export N=$#; server; }; f "$X" "$X"`, nil},
		{"set-star-IFS-empty", `set -- "$X" "$X"; IFS=; export W="$*"; server`, nil},
		{"set-at-slice", `set -- "$X" b; export W="${@:2}"; server`, nil},
		{"array-slice", `a=("$X" b); export W="${a[@]:1}"; server`, nil},
		{"array-keys", `a=("$X" b); export W="${!a[@]}"; server`, nil},
		{"prefix-names", `XA=$X; export W="${!X*}"; server`, nil},
		{"indirect", `n=X; export W=${!n}; server`, nil},
		{"nameref-ok", `declare -n r=X; export W=$r; server`, nil},
		{"default-ops", `export W=${X:-a}${X:+b}${X-c}${X+d}; : ${Q:=$X}; export Q; server`, nil},
		{"err-op", `: ${X:?oops}; server`, nil},
		{"test-n", `[ -n "$X" ] && [ "$X" ] && [[ $X ]] && export W=1; server`, nil},
		{"test-a", `[ "$X" -a "$X" ] && export W=1; server`, nil},
		{"test-3", `[ "$X" = "$X" ] && export W=1; server`, nil},
		{"test-not", `[ ! "$X" ] || export W=1; server`, nil},
		{"test-v", `[[ -v $X ]] && export W=1; server`, nil},
		{"test-lt", `[[ $X < m ]] && export W=1; server`, nil},
		{"test-file", `[ -e "/tmp/$X" ] && export W=1; server`, nil},
		{"echo-e", `echo -e "$X" > /tmp/o; server`, nil},
		{"echo-E", `echo -E "$X" > /tmp/o; server`, nil},
		{"echo-n", `echo -n "$X" > /tmp/o; server`, nil},
		{"echo-ne-later", `echo "$X" -e > /tmp/o; server`, nil},
		{"printf-b", `printf '%b' "$X" > /tmp/o; server`, nil},
		{"printf-q", `printf '%q' "$X" > /tmp/o; server`, nil},
		{"printf-width", `printf '%20s' "$X" > /tmp/o; server`, nil},
		{"printf-star", `printf '%*s' 20 "$X" > /tmp/o; server`, nil},
		{"printf-reuse", `printf '%s %s\n' "$X" > /tmp/o; server`, nil},
		{"printf-d", `printf '%d' "$X" > /tmp/o; server`, nil},
		{"printf-in-arg-fmt", `printf '%s' "%s$X" > /tmp/o; server`, nil},
		{"printf-v-plain", `printf -v Z '%s-%s' "$X" b; export Z; server`, nil},
		{"here-doc-cat", "cat > /tmp/o <<EOF\n$X\nEOF\nserver", nil},
		{"here-string-cat", `cat <<< "$X" > /tmp/o; server`, nil},
		{"cat-pipe", `echo "$X" | cat > /tmp/o; server`, nil},
		{"tee", `echo "$X" | tee /tmp/o; server`, nil},
		{"cmdsub-trim", `Z=$(echo "$X"; echo; echo); export Z; server`, nil},
		{"procsub-cat", `cat <(echo "$X") > /tmp/o; server`, nil},
		{"procsub-read", `read -r l < <(echo "$X"); export Z=$l; server`, nil},
		{"source-procsub", `source <(echo "Z=$X"); export Z; server`, nil},
		{"pipe-read", `echo "$X" | { read -r l; export Z=$l; server; }`, nil},
		{"read-REPLY-pipe", `echo "$X" | { read; export Z=$REPLY; server; }`, nil},
		{"while-read", `while read -r l; do export Z=$l; done <<< "$X"; server`, nil},
		{"while-read-noname", `while read; do export Z=$REPLY; done <<< "$X"; server`, nil},
		{"xargs", `echo "$X" | xargs server`, nil},
		{"wc", `Z=$(echo "$X" | wc -c); export Z; server`, nil},
		{"basename", `Z=$(basename "$X"); server`, nil},
		{"dirname", `Z=$(dirname "/a/$X"); server`, nil},
		{"cd", `cd "$X" 2>/dev/null; server`, nil},
		{"pushd", `pushd "/tmp" >/dev/null; Z=$X; server`, nil},
		{"hash", `hash "$X" 2>/dev/null; server`, nil},
		{"type", `type "$X" >/dev/null 2>&1; server`, nil},
		{"command-v", `command -v "$X" >/dev/null; server`, nil},
		{"compgen", `compgen -W "$X" a > /tmp/o; server`, nil},
		{"unset-name", `unset "$X"; server`, nil},
		{"export-name", `export "$X"; server`, nil},
		{"local-name", `f() { local "$X"; }; f; server`, nil},
		{"alias", `alias z="echo $X"; server`, nil},
		{"shift-n", `shift "$X" 2>/dev/null; server`, nil},
		{"exit-n", `exit "$X"`, nil},
		{"return-n", `f() { return "$X"; }; f; server`, nil},
		{"kill", `kill "$X" 2>/dev/null; server`, nil},
		{"wait", `wait "$X" 2>/dev/null; server`, nil},
		{"umask", `umask "$X" 2>/dev/null; server`, nil},
		{"trap-dq", `trap "export Z=$X" EXIT; server`, nil},
		{"trap-p", `trap 'export Z=$X' EXIT; trap -p > /tmp/o; server`, nil},
		{"redir-fd", `echo hi >&"$X"; server`, nil},
		{"glob-with-X", `echo /tmp/"$X"* > /tmp/o; server`, nil},
		{"glob-unquoted", `echo $X > /tmp/o; server`, nil},
		{"extglob", `shopt -s extglob; echo $X > /tmp/o; server`, nil},
		{"tilde-HOME", `HOME=$X; echo ~ ~/a > /tmp/o; server`, nil},
		{"assign-tilde", `Z=a:~:$X; export Z; server`, nil},
		{"brace", `echo {a,b}$X > /tmp/o; server`, nil},
		{"regex", `[[ $X =~ ^m ]] && export Z=${BASH_REMATCH[0]}; server`, nil},
		{"arith-index", `a=(1 2); export Z=${a[X]}; server`, nil},
		{"arith-name-ref", `Y=X; export Z=$((Y)); server`, nil},
		{"length-arr", `a=($X); export Z=${#a[0]}; server`, nil},
		{"case-pattern", `case abc in $X) export Z=1;; esac; server`, nil},
		{"case-conv", `export Z=${X^^}; server`, nil},
		{"at-U", `export Z=${X@U}; server`, nil},
		{"at-E", `export Z=${X@E}; server`, nil},
		{"at-a", `export Z=${X@a}; server`, nil},
		{"sort", `echo "$X" | sort > /tmp/o; server`, nil},
		{"sed", `echo "$X" | sed s/a/b/ > /tmp/o; server`, nil},
		{"awk", `echo "$X" | awk '{print $1}' > /tmp/o; server`, nil},
		{"jq", `echo "\"$X\"" | jq -r . > /tmp/o; server`, nil},
		{"date", `date +%s > /tmp/o; Z=$X; server`, nil},
		{"hostname", `Z=$(hostname); export W=$X; server`, nil},
		{"nproc-X", `export Z=$(nproc)$X; server`, nil},
		{"exec-redirect", `exec 3>/tmp/o; echo "$X" >&3; exec 3>&-; server`, nil},
		{"stderr-file", `echo "$X" 2>/tmp/o >&2; server`, nil},
		{"subshell-exit", `( echo "$X" >&2; exit 4 ); export S=$?; server`, nil},
		{"coproc", `coproc cat; server`, nil},
		{"bg", `server "a" & Z=$X; wait; server`, nil},
		{"time", `time server; Z=$X`, nil},
		{"long-line-err", `p=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; echo "$p$X" >&2; exit 2`, nil},
		{"getopts-arg", `set -- -a "$X"; getopts a: o; export O=$OPTARG; server`, nil},
		{"getopts-attached", `set -- "-a$X"; getopts a: o; export O=$OPTARG; server`, nil},
		{"select-menu", `select c in "$X" b; do export C=$c; break; done <<< 1; server`, nil},
	})
}

// TestHolesDiffBatch3: names looked up (command -v, type, hash, declare
// -f/-F), kill, printf %q and *, exec/builtin/command, read -a, let.
func TestHolesDiffBatch3(t *testing.T) {
	fv := [][2]string{{"abcdefghi_1", ""}, {"abcdefghi_2", ""}, {"systemctl", ""}, {"diffdiffdiffdiffz", ""}}
	diffRunCases(t, []diffCase{
		{"command-v-func", `abcdefghi_1() { :; }; command -v "$X" >/dev/null && export Z=1; server`, fv},
		{"type-func", `abcdefghi_1() { :; }; type "$X" >/dev/null 2>&1 && export Z=1; server`, fv},
		{"hash-func", `hash "$X" 2>/dev/null && export Z=1; server`, fv},
		{"command-v-out", `command -v "$X" > /tmp/o; server`, fv},
		{"type-out", `type "$X" > /tmp/o 2>&1; server`, fv},
		{"type-t", `abcdefghi_1() { :; }; type -t "$X" > /tmp/o 2>&1; server`, fv},
		{"declare-F", `abcdefghi_1() { :; }; declare -F "$X" >/dev/null && export Z=1; server`, fv},
		{"declare-f", `abcdefghi_1() { :; }; declare -f "$X" >/dev/null && export Z=1; server`, fv},
		{"kill-out", `kill "$X" 2>/tmp/o; export S=$?; server`, nil},
		{"printf-q-out", `printf '%q' "$X" > /tmp/o; export S=$?; server`, nil},
		{"printf-star-out", `printf '%*s|' 20 "$X" > /tmp/o; export S=$?; server`, nil},
		{"hash-out", `hash "$X" 2>/tmp/o; export S=$?; server`, nil},
		{"exec-name", `exec "$X"`, fv},
		{"builtin-name", `builtin "$X" 2>/dev/null; export S=$?; server`, fv},
		{"command-name", `abcdefghi_1() { :; }; command "$X" 2>/dev/null; export S=$?; server`, fv},
		{"printf-v-arr", `printf -v 'a[0]' '%s' "$X"; export Z=${a[0]}; server`, nil},
		{"read-a", `read -r -a arr <<< "$X"; export Z=${arr[0]}; server`, nil},
		{"dirs", `pushd /tmp >/dev/null; dirs > /tmp/o; Z=$X; server`, nil},
		{"let-noX", `let 'n=1'; export Z=$X; server`, nil},
		{"fn-name-dyn", `eval "f_1() { :; }"; export Z=$X; server`, nil},
	})
}

// TestHolesDiffPrintf: printf verbs the sandbox formats itself.
func TestHolesDiffPrintf(t *testing.T) {
	commaVals := [][2]string{{"a.b:c/d,e+f", ""}, {"a.b:c/d-e+f", ""}, {"mi355x-amds_06", ""}}
	diffRunCases(t, []diffCase{
		{"printf-q-comma", `printf '%q' "$X" > /tmp/o; server`, commaVals},
		{"printf-q-comma-cmd", `printf -v C '%q ' server --x "$X"; export C; server`, commaVals},
		{"printf-prec5", `printf '%.5s' "$X" > /tmp/o; server`, nil},
		{"printf-width20-X", `printf '%20s|%X\n' "$X" 1 > /tmp/o; server`, nil},
		{"printf-width20q", `printf '%20q|\n' "$X" > /tmp/o; server`, nil},
		{"printf-X", `printf '%X' "$X" > /tmp/o; server`, nil},
		{"printf-f", `printf '%f' "$X" > /tmp/o; server`, nil},
		{"printf-e", `printf '%e' "$X" > /tmp/o; server`, nil},
		{"printf-hashx", `printf '%#x' "$X" > /tmp/o; server`, nil},
		{"printf-c-rewrite", `printf '%c%X' "$X" 1 > /tmp/o; server`, nil},
		{"printf-d-rewrite", `printf '%d%X' "$X" 1 > /tmp/o; server`, nil},
		{"printf-big-width", `printf '%2000000s' "$X" > /tmp/o; server`, nil},
	})
}

// TestHolesDiffBatch4: job PIDs (wait, kill, ps), a script read from a
// cut input, printing with -p, every nameref form, mapfile, select,
// OPTIND and getopts, shift, case.
func TestHolesDiffBatch4(t *testing.T) {
	pidVals := [][2]string{{"000020001", ""}, {"abcdefghi", ""}, {"000020002", ""}}
	mVals := [][2]string{{"mi355x-amds_06", ""}, {"xi355x-amds_06", ""}}
	// bash reads at most 1<<20 bytes of a script from its stdin: the cut
	// leaves the hole's first byte only.
	bashStdin := diffPad + `q=${p:0:1048564}; { printf '#%s\n' "$q"; printf 'test m = %s\n' "$X"; } | bash; export S=$?; server`
	diffRunCases(t, []diffCase{
		{"wait-pid", `server & wait $! "$X" 2>/dev/null; export S=$?; server`, pidVals},
		{"kill-pid", `sleep 1 & kill "$X" 2>/dev/null; export S=$?; server`, pidVals},
		{"kill-pid-then-wait", `sleep 1 & P=$!; kill "$X" 2>/dev/null; wait $P; export S=$?; server`, pidVals},
		{"ps-pid", `server & ps -o pid= -p "$X" > /tmp/o; server`, pidVals},
		{"bash-stdin-cut", bashStdin, mVals},
		{"declare-p-all", `declare -p > /tmp/o; server`, nil},
		{"declare-px", `declare -px > /tmp/o; server`, nil},
		{"typeset-p", `typeset -p X > /tmp/o; server`, nil},
		{"readonly-p", `readonly R=$X; readonly -p > /tmp/o; server`, nil},
		{"local-n", `abcdefghi_1=hi; f() { local -n r=$X; export W=$r; }; f; server`, nil},
		{"nameref-assign", `declare -n r; r=$X; export W=$r; server`, nil},
		{"nameref-write", `declare -n r=$X; r=5; export W=${abcdefghi_1-unset}; server`, nil},
		{"nameref-excl", `declare -n r=$X; export W=${!r}; server`, nil},
		{"nameref-unset", `abcdefghi_1=hi; declare -n r=$X; unset r; export W=${abcdefghi_1-unset}; server`, nil},
		{"nameref-isset", `abcdefghi_1=hi; declare -n r=$X; [[ -v r ]] && export W=1; server`, nil},
		{"nameref-test-n", `abcdefghi_1=hi; declare -n r=$X; [ -n "$r" ] && export W=1; server`, nil},
		{"nameref-default", `abcdefghi_1=hi; declare -n r=$X; export W=${r:-dflt}; server`, nil},
		{"mapfile-default-nl", `mapfile arr <<< "$X"; export W=${arr[0]}; server`, nil},
		{"select-PS3", `PS3=$X; select c in a; do break; done <<< 1 2>/tmp/o; server`, nil},
		{"OPTIND-direct", `set -- -a -b; OPTIND=$X; getopts ab o; export O=$o OI=$OPTIND; server`, nil},
		{"getopts-combined", `set -- "-ab$X"; while getopts ab o; do export O_$o=1; done; server`, nil},
		{"getopts-positional-fn", `f() { getopts mx o; export O=$o; }; f "-$X"; server`, nil},
		{"getopts-loop", `set -- "-$X"; n=0; while getopts ":abcdefghimn" o; do n=1; done; export N=$n O=$o; server`, nil},
		{"set-dashdash-opt", `set -- "$X"; set -o | head -1 > /dev/null; server`, nil},
		{"shift-then-count", `set -- "$X" "$X"; shift; export N=$#; server`, nil},
		{"case-literal-eq", `case mi355x-amds_06 in "$X") export Z=1;; esac; server`, nil},
	})
}

// TestHolesDiffBatch5: xtrace, tilde, PATH, indices, here-documents,
// copies through files, tee, srun, sudo, nohup, PIPESTATUS, $_, IFS.
func TestHolesDiffBatch5(t *testing.T) {
	diffRunCases(t, []diffCase{
		{"bash-x-file", `echo 'Z=$X' > /tmp/s.sh; bash -x /tmp/s.sh 2>/tmp/log; server`, nil},
		{"set-o-xtrace", `{ set -o xtrace; Z=$X; set +o xtrace; } 2>/tmp/log; server`, nil},
		{"shebang-x", `printf '#!/bin/bash -x\nZ=$X\n' > /tmp/s.sh; chmod +x /tmp/s.sh; /tmp/s.sh 2>/tmp/log; server`, nil},
		{"tilde-user", `echo ~$X > /tmp/o; server`, nil},
		{"path-append", `export PATH=$PATH:$X; server`, nil},
		{"path-prepend-ls", `PATH=$X:$PATH; ls /tmp > /dev/null; server`, nil},
		{"idx-string", `export W="${X[0]}${X[1]}"; server`, nil},
		{"append", `X+=abc; export X; server`, nil},
		{"exec-env", `exec env A=$X server`, nil},
		{"subst-in-heredoc-read", "read -r l <<EOF\n$X\nEOF\nexport W=$l; server", nil},
		{"here-doc-noname-read", "read <<EOF\n$X\nEOF\nexport W=$REPLY; server", nil},
		{"read-p-prompt", `read -p "$X" l <<< a 2>/tmp/o; server`, nil},
		{"echo-to-server-stdin", `echo "$X" | server`, nil},
		{"server-heredoc", "server <<EOF\n$X\nEOF", nil},
		{"cp-then-read", `echo "$X" > /tmp/a; cp /tmp/a /tmp/b; W=$(< /tmp/b); export W; server`, nil},
		{"mv-then-read", `echo "$X" > /tmp/a; mv /tmp/a /tmp/b; W=$(< /tmp/b); export W; server`, nil},
		{"tee-append", `echo "$X" | tee -a /tmp/o >/dev/null; echo "$X" >> /tmp/o; server`, nil},
		{"write-dev-stderr", `echo "$X" > /dev/stderr; exit 1`, nil},
		{"timeout-env", `timeout 5 env A=$X server`, nil},
		{"sudo-E", `export A=$X; sudo -E server`, nil},
		{"srun", `srun --export=ALL,A=$X server`, nil},
		{"srun-env-name", `export A=$X; srun --export=A server`, nil},
		{"nohup-bg", `nohup server > /tmp/log 2>&1 & export W=$X; server`, nil},
		{"pipestatus", `echo "$X" | server; export W=${PIPESTATUS[0]}; server`, nil},
		{"exit-status-after-copy", `Z=$X; export S=$?; server`, nil},
		{"dollar-underscore", `: "$X"; export W=$_; server`, nil},
		{"func-return-value", `f() { echo "$1"; }; W=$(f "$X"); export W; server`, nil},
		{"IFS-whitespace", `IFS=' '; set -- $X; export N=$#; server`, nil},
		{"IFS-newline-read", `IFS=$'\n' read -r l <<< "$X"; export W=$l; server`, nil},
		{"star-unquoted", `set -- "$X" b; W=$*; export W; server`, nil},
		{"empty-IFS-split", `IFS=; set -- $X; export N=$#; server`, nil},
	})
}

// TestHolesDiffMinimal: the review's counterexamples (M1–M15), each a
// look or the values' run since its fix.
func TestHolesDiffMinimal(t *testing.T) {
	v := diffVals
	diffRunCases(t, []diffCase{
		{"M1-declare-p", `declare -p X > /tmp/o; server`, v("abcdefghi", "123456789", "mi355x-amds_061")},
		{"M2-getopts-positional", `set -- "-$X"; getopts a o; export O=$o; server`, v("abcdefghi", "zbcdefghi")},
		{"M3-getopts-OPTIND", `set -- -a -b; OPTIND=$X; getopts ab o; export O=$o; server`, v("000000002", "abcdefghi")},
		{"M4-select-REPLY", `select c in a b; do export C=$c; break; done <<< "$X"; server`, v("000000002", "abcdefghi")},
		{"M5-nameref-target", `abcdefghi_1=hello; declare -n r=$X; export Z=$r; server`, v("abcdefghi_1", "abcdefghi_2")},
		{"M6-mapfile-d", `mapfile -d : arr <<< "$X"; export N=${#arr[@]}; server`, v("a.b:c/d@e+f", "abcdefghi_1")},
		{"M7-command-v-func", `abcdefghi_1() { :; }; command -v "$X" > /tmp/o; server`, v("abcdefghi_1", "abcdefghi_2")},
		{"M8-kill-jobpid", `sleep 1 & kill "$X"; export S=$?; server`, v("000020001", "abcdefghi")},
		{"M9-printf-X", `printf '%X' "$X" > /tmp/o; server`, v("123456789", "abcdefghi")},
		{"M10-printf-prec", `printf '%.5s' "$X" > /tmp/o; server`, v("mi355x-amds_06", "mi355x-amds_19")},
		{"M11-printf-width", `printf '%20s|%X\n' "$X" 1 > /tmp/o; server`, v("mi355x-amds_06")},
		{"M12-printf-q-comma", `printf '%q' "$X" > /tmp/o; server`, v("a.b:c/d,e+f", "a.b:c/d-e+f")},
		{"M13-stdin-cut", diffPad + `{ printf '%s' "$p"; printf '%s\n' "$X"; } | { wc -c >/dev/null; read -r l; [[ $l == i355x-amds_06 ]] && export M=1; server; }`, v("mi355x-amds_06", "xi355x-amds_19")},
		{"M14-bash-stdin-cut", diffPad + `q=${p:0:1048564}; { printf '#%s\n' "$q"; printf 'test m = %s\n' "$X"; } | bash; export S=$?; server`, v("mi355x-amds_06", "xi355x-amds_06")},
		{"M15-pwd-P-hostfs", `PWD=$X; pwd -P > /tmp/o; server`, v("./././././.", "abcdefghi")},
	})
}

// TestHolesDiffDocker: docker run's own option parse decides what is a
// copied -e value (a "-e" another option takes as its value makes the next
// word that option's, not a copy): the second review's case, fixed.
func TestHolesDiffDocker(t *testing.T) {
	v := diffVals
	diffRunCases(t, []diffCase{
		{"A1-entrypoint", `docker run --name -e --entrypoint=$X img -c 'export Z=1; server'`, v("usr/bin/sh", "opt/x/bash", "abcdefghi_")},
		{"A1b-entrypoint-w", `docker run -w -e --entrypoint=$X img -c 'export Z=1; server'`, v("usr/bin/sh", "abcdefghi_")},
		{"A2-workdir-clean", `docker run --name -e --workdir=$X img bash -c 'pwd > /tmp/o; export P=$PWD; server'`, v("a/../bcdefg", "abcdefghi_1", "./././././.")},
		{"A3-volume-split", `mkdir -p /tmp/dd; echo hi > /tmp/dd/f; cd /tmp; docker run --name -e --volume=$X img bash -c 'Z=$(cat /mnt/ab/f 2>/dev/null); export Z; server'`, v("dd:/mnt/ab", "ddddddddd_")},
		{"A4-volume-mountpoint", `mkdir -p /tmp/dd; echo hi > /tmp/dd/f; docker run --name -e --volume=/tmp/dd:$X img bash -c 'Z=$(cat /mnt/ab/f 2>/dev/null); export Z; server'`, v("mnt/ab/../ab", "abcdefghi_12")},
		{"A5-e-attached", `docker run --name -e -eA=$X img bash -c 'export B=$A; server'`, nil},
		{"A6-env-file-attached", `printf 'A=%s\n' "$X" > /tmp/e; docker run --name -e --env-file=/tmp/e img server`, nil},
		{"A7-image-is-cmd", `docker run -e A=$X img -e A=$X`, nil},
		{"A8-podman", `podman run --name -e --entrypoint=$X img -c 'export Z=1; server'`, v("usr/bin/sh", "abcdefghi_")},
	})
}

// diffCmp runs src with holes (X hole 0, Y hole 1) and with each value
// pair, under diffCfg plus mod, and reports a mismatch.
func diffCmp(t *testing.T, name, src string, vals [][2]string, mod func(*Config)) {
	t.Helper()
	for _, p := range vals {
		hx, hy := diffHoleFor(p[0], 0), diffHoleFor(p[1], 1)
		hc, vc := diffCfg(hx, hy, true), diffCfg(p[0], p[1], false)
		if mod != nil {
			mod(&hc)
			mod(&vc)
		}
		hr, want := diffRun(src, hc), diffRun(src, vc)
		if hr.panic != nil || want.panic != nil {
			t.Errorf("%s: panic %v %v", name, hr.panic, want.panic)
			continue
		}
		if hr.err != nil {
			t.Logf("%s %q: holed err %v (concrete err %v)", name, p, hr.err, want.err)
			continue
		}
		repl := []string{hx, p[0]}
		if hy != "" {
			repl = append(repl, hy, p[1])
		}
		got, ok := SubstituteHoles(hr.tr, strings.NewReplacer(repl...))
		if !ok {
			t.Logf("%s %q: residual", name, p)
			continue
		}
		if gj, wj := diffJSON(got), diffJSON(want.tr); gj != wj || want.err != nil {
			t.Errorf("%s %q (concrete err %v):\n got %s\nwant %s", name, p, want.err, gj, wj)
		} else {
			t.Logf("%s %q: copy", name, p)
		}
	}
}

// TestHolesDiffShortcuts: the third review's counterexamples, through the
// interpreter's shortcuts and the sandbox's own answers — an IFS holding a
// hole in the plain-word shortcut, wait and set -o answered before the
// interpreter's rule, a server's env and a child script's start env told
// against the run's start — each fixed since.
func TestHolesDiffShortcuts(t *testing.T) {
	v := diffVals
	diffRunCases(t, []diffCase{
		// C1 plain.go joinedWord reads IFS itself (no prepareConfig, no "IFS" look)
		{"C1-ifs-joined", `IFS=$X; v=abc; set -- a$v; export N=$#; server`, v("mi355x-amds_06", "123456789")},
		{"C1b-local-ifs-for", `f() { local IFS=$X; v=abc; for a in x$v; do export A=$a; done; }; f; server`, v("abcdefghi", "123456789")},
		// C2 sandbox waitJobs decides on a hole operand before any look
		{"C2-wait-job-hole", `true & wait $! "$X"; export S=$?; server`, v("000020001", "abcdefghi")},
		// C3 holeBuiltin "set" takes the operand of -o/+o for a positional parameter
		{"C3-set-o", `set -o "$X" 2>/dev/null; export S=$?; Z=1; server`, v("allexport", "abcdefghi")},
		{"C3b-set-o-msg", `set -o "$X"; exit 3`, v("abcdefghi")},
		// C4 jobCommand's diffEnv (server started by srun) compares with the base, no hole rule
		{"C4-srun-server-env", `env X=mi355x-amds_06 srun server`, v("mi355x-amds_06", "mi355x-amds_19")},
		{"C4b-srun-server-env2", `env X=$Y srun server`, diffTwoVals},
	})
	// C5 bash(): ScriptStart.Env compares with sb.base, no hole rule
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.sh"), []byte(":\n"), 0o755)
	mod := func(c *Config) { c.ReadRoots = []string{dir}; c.Dir = dir }
	diffCmp(t, "C5-scriptstart-env", `env X=mi355x-amds_06 bash s.sh`, v("mi355x-amds_06", "mi355x-amds_19"), mod)
	diffCmp(t, "C5b-scriptstart-env2", `env X=$Y bash s.sh`, diffTwoVals, mod)
}

// TestHolesDiffShortcutsHandled: shapes the third review tried that were
// handled (a look or a copy).
func TestHolesDiffShortcutsHandled(t *testing.T) {
	diffRunCases(t, []diffCase{
		{"ifs-hole-unq", `IFS=$X; v=abc; set -- $v; export N=$#; server`, nil},
		{"ifs-arr", `IFS=$X; v=abc; arr=(x$v); export N=${#arr[@]}; server`, nil},
		{"wait-hole-only", `false & wait "$X"; export S=$?; server`, nil},
		{"catshortcut-path", `echo hi > /tmp/abcdefghi; Z=$(< "/tmp/$X"); export Z; server`, nil},
		{"test-bad-op", `[ a "$X" b ]; exit 3`, nil},
		{"test-two", `[ "$X" a ]; exit 3`, nil},
		{"builtin-echo", `builtin echo "$X"; exit 3`, nil},
		{"source-args", `echo 'echo "$1" >&2' > /tmp/s; source /tmp/s "$X"; exit 3`, nil},
		{"trap-exit-print", `trap 'echo "$X" >&2' EXIT; exit 1`, nil},
		{"hdoc-dash", "cat <<-EOF > /tmp/o\n\t$X\n\tEOF\nserver", nil},
		{"arr-append", `a=(); a+=("$X"); a+=(b); export N=${#a[@]} Z="${a[0]}"; server`, nil},
		{"printf-v-arr-elem", `printf -v 'a[1]' '%s' "$X"; export Z=${a[1]}; server`, nil},
		{"default-in-arith", `export N=$(( ${U:-1} + 1 )) Z=${U:=$X}; server`, nil},
		{"cond-default", `[[ -n ${U:-$X} ]] && export Z=1; server`, nil},
		{"bare-read", `read <<< "$X"; export Z=$REPLY; server`, nil},
		{"compound-bg", `{ export Z=$X; server; } & wait`, nil},
		{"bg-job-read", `{ read -r l; } <<< "$X" & wait; server`, nil},
		{"while-bare-read", `echo "$X" | while read; do export Z=$REPLY; server; done`, nil},
		{"dbl-default-joined", `export Z="${U-$X}x"; server`, nil},
		{"unquoted-joined-X", `set -- a$X; export N=$#; server`, nil},
		{"errtail-two", `echo "$X" >&2; echo "$X" >&2; exit 2`, diffTwoVals},
		{"cmdsub-nul", `Z=$(printf '%s\0x' "$X"); export Z; server`, nil},
		{"srun-export-server", `srun --export=ALL,X=$Y server`, diffTwoVals},
		{"docker-path", `docker run -e PATH=$X img server`, nil},
	})
}

// diffVals is the cases' values for X alone.
func diffVals(xs ...string) [][2]string {
	var out [][2]string
	for _, x := range xs {
		out = append(out, [2]string{x, ""})
	}
	return out
}

// TestHolesDiffAudit: the fourth review, an audit of every builtin and of
// the sandbox's call path — set -oo (one option name per o), env
// --unset=NAME (an option, not an assignment), a backslash before %% in a
// printf format the sandbox formats itself, the sandbox's container
// marker set by a script — each fixed since, and the spots it found safe.
func TestHolesDiffAudit(t *testing.T) {
	diffRunCases(t, []diffCase{
		{"set-oo", `set -oo pipefail "$X"; export S=$?; server`, diffVals("allexport", "abcdefghi")},
		{"set-oo-stderr", `set -oo pipefail "$X"; exit 3`, diffVals("abcdefghi")},
		{"env-unset-long", `export abcdefghi_1=z; env --unset=$X bash -c 'export W=${abcdefghi_1-none}; server'`, diffVals("abcdefghi_1", "abcdefghi_2")},
		{"printf-bs-pct-d", `printf '\%%d' "$X" > /tmp/o; Z=$(cat /tmp/o); export Z; server`, diffVals("123456789", "abcdefghi")},
		{"printf-v-bs-pct-d", `printf -v Z '\%%d' "$X"; export Z; server`, diffVals("123456789", "abcdefghi")},
		{"printf-v-bs-pct-12s", `printf -v Z '\%%12s|' "$X"; export Z; server`, diffVals("abcdefghi")},
		{"printf-bs-pct-q", `printf '\%%q' "$X" > /tmp/o; server`, diffVals("a.b:c/d,e+f", "abcdefghi")},
		{"container-var-docker-e", `docker run -e __cookbook_sync_container=$X img server`, diffVals("000000000", "abcdefghi")},
		{"container-var-export", `docker run img true; export __cookbook_sync_container=$X; server`, diffVals("000000000", "abcdefghi")},
		{"set-eoo", `set -eoo pipefail "$X"; export S=$?; server`, diffVals("allexport", "abcdefghi")},
		{"set-o-o", `set -o pipefail -o "$X"; export S=$?; server`, diffVals("allexport", "abcdefghi")},
		{"exec-env-unset", `export abcdefghi_1=z; exec env --unset=$X bash -c 'export W=${abcdefghi_1-none}; server'`, diffVals("abcdefghi_1", "abcdefghi_2")},
		{"env-unset-srun", `export abcdefghi_1=z; env --unset=$X srun bash -c 'export W=${abcdefghi_1-none}; server'`, diffVals("abcdefghi_1", "abcdefghi_2")},
		{"len", `export N=${#X}; server`, nil},
		{"slice", `export N=${X:0:3}; server`, nil},
		{"test-two-holes-a", `[ "$X" -a "$Y" ] && export W=1; server`, diffTwoVals},
		{"test-paren", `[ \( "$X" \) ] && export W=1; server`, nil},
		{"test-bad-right", `[ a "$X" ]; export S=$?; server`, nil},
		{"builtin-printf-v", `builtin printf -v Z '%d' "$X"; server`, nil},
		{"command-printf-v", `command printf -v Z '\%%d' "$X"; export Z; server`, nil},
		{"printf-dashdash", `printf -- '%q' "$X" > /tmp/o; server`, nil},
		{"echo-many", `echo -n -E "$X" -e > /tmp/o; server`, nil},
		{"source-set-params", `echo 'set -- a "$@"; export N=$#' > /tmp/s; source /tmp/s "$X"; export M=$#; server`, nil},
		{"func-shift-all", `f() { shift 1; export N=$# A="$*"; }; f "$X" "$Y"; server`, diffTwoVals},
		{"random-seed", `RANDOM=$X; export R=$RANDOM; server`, diffVals("123456789", "abcdefghi", "000000002")},
	})
}

// diffBig makes v 4096 copies of X and r a 20 KiB replacement.
const diffBig = `v=$X; for i in 1 2 3 4 5 6 7 8 9 10 11 12; do v=$v$v; done; r=aaaa; for i in 1 2 3 4 5 6 7 8 9 10; do r=$r$r; done; r=$r$r$r$r$r; `

// TestHolesDiffRepl: a pattern replacement's guard counts the pattern's
// matches in an operand holding a hole (the fifth review's case, fixed).
func TestHolesDiffRepl(t *testing.T) {
	diffRunCases(t, []diffCase{
		{"repl-mark-all", diffBig + `w=${v//$'\xee\x80\x80'/$r}; export N=${#v}; server`, diffVals("mi355x-amds_06", "abcdefghi_1")},
		{"repl-mark-small", `w=${X//$'\xee\x80\x80'/zz}; export W=$w; server`, nil},
	})
}

// TestHolesDiffArrays: arrays holding a hole — per-element operators,
// slices, sparse and negative indices, copies, associative arrays.
func TestHolesDiffArrays(t *testing.T) {
	diffRunCases(t, []diffCase{
		{"arr-hash", `a=("$X" bb); export W="${a[@]#m}"; server`, nil},
		{"arr-hash-star", `a=("$X" bb); export W="${a[@]#*}"; server`, nil},
		{"arr-pct", `a=("$X" bb); export W="${a[@]%b}"; server`, nil},
		{"arr-repl", `a=("$X" bb); export W="${a[@]/b/c}"; server`, nil},
		{"arr-repl-anchor", `a=("$X" bb); export W="${a[@]/#/P}"; server`, nil},
		{"arr-repl-end", `a=("$X" bb); export W="${a[@]/%/S}"; server`, nil},
		{"arr-upper", `a=("$X" bb); export W="${a[@]^^}"; server`, nil},
		{"arr-slice12", `a=(q "$X" bb c); export W="${a[@]:1:2}"; server`, nil},
		{"arr-slice-neg", `a=(q "$X" bb c); export W="${a[@]: -2}"; server`, nil},
		{"arr-keys-sparse", `a[5]=$X; a[2]=b; export W="${!a[@]}" N=${#a[@]}; server`, nil},
		{"arr-len0", `a=("$X"); export N=${#a[0]} M=${#a[@]}; server`, nil},
		{"arr-star-ifs", `a=("$X" b); IFS=:; export W="${a[*]}"; server`, nil},
		{"arr-star-ifs-empty", `a=("$X" b); IFS=; export W="${a[*]}"; server`, nil},
		{"arr-neg-idx", `a=(b "$X"); export W=${a[-1]} V=${a[-2]}; server`, nil},
		{"arr-pluseq-split", `a=(b); a+=($X); export N=${#a[@]}; server`, nil},
		{"arr-declare-a", `declare -a a=($X); export N=${#a[@]} W=${a[0]}; server`, nil},
		{"arr-declare-a-q", `declare -a a=("$X" c); export W=${a[1]}${a[0]}; server`, nil},
		{"arr-copy", `a=("$X" b); b=("${a[@]}"); export W=${b[0]} N=${#b[@]}; server`, nil},
		{"arr-copy-unq", `a=("$X" b); b=(${a[@]}); export W=${b[0]} N=${#b[@]}; server`, nil},
		{"assoc-order", `declare -A m=([z]=$X [a]=b); export W="${m[@]}" K="${!m[@]}"; server`, nil},
		{"assoc-key-X", `declare -A m=([$X]=1 [b]=2); export K="${!m[@]}"; server`, nil},
		{"assoc-two-keys", `declare -A m; m[$X]=1; m[$Y]=2; export N=${#m[@]}; server`, diffTwoVals},
		{"arr-unset", `a=(b "$X" c); unset 'a[1]'; export W="${a[*]}" N=${#a[@]}; server`, nil},
		{"arr-unset-X-idx", `a=(b c); unset "a[$X]" 2>/dev/null; export N=${#a[@]}; server`, nil},
		{"read-a-ifs", `IFS=_ read -r -a arr <<< "$X"; export N=${#arr[@]} W=${arr[0]}; server`, nil},
		{"mapfile-ops", `mapfile -t arr <<< "$X"; export W="${arr[@]/m/M}"; server`, nil},
		{"mapfile-hash", `mapfile -t arr <<< "$X"; export W="${arr[@]#?}"; server`, nil},
		{"at-2", `set -- a "$X" b; export W="${@:2}"; server`, nil},
		{"at-2-1", `set -- a "$X" b; export W="${@:2:1}"; server`, nil},
		{"set-arr", `a=("$X" b); set -- "${a[@]}"; export N=$# W=$1; server`, nil},
		{"scalar-idx", `export W="${X[0]}" V="${X[@]}" N=${#X[@]}; server`, nil},
		{"scalar-idx1", `export W="${X[1]-unset}"; server`, nil},
		{"scalar-idx-neg", `export W="${X[-1]}"; server`, nil},
		{"arr-idx-X-arith", `a=(1 2 3); i=1; a[i]=$X; export W="${a[*]}"; server`, nil},
		{"arr-at-Q", `a=("$X"); export W="${a[@]@Q}"; server`, nil},
		{"arr-at-A", `a=("$X"); export W="${a[@]@A}"; server`, nil},
		{"arr-at-K", `a=("$X"); export W="${a[@]@K}"; server`, nil},
		{"assoc-at-K", `declare -A m=([k]=$X); export W="${m[@]@K}"; server`, nil},
		{"arr-at-a", `a=("$X"); export W="${a[@]@a}"; server`, nil},
		{"arr-excl-at", `a=("$X"); export W="${!a[*]}"; server`, nil},
		{"arr-len-all", `a=("$X" bb); export W="${#a[*]}"; server`, nil},
		{"arr-default", `a=(); export W="${a[@]:-$X}"; server`, nil},
		{"arr-plus", `a=("$X"); export W="${a[@]:+y}"; server`, nil},
		{"arr-assign-elem-append", `a=("$X"); a[0]+=z; export W=${a[0]}; server`, nil},
		{"arr-pluseq-idx", `a=(b); a+=([3]=$X); export W="${!a[@]}"; server`, nil},
		{"declare-A-pluseq", `declare -A m=([k]=a); m+=([k]=$X); export W=${m[k]}; server`, nil},
		{"arr-for", `a=("$X" b); for e in "${a[@]}"; do export L=$e; done; server`, nil},
		{"arr-idx-from-X-len", `a=(a b c d e f g h i j k l m n o p); export W=${a[${#X}]}; server`, nil},
		{"printf-arr", `a=("$X" b); printf -v W '%s,' "${a[@]}"; export W; server`, nil},
		{"declare-p-assoc", `declare -A m=([k]=$X); declare -p m > /tmp/o; server`, nil},
		{"local-arr", `f() { local -a l=("$X" b); export W="${l[*]}"; }; f; server`, nil},
		{"readonly-arr", `readonly -a r=("$X"); export W=${r[0]}; server`, nil},
		{"arr-ifs-unq-star", `a=("$X" b); IFS=_; set -- ${a[*]}; export N=$#; server`, nil},
		{"arr-ifs-unq-at", `a=("$X" b); IFS=_; set -- ${a[@]}; export N=$#; server`, nil},
		{"arr-upper-first", `a=("$X"); export W="${a[@]^}" V="${a[@],,}" U="${a[@]~~}"; server`, nil},
		{"arr-cmp", `a=("$X"); b=("$X"); [[ "${a[*]}" == "${b[*]}" ]] && export E=1; server`, nil},
	})
}

// TestHolesDiffReparse: text holding a hole run again (bash from a pipe,
// source, eval, alias, functions printed and exported).
func TestHolesDiffReparse(t *testing.T) {
	diffRunCases(t, []diffCase{
		{"pipe-bash", `printf 'export Z=%s; server\n' "$X" | bash`, nil},
		{"pipe-bash-q", `printf 'export Z=%q; server\n' "$X" | bash`, nil},
		{"echo-dot", `echo "Z=$X" > /tmp/f; . /tmp/f; export Z; server`, nil},
		{"eval-esc", `eval "Y=\$X"; export Y; server`, nil},
		{"eval-single", `eval 'Y=$X'; export Y; server`, nil},
		{"eval-arr", `eval 'a=("$X")'; export W=${a[0]}; server`, nil},
		{"bash-c-1", `bash -c 'export Z="$1"; server' _ "$X"`, nil},
		{"heredoc-bash", "bash <<EOF\nexport Z=$X; server\nEOF", nil},
		{"heredoc-bash-q", "bash <<'EOF'\nexport Z=$X; server\nEOF", nil},
		{"alias-use", `shopt -s expand_aliases; alias a="export Z=$X"; eval a; server`, nil},
		{"eval-func", `eval "f() { export Z=$X; }"; f; server`, nil},
		{"eval-func-esc", `eval 'f() { export Z=$X; }'; f; server`, nil},
		{"declare-f-print", `f() { export Z=$X; }; declare -f f > /tmp/o; server`, nil},
		{"declare-f-eval-X", `eval "f() { : $X; }"; declare -f f > /tmp/o; server`, nil},
		{"export-f", `eval "f() { export Z=$X; }"; export -f f; bash -c 'f; server'`, nil},
		{"export-f-plain", `f() { export Z=$X; }; export -f f; bash -c 'f; server'`, nil},
		{"alias-print", `alias a="echo $X"; alias > /tmp/o; server`, nil},
		{"type-func-eval", `eval "f() { : $X; }"; type f > /tmp/o; server`, nil},
		{"eval-printf-q", `printf -v c 'export Z=%q' "$X"; eval "$c"; server`, nil},
		{"source-heredoc", "source /dev/stdin <<EOF\nexport Z=$X\nEOF\nserver", nil},
		{"bash-s", `echo 'export Z=$1; server' | bash -s "$X"`, nil},
	})
}

// TestHolesDiffProc: commands built from arrays and printf -v, wrappers
// and environment arrays.
func TestHolesDiffProc(t *testing.T) {
	diffRunCases(t, []diffCase{
		{"printf-v-server", `printf -v n 'n-%s' "$X"; server --name "$n"`, nil},
		{"arr-cmd", `cmd=(server --x a); "${cmd[@]}"; export Z=$X; server`, nil},
		{"arr-cmd-X", `cmd=(server --name "$X"); "${cmd[@]}"`, nil},
		{"exec-arr", `cmd=(server --name "$X"); exec "${cmd[@]}"`, nil},
		{"env-arr", `envs=("A=$X" B=1); env "${envs[@]}" server`, nil},
		{"env-arr-name", `envs=("$X=1"); env "${envs[@]}" server 2>/dev/null; export S=$?; server`, nil},
		{"export-arr-elem", `a=("$X"); export A="${a[0]}"; server`, nil},
		{"server-env-prefix-arr", `a=("$X"); A=${a[0]} server`, nil},
		{"export-star", `a=("$X" b); export A="${a[*]}"; server`, nil},
		{"export-name-arr", `a=(ZZ=$X); export "${a[@]}"; server`, nil},
		{"declare-x-arr", `a=("ZZ=$X"); declare -x "${a[@]}"; server`, nil},
		{"declare-dyn-name", `declare "Z=$X"; export Z; server`, nil},
		{"declare-arr-str", `declare -a "a=($X)"; export W=${a[0]}; server`, nil},
		{"declare-arr-str-q", `declare -a 'a=($X)'; export W=${a[0]}; server`, nil},
		{"local-dyn", `f() { local "Z=$X"; export W=$Z; }; f; server`, nil},
		{"export-dyn-split", `export Z=$X W=1; server`, nil},
	})
}

// TestHolesDiffInstr: the sandbox's instrumentation (set's relaxing,
// conditions' side effects, name guards, size and iteration checks).
func TestHolesDiffInstr(t *testing.T) {
	ev := diffVals("abcdefghi", "bbbbbbbbb", "xtrace_ab", "errexit_1")
	diffRunCases(t, []diffCase{
		{"set-flag-X", `set "-$X" 2>/dev/null; export S=$?; server`, ev},
		{"set-plus-X", `set "+$X" 2>/dev/null; export S=$?; server`, ev},
		{"set-o-then", `set -o "$X" -e 2>/dev/null; export S=$?; server`, ev},
		{"set-dash-arr", `a=("$X"); set -- "${a[@]}"; export N=$#; server`, ev},
		{"set-a-X", `set a "$X"; export W=$2; server`, ev},
		{"set-dash-x", `set - "$X"; export W=$1 N=$#; server`, ev},
		{"tail-cond", `echo hi > /tmp/f; if tail -- "-$X" 2>/dev/null; then export W=1; fi; server`, ev},
		{"v-arr-idx", `a=(1 2); [[ -v a[$X] ]] && export W=1; server`, diffVals("000000001", "000000005", "abcdefghi")},
		{"v-assoc-idx", `declare -A m=([abcdefghi]=1); [[ -v m[$X] ]] && export W=1; server`, diffVals("abcdefghi", "bbbbbbbbb")},
		{"v-assoc-idx-q", `declare -A m=([abcdefghi]=1); [[ -v "m[$X]" ]] && export W=1; server`, diffVals("abcdefghi", "bbbbbbbbb")},
		{"test-v-assoc", `declare -A m=([abcdefghi]=1); [ -v "m[$X]" ] && export W=1; server`, diffVals("abcdefghi", "bbbbbbbbb")},
		{"nameref-arr-elem", `declare -A m=([abcdefghi]=1); declare -n r="m[$X]"; export W=${r-none}; server`, diffVals("abcdefghi", "bbbbbbbbb")},
		{"unset-assoc", `declare -A m=([abcdefghi]=1 [z]=2); unset "m[$X]"; export N=${#m[@]}; server`, diffVals("abcdefghi", "bbbbbbbbb")},
		{"assoc-lookup", `declare -A m=([abcdefghi]=1); export W=${m[$X]-none}; server`, diffVals("abcdefghi", "bbbbbbbbb")},
		{"assoc-lookup-q", `declare -A m=([abcdefghi]=1); export W="${m["$X"]}"; server`, diffVals("abcdefghi", "bbbbbbbbb")},
		{"assoc-assign-then-count", `declare -A m=([abcdefghi]=1); m[$X]=2; export N=${#m[@]}; server`, diffVals("abcdefghi", "bbbbbbbbb")},
		{"assoc-isset-len", `declare -A m; m[$X]=1; m[abcdefghi]=1; export N=${#m[*]}; server`, diffVals("abcdefghi", "bbbbbbbbb")},
		{"assoc-unset-self", `declare -A m; m[$X]=1; unset 'm[abcdefghi]'; export N=${#m[@]}; server`, diffVals("abcdefghi", "bbbbbbbbb")},
		{"assoc-keys-two", `declare -A m; m[$X]=1; m[$Y]=2; export K="${m[$X]}"; server`, diffTwoVals},
		{"assoc-compound-dup", `declare -A m=([$X]=1 [abcdefghi]=2); export N=${#m[@]}; server`, diffVals("abcdefghi", "bbbbbbbbb")},
		{"assoc-copy-keys", `declare -A m=([k]=$X); declare -A n; for k in "${!m[@]}"; do n[$k]=${m[$k]}; done; export W=${n[k]}; server`, nil},
		{"arr-idx-assign-X", `a[$X]=1 2>/dev/null; export N=${#a[@]}; server`, diffVals("000000001", "abcdefghi")},
		{"arr-compound-idx-X", `a=([$X]=1 [1]=2) 2>/dev/null; export N=${#a[@]}; server`, diffVals("000000001", "abcdefghi")},
		{"declare-g-arr", `f() { declare -g -a G=("$X"); }; f; export W=${G[0]}; server`, nil},
		{"local-arr-copy", `f() { local -a l=("$@"); export N=${#l[@]} W=${l[0]}; }; f "$X" b; server`, nil},
		{"arr-append-str", `a=("$X"); a+=b; export W=${a[0]}; server`, nil},
		{"arr-elem-concat", `a=("$X"); W="${a[0]}${a[0]}"; export W; server`, nil},
		{"assign-from-arr-star", `a=("$X" "$X"); W=${a[*]}; export W; server`, nil},
		{"assign-from-arr-at", `a=("$X" "$X"); W=${a[@]}; export W; server`, nil},
		{"export-arr-at", `a=("$X" b); export W="${a[@]}"; server`, nil},
		{"case-arr", `a=("$X"); case "${a[0]}" in *) export W=1;; esac; server`, nil},
		{"readarray-cb", `mapfile -t -C 'true' -c 1 arr <<< "$X"; export W=${arr[0]}; server`, nil},
		{"mapfile-s-n", `printf '%s\n' a "$X" b | { mapfile -t -s 1 -n 1 arr; export W=${arr[0]}; server; }`, nil},
		{"mapfile-O", `mapfile -t -O 3 arr <<< "$X"; export W="${!arr[@]}"; server`, nil},
		{"read-a-two", `read -r -a arr <<< "$X b"; export N=${#arr[@]}; server`, nil},
		{"read-two-vars", `read -r p q <<< "$X b"; export P=$p Q=$q; server`, nil},
		{"read-d", `read -r -d _ p <<< "$X"; export P=$p; server`, nil},
		{"read-n", `read -r -n 3 p <<< "$X"; export P=$p; server`, nil},
		{"read-N", `read -r -N 20 p <<< "$X"; export P=$p; server`, nil},
	})
}

// TestHolesDiffIFS: joins and splits with an IFS holding a hole.
func TestHolesDiffIFS(t *testing.T) {
	iv := diffVals("mi355x-amds_06", "abcdefghi", "123456789", ":bcdefghi")
	iv = iv[:3]
	diffRunCases(t, []diffCase{
		{"ifs-arr-star", `a=(b c); IFS=$X; export W="${a[*]}"; server`, iv},
		{"ifs-keys-star", `a=(b c); IFS=$X; export W="${!a[*]}"; server`, iv},
		{"ifs-prefix-star", `ab=1 ac=2; IFS=$X; export W="${!a*}"; server`, iv},
		{"ifs-at-star", `set -- b c; IFS=$X; export W="${*}"; server`, iv},
		{"ifs-star-slice", `set -- b c d; IFS=$X; export W="${*:2}"; server`, iv},
		{"ifs-arr-star-slice", `a=(b c d); IFS=$X; export W="${a[*]:1}"; server`, iv},
		{"ifs-arr-star-assign", `a=(b c); IFS=$X; W=${a[*]}; export W; server`, iv},
		{"ifs-arr-star-len", `a=(b c); IFS=$X; export N=${#a[*]}; server`, iv},
		{"ifs-arr-star-case", `a=(b c); IFS=$X; W="${a[*],,}"; export W; server`, iv},
		{"ifs-arr-star-def", `a=(b c); IFS=$X; W="${U:-${a[*]}}"; export W; server`, iv},
		{"ifs-local-star", `f() { local IFS=$X; export W="$*"; }; f b c; server`, iv},
		{"ifs-prefix-assign", `a=(b c); IFS=$X eval 'W="${a[*]}"'; export W; server`, iv},
		{"ifs-read-a", `IFS=$X read -r -a arr <<< "b c"; export N=${#arr[@]}; server`, iv},
		{"ifs-heredoc-star", "a=(b c); IFS=$X; cat > /tmp/o <<EOF\n${a[*]}\nEOF\nserver", iv},
		{"ifs-printf-star", `a=(b c); IFS=$X; printf '%s' "${a[*]}" > /tmp/o; server`, iv},
		{"ifs-for-star", `a=(b c); IFS=$X; for e in "${a[*]}"; do export W=$e; done; server`, iv},
		{"ifs-assoc-star", `declare -A m=([k]=b); IFS=$X; export W="${m[*]}"; server`, iv},
		{"ifs-arr-star-idx", `a=(b c); IFS=$X; export W="${a[*]:0:1}"; server`, iv},
		{"ifs-cmdsub-star", `a=(b c); IFS=$X; W=$(echo "${a[*]}"); export W; server`, iv},
		{"ifs-arr-at-unq", `a=(b c); IFS=$X; set -- ${a[@]}; export N=$#; server`, iv},
		{"ifs-case-star", `a=(b c); IFS=$X; case "${a[*]}" in b*) export W=1;; esac; server`, iv},
		{"ifs-regex-rematch", `IFS=$X; [[ bc =~ (b)(c) ]]; export W="${BASH_REMATCH[*]}"; server`, iv},
		{"ifs-pipestatus", `IFS=$X; true | false; export W="${PIPESTATUS[*]}"; server`, iv},
		{"ifs-funcname", `IFS=$X; f() { export W="${FUNCNAME[*]}"; }; f; server`, iv},
		{"ifs-groups", `IFS=$X; export W="${BASH_VERSINFO[*]}"; server`, iv},
		{"ifs-dirstack", `IFS=$X; export W="${DIRSTACK[*]}"; server`, iv},
		{"ifs-keys-assoc", `declare -A m=([k]=b [j]=c); IFS=$X; export W="${!m[*]}"; server`, iv},
	})
}

// TestHolesDiffProc2: more records of commands and their environment.
func TestHolesDiffProc2(t *testing.T) {
	diffRunCases(t, []diffCase{
		{"cmd-str-split", `cmd="server --name $X"; $cmd`, nil},
		{"exec-a", `exec -a "$X" server`, nil},
		{"bg-arr", `cmd=(server); A=$X "${cmd[@]}" & wait`, nil},
		{"timeout-arr", `envs=("A=$X"); timeout 5 env "${envs[@]}" server`, nil},
		{"nohup-env-arr", `export A=$X; cmd=(nohup server); "${cmd[@]}"`, nil},
		{"env-arr-u", `export A=$X; e=(-u B); env "${e[@]}" server`, nil},
		{"sudo-env", `sudo A=$X server`, nil},
		{"env-chain", `env A=$X env B=1 server`, nil},
		{"docker-arr", `opts=(-e "A=$X"); docker run "${opts[@]}" img server`, nil},
		{"docker-arr-env-file", `printf 'A=%s\n' "$X" > /tmp/e; opts=(--env-file /tmp/e); docker run "${opts[@]}" img server`, nil},
		{"bash-c-arr", `a=(bash -c 'export W=$1; server' _ "$X"); "${a[@]}"`, nil},
		{"func-arr-server", `run() { "$@"; }; A=$X run server`, nil},
		{"func-export-arr", `run() { local A=$1; export A; server; }; run "$X"`, nil},
		{"declare-x-func", `f() { declare -x A=$X; server; }; f`, nil},
		{"export-n", `export A=$X; export -n A; server`, nil},
		{"readonly-x", `readonly A=$X; export A; server`, nil},
	})
}

// diffLong and diffLong2 are 160-byte values (HoleValue).
const diffLong = "a123456789.b123456789_c123456789.d123456789_e123456789.f123456789_g123456789.h123456789_i123456789.j123456789_k123456789.l123456789_m123456789.n123456789:/@+,-z"
const diffLong2 = "Z123456789.b123456789_c123456789.d123456789_e123456789.f123456789_g123456789.h123456789_i123456789.j123456789_k123456789.l123456789_m123456789.n123456789:/@+,-y"

// diffPrivateVals have lengths (9+3k, 10) whose holes are of private-use
// runes only, which quoting escapes entirely (no U+07FF left).
var diffPrivateVals = diffVals("abcdefghi", "123456789", "abcdefghi_", "abcdefghi_12", "mi355x-amds_061", "mi355x-amds_191", diffLong[:150], diffLong2[:150])

// TestHolesDiffQuoted: the sixth review — xtrace switched on by shopt -o
// printed a hole quoted into escapes that no longer show it; xtrace in a
// run with holes is a look now, and a hole quoted by Go or bash is
// Residual — and the quotings it found safe.
func TestHolesDiffQuoted(t *testing.T) {
	diffRunCases(t, []diffCase{
		{"shopt-o-xtrace-file", `{ shopt -s -o xtrace; Z=$X; shopt -u -o xtrace; } 2>/tmp/log; server`, diffPrivateVals},
		{"shopt-os-xtrace-file", `{ shopt -os xtrace; Z=$X; } 2>/tmp/log; server`, diffPrivateVals},
		{"shopt-o-xtrace-exit", `shopt -s -o xtrace; Z=$X; echo done >&2; exit 3`, diffPrivateVals},
		{"shopt-o-xtrace-min", `shopt -os xtrace; Z=$X 2>/tmp/o; server`, diffPrivateVals},
		{"shopt-xtrace-call", `{ shopt -os xtrace; echo "$X"; } 2>/tmp/log; server`, diffPrivateVals},
		{"shopt-xtrace-server", `{ shopt -os xtrace; server "$X"; } 2>/tmp/log`, diffPrivateVals},
		{"shopt-xtrace-2to1", `shopt -os xtrace; Z=$X 2>&1 | cat > /tmp/o; server`, diffPrivateVals},
		{"bash-x", `bash -x -c 'Z=$1' _ "$X" 2>/tmp/o; server`, diffPrivateVals},
		{"bash-o-xtrace", `bash -o xtrace -c 'Z=$1' _ "$X" 2>/tmp/o; server`, diffPrivateVals},
		{"declare-x-all", `export Q=$X; declare -x > /tmp/o; server`, diffPrivateVals},
		{"export-p", `export Q=$X; export -p > /tmp/o; server`, diffPrivateVals},
		{"export-bare", `export Q=$X; export > /tmp/o; server`, diffPrivateVals},
		{"declare-bare", `Q=$X; declare > /tmp/o; server`, diffPrivateVals},
		{"env-bare", `export Q=$X; env > /tmp/o; server`, diffPrivateVals},
		{"printenv", `export Q=$X; printenv > /tmp/o; server`, diffPrivateVals},
		{"printf-q", `printf '%q\n' "$X" > /tmp/o; server`, diffPrivateVals},
		{"at-Q", `export W="${X@Q}"; server`, diffPrivateVals},
		{"test-bad-op-file", `[ a "$X" b ] 2>/tmp/o; server`, diffPrivateVals},
		{"test-bad-op-exit", `[ a "$X" b ]; exit 3`, diffPrivateVals},
		{"test-paren-err", `[ \( "$X" ] 2>/tmp/o; server`, diffPrivateVals},
		{"test-not-err", `[ ! "$X" "$X" "$X" ] 2>/tmp/o; server`, diffPrivateVals},
		{"err-unset", `: "${U?$X}" 2>/tmp/o; server`, diffPrivateVals},
		{"err-unset-exit", `(: "${U?$X}"); exit 3`, diffPrivateVals},
		{"set-bad", `set -Q "$X" 2>/tmp/o; server`, diffPrivateVals},
		{"source-args-err", `echo 'echo "$1" >&2' > /tmp/s; source /tmp/s "$X" 2>/tmp/o; server`, diffPrivateVals},
		{"getopts-own", `getopts a o "-$X" 2>/tmp/o; server`, diffPrivateVals},
		{"docker-ent", `docker run --entrypoint "$X" img bash 2>/tmp/o; server`, diffPrivateVals},
		{"docker-cmd-unsup", `docker run img foo_unknown_cmd "$X"; x=$(docker run img foo_unknown "$X"); server`, diffPrivateVals},
		{"docker-env-file", `docker run --env-file "/tmp/$X" img true; server`, diffPrivateVals},
		{"server-long", `server "$X"; foo_unk "$(server)"`, diffPrivateVals},
	})
}
