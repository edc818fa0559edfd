package prose

import (
	"slices"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// Setting is one flag a statement sets on a command: Flag is the canonical
// spelling for the engine (launch.CanonicalFlag), Value "" for a bare flag.
type Setting struct {
	Flag, Value string
	Bare        bool
}

// Settings are the flags st sets on an engine's command: a Size or AtLeast
// statement sets --tensor-parallel-size (its canonical name in SGLang's
// and vLLM's alias tables) to TP; an Add statement its flags, each under
// its canonical name (a bare flag is Bare).
func (st *Statement) Settings(engine string) []Setting {
	if st.Kind == Size || st.Kind == AtLeast {
		return []Setting{{Flag: "--tensor-parallel-size", Value: strconv.Itoa(st.TP)}}
	}
	var out []Setting
	for _, f := range st.Flags {
		out = append(out, Setting{Flag: canonical(engine, f.Name), Value: f.Value, Bare: f.Value == ""})
	}
	return out
}

// canonical is flag's canonical spelling: "_" → "-" in the name, then the
// engine's alias table.
func canonical(engine, flag string) string {
	name, _, _ := strings.Cut(flag, "=")
	return launch.CanonicalFlag(engine, strings.ReplaceAll(name, "_", "-"))
}

// ApplyArgs returns a copy of args with the settings set — the first
// occurrence of each flag (under any spelling of it) replaced, keeping
// the command's spelling, later ones dropped, a flag args lacks appended
// under its canonical name — each set argument with origin o,
// and whether anything changed (a flag already set to the same value
// changes nothing). A "--flag=value" argument is matched by its name.
func ApplyArgs(engine string, args []launch.Arg, sets []Setting, o launch.Origin) ([]launch.Arg, bool) {
	out := make([]launch.Arg, 0, len(args)+len(sets))
	for _, a := range args {
		a.Values = slices.Clone(a.Values)
		out = append(out, a)
	}
	changed := false
	for _, s := range sets {
		want := launch.Arg{Flag: s.Flag, Origin: o}
		if !s.Bare {
			want.Values = []string{s.Value}
		}
		found := -1
		kept := out[:0]
		for _, a := range out {
			if a.Flag != "" && canonical(engine, a.Flag) == s.Flag {
				if found >= 0 {
					changed = true // a later duplicate goes
					continue
				}
				found = len(kept)
				cur := a.Values
				if _, inl, eq := strings.Cut(a.Flag, "="); eq && len(cur) == 0 {
					cur = []string{inl}
				}
				if s.Bare && len(cur) == 0 || !s.Bare && len(cur) == 1 && cur[0] == s.Value {
					kept = append(kept, a)
					continue
				}
				changed = true
				w := want
				w.Flag, _, _ = strings.Cut(a.Flag, "=") // the command's spelling
				kept = append(kept, w)
				continue
			}
			kept = append(kept, a)
		}
		out = kept
		if found < 0 {
			out = append(out, want)
			changed = true
		}
	}
	return out, changed
}

// ApplyEnv returns a copy of env with st's NAME=value set (replaced or
// appended, origin o) and whether anything changed.
func ApplyEnv(env []launch.EnvVar, st *Statement, o launch.Origin) ([]launch.EnvVar, bool) {
	out := slices.Clone(env)
	changed := false
	for _, e := range st.Env {
		v := launch.EnvVar{Name: e.Name, Value: e.Value, Origin: o}
		if i := slices.IndexFunc(out, func(x launch.EnvVar) bool { return x.Name == e.Name }); i >= 0 {
			if out[i].Value != e.Value {
				out[i], changed = v, true
			}
			continue
		}
		out, changed = append(out, v), true
	}
	return out, changed
}

// Origin is the origin of a setting a statement makes: kind, "file:line"
// and "prose: <sentence>".
func (st *Statement) Origin(kind launch.OriginKind) launch.Origin {
	return launch.Origin{Kind: kind, Path: st.File + ":" + strconv.Itoa(st.Line), Detail: "prose: " + st.Sentence}
}
