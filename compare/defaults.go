package compare

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/cookbook-sync/cookbook-sync/exclusions"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

//go:embed defaults.yaml
var defaultsYAML []byte

// DefaultRow is one engine default with its evidence (compare/defaults.yaml):
// Flag (normalized) set to Value ("" for a bare flag, on) is the engine's
// behaviour without the flag, for engine versions in Versions, as Source
// (a URL) states.
type DefaultRow struct {
	Flag  string `yaml:"flag" json:"flag"`
	Value string `yaml:"value" json:"value"`
	// Versions is "*" (every version, also an unknown one) or a
	// space-separated list of constraints ">=0.19.1", "<0.30", "=0.25.0".
	Versions string `yaml:"versions" json:"versions"`
	Source   string `yaml:"source" json:"source"`
	Note     string `yaml:"note,omitempty" json:"note,omitempty"`
}

// Defaults is the default-equivalence table: per engine ("vllm",
// "sglang") the rows, and the image repositories whose tag carries the
// engine version. Immutable after load.
type Defaults struct {
	Images map[string][]string     `yaml:"images"`
	Rows   map[string][]DefaultRow `yaml:"defaults"`
	byFlag map[string]map[string][]int
}

var defaultDefaults = sync.OnceValues(func() (*Defaults, error) {
	return ParseDefaults("compare/defaults.yaml", defaultsYAML)
})

// DefaultDefaults returns the embedded table (compare/defaults.yaml),
// parsed once. An error means the embedded file is invalid.
func DefaultDefaults() (*Defaults, error) { return defaultDefaults() }

// ParseDefaults reads a default-equivalence table. Errors: YAML syntax or
// unknown keys, a row without flag or source, a source that is not an
// http(s) URL, a bad version constraint.
func ParseDefaults(name string, data []byte) (*Defaults, error) {
	var d Defaults
	if err := decodeStrict(name, data, &d); err != nil {
		return nil, err
	}
	d.byFlag = map[string]map[string][]int{}
	for eng, rows := range d.Rows {
		d.byFlag[eng] = map[string][]int{}
		for i, r := range rows {
			at := fmt.Sprintf("%s: defaults.%s[%d]", name, eng, i)
			if !strings.HasPrefix(r.Flag, "-") {
				return nil, fmt.Errorf("%s: flag %q must start with '-'", at, r.Flag)
			}
			if !strings.HasPrefix(r.Source, "https://") && !strings.HasPrefix(r.Source, "http://") {
				return nil, fmt.Errorf("%s (%s): source %q is not a URL: a default without a cited source stays compared and has no row", at, r.Flag, r.Source)
			}
			if _, err := inRange(r.Versions, "0"); err != nil {
				return nil, fmt.Errorf("%s (%s): %w", at, r.Flag, err)
			}
			d.byFlag[eng][r.Flag] = append(d.byFlag[eng][r.Flag], i)
		}
	}
	return &d, nil
}

// EngineVersion reads the engine version from a container image reference:
// "vllm/vllm-openai:v0.11.2" -> "0.11.2", "lmsysorg/sglang:v0.5.16-cu130"
// -> "0.5.16" (docker.io/ and docker:// prefixes and a digest are ignored).
// ok is false for a repository the table does not list for engine, or a
// tag that is not a version (nightly, latest, nightly-dev-…-426e59f).
func (d *Defaults) EngineVersion(engine, image string) (string, bool) {
	ref, _ := normImage(image)
	ref = strings.TrimPrefix(ref, "docker.io/")
	i := strings.LastIndexByte(ref, ':')
	if i < 0 {
		return "", false
	}
	repo, tag := ref[:i], ref[i+1:]
	known := false
	for _, r := range d.Images[engine] {
		if r == repo {
			known = true
		}
	}
	if !known {
		return "", false
	}
	v := strings.TrimPrefix(tag, "v")
	if j := strings.IndexByte(v, '-'); j >= 0 {
		v = v[:j]
	}
	if _, ok := parseVersion(v); !ok {
		return "", false
	}
	return v, true
}

// Lookup returns the row stating that flag=value is engine's default at
// version ("" = unknown: only rows for every version, "*", apply).
func (d *Defaults) Lookup(engine, flag, value, version string) (*DefaultRow, bool) {
	if d == nil {
		return nil, false
	}
	for _, i := range d.byFlag[engine][flag] {
		r := &d.Rows[engine][i]
		if r.Value != value {
			continue
		}
		if r.Versions == "*" {
			return r, true
		}
		if version == "" {
			continue
		}
		if ok, _ := inRange(r.Versions, version); ok {
			return r, true
		}
	}
	return nil, false
}

// parseVersion reads "0.19.1" as numbers; at most four parts.
func parseVersion(v string) ([]int, bool) {
	parts := strings.Split(v, ".")
	if v == "" || len(parts) > 4 {
		return nil, false
	}
	out := make([]int, len(parts))
	for i, p := range parts {
		if strings.Trim(p, "0123456789+-") != "" {
			return nil, false // (Atoi's error, made for nothing)
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

func cmpVersion(a, b []int) int {
	for i := 0; i < max(len(a), len(b)); i++ {
		var x, y int
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// inRange reports whether version satisfies every constraint of spec
// ("*", or ">=0.19.1 <0.30"). Errors: a malformed constraint or version.
func inRange(spec, version string) (bool, error) {
	if spec == "*" {
		return true, nil
	}
	v, ok := parseVersion(version)
	if !ok {
		return false, fmt.Errorf("version %q is not a version", version)
	}
	fields := strings.Fields(spec)
	if len(fields) == 0 {
		return false, fmt.Errorf("versions: empty (want \"*\" or constraints like \">=0.19.1\")")
	}
	in := true
	for _, c := range fields {
		op := c[:len(c)-len(strings.TrimLeft(c, "<>="))]
		b, ok := parseVersion(c[len(op):])
		if !ok {
			return false, fmt.Errorf("versions: bad constraint %q", c)
		}
		r := cmpVersion(v, b)
		switch op {
		case ">=":
			in = in && r >= 0
		case ">":
			in = in && r > 0
		case "<=":
			in = in && r <= 0
		case "<":
			in = in && r < 0
		case "=", "==":
			in = in && r == 0
		default:
			return false, fmt.Errorf("versions: bad operator in %q (want >=, >, <=, <, =)", c)
		}
	}
	return in, nil
}

// citedDefault judges a worker flag set on one side only: when its value
// is the engine default the table cites for the engine version of the
// workers' image (the InferenceX side's when its tag has a version, else
// the upstream side's), the difference is informational — an Exclusion of
// class judgment, rule "default-<flag>", whose reason names the default,
// the version and the source. ok is false otherwise (the flag stays
// compared): not a worker flag, set on both sides, no row, a version
// outside the row's range or unknown.
func citedDefault(ex *exclusions.Set, engine string, s *Setting, k string, cv, rv *string, origins []launch.Origin, cp, rp *launch.Process) (Exclusion, bool) {
	if s == nil || s.Kind != "flag" || (cv == nil) == (rv == nil) || cp.Kind != launch.KindWorker || rp.Kind != launch.KindWorker {
		return Exclusion{}, false
	}
	d, err := DefaultDefaults()
	if err != nil {
		return Exclusion{}, false
	}
	v := cv
	if v == nil {
		v = rv
	}
	version, image := "", ""
	for _, img := range []string{rp.Image, cp.Image} {
		if ver, ok := d.EngineVersion(engine, img); ok {
			version, image = ver, img
			break
		}
	}
	row, ok := d.Lookup(engine, k, *v, version)
	if !ok {
		return Exclusion{}, false
	}
	shown := *v
	if shown == "" {
		shown = "on"
	}
	at := "every version"
	if row.Versions != "*" {
		at = fmt.Sprintf("%s (image %s; default for %s)", version, image, row.Versions)
	}
	reason := fmt.Sprintf("%s %s is the %s default at %s, the same as the flag absent; source: %s", k, shown, engine, at, row.Source)
	if row.Note != "" {
		reason += " — " + row.Note
	}
	pol := ""
	if ex != nil {
		pol = ex.DefaultPolicy()
	}
	return Exclusion{Setting: k, Upstream: cv, InferenceX: rv, Rule: "default-" + strings.TrimLeft(k, "-"), Class: exclusions.ClassJudgment,
		Reason: reason, Policy: pol, Origins: origins}, true
}
