package shellutil

import (
	"math"
	"strconv"
	"strings"
)

// fmtArg is one printf argument: its numeric value, its string value, and
// whether it is a number (for %c, which prints a number as a character
// code and a string as its first character).
type fmtArg struct {
	num    float64
	str    string
	isNum  bool
	strnum bool
}

// notEnoughArgs is returned when the format has more conversions than
// arguments (gawk: fatal).
type notEnoughArgs struct{}

func (*notEnoughArgs) Error() string { return "not enough arguments to satisfy format string" }

// cprintf formats args with a C printf format, as gawk's printf does in
// the C locale: %d %i %o %x %X %u %c %s %e %E %f %F %g %G %% with the
// flags - + space # 0 ', a width and a precision (digits or *).
// Positional arguments, %a and lengths modifiers are unsupported.
func cprintf(format string, args []fmtArg) (string, error) {
	var b strings.Builder
	next := func() (fmtArg, error) {
		if len(args) == 0 {
			return fmtArg{}, &notEnoughArgs{}
		}
		a := args[0]
		args = args[1:]
		return a, nil
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(format) {
			return "", unsup("printf format %q ends in %%", format)
		}
		var f fmtSpec
		for ; i < len(format); i++ {
			switch format[i] {
			case '-':
				f.minus = true
				continue
			case '+':
				f.plus = true
				continue
			case ' ':
				f.space = true
				continue
			case '#':
				f.sharp = true
				continue
			case '0':
				f.zero = true
				continue
			case '\'':
				// Thousands grouping: none in the C locale.
				continue
			}
			break
		}
		if i < len(format) && format[i] == '*' {
			a, err := next()
			if err != nil {
				return "", err
			}
			w := int(a.num)
			if w < 0 {
				f.minus = true
				w = -w
			}
			f.width = w
			i++
		} else {
			for i < len(format) && format[i] >= '0' && format[i] <= '9' {
				f.width = f.width*10 + int(format[i]-'0')
				if f.width > 1<<16 {
					return "", unsup("printf width too large")
				}
				i++
			}
			if i < len(format) && format[i] == '$' {
				return "", unsup("positional printf arguments")
			}
		}
		if i < len(format) && format[i] == '.' {
			i++
			f.hasPrec = true
			if i < len(format) && format[i] == '*' {
				a, err := next()
				if err != nil {
					return "", err
				}
				f.prec = int(a.num)
				if f.prec < 0 {
					f.hasPrec = false
					f.prec = 0
				}
				i++
			} else {
				for i < len(format) && format[i] >= '0' && format[i] <= '9' {
					f.prec = f.prec*10 + int(format[i]-'0')
					if f.prec > 1<<10 {
						return "", unsup("printf precision too large")
					}
					i++
				}
			}
		}
		if f.width > 1<<16 {
			return "", unsup("printf width too large")
		}
		if i >= len(format) {
			return "", unsup("printf format %q ends inside a conversion", format)
		}
		verb := format[i]
		if verb == '%' {
			b.WriteByte('%')
			continue
		}
		a, err := next()
		if err != nil {
			return "", err
		}
		s, err := f.format(verb, a)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
		if b.Len() > MaxOutput {
			return "", unsup("formatted string longer than %d bytes", MaxOutput)
		}
	}
	return b.String(), nil
}

type fmtSpec struct {
	minus, plus, space, sharp, zero bool
	width, prec                     int
	hasPrec                         bool
}

func (f fmtSpec) format(verb byte, a fmtArg) (string, error) {
	switch verb {
	case 'd', 'i':
		v := a.num
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "", unsup("%%d of %v", v)
		}
		v = math.Trunc(v)
		neg := v < 0
		digits := strconv.FormatFloat(math.Abs(v), 'f', 0, 64)
		return f.padInt(neg, "", digits), nil
	case 'o', 'x', 'X', 'u':
		v := math.Trunc(a.num)
		if math.IsNaN(v) || math.IsInf(v, 0) || v >= 18446744073709551616.0 || v < -9223372036854775808.0 {
			return "", unsup("%%%c of %v", verb, a.num)
		}
		var u uint64
		if v < 0 {
			u = uint64(int64(v))
		} else {
			u = uint64(v)
		}
		var digits, prefix string
		switch verb {
		case 'o':
			digits = strconv.FormatUint(u, 8)
			if f.sharp && digits[0] != '0' {
				digits = "0" + digits
			}
		case 'x':
			digits = strconv.FormatUint(u, 16)
			if f.sharp && u != 0 {
				prefix = "0x"
			}
		case 'X':
			digits = strings.ToUpper(strconv.FormatUint(u, 16))
			if f.sharp && u != 0 {
				prefix = "0X"
			}
		default:
			digits = strconv.FormatUint(u, 10)
		}
		g := f
		g.plus, g.space = false, false
		return g.padInt(false, prefix, digits), nil
	case 'e', 'E', 'f', 'F', 'g', 'G':
		v := a.num
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "", unsup("%%%c of %v", verb, v)
		}
		prec := 6
		if f.hasPrec {
			prec = f.prec
		}
		body := formatFloatC(math.Abs(v), verb, prec, f.sharp)
		sign := ""
		switch {
		case math.Signbit(v):
			sign = "-"
		case f.plus:
			sign = "+"
		case f.space:
			sign = " "
		}
		return f.pad(sign, body, f.zero && !f.minus), nil
	case 'c':
		var s string
		if a.isNum {
			code := int(a.num)
			if code < 0 || code > 127 {
				return "", unsup("%%c of %d depends on the locale", code)
			}
			s = string(rune(code))
		} else {
			if a.str == "" {
				s = "\x00"
			} else {
				if a.str[0] >= 0x80 {
					return "", unsup("%%c of a non-ASCII string depends on the locale")
				}
				s = a.str[:1]
			}
		}
		return f.pad("", s, false), nil
	case 's':
		s := a.str
		if f.hasPrec && f.prec < len(s) {
			for _, ch := range []byte(s) {
				if ch >= 0x80 {
					return "", unsup("%%.Ns of a non-ASCII string depends on the locale")
				}
			}
			s = s[:f.prec]
		}
		return f.pad("", s, false), nil
	}
	return "", unsup("printf conversion %%%c", verb)
}

// padInt lays out an integer conversion: precision is the minimum digit
// count (and disables the 0 flag), then the sign, prefix and padding.
func (f fmtSpec) padInt(neg bool, prefix, digits string) string {
	if f.hasPrec {
		if f.prec == 0 && digits == "0" {
			digits = ""
		}
		for len(digits) < f.prec {
			digits = "0" + digits
		}
	}
	sign := ""
	switch {
	case neg:
		sign = "-"
	case f.plus:
		sign = "+"
	case f.space:
		sign = " "
	}
	return f.pad(sign+prefix, digits, f.zero && !f.minus && !f.hasPrec)
}

// pad applies the width: zeros go between sign and body when zero is set.
func (f fmtSpec) pad(sign, body string, zero bool) string {
	n := len(sign) + len(body)
	if n >= f.width {
		return sign + body
	}
	fill := f.width - n
	switch {
	case f.minus:
		return sign + body + strings.Repeat(" ", fill)
	case zero:
		return sign + strings.Repeat("0", fill) + body
	}
	return strings.Repeat(" ", fill) + sign + body
}

// formatFloatC formats a non-negative finite v like C's %e %f %g (and
// upper-case forms) with precision prec.
func formatFloatC(v float64, verb byte, prec int, sharp bool) string {
	var s string
	switch verb {
	case 'f', 'F':
		s = strconv.FormatFloat(v, 'f', prec, 64)
		if sharp && prec == 0 {
			s += "."
		}
	case 'e', 'E':
		s = strconv.FormatFloat(v, 'e', prec, 64)
		if sharp && prec == 0 {
			s = strings.Replace(s, "e", ".e", 1)
		}
	case 'g', 'G':
		p := prec
		if p == 0 {
			p = 1
		}
		es := strconv.FormatFloat(v, 'e', p-1, 64)
		x, _ := strconv.Atoi(es[strings.IndexByte(es, 'e')+1:])
		if p > x && x >= -4 {
			s = strconv.FormatFloat(v, 'f', p-1-x, 64)
			if !sharp && strings.Contains(s, ".") {
				s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
			} else if sharp && !strings.Contains(s, ".") {
				s += "."
			}
		} else {
			s = es
			if !sharp {
				k := strings.IndexByte(s, 'e')
				mant := s[:k]
				if strings.Contains(mant, ".") {
					mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
				}
				s = mant + s[k:]
			} else if !strings.Contains(s[:strings.IndexByte(s, 'e')], ".") {
				s = strings.Replace(s, "e", ".e", 1)
			}
		}
	}
	if verb == 'E' || verb == 'G' || verb == 'F' {
		s = strings.ToUpper(s)
	}
	return s
}
