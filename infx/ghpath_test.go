package infx

import (
	"reflect"
	"testing"
)

// TestGHPathIsParser: every expression ghPath answers gets the value the
// parser gives it, and the ones it leaves to the parser (literals first,
// operators, calls, blanks inside, a bad part) are the parser's: property
// paths of every depth, case-insensitive names, hyphens and digits in
// names, missing names, indexing a string, an array or null.
func TestGHPathIsParser(t *testing.T) {
	ctx := ghContext{
		"inputs": map[string]any{"model-prefix": "dsr1", "Conc": float64(8), "list": []any{"a"}, "flag": true, "n2": nil},
		"matrix": map[string]any{"config": map[string]any{"image": "lmsysorg/sglang:v0.5", "tp": float64(8), "prefill": map[string]any{"num-worker": float64(1)}}},
		"runner": map[string]any{"name": "b200-nv_0"},
		"env":    map[string]any{},
	}
	answered := 0
	for _, src := range []string{
		"inputs", "inputs.model-prefix", " inputs.model-prefix ", "\tINPUTS.MODEL-PREFIX\n", "inputs.conc", "inputs.Conc",
		"matrix.config.image", "matrix.config.tp", "matrix.config.prefill.num-worker", "matrix.config.prefill.missing.deeper",
		"matrix.config.image.length", "inputs.list.x", "inputs.n2.x", "nothing", "nothing.at.all",
		"runner.name", "env.X", "inputs.flag", "inputs.true", "inputs._x", "inputs.x9-y",
		// left to the parser
		"true", "false", "null", "true.x", "null.x", "inputs . flag", "inputs.list[0]", "inputs.list.*", "matrix.*.image",
		"inputs.flag && 'a' || 'b'", "format('{0}', inputs.conc)", "!inputs.flag", "inputs.", ".inputs", "inputs..flag",
		"inputs.1x", "inputs.-x", "inputs.list.0", "9", "'s'", "inputs.model-prefix == 'dsr1'", "",
	} {
		want, werr := parseGHExpr(src, ctx)
		if v, ok := ghPath(src, ctx); ok {
			answered++
			if werr != nil || !reflect.DeepEqual(v, want) {
				t.Errorf("%q: ghPath %#v, the parser %#v (%v)", src, v, want, werr)
			}
		}
		got, gerr := evalGHExpr(src, ctx)
		if (gerr == nil) != (werr == nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: evalGHExpr %#v (%v), the parser %#v (%v)", src, got, gerr, want, werr)
		}
	}
	if answered != 21 {
		t.Errorf("ghPath answered %d expressions, want the 21 property paths", answered)
	}
}

// TestGHIndexNumericNames: an array read by a name that is a number to
// ParseFloat ("Infinity", "inf", "NaN") or by an infinite number is null,
// as any name or index past it is (it was indexed by int(+Inf): a panic);
// a number in range still reads its element.
func TestGHIndexNumericNames(t *testing.T) {
	ctx := ghContext{"inputs": map[string]any{"list": []any{"a", "b"}}}
	for src, want := range map[string]any{
		"inputs.list.Infinity": nil, "inputs.list.inf": nil, "inputs.list.NaN": nil,
		"inputs.list['Infinity']": nil, "inputs.list[1]": "b", "inputs.list['1']": "b",
		"inputs.list[2]": nil, "inputs.list[-1]": nil, "inputs.list[0.5]": nil,
	} {
		got, err := evalGHExpr(src, ctx)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %#v (%v), want %#v", src, got, err, want)
		}
	}
}
