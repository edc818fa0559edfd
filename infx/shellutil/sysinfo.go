package shellutil

import (
	"strconv"
	"strings"
	"time"
)

// ---- date ----

// runDate evaluates GNU date at Facts.Now (DefaultNow when zero) in
// TZ=UTC: +FORMAT, -u, -I[FMT] / --iso-8601[=FMT], -R, --rfc-3339=FMT.
// Parsing another date (-d, -f, -r) is unsupported.
func runDate(c *call) (int, error) {
	t := c.facts.now()
	format := "%a %b %e %H:%M:%S %Z %Y"
	haveFormat := false
	for _, a := range c.args {
		switch {
		case strings.HasPrefix(a, "+"):
			if haveFormat {
				c.errorf("multiple output formats specified")
				return 1, nil
			}
			format, haveFormat = a[1:], true
		case a == "-u" || a == "--utc" || a == "--universal":
		case a == "-I" || a == "--iso-8601":
			format, haveFormat = "%Y-%m-%d", true
		case strings.HasPrefix(a, "-I") || strings.HasPrefix(a, "--iso-8601="):
			v := strings.TrimPrefix(strings.TrimPrefix(a, "-I"), "--iso-8601=")
			switch v {
			case "date":
				format = "%Y-%m-%d"
			case "hours":
				format = "%Y-%m-%dT%H%:z"
			case "minutes":
				format = "%Y-%m-%dT%H:%M%:z"
			case "seconds":
				format = "%Y-%m-%dT%H:%M:%S%:z"
			case "ns":
				format = "%Y-%m-%dT%H:%M:%S,%N%:z"
			default:
				c.errorf("invalid argument '%s' for '--iso-8601'", v)
				return 1, nil
			}
			haveFormat = true
		case a == "-R" || a == "--rfc-email" || a == "--rfc-2822":
			format, haveFormat = "%a, %d %b %Y %H:%M:%S %z", true
		case strings.HasPrefix(a, "--rfc-3339="):
			switch a[len("--rfc-3339="):] {
			case "date":
				format = "%Y-%m-%d"
			case "seconds":
				format = "%Y-%m-%d %H:%M:%S%:z"
			case "ns":
				format = "%Y-%m-%d %H:%M:%S.%N%:z"
			default:
				return 0, unsup("date %s", a)
			}
			haveFormat = true
		default:
			return 0, unsup("date argument %q (only the current instant is known)", a)
		}
	}
	s, err := strftime(format, t)
	if err != nil {
		return 0, err
	}
	c.out.WriteString(s + "\n")
	return 0, nil
}

var (
	weekdays = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	months   = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
)

// strftime formats t (UTC) with GNU date's conversions in the C locale.
func strftime(format string, t time.Time) (string, error) {
	var b strings.Builder
	two := func(n int) string { return pad(n, 2, '0') }
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			b.WriteByte(format[i])
			continue
		}
		i++
		if i >= len(format) {
			b.WriteByte('%')
			break
		}
		colons := 0
		for i < len(format) && format[i] == ':' {
			colons++
			i++
		}
		if i >= len(format) {
			return "", unsup("date format %q", format)
		}
		ch := format[i]
		if colons > 0 && ch != 'z' {
			return "", unsup("date format %%:%c", ch)
		}
		switch ch {
		case '%':
			b.WriteByte('%')
		case 'a':
			b.WriteString(weekdays[t.Weekday()][:3])
		case 'A':
			b.WriteString(weekdays[t.Weekday()])
		case 'b', 'h':
			b.WriteString(months[t.Month()-1][:3])
		case 'B':
			b.WriteString(months[t.Month()-1])
		case 'c':
			s, _ := strftime("%a %b %e %H:%M:%S %Y", t)
			b.WriteString(s)
		case 'C':
			b.WriteString(two(t.Year() / 100))
		case 'd':
			b.WriteString(two(t.Day()))
		case 'D', 'x':
			s, _ := strftime("%m/%d/%y", t)
			b.WriteString(s)
		case 'e':
			b.WriteString(pad(t.Day(), 2, ' '))
		case 'F':
			s, _ := strftime("%Y-%m-%d", t)
			b.WriteString(s)
		case 'H':
			b.WriteString(two(t.Hour()))
		case 'I':
			b.WriteString(two((t.Hour()+11)%12 + 1))
		case 'j':
			b.WriteString(pad(t.YearDay(), 3, '0'))
		case 'k':
			b.WriteString(pad(t.Hour(), 2, ' '))
		case 'l':
			b.WriteString(pad((t.Hour()+11)%12+1, 2, ' '))
		case 'm':
			b.WriteString(two(int(t.Month())))
		case 'M':
			b.WriteString(two(t.Minute()))
		case 'n':
			b.WriteByte('\n')
		case 'N':
			b.WriteString(pad(t.Nanosecond(), 9, '0'))
		case 'p':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'P':
			if t.Hour() < 12 {
				b.WriteString("am")
			} else {
				b.WriteString("pm")
			}
		case 'r':
			s, _ := strftime("%I:%M:%S %p", t)
			b.WriteString(s)
		case 'R':
			s, _ := strftime("%H:%M", t)
			b.WriteString(s)
		case 's':
			b.WriteString(strconv.FormatInt(t.Unix(), 10))
		case 'S':
			b.WriteString(two(t.Second()))
		case 't':
			b.WriteByte('\t')
		case 'T', 'X':
			s, _ := strftime("%H:%M:%S", t)
			b.WriteString(s)
		case 'u':
			b.WriteString(strconv.Itoa((int(t.Weekday())+6)%7 + 1))
		case 'V':
			_, w := t.ISOWeek()
			b.WriteString(two(w))
		case 'G':
			y, _ := t.ISOWeek()
			b.WriteString(strconv.Itoa(y))
		case 'w':
			b.WriteString(strconv.Itoa(int(t.Weekday())))
		case 'y':
			b.WriteString(two(t.Year() % 100))
		case 'Y':
			b.WriteString(strconv.Itoa(t.Year()))
		case 'z':
			// UTC: +0000, +00:00, +00:00:00.
			switch colons {
			case 0:
				b.WriteString("+0000")
			case 1:
				b.WriteString("+00:00")
			case 2:
				b.WriteString("+00:00:00")
			default:
				b.WriteString("+00")
			}
		case 'Z':
			b.WriteString("UTC")
		default:
			return "", unsup("date conversion %%%c", ch)
		}
	}
	return b.String(), nil
}

func pad(n, width int, fill byte) string {
	s := strconv.Itoa(n)
	for len(s) < width {
		s = string(fill) + s
	}
	return s
}

// ---- hostname / nproc ----

func runHostname(c *call) (int, error) {
	if c.facts.Hostname == "" {
		return 0, unsup("host name not documented")
	}
	switch {
	case len(c.args) == 0:
		c.out.WriteString(c.facts.Hostname + "\n")
	case len(c.args) == 1 && (c.args[0] == "-s" || c.args[0] == "--short"):
		short, _, _ := strings.Cut(c.facts.Hostname, ".")
		c.out.WriteString(short + "\n")
	default:
		return 0, unsup("hostname %s (addresses and domain names are site-specific)", strings.Join(c.args, " "))
	}
	return 0, nil
}

func runNproc(c *call) (int, error) {
	if c.facts.CPUs <= 0 {
		return 0, unsup("CPU count of this machine is not documented")
	}
	n := c.facts.CPUs
	for i := 0; i < len(c.args); i++ {
		a := c.args[i]
		switch {
		case a == "--all":
		case strings.HasPrefix(a, "--ignore="):
			k, err := strconv.Atoi(a[len("--ignore="):])
			if err != nil || k < 0 {
				c.errorf("invalid number: '%s'", a[len("--ignore="):])
				return 1, nil
			}
			n = max(1, n-k)
		default:
			return 0, unsup("nproc %s", a)
		}
	}
	c.out.WriteString(strconv.Itoa(n) + "\n")
	return 0, nil
}

// ---- free ----

// runFree evaluates procps-ng 4 free with -b/-k/-m/-g (and the long
// --bytes/--kibi/--mebi/--gibi) and -t, on the idle machine: total from
// Facts.HostMemKiB, nothing used, no swap.
func runFree(c *call) (int, error) {
	if c.facts.HostMemKiB <= 0 {
		return 0, unsup("host memory of this machine is not documented")
	}
	shift := uint(10) // bytes → KiB
	total := false
	for _, a := range c.args {
		switch a {
		case "-b", "--bytes":
			shift = 0
		case "-k", "--kibi", "--kilo":
			shift = 10
		case "-m", "--mebi", "--mega":
			shift = 20
		case "-g", "--gibi", "--giga":
			shift = 30
		case "-t", "--total":
			total = true
		default:
			return 0, unsup("free %s", a)
		}
		if a == "--kilo" || a == "--mega" || a == "--giga" {
			return 0, unsup("free %s (powers of 1000)", a)
		}
	}
	bytes := c.facts.HostMemKiB * 1024
	v := func(b int64) string { return padLeft(strconv.FormatInt(b>>shift, 10), 11) }
	var s strings.Builder
	s.WriteString("               total        used        free      shared  buff/cache   available\n")
	s.WriteString("Mem:    " + " " + v(bytes) + " " + v(0) + " " + v(bytes) + " " + v(0) + " " + v(0) + " " + v(bytes) + "\n")
	s.WriteString("Swap:   " + " " + v(0) + " " + v(0) + " " + v(0) + "\n")
	if total {
		s.WriteString("Total:  " + " " + v(bytes) + " " + v(0) + " " + v(bytes) + "\n")
	}
	c.out.WriteString(s.String())
	return 0, nil
}
