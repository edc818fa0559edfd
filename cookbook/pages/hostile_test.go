package pages

import (
	"context"
	"errors"
	"testing"
)

// hostileCase is one snippet file and the exact outcome it must have.
type hostileCase struct {
	name, src string
	// want is the exact error text ("" when the file must decode), is the
	// error it must wrap.
	want string
	is   error
	// steps bounds the steps the file may take: its outcome comes from
	// counted work, never from a timer.
	steps int64
}

// runHostile loads the tiny checkout plus cases (configs under
// configs/evil/) and checks each outcome.
func runHostile(t *testing.T, opt Options, cases []hostileCase) *Set {
	t.Helper()
	const dir = "docs/src/snippets/configs/evil/"
	files := map[string]string{}
	for _, c := range cases {
		files[dir+c.name] = c.src
	}
	set, err := Load(context.Background(), tinyRoot(t, files), opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		rel := dir + c.name
		e := set.Errors[rel]
		switch {
		case c.want == "" && e != nil:
			t.Errorf("%s: %v, want it to decode", c.name, e)
		case c.want != "" && (e == nil || e.Error() != rel+c.want):
			t.Errorf("%s:\n got %v\nwant %s", c.name, e, rel+c.want)
		case c.is != nil && !errors.Is(e, c.is):
			t.Errorf("%s: %v is not %v", c.name, e, c.is)
		}
		var fe *FileError
		if e != nil && (!errors.As(e, &fe) || fe.File != rel) {
			t.Errorf("%s: %v does not name the file", c.name, e)
		}
		if set.Steps[rel] > c.steps {
			t.Errorf("%s: %d steps, want at most %d", c.name, set.Steps[rel], c.steps)
		}
	}
	// the well-behaved files still decode
	if n := len(set.Selections["docs/src/snippets/configs/acme/tiny.jsx"]); n != 6 {
		t.Errorf("tiny config: %d selections, want 6 (errors %v)", n, set.Errors)
	}
	return set
}

const noCells = "export const config = { cells: [] };\n"

// cellWith is a config whose one cell's flags are flags (JavaScript).
func cellWith(flags string) string {
	return "export const config = { cells: [{ match: { hw: 'h100', variant: 'base' }, verified: true, flags: " + flags + " }] };\n"
}

// TestHostileRegexp: a regular expression only a backtracking matcher runs
// (goja hands those to regexp2, which cannot be interrupted mid-match:
// /^(a|a)*\1$/ on 40 a's ran past 120 s) is refused with its position —
// a literal before any code of the file runs (0 steps), a pattern built at
// run time when it is built, whatever page code does to catch it — and the
// patterns Go's linear-time regexp runs, nested quantifiers included, run.
func TestHostileRegexp(t *testing.T) {
	const bt = ": a regular expression that needs a backtracking matcher is not run: "
	cases := []hostileCase{
		{name: "backref.jsx", src: noCells + "const ok = /^(a|a)*\\1$/.test(\"a\".repeat(40) + \"!\");\n",
			want: ":2:11" + bt + `/^(a|a)*\1$/ has a backreference`, is: ErrBacktracking},
		{name: "lookahead.jsx", src: noCells + "const ok = /^(?=(a|a)*\\1$)/.test(\"a\".repeat(40) + \"!\");\n",
			want: ":2:11" + bt + `/^(?=(a|a)*\1$)/ has a lookahead`, is: ErrBacktracking},
		{name: "lookbehind.jsx", src: noCells + "const ok = /(?<=(a+)+)b/.test(\"a\".repeat(40));\n",
			want: ":2:11" + bt + `/(?<=(a+)+)b/ has a lookbehind`, is: ErrBacktracking},
		{name: "cellflag.jsx", src: cellWith(`["--x " + /^(a|a)*\1$/.test("a".repeat(40) + "!")]`),
			want: ":1:107" + bt + `/^(a|a)*\1$/ has a backreference`, is: ErrBacktracking},
		{name: "repeat.jsx", src: noCells + "const ok = /a{1001}/.test(\"a\");\n",
			want: ":2:11" + bt + `/a{1001}/ has a repeat count over 1000`, is: ErrBacktracking},
		// built at run time: refused when built, also inside try/catch
		{name: "new.jsx", src: noCells + "const r = new RegExp(\"^(a|a)*\\\\1$\");\nr.test(\"a\".repeat(40) + \"!\");\n",
			want: ":2:10" + bt + `/^(a|a)*\1$/ has a backreference`, is: ErrBacktracking, steps: 100},
		{name: "call.jsx", src: noCells + "try { RegExp(\"(?=a)b\").test(\"ab\"); } catch (e) {}\n",
			want: ":2:13" + bt + `/(?=a)b/ has a lookahead`, is: ErrBacktracking, steps: 100},
		{name: "match.jsx", src: noCells + "\"aaa\".match(\"^(a|a)*\\\\1$\");\n",
			want: ":2:12" + bt + `/^(a|a)*\1$/ has a backreference`, is: ErrBacktracking, steps: 100},
		{name: "matchall.jsx", src: noCells + "[...\"aab\".matchAll(\"(?<=a)b\")];\n",
			want: ":2:19" + bt + `/(?<=a)b/ has a lookbehind`, is: ErrBacktracking, steps: 100},
		{name: "search.jsx", src: noCells + "\"aab\".search({ toString: () => \"(a)\\\\1\" });\n",
			want: ":2:13" + bt + `/(a)\1/ has a backreference`, is: ErrBacktracking, steps: 100},
		{name: "replace.jsx", src: noCells + "\"aab\".replace(new RegExp(\"(?<=a)b\", \"g\"), \"\");\n",
			want: ":2:14" + bt + `/(?<=a)b/ has a lookbehind`, is: ErrBacktracking, steps: 100},
		{name: "compile.jsx", src: noCells + "/a/.compile(\"(a)\\\\1\");\n",
			want: ":2:12" + bt + `/(a)\1/ has a backreference`, is: ErrBacktracking, steps: 100},
		{name: "ctorfield.jsx", src: noCells + "const R = /a/.constructor; new R(\"(a)\\\\1\");\n",
			want: ":2:27" + bt + `/(a)\1/ has a backreference`, is: ErrBacktracking, steps: 100},
		// linear: nested quantifiers run on Go's regexp, with the right answers
		{name: "nested.jsx", src: noCells + "if (/^(a+)+$/.test(\"a\".repeat(40) + \"!\") || !/^(a*)*b$/.test(\"a\".repeat(40) + \"b\") ||\n" +
			"  new RegExp(\"^(a|b)*c\").test(\"ab\".repeat(1000)) || \"xaay\".split(/(a+)+/).join(\"|\") !== \"x|aa|y\") throw new Error(\"wrong\");\n", steps: 100},
	}
	set := runHostile(t, Options{}, cases)
	// a cell flag built from a regex that runs linearly: the command has it
	root := tinyRoot(t, map[string]string{"docs/src/snippets/configs/evil/flag.jsx": cellWith(`["--tp " + "tp=8".match(/tp=(\d+)/)[1], "--m " + "a-b".replace(/(\w)-(\w)/, "$2$1")]`)})
	sels, err := DecodeFile(context.Background(), root, "docs/src/snippets/configs/evil/flag.jsx", Options{})
	if err != nil || len(sels) != 2 || sels[0].Command != "sglang serve \\\n  --tp 8 \\\n  --m ba" {
		t.Errorf("flag from a regex: %v %+v", err, sels)
	}
	if set.Steps["docs/src/snippets/configs/evil/backref.jsx"] != 0 {
		t.Errorf("a literal is refused before any code runs: %d steps", set.Steps["docs/src/snippets/configs/evil/backref.jsx"])
	}
}

// TestHostileAllocation: a builtin asked for more than its bound refuses
// before it allocates (new Array(3e8).fill(0) reached 4 GB and "fatal
// error: out of memory"; new Array(1<<27).join("xy") 1.2 GB), with
// ErrAllocation at the call's position, in a few steps, whatever catches.
func TestHostileAllocation(t *testing.T) {
	const al = ": page code asked for more memory than the sandbox allows: "
	cases := []hostileCase{
		{name: "fill.jsx", src: noCells + "new Array(3e8).fill(0);\n",
			want: ":2" + al + "Array(n) with a length of 300000000, over the bound of 4194304 (Options.MaxArray)", is: ErrAllocation, steps: 100},
		{name: "join.jsx", src: noCells + "new Array(1<<27).join(\"xy\");\n",
			want: ":2" + al + "Array(n) with a length of 134217728, over the bound of 4194304 (Options.MaxArray)", is: ErrAllocation, steps: 100},
		{name: "call.jsx", src: noCells + "try { Array(3e8).fill(0); } catch (e) {}\n",
			want: ":2:12" + al + "Array(n) with a length of 300000000, over the bound of 4194304 (Options.MaxArray)", is: ErrAllocation, steps: 100},
		{name: "length.jsx", src: noCells + "const a = []; a.length = 3e8; a.fill(0);\n",
			want: ":2:37" + al + "Array.prototype.fill with a length of 300000000, over the bound of 4194304 (Options.MaxArray)", is: ErrAllocation, steps: 100},
		{name: "index.jsx", src: noCells + "const a = []; a[3e8] = 1; a.includes(2);\n",
			want: ":2:37" + al + "Array.prototype.includes with a length of 300000001, over the bound of 4194304 (Options.MaxArray)", is: ErrAllocation, steps: 100},
		{name: "from.jsx", src: noCells + "Array.from({ length: 3e8 });\n",
			want: ":2:11" + al + "Array.from with a length of 300000000, over the bound of 4194304 (Options.MaxArray)", is: ErrAllocation, steps: 100},
		{name: "generic.jsx", src: noCells + "Array.prototype.fill.call({ length: 3e8 }, 0);\n",
			want: ":2:26" + al + "Array.prototype.fill with a length of 300000000, over the bound of 4194304 (Options.MaxArray)", is: ErrAllocation, steps: 100},
		{name: "getter.jsx", src: noCells + "let n = 0;\nArray.prototype.fill.call({ get length() { return n++ ? 3e8 : 1; } }, 0);\n",
			want: ":3:26" + al + "Array.prototype.fill on an array-like whose length is a getter or an object (its size cannot be checked before the builtin runs)", is: ErrAllocation, steps: 100},
		{name: "proxy.jsx", src: noCells + "Array.prototype.join.call(new Proxy({ length: 3e8 }, {}));\n",
			want: ":2:26" + al + "Array.prototype.join on a Proxy (its size cannot be checked before the builtin runs)", is: ErrAllocation, steps: 100},
		// an array method on a Proxy of an array: refused (Array.isArray
		// says true; its length is the handler's to give)
		{name: "proxyarray.jsx", src: noCells + "const p = new Proxy([1, 2, 3], {});\np.map((x) => x);\n",
			want: ":3:6" + al + "Array.prototype.map on a Proxy (its size cannot be checked before the builtin runs)", is: ErrAllocation, steps: 100},
		{name: "apply.jsx", src: noCells + "Math.max.apply(null, { length: 3e8 });\n",
			want: ":2:15" + al + "Function.prototype.apply with a length of 300000000, over the bound of 4194304 (Options.MaxArray)", is: ErrAllocation, steps: 100},
		{name: "spread.jsx", src: noCells + "const a = []; a.length = 3e8;\nMath.max(...a);\n",
			want: ":3:13" + al + "Array.prototype.[Symbol.iterator] with a length of 300000000, over the bound of 4194304 (Options.MaxArray)", is: ErrAllocation, steps: 100},
		{name: "bigjoin.jsx", src: noCells + "const s = \"x\".repeat(1 << 20);\nnew Array(64).fill(s).join(\"\");\n",
			want: ":3:27" + al + "Array.prototype.join of a string of 17825792 units, over the bound of 16777216 (Options.MaxString)", is: ErrAllocation, steps: 100},
		{name: "concat.jsx", src: noCells + "const s = \"x\".repeat(1 << 23);\ns.concat(s, s);\n",
			want: ":3:9" + al + "String.prototype.concat of a string of 25165824 units, over the bound of 16777216 (Options.MaxString)", is: ErrAllocation, steps: 100},
		{name: "typed.jsx", src: noCells + "new Float64Array(3e8);\n",
			want: ":2" + al + "Float64Array of 2400000000 bytes, over the bound of 67108864 (Options.MaxBuffer)", is: ErrAllocation, steps: 100},
		{name: "typedlike.jsx", src: noCells + "new Uint8Array({ length: 3e9 });\n",
			want: ":2" + al + "Uint8Array of 3000000000 bytes, over the bound of 67108864 (Options.MaxBuffer)", is: ErrAllocation, steps: 100},
		{name: "buffer.jsx", src: noCells + "new ArrayBuffer(3e9);\n",
			want: ":2" + al + "ArrayBuffer of 3000000000 bytes, over the bound of 67108864 (Options.MaxBuffer)", is: ErrAllocation, steps: 100},
		// builtins that recurse in Go per level: bounded nesting (the parse
		// overflowed the Go stack, a fatal error; the stringify ran minutes)
		{name: "jsonparse.jsx", src: noCells + "JSON.parse(\"[\".repeat(1 << 24));\n",
			want: ":2:11" + al + "JSON.parse nested 16777216 deep, over the bound of 1000 (Options.MaxDepth)", is: ErrAllocation, steps: 100},
		{name: "stringify.jsx", src: noCells + "let a = [];\nfor (let i = 0; i < 100000; i++) a = [a];\nJSON.stringify(a);\n",
			want: ":4:15" + al + "JSON.stringify nested 1001 deep, over the bound of 1000 (Options.MaxDepth)", is: ErrAllocation, steps: 100100},
		{name: "stringifyobj.jsx", src: noCells + "let a = {};\nfor (let i = 0; i < 2000; i++) a = { a, toJSON() { return { b: this.a }; } };\nJSON.stringify(a, (k, v) => v);\n",
			want: ":4:15" + al + "JSON.stringify nested 1001 deep, over the bound of 1000 (Options.MaxDepth)", is: ErrAllocation, steps: 10000},
		{name: "flat.jsx", src: noCells + "let a = [];\nfor (let i = 0; i < 2000; i++) a = [a];\na.flat(Infinity);\n",
			want: ":4:7" + al + "Array.prototype.flat nested 1001 deep, over the bound of 1000 (Options.MaxDepth)", is: ErrAllocation, steps: 2100},
		{name: "jsonfine.jsx", src: noCells + "let a = [1];\nfor (let i = 0; i < 999; i++) a = [a];\nconst t = JSON.stringify({ x: [1, { y: \"z\" }], d: new Date(0) }, null, 1);\n" +
			"if (JSON.stringify(a).length !== 2001 || JSON.parse(JSON.stringify(a)).flat(Infinity)[0] !== 1 || t !== '{\\n \"x\": [\\n  1,\\n  {\\n   \"y\": \"z\"\\n  }\\n ],\\n \"d\": \"1970-01-01T00:00:00.000Z\"\\n}' ||\n" +
			"  JSON.stringify({ a: 1, b: [2] }, (k, v) => k === \"a\" ? undefined : v) !== '{\"b\":[2]}') throw new Error(\"wrong\");\n", steps: 2000},
		// + builds its string in one piece: refused by its size first
		{name: "plus.jsx", src: noCells + "let s = \"x\";\nwhile (true) s += s;\n",
			want: ":3:13" + al + "+ of a string of 33554432 units, over the bound of 16777216 (Options.MaxString)", is: ErrAllocation, steps: 100},
		{name: "plusprop.jsx", src: noCells + "const o = { s: \"x\" };\nfor (;;) o[\"s\"] = o.s + o.s;\n",
			want: ":3:18" + al + "+ of a string of 33554432 units, over the bound of 16777216 (Options.MaxString)", is: ErrAllocation, steps: 100},
		{name: "plusobj.jsx", src: noCells + "let s = \"x\".repeat(1 << 23);\nconst o = { toString: () => s };\ns = o + [s] + 1;\n",
			want: ":4:4" + al + "+ of a string of 16777217 units, over the bound of 16777216 (Options.MaxString)", is: ErrAllocation, steps: 100},
		{name: "template.jsx", src: noCells + "let s = \"x\";\nwhile (true) s = `<${s}|${s}>`;\n",
			want: ":3:17" + al + "+ of a string of 33554428 units, over the bound of 16777216 (Options.MaxString)", is: ErrAllocation, steps: 100},
		{name: "templatefine.jsx", src: noCells + "const o = { toString: () => \"t\", valueOf: () => 1 }; const n = 2;\n" +
			"if (`a${o}b${n}c` !== \"atb2c\" || `${o}` + o !== \"t1\" || `x${\"\"}` !== \"x\" || `${[1, 2]}${null}` !== \"1,2null\" || String.raw`a${n}\\n` !== \"a2\\\\n\") throw new Error(\"wrong\");\n" +
			"try { `${Symbol()}`; throw new Error(\"no TypeError\"); } catch (e) { if (!(e instanceof TypeError)) throw e; }\n", steps: 100},
		{name: "plusfine.jsx", src: noCells + "const d = new Date(0); let s = \"a\"; s += 1; s += null; const o = { v: 2 }; o.v += 3; const t = { q: \"x\", f() { this.q += \"y\"; } }; t.f();\n" +
			"if (s !== \"a1null\" || o.v !== 5 || 1n + 2n !== 3n || [1] + [2] !== \"12\" || ({ valueOf: () => 4 }) + 1 !== 5 || typeof (d + 1) !== \"string\" || t.q !== \"xy\" || `${s}` + 1 !== \"a1null1\") throw new Error(\"wrong\");\n", steps: 100},
		// within bounds: the builtins behave as ever
		{name: "fine.jsx", src: noCells + "const a = new Array(1000).fill(\"ab\");\nif (a.join(\"-\").length !== 2999 || Array.from({ length: 3 }, (_, i) => i).join() !== \"0,1,2\" ||\n" +
			"  Math.max.apply(null, [1, 3, 2]) !== 3 || Reflect.apply(Math.min, null, [4, 5]) !== 4 || Reflect.construct(Date, [0]).getTime() !== 0 ||\n" +
			"  [1, [2, [3]]].flat(2).concat([4], 5).join(\"\") !== \"12345\" || \"a\".concat(1, null) !== \"a1null\" || new Uint8Array([1, 2]).length !== 2 ||\n" +
			"  !(a instanceof Array) || a.constructor !== Array || !Array.isArray(a) || new Array(2, 3).length !== 2 || String([1, [2, 3]]) !== \"1,2,3\") throw new Error(\"wrong\");\n", steps: 100},
	}
	runHostile(t, Options{}, cases)
	runHostile(t, Options{MaxAllocation: 1 << 22}, []hostileCase{
		// many allocations under the per-call bounds: the total is counted
		// (each iteration asks 2 × 65,536: Array(n), then fill)
		{name: "many.jsx", src: noCells + "const a = [];\nwhile (true) a.push(new Array(1 << 16).fill(\"yyyyyyyy\"));\n",
			want: ":3:20" + al + "Array(n) brings what the file asked of the builtins to 4259840 elements, units and bytes, over the bound of 4194304 (Options.MaxAllocation)", is: ErrAllocation, steps: 100},
		// the array methods that build an array count what they build
		// (map and slice, 65,536 each a turn, after Array(n) and fill)
		{name: "manymap.jsx", src: noCells + "const a = new Array(1 << 16).fill(1);\nconst kept = [];\nwhile (true) kept.push(a.map((x) => x), a.slice());\n",
			want: ":4:29" + al + "Array.prototype.map brings what the file asked of the builtins to 4259840 elements, units and bytes, over the bound of 4194304 (Options.MaxAllocation)", is: ErrAllocation, steps: 2100000},
	})
}

// TestGuardHeadroom: the real snippets decode, every one, with the
// allocation bounds 16 times lower than their defaults (the defaults'
// headroom over the heaviest real page).
func TestGuardHeadroom(t *testing.T) {
	_, root := goldenPaths(t)
	set, err := Load(context.Background(), root, Options{MaxArray: DefaultMaxArray / 16, MaxAllocation: DefaultMaxAllocation / 16,
		MaxString: DefaultMaxString / 16, MaxBuffer: DefaultMaxBuffer / 16, MaxDepth: DefaultMaxDepth / 16})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Errors) != 0 || len(set.Files) < 79 {
		t.Errorf("%d files, errors: %v", len(set.Files), set.Errors)
	}
}

// TestGuardsKeepSemantics: inside their bounds the guarded builtins give
// what goja's own give (the wrappers pass the checked values through).
func TestGuardsKeepSemantics(t *testing.T) {
	src := cellWith(`[
  "--a " + [1, null, undefined, "x", [2, 3]].join(";"),
  "--b " + Array.from("abc").concat(Array.of(1, 2)).map(String).join(""),
  "--c " + [3, 1, 2].sort().reverse().slice(1).join(","),
  "--d " + "a,b".split(/,/).concat("c".match(/c/g)).join("+") + "a1b2".replace(/\d/g, "#") + "abc".search("b"),
  "--e " + [..."x1y2".matchAll(/\d/g)].map((m) => m[0] + m.index).join("") + (/a/ instanceof RegExp) + RegExp("a", "g").flags,
  "--f " + new Array(3).join("-") + "ab".padStart(4, ".") + "z".repeat(3) + "q".concat(1, [2, 3]),
  "--g " + Array.prototype.map.call("ab", (c) => c + c).join("") + Array.prototype.join.call({ length: 2, 0: "u", 1: "v" }),
  "--h " + new Uint8Array([1, 2, 3]).subarray(1).join("") + new Int16Array(new ArrayBuffer(4)).length + new Float32Array(new Uint8Array([7])).join(""),
]`)
	got := decodeCommand(t, "docs/src/snippets/configs/evil/sem.jsx", src)
	want := "sglang serve \\\n  --a 1;;;x;2,3 \\\n  --b abc12 \\\n  --c 2,1 \\\n  --d a+b+ca#b#1 \\\n  --e 1123trueg \\\n" +
		"  --f --..abzzzq12,3 \\\n  --g aabbu,v \\\n  --h 2327"
	if got != want {
		t.Errorf("command:\n%s\nwant:\n%s", got, want)
	}
}

// TestGuardedBuiltinsKeepSemantics: the builtins whose guards run in Go
// give what the JS wrappers gave and what JS itself gives (every expected
// value is the one Node prints for the same expressions):
//   - the array methods' native wrappers (arrayMethod) pass the receiver
//     and exactly the arguments given (reduce and splice tell an absent
//     argument from undefined), a page's exception thrown in a callback
//     reaches the page's catch, and a method keeps its name and length and
//     is no constructor;
//   - Array.prototype.join, joined in Go for a plain array (guards.join),
//     for elements of every kind, a separator of any kind, holes, getters,
//     nested arrays, unicode, and a symbol's TypeError;
//   - JSON.stringify with the native depth tracker (jsonTrack): the page's
//     replacer called with the holder as this, toJSON, functions and
//     undefined left out, nesting, space.
func TestGuardedBuiltinsKeepSemantics(t *testing.T) {
	for _, tc := range []struct{ name, file, cells, want string }{
		{"array methods", "calls", `[
  "--a " + [1, 2, 3].reduce((a, b) => a + b) + [].reduce((a) => a, "i") + [1, 2, 3].reduceRight((a, b) => a + b, "r"),
  "--b " + [1, 2, 3].splice(0).length + [1, 2, 3].splice(0, undefined).length + [1, 2, 3].splice(1, 1, "x", "y").join(""),
  "--c " + (() => { try { [1].map(() => { throw new Error("boom"); }); return "none"; } catch (e) { return e.message; } })(),
  "--d " + typeof [].map + [].map.name + [].map.length + [].forEach.name + [].reduce.length,
  "--e " + (() => { try { new ([].map)(); return "built"; } catch (e) { return e instanceof TypeError; } })(),
  "--f " + Array.prototype.map.call({ length: 2, 0: "a", 1: "b" }, (x) => x + x).join("") + [1].map(function () { return this.v; }, { v: 7 }),
  "--g " + [3, 1, 2].toSorted().join("") + [1, [2, [3]]].flatMap((x) => x).length + [1, 2, 3].indexOf(2, undefined) + [1, 2].with(0, 9).join(""),
]`,
			"sglang serve \\\n  --a 6ir321 \\\n  --b 302 \\\n  --c boom \\\n  --d functionmap1forEach1 \\\n  --e true \\\n" +
				"  --f aabb7 \\\n  --g 1233192"},
		{"join", "join", `[
  "--a " + [1, -0, 1e21, 0.1 + 0.2, NaN, -Infinity, 2 ** 53, true, null, undefined, "s"].join("|"),
  "--b " + [[1, [2, 3]], { toString() { return "o"; } }, [], [null]].join() + [1, 2].join(0) + [3, 4].join({ toString: () => "~" }) + [5, 6].join(undefined),
  "--c " + (() => { const a = [1, , 3]; Object.defineProperty(a, 1, { get: () => "g" }); return a.join("") + [7, , 9].join("-"); })(),
  "--d " + ["é", "€", "😀"].join("·").length + (() => { try { [Symbol("x")].join(); return "none"; } catch (e) { return e instanceof TypeError; } })(),
  "--e " + (() => { let n = 0; const o = { toString() { n++; return "x"; } }; return [o, o].join("") + n; })() + [1n, 2n].join("+") + Array.prototype.join.call("abc", "."),
]`,
			"sglang serve \\\n  --a 1|0|1e+21|0.30000000000000004|NaN|-Infinity|9007199254740992|true|||s \\\n" +
				"  --b 1,2,3,o,,1023~45,6 \\\n  --c 1g37--9 \\\n  --d 6true \\\n  --e xx21+2a.b.c"},
		{"JSON.stringify", "json", `[
  "--a " + JSON.stringify({ a: [1, { b: 2 }], f() {}, u: undefined, d: { toJSON() { return "D"; } } }),
  "--b " + JSON.stringify({ x: 1, y: { z: 2 } }, function (k, v) { return k === "z" ? this.w || v * 10 : v; }),
  "--c " + JSON.stringify([{ w: 7, z: 1 }], function (k, v) { return k === "z" ? this.w : v; }) + JSON.stringify("s") + JSON.stringify(undefined),
  "--d " + JSON.stringify({ a: [[[]]] }, null, 1).split("\n").length + JSON.stringify({ k: 1 }, (k, v) => (k === "" ? { n: v } : v)),
]`,
			"sglang serve \\\n  --a {\"a\":[1,{\"b\":2}],\"d\":\"D\"} \\\n  --b {\"x\":1,\"y\":{\"z\":20}} \\\n" +
				"  --c [{\"w\":7,\"z\":7}]\"s\"undefined \\\n  --d 7{\"n\":{\"k\":1}}"},
	} {
		got := decodeCommand(t, "docs/src/snippets/configs/evil/"+tc.file+".jsx", cellWith(tc.cells))
		if got != tc.want {
			t.Errorf("%s: command:\n%s\nwant:\n%s", tc.name, got, tc.want)
		}
	}
}

// decodeCommand is the command of the first selection of one snippet file
// holding src (tinyRoot), decoded with the default options.
func decodeCommand(t *testing.T, file, src string) string {
	t.Helper()
	root := tinyRoot(t, map[string]string{file: src})
	sels, err := DecodeFile(context.Background(), root, file, Options{})
	if err != nil || len(sels) == 0 {
		t.Fatalf("%v", err)
	}
	return sels[0].Command
}
