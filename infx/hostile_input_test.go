package infx

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestHostileMasterConfig: a master config that cannot be read or parsed
// fails Open with a *PosError naming the file (and line:col when the
// problem is in the text), whatever its shape; an empty checkout wraps
// ErrNoMasterConfig.
func TestHostileMasterConfig(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, configs string) // writes configs/nvidia-master.yaml
		want  string                             // after "<dir>/configs/"
	}{
		{"syntax", writeMaster("a: [\n"), `nvidia-master.yaml:1:1: YAML: did not find expected node content`},
		{"unknown anchor", writeMaster("k:\n  image: x\n  model: *nope\n"), `nvidia-master.yaml:3:10: YAML: unknown anchor 'nope' referenced`},
		{"end of stream", writeMaster("k:\n  image: \"x"), `nvidia-master.yaml:2:3: YAML: found unexpected end of stream`},
		{"control character", writeMaster("k:\n  image: x\x1by\n"), `nvidia-master.yaml:2:11: YAML: control characters are not allowed`},
		{"not UTF-8", writeMaster("k:\n  image: \xff\n"), `nvidia-master.yaml:2:10: YAML: invalid leading UTF-8 octet`},
		{"not a mapping", writeMaster("- a\n"), `nvidia-master.yaml:1:1: master config: want a mapping of config keys, got a sequence`},
		{"empty", writeMaster(""), `nvidia-master.yaml:1:1: empty YAML document`},
		{"dangling link", func(t *testing.T, dir string) {
			if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "nvidia-master.yaml")); err != nil {
				t.Skip(err)
			}
		}, `nvidia-master.yaml: master config cannot be read: no such file or directory`},
		{"fifo", func(t *testing.T, dir string) {
			if err := syscall.Mkfifo(filepath.Join(dir, "nvidia-master.yaml"), 0o644); err != nil {
				t.Skip(err)
			}
		}, `nvidia-master.yaml: not a regular file`},
		{"directory", func(t *testing.T, dir string) {
			if err := os.Mkdir(filepath.Join(dir, "nvidia-master.yaml"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, `nvidia-master.yaml: a directory, want a file`},
		{"unreadable", func(t *testing.T, dir string) {
			if os.Geteuid() == 0 {
				t.Skip("root reads anything")
			}
			writeMaster("k: {}\n")(t, dir)
			if err := os.Chmod(filepath.Join(dir, "nvidia-master.yaml"), 0); err != nil {
				t.Fatal(err)
			}
		}, `nvidia-master.yaml: master config cannot be read: permission denied`},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			configs := filepath.Join(root, "configs")
			if err := os.Mkdir(configs, 0o755); err != nil {
				t.Fatal(err)
			}
			c.setup(t, configs)
			ws, err := Open(root)
			var pe *PosError
			if ws != nil || !errors.As(err, &pe) || err.Error() != filepath.Join(configs, c.want) {
				t.Errorf("Open: %v, %v; want a *PosError %q", ws, err, filepath.Join(configs, c.want))
			}
		})
	}
	// An empty checkout: no master config, named as such.
	root := t.TempDir()
	if _, err := Open(root); !errors.Is(err, ErrNoMasterConfig) || !strings.HasPrefix(err.Error(), root+": no InferenceX master config") {
		t.Errorf("empty checkout: %v", err)
	}
	// A master whose name carries terminal escapes is printed quoted.
	configs := filepath.Join(root, "configs")
	if err := os.Mkdir(configs, 0o755); err != nil {
		t.Fatal(err)
	}
	evil := filepath.Join(configs, "x\x1b[31m-master.yaml")
	if err := os.WriteFile(evil, []byte("a: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(root); err == nil || strings.ContainsRune(err.Error(), 0x1b) || !strings.Contains(err.Error(), `x\x1b[31m-master.yaml":1:1: YAML: `) {
		t.Errorf("escaped name: %v", err)
	}
}

func writeMaster(s string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		if err := os.WriteFile(filepath.Join(dir, "nvidia-master.yaml"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
