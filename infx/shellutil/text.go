package shellutil

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
)

// This file holds the GNU coreutils text utilities (coreutils 9, C
// locale): seq, cut, tr, head, tail, wc, sort, uniq, paste, basename,
// dirname, sha1sum, sha256sum. Diagnostics use the C locale's ASCII
// quotes.

const tryHelp = "Try '%s --help' for more information."

func (c *call) usageError(format string, a ...any) int {
	c.errorf(format, a...)
	c.errb.WriteString(strings.ReplaceAll(tryHelp, "%s", c.name) + "\n")
	return 1
}

// ---- seq ----

// runSeq evaluates `seq [-s SEP] [-w] [FIRST [INCR]] LAST` over integers.
func runSeq(c *call) (int, error) {
	sep := "\n"
	equalWidth := false
	var operands []string
	args := c.args
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(operands) > 0 || !strings.HasPrefix(a, "-") || len(a) > 1 && (a[1] == '.' || a[1] >= '0' && a[1] <= '9') {
			operands = append(operands, a)
			continue
		}
		switch {
		case a == "--":
			operands = append(operands, args[i+1:]...)
			i = len(args)
		case a == "-w" || a == "--equal-width":
			equalWidth = true
		case a == "-s" || a == "--separator":
			if i+1 >= len(args) {
				return c.usageError("option requires an argument -- 's'"), nil
			}
			i++
			sep = args[i]
		case strings.HasPrefix(a, "--separator="):
			sep = a[len("--separator="):]
		case strings.HasPrefix(a, "-s"):
			sep = a[2:]
		default:
			return 0, unsup("option %s not implemented", a)
		}
	}
	switch {
	case len(operands) == 0:
		return c.usageError("missing operand"), nil
	case len(operands) > 3:
		return c.usageError("extra operand '%s'", operands[3]), nil
	}
	var nums [3]int64
	vals := []int64{1, 1, 0}
	for i, o := range operands {
		n, ok, err := seqInt(o)
		if err != nil {
			return 0, err
		}
		if !ok {
			return c.usageError("invalid floating point argument: '%s'", o), nil
		}
		nums[i] = n
	}
	switch len(operands) {
	case 1:
		vals[2] = nums[0]
	case 2:
		vals[0], vals[2] = nums[0], nums[1]
	case 3:
		vals[0], vals[1], vals[2] = nums[0], nums[1], nums[2]
		if vals[1] == 0 {
			return c.usageError("invalid Zero increment value: '%s'", operands[1]), nil
		}
	}
	first, step, last := vals[0], vals[1], vals[2]
	width := 0
	if equalWidth {
		width = max(len(strconv.FormatInt(first, 10)), len(strconv.FormatInt(last, 10)))
	}
	var b strings.Builder
	n := 0
	for x := first; step > 0 && x <= last || step < 0 && x >= last; x += step {
		if n > 0 {
			b.WriteString(sep)
		}
		s := strconv.FormatInt(x, 10)
		if len(s) < width {
			if x < 0 {
				s = "-" + strings.Repeat("0", width-len(s)) + s[1:]
			} else {
				s = strings.Repeat("0", width-len(s)) + s
			}
		}
		b.WriteString(s)
		n++
		if b.Len() > MaxOutput {
			return 0, unsup("output exceeds %d bytes", MaxOutput)
		}
		if step > 0 && x > math.MaxInt64-step || step < 0 && x < math.MinInt64-step {
			return 0, unsup("sequence leaves the 64-bit range")
		}
	}
	if n > 0 {
		b.WriteString("\n")
	}
	c.out.WriteString(b.String())
	return 0, nil
}

// seqInt parses a seq operand. ok=false: not a number at all (seq's
// error); err: a number this package does not evaluate (non-integer,
// hexadecimal, out of range).
func seqInt(s string) (int64, bool, error) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	body := strings.TrimPrefix(strings.TrimPrefix(t, "+"), "-")
	if body != "" && strings.Trim(body, "0123456789") == "" && len(t)-len(body) <= 1 {
		n, err := strconv.ParseInt(strings.TrimPrefix(t, "+"), 10, 64)
		if err != nil {
			return 0, false, unsup("integer %q out of range", s)
		}
		return n, true, nil
	}
	if _, err := strconv.ParseFloat(strings.TrimSpace(t), 64); err == nil && t == strings.TrimRight(t, " \t\n") {
		return 0, false, unsup("non-integer operand %q", s)
	}
	return 0, false, nil
}

// ---- cut ----

type span struct{ lo, hi int } // 1-based, inclusive; hi 0 = to the end

func parseList(s string) ([]span, string) {
	var out []span
	for _, part := range strings.Split(s, ",") {
		if part == "" {
			return nil, "invalid range with no endpoint: -"
		}
		lo, hi, isRange := strings.Cut(part, "-")
		var sp span
		var err error
		if !isRange {
			if sp.lo, err = strconv.Atoi(lo); err != nil || sp.lo < 1 {
				if err == nil {
					return nil, "fields and positions are numbered from 1"
				}
				return nil, "invalid field value '" + part + "'"
			}
			sp.hi = sp.lo
			out = append(out, sp)
			continue
		}
		if lo == "" && hi == "" {
			return nil, "invalid range with no endpoint: -"
		}
		sp.lo = 1
		if lo != "" {
			if sp.lo, err = strconv.Atoi(lo); err != nil || sp.lo < 1 {
				if err == nil {
					return nil, "fields and positions are numbered from 1"
				}
				return nil, "invalid field range"
			}
		}
		if hi != "" {
			if sp.hi, err = strconv.Atoi(hi); err != nil || sp.hi < 1 {
				if err == nil {
					return nil, "fields and positions are numbered from 1"
				}
				return nil, "invalid field range"
			}
			if sp.hi < sp.lo {
				return nil, "invalid decreasing range"
			}
		}
		out = append(out, sp)
	}
	return out, ""
}

func inList(list []span, i int) bool {
	for _, sp := range list {
		if i >= sp.lo && (sp.hi == 0 || i <= sp.hi) {
			return true
		}
	}
	return false
}

// runCut evaluates `cut -b|-c|-f LIST [-d D] [-s] [--complement]
// [--output-delimiter S] [FILE…]`.
func runCut(c *call) (int, error) {
	opts, operands, err := getopt(c.args, optSpec{short: "b:c:f:d:sn", long: map[string]longOpt{
		"bytes": {"b", true}, "characters": {"c", true}, "fields": {"f", true}, "delimiter": {"d", true},
		"only-delimited": {"s", false}, "complement": {"complement", false}, "output-delimiter": {"output-delimiter", true},
	}})
	if err != nil {
		return 0, err
	}
	mode, listStr, delim := "", "", "\t"
	onlyDelim, complement := false, false
	var outDelim *string
	for _, o := range opts {
		switch o.key {
		case "b", "c", "f":
			if mode != "" {
				return c.usageError("only one type of list may be specified"), nil
			}
			mode, listStr = o.key, o.val
		case "d":
			if len(o.val) != 1 {
				if o.val == "" {
					// GNU: -d '' means NUL as the delimiter.
					return 0, unsup("cut -d ''")
				}
				return c.usageError("the delimiter must be a single character"), nil
			}
			delim = o.val
		case "s":
			onlyDelim = true
		case "complement":
			complement = true
		case "output-delimiter":
			v := o.val
			outDelim = &v
		}
	}
	if mode == "" {
		return c.usageError("you must specify a list of bytes, characters, or fields"), nil
	}
	list, msg := parseList(listStr)
	if msg != "" {
		return c.usageError("%s", msg), nil
	}
	ins, err := c.inputs(operands)
	if err != nil {
		return 0, err
	}
	status := 0
	for _, in := range ins {
		if in.missing {
			c.errorf("%s: No such file or directory", in.name)
			status = 1
			continue
		}
		lines, _ := splitLines(in.data)
		for _, line := range lines {
			if mode == "f" {
				if !strings.Contains(line, delim) {
					if !onlyDelim {
						c.out.WriteString(line + "\n")
					}
					continue
				}
				fields := strings.Split(line, delim)
				var sel []string
				for i, f := range fields {
					if inList(list, i+1) != complement {
						sel = append(sel, f)
					}
				}
				od := delim
				if outDelim != nil {
					od = *outDelim
				}
				c.out.WriteString(strings.Join(sel, od) + "\n")
				continue
			}
			if outDelim != nil {
				return 0, unsup("--output-delimiter with -%s", mode)
			}
			var b strings.Builder
			for i := 0; i < len(line); i++ {
				if inList(list, i+1) != complement {
					b.WriteByte(line[i])
				}
			}
			c.out.WriteString(b.String() + "\n")
		}
	}
	return status, nil
}

// ---- tr ----

// trSet expands a tr SET operand into its byte list. classes reports
// which [:class:] names it used.
func trSet(s string) ([]byte, []string, string, error) {
	var out []byte
	var classes []string
	// elems: decoded single characters, to detect ranges.
	type elem struct {
		b     byte
		class bool
	}
	var elems []elem
	for i := 0; i < len(s); {
		if s[i] == '[' && i+1 < len(s) && (s[i+1] == ':' || s[i+1] == '=') {
			kind := s[i+1]
			end := strings.Index(s[i+2:], string(kind)+"]")
			if end >= 0 {
				name := s[i+2 : i+2+end]
				if kind == '=' {
					return nil, nil, "", unsup("tr equivalence class [=%s=]", name)
				}
				set := classBytes(name)
				if set == nil {
					return nil, nil, "invalid character class '" + name + "'", nil
				}
				classes = append(classes, name)
				for _, b := range set {
					elems = append(elems, elem{b: b, class: true})
				}
				i += 2 + end + 2
				continue
			}
		}
		if s[i] == '[' && strings.Contains(s[i:], "*") && strings.Index(s[i:], "*") < strings.Index(s[i:]+"]", "]") {
			return nil, nil, "", unsup("tr repeat construct [c*n]")
		}
		var b byte
		if s[i] == '\\' && i+1 < len(s) {
			n, d := trEscape(s[i+1:])
			b = d
			i += 1 + n
		} else {
			b = s[i]
			i++
		}
		// A range: this char, '-', and another char.
		if i+1 < len(s) && s[i] == '-' {
			var hi byte
			j := i + 1
			if s[j] == '\\' && j+1 < len(s) {
				n, d := trEscape(s[j+1:])
				hi = d
				j += 1 + n
			} else {
				hi = s[j]
				j++
			}
			if hi < b {
				return nil, nil, "range-endpoints of '" + string([]byte{b}) + "-" + string([]byte{hi}) + "' are in reverse collating sequence order", nil
			}
			for x := int(b); x <= int(hi); x++ {
				elems = append(elems, elem{b: byte(x)})
			}
			i = j
			continue
		}
		elems = append(elems, elem{b: b})
	}
	for _, e := range elems {
		out = append(out, e.b)
	}
	return out, classes, "", nil
}

func trEscape(s string) (int, byte) {
	switch s[0] {
	case 'n':
		return 1, '\n'
	case 't':
		return 1, '\t'
	case 'r':
		return 1, '\r'
	case 'a':
		return 1, '\a'
	case 'b':
		return 1, '\b'
	case 'f':
		return 1, '\f'
	case 'v':
		return 1, '\v'
	case '\\':
		return 1, '\\'
	}
	if s[0] >= '0' && s[0] <= '7' {
		n, v := 0, 0
		for n < 3 && n < len(s) && s[n] >= '0' && s[n] <= '7' && v*8+int(s[n]-'0') < 256 {
			v = v*8 + int(s[n]-'0')
			n++
		}
		return n, byte(v)
	}
	return 1, s[0]
}

// classBytes lists the C-locale members of a POSIX character class in
// ascending order; nil for an unknown class.
func classBytes(name string) []byte {
	var test func(b byte) bool
	switch name {
	case "alpha":
		test = func(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }
	case "digit":
		test = func(b byte) bool { return b >= '0' && b <= '9' }
	case "alnum":
		test = func(b byte) bool { return isAlnum(b) }
	case "upper":
		test = func(b byte) bool { return b >= 'A' && b <= 'Z' }
	case "lower":
		test = func(b byte) bool { return b >= 'a' && b <= 'z' }
	case "space":
		test = func(b byte) bool { return b == ' ' || b >= '\t' && b <= '\r' }
	case "blank":
		test = func(b byte) bool { return b == ' ' || b == '\t' }
	case "punct":
		test = func(b byte) bool { return b > ' ' && b < 0x7f && !isAlnum(b) }
	case "print":
		test = func(b byte) bool { return b >= ' ' && b < 0x7f }
	case "graph":
		test = func(b byte) bool { return b > ' ' && b < 0x7f }
	case "cntrl":
		test = func(b byte) bool { return b < ' ' || b == 0x7f }
	case "xdigit":
		test = func(b byte) bool { return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F' }
	default:
		return nil
	}
	var out []byte
	for x := 0; x < 256; x++ {
		if test(byte(x)) {
			out = append(out, byte(x))
		}
	}
	return out
}

// runTr evaluates `tr [-c] [-d] [-s] [-t] SET1 [SET2]` on bytes.
func runTr(c *call) (int, error) {
	opts, operands, err := getopt(c.args, optSpec{short: "cCdst", long: map[string]longOpt{
		"complement": {"c", false}, "delete": {"d", false}, "squeeze-repeats": {"s", false}, "truncate-set1": {"t", false},
	}})
	if err != nil {
		return 0, err
	}
	var comp, del, squeeze, trunc bool
	for _, o := range opts {
		switch o.key {
		case "c", "C":
			comp = true
		case "d":
			del = true
		case "s":
			squeeze = true
		case "t":
			trunc = true
		}
	}
	need := 2
	if del && !squeeze || squeeze && !del && len(operands) == 1 {
		need = 1
	}
	if len(operands) == 0 {
		return c.usageError("missing operand"), nil
	}
	if len(operands) < need {
		if del && squeeze {
			return c.usageError("missing operand after '%s'\nTwo strings must be given when both deleting and squeezing repeats.", operands[0]), nil
		}
		return c.usageError("missing operand after '%s'\nTwo strings must be given when translating.", operands[0]), nil
	}
	if len(operands) > need {
		if del && !squeeze {
			return c.usageError("extra operand '%s'\nOnly one string may be given when deleting without squeezing repeats.", operands[need]), nil
		}
		return c.usageError("extra operand '%s'", operands[need]), nil
	}
	set1, cl1, msg, err := trSet(operands[0])
	if err != nil {
		return 0, err
	}
	if msg != "" {
		c.errorf("%s", msg)
		return 1, nil
	}
	_ = cl1
	if comp {
		var in [256]bool
		for _, b := range set1 {
			in[b] = true
		}
		set1 = nil
		for x := 0; x < 256; x++ {
			if !in[x] {
				set1 = append(set1, byte(x))
			}
		}
	}
	var set2 []byte
	if len(operands) == 2 {
		var cl2 []string
		set2, cl2, msg, err = trSet(operands[1])
		if err != nil {
			return 0, err
		}
		if msg != "" {
			c.errorf("%s", msg)
			return 1, nil
		}
		for _, cl := range cl2 {
			if cl != "upper" && cl != "lower" {
				c.errorf("when translating, the only character classes that may appear in\nstring2 are 'upper' and 'lower'")
				return 1, nil
			}
		}
		if len(cl2) > 0 && (comp || len(cl2) != len(cl1)) {
			return 0, unsup("tr case-class mapping in this arrangement")
		}
	}
	data := c.stdin
	var mapping [256]int
	for i := range mapping {
		mapping[i] = i
	}
	var delSet, sqSet [256]bool
	translating := !del && len(operands) == 2
	if translating {
		if trunc && len(set1) > len(set2) {
			set1 = set1[:len(set2)]
		}
		if len(set2) == 0 && len(set1) > 0 {
			c.errorf("when not truncating set1, string2 must be non-empty")
			return 1, nil
		}
		for i, b := range set1 {
			j := i
			if j >= len(set2) {
				j = len(set2) - 1
			}
			mapping[b] = int(set2[j])
		}
		for _, b := range set2 {
			sqSet[b] = true
		}
	} else {
		if del {
			for _, b := range set1 {
				delSet[b] = true
			}
			for _, b := range set2 {
				sqSet[b] = true
			}
		} else {
			for _, b := range set1 {
				sqSet[b] = true
			}
		}
	}
	out := make([]byte, 0, len(data))
	last := -1
	for _, b := range data {
		if delSet[b] {
			continue
		}
		m := byte(mapping[b])
		if squeeze && sqSet[m] && int(m) == last {
			continue
		}
		out = append(out, m)
		last = int(m)
	}
	c.out.Write(out)
	return 0, nil
}

// ---- head / tail ----

// lineCount parses a head/tail count with an optional leading sign; a
// multiplier suffix is unsupported.
func lineCount(s string) (n int64, sign byte, ok bool, err error) {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		sign, s = s[0], s[1:]
	}
	if s == "" {
		return 0, sign, false, nil
	}
	if strings.Trim(s, "0123456789") != "" {
		if strings.TrimRight(s, "bkKMGTPEZYRQiB") != s && strings.Trim(strings.TrimRight(s, "bkKMGTPEZYRQiB"), "0123456789") == "" {
			return 0, sign, false, unsup("count with a size suffix %q", s)
		}
		return 0, sign, false, nil
	}
	v, e := strconv.ParseInt(s, 10, 64)
	if e != nil {
		v = math.MaxInt64
	}
	return v, sign, true, nil
}

// headTailArgs parses head/tail options: -n N, -c N, -q, -v, and the
// obsolete -N / +N (tail) first argument.
func headTailArgs(c *call, allowPlus bool) (bytes bool, n int64, sign byte, headers int, operands []string, status int, err error) {
	n = 10
	args := c.args
	if len(args) > 0 {
		a := args[0]
		if len(a) > 1 && (a[0] == '-' && a[1] >= '0' && a[1] <= '9' || allowPlus && a[0] == '+' && a[1] >= '0' && a[1] <= '9') {
			num := strings.TrimRight(a[1:], "lcbkmqvf")
			suffix := a[1+len(num):]
			if strings.Trim(num, "0123456789") != "" {
				return false, 0, 0, 0, nil, 0, unsup("option %s not implemented", a)
			}
			switch suffix {
			case "", "l":
			case "c":
				bytes = true
			default:
				return false, 0, 0, 0, nil, 0, unsup("obsolete option %s not implemented", a)
			}
			v, _ := strconv.ParseInt(num, 10, 64)
			n = v
			if a[0] == '+' {
				sign = '+'
			}
			args = args[1:]
		}
	}
	opts, operands, err := getopt(args, optSpec{short: "n:c:qv", long: map[string]longOpt{
		"lines": {"n", true}, "bytes": {"c", true}, "quiet": {"q", false}, "silent": {"q", false}, "verbose": {"v", false},
	}})
	if err != nil {
		return false, 0, 0, 0, nil, 0, err
	}
	for _, o := range opts {
		switch o.key {
		case "n", "c":
			v, s, ok, err := lineCount(o.val)
			if err != nil {
				return false, 0, 0, 0, nil, 0, err
			}
			if !ok {
				what := "lines"
				if o.key == "c" {
					what = "bytes"
				}
				c.errorf("invalid number of %s: '%s'", what, o.val)
				return false, 0, 0, 0, nil, 1, nil
			}
			bytes, n, sign = o.key == "c", v, s
		case "q":
			headers = -1
		case "v":
			headers = 1
		}
	}
	return bytes, n, sign, headers, operands, 0, nil
}

// lineStarts returns the offsets where each line of data begins.
func lineStarts(data []byte) []int {
	var starts []int
	for i := 0; i < len(data); i++ {
		if i == 0 || data[i-1] == '\n' {
			starts = append(starts, i)
		}
	}
	return starts
}

func runHead(c *call) (int, error) {
	bytes, n, sign, headers, operands, status, err := headTailArgs(c, false)
	if err != nil || status != 0 {
		return status, err
	}
	ins, err := c.inputs(operands)
	if err != nil {
		return 0, err
	}
	show := headers == 1 || headers == 0 && len(ins) > 1
	for k, in := range ins {
		if in.missing {
			c.errorf("cannot open '%s' for reading: No such file or directory", in.name)
			status = 1
			continue
		}
		if show {
			if k > 0 {
				c.out.WriteString("\n")
			}
			name := in.name
			if name == "-" {
				name = "standard input"
			}
			c.out.WriteString("==> " + name + " <==\n")
		}
		d := in.data
		var end int
		if bytes {
			end = clampCount(n, sign == '-', len(d))
		} else {
			starts := lineStarts(d)
			keep := clampCount(n, sign == '-', len(starts))
			if keep >= len(starts) {
				end = len(d)
			} else {
				end = starts[keep]
			}
		}
		c.out.Write(d[:end])
	}
	return status, nil
}

// clampCount returns how many of total units head keeps: the first n, or
// all but the last n when allBut.
func clampCount(n int64, allBut bool, total int) int {
	if allBut {
		if n >= int64(total) {
			return 0
		}
		return total - int(n)
	}
	if n >= int64(total) {
		return total
	}
	return int(n)
}

func runTail(c *call) (int, error) {
	for _, a := range c.args {
		switch {
		case a == "-f" || a == "-F" || strings.HasPrefix(a, "--follow") || strings.HasPrefix(a, "--pid") || a == "--retry" ||
			strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a[1:], "fF") && strings.Trim(a[1:], "0123456789") != "":
			return 0, unsup("following a file (%s) never ends", a)
		}
	}
	bytes, n, sign, headers, operands, status, err := headTailArgs(c, true)
	if err != nil || status != 0 {
		return status, err
	}
	ins, err := c.inputs(operands)
	if err != nil {
		return 0, err
	}
	show := headers == 1 || headers == 0 && len(ins) > 1
	for k, in := range ins {
		if in.missing {
			c.errorf("cannot open '%s' for reading: No such file or directory", in.name)
			status = 1
			continue
		}
		if show {
			if k > 0 {
				c.out.WriteString("\n")
			}
			name := in.name
			if name == "-" {
				name = "standard input"
			}
			c.out.WriteString("==> " + name + " <==\n")
		}
		d := in.data
		var start int
		if bytes {
			if sign == '+' {
				start = int(min(max(n-1, 0), int64(len(d))))
			} else {
				start = len(d) - clampCount(n, false, len(d))
			}
		} else {
			starts := lineStarts(d)
			if sign == '+' {
				i := max(n-1, 0)
				if i >= int64(len(starts)) {
					start = len(d)
				} else {
					start = starts[i]
				}
			} else {
				keep := clampCount(n, false, len(starts))
				if keep == 0 {
					start = len(d)
				} else {
					start = starts[len(starts)-keep]
				}
			}
		}
		c.out.Write(d[start:])
	}
	return status, nil
}

// ---- wc ----

func runWc(c *call) (int, error) {
	opts, operands, err := getopt(c.args, optSpec{short: "lwc", long: map[string]longOpt{
		"lines": {"l", false}, "words": {"w", false}, "bytes": {"c", false},
	}})
	if err != nil {
		return 0, err
	}
	var lines, words, bytes bool
	for _, o := range opts {
		switch o.key {
		case "l":
			lines = true
		case "w":
			words = true
		case "c":
			bytes = true
		}
	}
	if !lines && !words && !bytes {
		lines, words, bytes = true, true, true
	}
	named := len(operands) > 0
	ins, err := c.inputs(operands)
	if err != nil {
		return 0, err
	}
	type counts struct{ l, w, b int64 }
	var rows []counts
	var names []string
	var total counts
	status := 0
	width := 1
	minWidth := 1
	var regular int64
	for _, in := range ins {
		if in.missing {
			continue
		}
		if in.name == "-" {
			minWidth = 7
		} else {
			regular += int64(len(in.data))
		}
	}
	for ; regular >= 10; regular /= 10 {
		width++
	}
	width = max(width, minWidth)
	if (btoi(lines)+btoi(words)+btoi(bytes)) == 1 && len(ins) == 1 {
		width = 1
	}
	for _, in := range ins {
		if in.missing {
			c.errorf("%s: No such file or directory", in.name)
			status = 1
			continue
		}
		var k counts
		k.b = int64(len(in.data))
		inWord := false
		for _, ch := range in.data {
			if ch == '\n' {
				k.l++
			}
			if ch == ' ' || ch >= '\t' && ch <= '\r' {
				inWord = false
			} else if !inWord {
				inWord = true
				k.w++
			}
		}
		rows = append(rows, k)
		names = append(names, in.name)
		total.l += k.l
		total.w += k.w
		total.b += k.b
	}
	if len(ins) > 1 {
		rows = append(rows, total)
		names = append(names, "total")
	}
	for i, k := range rows {
		var parts []string
		if lines {
			parts = append(parts, padLeft(strconv.FormatInt(k.l, 10), width))
		}
		if words {
			parts = append(parts, padLeft(strconv.FormatInt(k.w, 10), width))
		}
		if bytes {
			parts = append(parts, padLeft(strconv.FormatInt(k.b, 10), width))
		}
		line := strings.Join(parts, " ")
		if named {
			line += " " + names[i]
		}
		c.out.WriteString(line + "\n")
	}
	return status, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func padLeft(s string, w int) string {
	if len(s) >= w {
		return s
	}
	return strings.Repeat(" ", w-len(s)) + s
}

// ---- sort ----

type sortKey struct {
	f1, f2  int // 1-based fields; f2 0 = end of line
	numeric bool
	reverse bool
}

// runSort evaluates `sort [-n] [-r] [-u] [-s] [-t C] [-k F1[,F2][nr]]…
// [FILE…]` with C-locale (byte) collation.
func runSort(c *call) (int, error) {
	opts, operands, err := getopt(c.args, optSpec{short: "nrust:k:", long: map[string]longOpt{
		"numeric-sort": {"n", false}, "reverse": {"r", false}, "unique": {"u", false}, "stable": {"s", false},
		"field-separator": {"t", true}, "key": {"k", true},
	}})
	if err != nil {
		return 0, err
	}
	var numeric, reverse, unique, stable bool
	sep := ""
	var keys []sortKey
	for _, o := range opts {
		switch o.key {
		case "n":
			numeric = true
		case "r":
			reverse = true
		case "u":
			unique = true
		case "s":
			stable = true
		case "t":
			if len(o.val) != 1 {
				if o.val == "" {
					c.errorf("empty tab")
				} else {
					c.errorf("multi-character tab '%s'", o.val)
				}
				return 2, nil
			}
			sep = o.val
		case "k":
			k, ok, err := parseSortKey(o.val)
			if err != nil {
				return 0, err
			}
			if !ok {
				c.errorf("invalid number at field start: invalid count at start of '%s'", o.val)
				return 2, nil
			}
			keys = append(keys, k)
		}
	}
	for i := range keys {
		if !keys[i].numeric && !keys[i].reverse {
			keys[i].numeric, keys[i].reverse = numeric, reverse
		}
	}
	ins, err := c.inputs(operands)
	if err != nil {
		return 0, err
	}
	var lines []string
	for _, in := range ins {
		if in.missing {
			c.errorf("cannot read: %s: No such file or directory", in.name)
			return 2, nil
		}
		ls, _ := splitLines(in.data)
		lines = append(lines, ls...)
	}
	keyCmp := func(a, b string) int {
		if len(keys) == 0 {
			r := 0
			if numeric {
				r = cmpNum(a, b)
			} else {
				r = strings.Compare(a, b)
			}
			if reverse {
				r = -r
			}
			return r
		}
		for _, k := range keys {
			ka, kb := sortField(a, sep, k), sortField(b, sep, k)
			var r int
			if k.numeric {
				r = cmpNum(ka, kb)
			} else {
				r = strings.Compare(ka, kb)
			}
			if k.reverse {
				r = -r
			}
			if r != 0 {
				return r
			}
		}
		return 0
	}
	full := func(a, b string) int {
		if r := keyCmp(a, b); r != 0 || stable || unique {
			return r
		}
		r := strings.Compare(a, b)
		if reverse {
			r = -r
		}
		return r
	}
	// Stable merge sort keeps input order among equal lines, which -s
	// and -u rely on.
	sorted := mergeSort(lines, full)
	var out []string
	for i, l := range sorted {
		if unique && i > 0 && keyCmp(sorted[i-1], l) == 0 {
			continue
		}
		out = append(out, l)
	}
	c.out.WriteString(joinLines(out))
	return 0, nil
}

func parseSortKey(s string) (sortKey, bool, error) {
	var k sortKey
	a, b, hasB := strings.Cut(s, ",")
	parse := func(p string, first bool) (int, error, bool) {
		num := strings.TrimRight(p, "bdfgiMhnRrV")
		opts := p[len(num):]
		if strings.Contains(num, ".") {
			return 0, unsup("sort key character offset in %q", s), true
		}
		for _, o := range opts {
			switch o {
			case 'n':
				k.numeric = true
			case 'r':
				k.reverse = true
			default:
				return 0, unsup("sort key option %c in %q", o, s), true
			}
		}
		n, err := strconv.Atoi(num)
		if err != nil || n < 1 && first || n < 0 {
			return 0, nil, false
		}
		return n, nil, true
	}
	f1, err, ok := parse(a, true)
	if err != nil || !ok {
		return k, ok, err
	}
	k.f1 = f1
	if hasB {
		f2, err, ok := parse(b, false)
		if err != nil || !ok {
			return k, ok, err
		}
		k.f2 = f2
	}
	return k, true, nil
}

// sortField extracts the text of key k from line: fields F1 through F2
// (to the end of the line when F2 is 0). Without a separator, a field is
// its leading blanks and the following non-blanks.
func sortField(line, sep string, k sortKey) string {
	var starts, ends []int
	if sep != "" {
		pos := 0
		for _, f := range strings.Split(line, sep) {
			starts = append(starts, pos)
			ends = append(ends, pos+len(f))
			pos += len(f) + 1
		}
	} else {
		i := 0
		for i < len(line) {
			st := i
			for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
				i++
			}
			for i < len(line) && line[i] != ' ' && line[i] != '\t' {
				i++
			}
			starts = append(starts, st)
			ends = append(ends, i)
		}
	}
	if k.f1 > len(starts) {
		return ""
	}
	from := starts[k.f1-1]
	to := len(line)
	if k.f2 > 0 && k.f2 <= len(ends) {
		to = ends[k.f2-1]
	}
	if to < from {
		return ""
	}
	return line[from:to]
}

// cmpNum compares like sort -n in the C locale: leading blanks, an
// optional '-', digits with an optional fraction; anything else is 0.
func cmpNum(a, b string) int {
	x, y := sortNum(a), sortNum(b)
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func sortNum(s string) float64 {
	t := strings.TrimLeft(s, " \t")
	j := 0
	if j < len(t) && t[j] == '-' {
		j++
	}
	st := j
	for j < len(t) && t[j] >= '0' && t[j] <= '9' {
		j++
	}
	if j < len(t) && t[j] == '.' {
		j++
		for j < len(t) && t[j] >= '0' && t[j] <= '9' {
			j++
		}
	}
	if j == st || t[st:j] == "." {
		return 0
	}
	v, err := strconv.ParseFloat(t[:j], 64)
	if err != nil {
		return 0
	}
	return v
}

func mergeSort(s []string, cmp func(a, b string) int) []string {
	if len(s) <= 1 {
		return append([]string(nil), s...)
	}
	mid := len(s) / 2
	l, r := mergeSort(s[:mid], cmp), mergeSort(s[mid:], cmp)
	out := make([]string, 0, len(s))
	i, j := 0, 0
	for i < len(l) && j < len(r) {
		if cmp(r[j], l[i]) < 0 {
			out = append(out, r[j])
			j++
		} else {
			out = append(out, l[i])
			i++
		}
	}
	out = append(out, l[i:]...)
	return append(out, r[j:]...)
}

// ---- uniq ----

func runUniq(c *call) (int, error) {
	opts, operands, err := getopt(c.args, optSpec{short: "cdui", long: map[string]longOpt{
		"count": {"c", false}, "repeated": {"d", false}, "unique": {"u", false}, "ignore-case": {"i", false},
	}})
	if err != nil {
		return 0, err
	}
	var count, dup, uniq, icase bool
	for _, o := range opts {
		switch o.key {
		case "c":
			count = true
		case "d":
			dup = true
		case "u":
			uniq = true
		case "i":
			icase = true
		}
	}
	if len(operands) > 1 {
		return 0, unsup("uniq OUTPUT operand")
	}
	ins, err := c.inputs(operands)
	if err != nil {
		return 0, err
	}
	if ins[0].missing {
		c.errorf("%s: No such file or directory", ins[0].name)
		return 1, nil
	}
	lines, _ := splitLines(ins[0].data)
	eq := func(a, b string) bool {
		if icase {
			return asciiLower(a) == asciiLower(b)
		}
		return a == b
	}
	for i := 0; i < len(lines); {
		j := i + 1
		for j < len(lines) && eq(lines[i], lines[j]) {
			j++
		}
		n := j - i
		if !(dup && n == 1 || uniq && n > 1) {
			if count {
				c.out.WriteString(padLeft(strconv.Itoa(n), 7) + " " + lines[i] + "\n")
			} else {
				c.out.WriteString(lines[i] + "\n")
			}
		}
		i = j
	}
	return 0, nil
}

// ---- paste ----

func runPaste(c *call) (int, error) {
	opts, operands, err := getopt(c.args, optSpec{short: "sd:", long: map[string]longOpt{
		"serial": {"s", false}, "delimiters": {"d", true},
	}})
	if err != nil {
		return 0, err
	}
	serial := false
	delims := []string{"\t"}
	for _, o := range opts {
		switch o.key {
		case "s":
			serial = true
		case "d":
			delims = nil
			for i := 0; i < len(o.val); i++ {
				if o.val[i] == '\\' && i+1 < len(o.val) {
					i++
					switch o.val[i] {
					case 'n':
						delims = append(delims, "\n")
					case 't':
						delims = append(delims, "\t")
					case '\\':
						delims = append(delims, "\\")
					case '0':
						delims = append(delims, "")
					default:
						return 0, unsup("paste delimiter escape \\%c", o.val[i])
					}
					continue
				}
				delims = append(delims, o.val[i:i+1])
			}
			if len(delims) == 0 {
				delims = []string{""}
			}
		}
	}
	ins, err := c.inputs(operands)
	if err != nil {
		return 0, err
	}
	stdinUsed := 0
	for _, in := range ins {
		if in.missing {
			c.errorf("%s: No such file or directory", in.name)
			return 1, nil
		}
		if in.name == "-" {
			stdinUsed++
		}
	}
	if stdinUsed > 1 && !serial {
		return 0, unsup("paste with stdin named more than once")
	}
	if serial {
		for _, in := range ins {
			lines, _ := splitLines(in.data)
			var b strings.Builder
			for i, l := range lines {
				if i > 0 {
					b.WriteString(delims[(i-1)%len(delims)])
				}
				b.WriteString(l)
			}
			c.out.WriteString(b.String() + "\n")
		}
		return 0, nil
	}
	var cols [][]string
	maxLen := 0
	for _, in := range ins {
		lines, _ := splitLines(in.data)
		cols = append(cols, lines)
		maxLen = max(maxLen, len(lines))
	}
	for r := 0; r < maxLen; r++ {
		var b strings.Builder
		for k, col := range cols {
			if k > 0 {
				b.WriteString(delims[(k-1)%len(delims)])
			}
			if r < len(col) {
				b.WriteString(col[r])
			}
		}
		c.out.WriteString(b.String() + "\n")
	}
	return 0, nil
}

// ---- basename / dirname ----

// gnuBasename strips directories (and trailing slashes) from name, then
// suffix unless that is the whole rest.
func gnuBasename(name, suffix string) string {
	if name == "" {
		return ""
	}
	t := strings.TrimRight(name, "/")
	if t == "" {
		return "/"
	}
	if i := strings.LastIndexByte(t, '/'); i >= 0 {
		t = t[i+1:]
	}
	if suffix != "" && t != suffix && strings.HasSuffix(t, suffix) {
		t = t[:len(t)-len(suffix)]
	}
	return t
}

func gnuDirname(name string) string {
	t := strings.TrimRight(name, "/")
	if t == "" {
		if strings.HasPrefix(name, "/") {
			return "/"
		}
		return "."
	}
	i := strings.LastIndexByte(t, '/')
	if i < 0 {
		return "."
	}
	d := strings.TrimRight(t[:i], "/")
	if d == "" {
		return "/"
	}
	return d
}

func runBasename(c *call) (int, error) {
	opts, operands, err := getopt(c.args, optSpec{short: "as:z", long: map[string]longOpt{
		"multiple": {"a", false}, "suffix": {"s", true}, "zero": {"z", false},
	}})
	if err != nil {
		return 0, err
	}
	multiple, suffix, term := false, "", "\n"
	for _, o := range opts {
		switch o.key {
		case "a":
			multiple = true
		case "s":
			multiple, suffix = true, o.val
		case "z":
			term = "\x00"
		}
	}
	if len(operands) == 0 {
		return c.usageError("missing operand"), nil
	}
	if !multiple {
		switch len(operands) {
		case 1:
		case 2:
			suffix = operands[1]
			operands = operands[:1]
		default:
			return c.usageError("extra operand '%s'", operands[2]), nil
		}
	}
	for _, o := range operands {
		c.out.WriteString(gnuBasename(o, suffix) + term)
	}
	return 0, nil
}

func runDirname(c *call) (int, error) {
	opts, operands, err := getopt(c.args, optSpec{short: "z", long: map[string]longOpt{"zero": {"z", false}}})
	if err != nil {
		return 0, err
	}
	term := "\n"
	if len(opts) > 0 {
		term = "\x00"
	}
	if len(operands) == 0 {
		return c.usageError("missing operand"), nil
	}
	for _, o := range operands {
		c.out.WriteString(gnuDirname(o) + term)
	}
	return 0, nil
}

// ---- sha1sum / sha256sum ----

func runSha1sum(c *call) (int, error) {
	return runDigest(c, func(b []byte) string { s := sha1.Sum(b); return hex.EncodeToString(s[:]) })
}

func runSha256sum(c *call) (int, error) {
	return runDigest(c, func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) })
}

func runDigest(c *call, sum func([]byte) string) (int, error) {
	_, operands, err := getopt(c.args, optSpec{})
	if err != nil {
		return 0, err
	}
	ins, err := c.inputs(operands)
	if err != nil {
		return 0, err
	}
	status := 0
	for _, in := range ins {
		if in.missing {
			c.errorf("%s: No such file or directory", in.name)
			status = 1
			continue
		}
		name := in.name
		if strings.ContainsAny(name, "\\\n\r") {
			return 0, unsup("file name needing escapes")
		}
		c.out.WriteString(sum(in.data) + "  " + name + "\n")
	}
	return status, nil
}
