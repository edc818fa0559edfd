package shellutil

import (
	"strings"
	"testing"
)

// TestChoiceFor: the MEC firmware and the /dev/shm space are choices with
// their documented answers; each answer's machine answers the probe.
func TestChoiceFor(t *testing.T) {
	mi, _ := FactsFor("mi355x")
	ch, ok := ChoiceFor([]string{"rocm-smi", "--showfw"}, mi)
	if !ok || len(ch.Answers) != 5 || len(ch.Machines) != 5 || !strings.Contains(ch.Fact, "177") {
		t.Fatalf("rocm-smi --showfw: %+v %v", ch, ok)
	}
	for i, want := range []string{"", "1", "176", "177", "99999"} {
		res, handled, reason := Run([]string{"rocm-smi", "--showfw"}, nil, ch.Machines[i])
		if !handled {
			t.Fatalf("answer %d: %s", i, reason)
		}
		got := ""
		for _, l := range strings.Split(string(res.Stdout), "\n") {
			if strings.Contains(l, "MEC firmware") {
				f := strings.Fields(l)
				got = f[len(f)-1]
				break
			}
		}
		if got != want {
			t.Errorf("answer %d (%s): MEC %q, want %q", i, ch.Answers[i], got, want)
		}
	}
	ch, ok = ChoiceFor([]string{"df", "-BG", "--output=avail", "/dev/shm"}, mi)
	if !ok || len(ch.Machines) != 3 {
		t.Fatalf("df: %+v %v", ch, ok)
	}
	for i, want := range []struct {
		out    string
		status int
	}{{"", 1}, {"Avail\n   1G\n", 0}, {"Avail\n3024G\n", 0}} {
		res, handled, reason := Run([]string{"df", "-BG", "--output=avail", "/dev/shm"}, nil, ch.Machines[i])
		if !handled || string(res.Stdout) != want.out || res.Status != want.status {
			t.Errorf("df answer %d (%s): %q status %d handled %v %s", i, ch.Answers[i], res.Stdout, res.Status, handled, reason)
		}
	}
	// A documented fact, another vendor, another file: no choice.
	mec := mi
	mec.MECFirmware = 180
	b200, _ := FactsFor("b200")
	for _, c := range []struct {
		argv []string
		f    Facts
	}{
		{[]string{"rocm-smi", "--showfw"}, mec},
		{[]string{"rocm-smi", "--showfw"}, b200},
		{[]string{"rocm-smi", "--showmemuse"}, mi},
		{[]string{"df", "-BG", "/tmp"}, mi},
	} {
		if _, ok := ChoiceFor(c.argv, c.f); ok {
			t.Errorf("%q on %s: a choice", c.argv, c.f.SKU)
		}
	}
	// df without the fact is refused, never guessed.
	if _, handled, reason := Run([]string{"df", "-BG", "--output=avail", "/dev/shm"}, nil, mi); handled || !strings.Contains(reason, "not documented") {
		t.Errorf("df: handled %v %s", handled, reason)
	}
}
