package helpers

import (
	"fmt"
	"strings"
)

// NodeExcludesPath is the file the node_excludes.yaml reader is written in:
// InferenceX benchmarks/multi_node/amd_utils/submit.sh, which runs it as
// `RESOLVED_EXCLUDE_NODES=$(python3 -c "…")` when the submit host's
// Python can import yaml, to pass sbatch --exclude.
const NodeExcludesPath = "benchmarks/multi_node/amd_utils/submit.sh"

// nodeExcludesVersions are the versions of the reader's -c word (quotes
// included) in the InferenceX history since 2026-06-01: one text, written
// by a414e6ce3 / 3c2ebae7b (2026-08-05), unchanged through 843c6254.
func nodeExcludesVersions() []Program {
	return []Program{{
		ID:      "amd_utils/submit.sh node_excludes.yaml reader v1",
		SHA256:  nodeExcludesV1,
		Path:    NodeExcludesPath,
		Commits: []string{"3c2ebae7b", "a414e6ce3", "bab55d661", "e944302e8", "843c6254f"},
	}}
}

// nodeExcludesV1 is the SHA-256 of the reader's word as written.
const nodeExcludesV1 = "9ff747cfa3c03c9ad4facc7b6b567bd2ca9286c9a1fcc2b93fe3a43884d42434"

// NodeExcludesTable lists the known versions of the reader.
func NodeExcludesTable() []Program { return nodeExcludesVersions() }

// IsNodeExcludes reports whether raw (a -c word's source text, quotes
// included) is a known version of the reader.
func IsNodeExcludes(raw string) bool {
	_, ok := Lookup(nodeExcludesVersions(), []byte(raw))
	return ok
}

// RunNodeExcludes runs the reader whose text is in.Raw as python3 (PyYAML
// 6) would:
//
//	with open('${NODE_EXCLUDES_YAML}') as f:
//	    cfg = yaml.safe_load(f) or {}
//	framework = '${FRAMEWORK}'
//	model = '${MODEL_NAME}'
//	for rule in cfg.get('rules', []):
//	    if rule.get('framework') == framework and model in (rule.get('models') or []):
//	        print(rule.get('exclude_nodes', ''))
//	        break
//
// A failure Python raises (the file missing, cfg or a rule not a mapping,
// rules not iterable, `in` on a number) is status 1 with a traceback on
// stderr. Errors: *AMDModelsUnsupported for an unknown text or a run not
// reproduced exactly (a variable that changes the program's text, a
// value whose print it does not make, YAML it does not read as PyYAML),
// or ReadFile's error.
func RunNodeExcludes(in AMDModelsInput) (AMDModelsOutput, error) {
	prog, ok := Lookup(nodeExcludesVersions(), []byte(in.Raw))
	if !ok {
		return AMDModelsOutput{}, amdUnsupported("python3 -c program (sha256 %s) is not a known version of the node_excludes.yaml reader of %s", Hash([]byte(in.Raw)), NodeExcludesPath)
	}
	return runNodeExcludes(in, prog)
}

func runNodeExcludes(in AMDModelsInput, prog Program) (AMDModelsOutput, error) {
	w, err := amdExpandWord(in.Raw, in.Var)
	if err != nil {
		return AMDModelsOutput{}, err
	}
	if w.text != in.Expanded {
		return AMDModelsOutput{}, amdUnsupported("the program python3 received is not the script's text expanded with the variables it names")
	}
	for _, n := range []string{"NODE_EXCLUDES_YAML", "FRAMEWORK", "MODEL_NAME"} {
		if s := w.vars[n]; !amdLiteralSafe(s) {
			return AMDModelsOutput{}, amdUnsupported("%s=%q changes the Python program's text (a quote, backslash, control or non-ASCII character inside a '…' literal)", n, s)
		}
	}
	out := AMDModelsOutput{Program: prog}
	fail := func(exc string) (AMDModelsOutput, error) {
		out.Stderr = "Traceback (most recent call last):\n  File \"<string>\", line 5, in <module>\n" + exc + "\n"
		out.Status = 1
		return out, nil
	}
	data, err := in.ReadFile(w.vars["NODE_EXCLUDES_YAML"])
	if err != nil {
		if isNoSuchFile(err) {
			return fail(fmt.Sprintf("FileNotFoundError: [Errno 2] No such file or directory: '%s'", w.vars["NODE_EXCLUDES_YAML"]))
		}
		return AMDModelsOutput{}, err
	}
	cfg, err := in.load("node_excludes.yaml", data)
	if err != nil {
		return AMDModelsOutput{}, err
	}
	if !pyTruthy(cfg) {
		cfg = amdValue{kind: "dict"}
	}
	if cfg.kind != "dict" {
		return fail(fmt.Sprintf("AttributeError: '%s' object has no attribute 'get'", pyTypeName(cfg)))
	}
	rules, ok := cfg.get("rules")
	if !ok {
		return out, nil
	}
	var items []amdValue
	switch rules.kind {
	case "list":
		items = rules.vals
	case "dict":
		items = rules.keys
	case "str":
		for _, r := range rules.s {
			items = append(items, amdValue{kind: "str", s: string(r)})
		}
	case "null":
		return fail("TypeError: 'NoneType' object is not iterable")
	case "int", "float", "bool":
		return fail(fmt.Sprintf("TypeError: '%s' object is not iterable", pyTypeName(rules)))
	default:
		return AMDModelsOutput{}, amdUnsupported("node_excludes.yaml: rules is %s", rules.why)
	}
	framework, model := w.vars["FRAMEWORK"], w.vars["MODEL_NAME"]
	for _, rule := range items {
		if rule.kind != "dict" {
			if rule.kind == "other" {
				return AMDModelsOutput{}, amdUnsupported("node_excludes.yaml: a rule is %s", rule.why)
			}
			return fail(fmt.Sprintf("AttributeError: '%s' object has no attribute 'get'", pyTypeName(rule)))
		}
		fw, ok := rule.get("framework")
		if !ok || fw.kind != "str" || fw.s != framework {
			if ok && fw.kind == "other" {
				return AMDModelsOutput{}, amdUnsupported("node_excludes.yaml: a framework is %s", fw.why)
			}
			continue
		}
		models, _ := rule.get("models")
		if !pyTruthy(models) {
			continue
		}
		in := false
		switch models.kind {
		case "list":
			for _, m := range models.vals {
				if m.kind == "other" {
					return AMDModelsOutput{}, amdUnsupported("node_excludes.yaml: a model is %s", m.why)
				}
				if m.kind == "str" && m.s == model {
					in = true
				}
			}
		case "dict":
			for _, m := range models.keys {
				if m.kind == "str" && m.s == model {
					in = true
				}
			}
		case "str":
			in = strings.Contains(models.s, model)
		case "int", "float", "bool":
			return fail(fmt.Sprintf("TypeError: argument of type '%s' is not iterable", pyTypeName(models)))
		default:
			return AMDModelsOutput{}, amdUnsupported("node_excludes.yaml: models is %s", models.why)
		}
		if !in {
			continue
		}
		v, ok := rule.get("exclude_nodes")
		if !ok {
			out.Stdout = "\n"
			return out, nil
		}
		s, err := v.str() // print() is str()
		if err != nil {
			return AMDModelsOutput{}, amdUnsupported("node_excludes.yaml: exclude_nodes: %v", err)
		}
		out.Stdout = s + "\n"
		return out, nil
	}
	return out, nil
}

// isNoSuchFile reports whether err is a ReadFile error for a missing file.
func isNoSuchFile(err error) bool {
	for e := err; e != nil; {
		if e == ErrNoSuchFile {
			return true
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		e = u.Unwrap()
	}
	return false
}

// pyTruthy is Python's truth value of a loaded YAML value.
func pyTruthy(v amdValue) bool {
	switch v.kind {
	case "null":
		return false
	case "str":
		return v.s != ""
	case "bool":
		return v.b
	case "int":
		return v.i.Sign() != 0
	case "float":
		return v.f != 0
	case "dict":
		return len(v.keys) > 0
	case "list":
		return len(v.vals) > 0
	}
	return true
}

// pyTypeName is type(v).__name__.
func pyTypeName(v amdValue) string {
	switch v.kind {
	case "null":
		return "NoneType"
	case "float":
		return "float"
	case "int":
		return "int"
	case "bool":
		return "bool"
	case "str":
		return "str"
	case "dict":
		return "dict"
	case "list":
		return "list"
	}
	return "object"
}
