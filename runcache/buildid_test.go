package runcache

import (
	"encoding/binary"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestExecutableBuildID: the running test binary (an ELF file the go
// command built) is named by the build ID `go tool buildid` reads from it.
func TestExecutableBuildID(t *testing.T) {
	p, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	id, ok := goBuildID(f)
	if !ok {
		t.Skip("not an ELF executable with a Go build ID (another OS): Executable hashes the file")
	}
	out, err := exec.Command("go", "tool", "buildid", p).Output()
	if err != nil {
		t.Skipf("go tool buildid: %v", err)
	}
	if want := strings.TrimSpace(string(out)); id != want {
		t.Errorf("goBuildID = %q, go tool buildid says %q", id, want)
	}
	exe, err := Executable()
	if err != nil || exe != "go-buildid:"+id {
		t.Errorf("Executable() = %q, %v; want go-buildid:%s", exe, err, id)
	}
}

// TestGoBuildIDForms: a build ID is taken only in the go command's form;
// a constant one ("redacted"), an empty one or a file that is no ELF
// executable gives none (the file is hashed).
func TestGoBuildIDForms(t *testing.T) {
	good := "Xiusy7iXyEwXX-INUDJ9/4Rngw4ZeNEHmsZeUNtko/NJb6Mqkh17VJf9WG0ofp/ErRX-rr7JD_51WfM_Db2"
	for _, c := range []struct {
		id string
		ok bool
	}{{good, true}, {"Xiusy7iXyEwXX-INUDJ9/4Rngw4ZeNEHmsZeUNtko", true}, {"redacted", false}, {"", false},
		{"Xiusy7iXyEwXX-INUDJ9", false}, {"Xiusy7iXyEwXX-INUDJ9/short", false}, {"Xiusy7iXyEwXX-INUDJ9/4Rngw4ZeNEHmsZeUN+ko", false},
		{good + "/" + good, false}} {
		data := elfWithNote(t, c.id)
		got, ok := goBuildID(strings.NewReader(string(data)))
		if ok != c.ok || ok && got != c.id {
			t.Errorf("build ID %q: got %q, %v; want ok %v", c.id, got, ok, c.ok)
		}
	}
	if _, ok := goBuildID(strings.NewReader("#!/bin/sh\\necho not elf\\n")); ok {
		t.Error("a script has a build ID")
	}
}

// elfWithNote is a minimal little-endian ELF64 executable whose only
// sections are the section-name table and a Go build ID note holding id.
func elfWithNote(t *testing.T, id string) []byte {
	t.Helper()
	le := binary.LittleEndian
	strtab := []byte("\x00.shstrtab\x00.note.go.buildid\x00")
	note := make([]byte, 16, 16+len(id)+3)
	le.PutUint32(note[0:], 4)
	le.PutUint32(note[4:], uint32(len(id)))
	le.PutUint32(note[8:], 4)
	copy(note[12:], "Go\x00\x00")
	note = append(note, id...)
	for len(note)%4 != 0 {
		note = append(note, 0)
	}
	const ehsize = 64
	strOff := ehsize
	noteOff := (strOff + len(strtab) + 3) &^ 3
	shOff := (noteOff + len(note) + 7) &^ 7
	b := make([]byte, shOff+3*64)
	copy(b, "\x7fELF")
	b[4], b[5], b[6] = 2, 1, 1 // 64-bit, little-endian, version 1
	le.PutUint16(b[16:], 2)    // executable
	le.PutUint16(b[18:], 62)   // x86-64
	le.PutUint32(b[20:], 1)
	le.PutUint64(b[40:], uint64(shOff))
	le.PutUint16(b[52:], ehsize)
	le.PutUint16(b[54:], 56)
	le.PutUint16(b[58:], 64)
	le.PutUint16(b[60:], 3) // sections
	le.PutUint16(b[62:], 1) // the name table's index
	copy(b[strOff:], strtab)
	copy(b[noteOff:], note)
	sh := func(i int, name, typ uint32, flags uint64, off, size int, align uint64) {
		h := b[shOff+64*i:]
		le.PutUint32(h[0:], name)
		le.PutUint32(h[4:], typ)
		le.PutUint64(h[8:], flags)
		le.PutUint64(h[24:], uint64(off))
		le.PutUint64(h[32:], uint64(size))
		le.PutUint64(h[48:], align)
	}
	sh(1, 1, 3, 0, strOff, len(strtab), 1) // .shstrtab (SHT_STRTAB)
	sh(2, 11, 7, 2, noteOff, len(note), 4) // .note.go.buildid (SHT_NOTE, SHF_ALLOC)
	return b
}
