package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestJailLinkPlaceholder: a git symbolic link checked out as a plain file
// (the file holds the link target, no newline) is read as the file it
// names, through chains; anything else that looks close is the file's own
// content.
func TestJailLinkPlaceholder(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	files := map[string]string{
		"root/runners/launch_a.sh":  "#!/usr/bin/env bash\necho a\n",
		"root/runners/launch_l.sh":  "launch_a.sh",
		"root/runners/launch_l2.sh": "launch_l.sh",
		"root/runners/launch_up.sh": "../runners/launch_a.sh",
		"root/runners/newline.sh":   "launch_a.sh\n",
		"root/runners/words.sh":     "exit 0",
		"root/runners/absent.sh":    "launch_nope.sh",
		"root/runners/self.sh":      "self.sh",
		"root/runners/out.sh":       "../../outside.sh",
		"root/runners/dir.sh":       "sub",
		"root/runners/sub/keep.txt": "x\n",
		"root/runners/cycle_x.sh":   "cycle_y.sh",
		"root/runners/cycle_y.sh":   "cycle_x.sh",
		"root/runners/comment.sh":   "#launch_a.sh",
		"outside.sh":                "echo outside\n",
	}
	for rel, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	j := newJail([]string{root})
	defer j.close()
	for name, want := range map[string]string{
		"launch_l.sh":  files["root/runners/launch_a.sh"], // one link
		"launch_l2.sh": files["root/runners/launch_a.sh"], // a chain
		"launch_up.sh": files["root/runners/launch_a.sh"], // ../ inside the root
		"newline.sh":   "launch_a.sh\n",                   // a one-line script, not a link
		"words.sh":     "exit 0",
		"absent.sh":    "launch_nope.sh", // names nothing: bash runs the word
		"self.sh":      "self.sh",
		"out.sh":       "../../outside.sh", // outside the read root: not followed
		"dir.sh":       "sub",              // a directory is no script
		"comment.sh":   "#launch_a.sh",
	} {
		got, err := j.readInput(filepath.Join(root, "runners", name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if string(got) != want {
			t.Errorf("%s: read %q, want %q", name, got, want)
		}
	}
	// a cycle ends after maxLinkHops hops with one of its two files
	got, err := j.readInput(filepath.Join(root, "runners", "cycle_x.sh"))
	if err != nil || (string(got) != "cycle_x.sh" && string(got) != "cycle_y.sh") {
		t.Errorf("cycle: %q, %v", got, err)
	}
}
