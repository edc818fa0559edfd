package shellutil

import "testing"

// TestSedAppendInsertChange checks GNU sed's a / i / c text commands (the
// one-line `a\text` form keeps the text's leading whitespace, as
// InferenceX runners/launch_h100-dgxc-slurm.sh relies on to add a YAML key
// at the recipe's indentation), against GNU sed 4.9 output.
func TestSedAppendInsertChange(t *testing.T) {
	for _, c := range []struct {
		args []string
		in   string
		want string
	}{
		{[]string{"sed", `/^      watchdog-timeout:/a\      dist-timeout: 1800`}, "a\n      watchdog-timeout: 5\nb\n", "a\n      watchdog-timeout: 5\n      dist-timeout: 1800\nb\n"},
		{[]string{"sed", "-e", `2i\  x`, "-e", "3c  y"}, "a\nb\nc\n", "a\n  x\nb\ny\n"},
		{[]string{"sed", "$a end"}, "a\nb", "a\nb\nend\n"},
		{[]string{"sed", "-e", `$a environment:\n  SED_E: "1"`}, "a\n", "a\nenvironment:\n  SED_E: \"1\"\n"},
		{[]string{"sed", "-e", `$a\  x\ty\\z`}, "a\n", "a\n  x\ty\\z\n"},
	} {
		res, ok, why := RunFiles(c.args, []byte(c.in), Facts{}, nil)
		if !ok || string(res.Stdout) != c.want {
			t.Errorf("%q: handled %v (%s) got %q, want %q", c.args, ok, why, res.Stdout, c.want)
		}
	}
}

// TestHostileGrepKInClass: `grep -P '[\K'` (a \K only inside a bracket
// expression; FuzzRun crasher) is refused, not a panic.
func TestHostileGrepKInClass(t *testing.T) {
	for _, pat := range []string{`[\K`, `a[\K]b`, `[^\K]`} {
		_, handled, why := RunFiles([]string{"grep", "-P", pat}, []byte("0\n"), Facts{}, nil)
		if handled && why != "" {
			t.Errorf("%q: handled with reason %q", pat, why)
		}
	}
}
