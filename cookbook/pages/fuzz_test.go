package pages

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

// tinyPrograms compiles the drivers.
func tinyPrograms(t testing.TB) *programs {
	t.Helper()
	p, err := compilePrograms()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// FuzzPageSnippet runs small config snippets (JSX) through the whole
// sandbox — esbuild, the static checks, goja, the guards, the tiny
// checkout's component and the driver — with a small work bound: whatever the input, the call
// returns (no panic, no hang: every bound counts work), an error is a
// *FileError naming the file, and a second run gives the same answer. The
// seeds are the hostile campaign's inputs (testdata/fuzz/FuzzPageSnippet).
func FuzzPageSnippet(f *testing.F) {
	f.Add("export const config = { cells: [{ match: { hw: 'h100', variant: 'base' }, flags: ['--tp 8'] }] };\n")
	opt := Options{MaxSteps: 200_000, MaxArray: 1 << 16, MaxString: 1 << 16, MaxAllocation: 1 << 20, MaxDepth: 100,
		MaxSelections: 100, MaxRows: 1000, MaxHeapGrowth: 1 << 40}.withDefaults()
	const file = "docs/src/snippets/configs/fuzz/x.jsx"
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4096 {
			t.Skip()
		}
		root := tinyRoot(t, map[string]string{file: src})
		run := func() ([]Selection, error) {
			wd := newWatchdog(opt.MaxHeapGrowth)
			defer wd.close()
			ld, err := newLoader(root, opt)
			if err != nil {
				t.Fatal(err)
			}
			var used int64
			sels, _, err := decodeConfig(context.Background(), ld, file, ld.plan(file, ""), wd, &used)
			return sels, err
		}
		s1, e1 := run()
		var fe *FileError
		if e1 != nil && (!errors.As(e1, &fe) || fe.File != file) {
			t.Fatalf("error %v does not name the file", e1)
		}
		if errors.Is(e1, ErrTimeLimit) || errors.Is(e1, ErrMemory) {
			t.Fatalf("a timer or the heap sampler decided: %v", e1)
		}
		s2, e2 := run()
		if (e1 == nil) != (e2 == nil) || (e1 != nil && e1.Error() != e2.Error()) || !reflect.DeepEqual(s1, s2) {
			t.Fatalf("two runs differ: %v / %v", e1, e2)
		}
	})
}

// TestHostilePanic: a Go panic inside a library run on page input becomes
// the file's error (ErrPanic, the library's message, the position goja
// was at), never a crash; the boundaries where no runtime runs (esbuild,
// the parsers, the static facts, the command parser) recover too.
func TestHostilePanic(t *testing.T) {
	p := tinyPrograms(t)
	opt := Options{}.withDefaults()
	const file = "docs/src/snippets/configs/evil/panic.jsx"
	wd := newWatchdog(opt.MaxHeapGrowth)
	defer wd.close()
	// a native the runtime calls panics with a plain Go value (what a bug
	// in goja's builtins does): recovered at the run boundary
	err := func() (err error) {
		sb, stop, err := newSandbox(context.Background(), file, opt, p, wd)
		if err != nil {
			return err
		}
		defer stop()
		defer sb.recoverRun(&err)
		if err := sb.vm.Set("boom", func() { panic("index out of range [3] with length 3") }); err != nil {
			return err
		}
		js, err := transform("const x = 1;\nif (x) {\n  boom();\n}\n", file, false)
		if err != nil {
			return err
		}
		prg, err := compile(file, js)
		if err != nil {
			return err
		}
		_, err = sb.vm.RunProgram(prg)
		return sb.err(err)
	}()
	if !errors.Is(err, ErrPanic) || err.Error() != file+":3:7: a library panicked on this input: goja: index out of range [3] with length 3" {
		t.Errorf("run: %v", err)
	}
	// the boundaries that hold no runtime: a panic is the file's error
	err = func() (err error) {
		defer recoverInto(file, "esbuild", &err)
		panic("esbuild: unexpected token state")
	}()
	if err == nil || err.Error() != file+": a library panicked on this input: esbuild: esbuild: unexpected token state" {
		t.Errorf("boundary: %v", err)
	}
	// the whole path on real input that once crashed: each is an error
	// with its position and the process goes on
	seeds, err := os.ReadDir("testdata/fuzz/FuzzPageSnippet")
	if err != nil || len(seeds) == 0 {
		t.Fatalf("seed corpus: %v", err)
	}
	for _, s := range seeds {
		b, err := os.ReadFile("testdata/fuzz/FuzzPageSnippet/" + s.Name())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), "go test fuzz v1\n") {
			t.Errorf("%s: not a fuzz corpus file", s.Name())
		}
	}
}
