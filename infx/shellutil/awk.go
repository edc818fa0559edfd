package shellutil

import (
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// AwkStepBudget is the most statements (loop iterations and pattern tests
// included) one awk evaluation may execute; a program that needs more is
// refused (handled=false), never cut short.
const AwkStepBudget = 1_000_000

// AwkWorkBudget is the most string work one awk evaluation may do, in
// bytes processed (concatenated, compared, matched, split, substituted,
// formatted), each produced field, split element or substitution counting
// as awkItemCost bytes: 64 MiB. It bounds programs whose steps are few
// but each one long, such as a loop growing a string; a program that needs
// more is refused.
const AwkWorkBudget = 64 << 20

// awkItemCost is what one produced field, array element or substitution
// costs against AwkWorkBudget.
const awkItemCost = 64

// runAwk evaluates `awk [-F fs] [-v var=val]… [--] 'program' [file|var=val]…`
// with gawk 5 semantics in the C locale.
func runAwk(c *call) (int, error) {
	var fs *string
	var assigns [][2]string
	args := c.args
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		switch {
		case strings.HasPrefix(a, "-F"):
			v := a[2:]
			if v == "" {
				if i+1 >= len(args) {
					return 0, unsup("option -F needs an argument")
				}
				i++
				v = args[i]
			}
			v = awkUnescape(v)
			fs = &v
		case strings.HasPrefix(a, "-v"):
			v := a[2:]
			if v == "" {
				if i+1 >= len(args) {
					return 0, unsup("option -v needs an argument")
				}
				i++
				v = args[i]
			}
			name, val, ok := strings.Cut(v, "=")
			if !ok || !isAwkName(name) {
				c.errorf("`%s' argument to `-v' not in `var=value' form", v)
				return 2, nil
			}
			assigns = append(assigns, [2]string{name, val})
		default:
			return 0, unsup("option %s not implemented", a)
		}
	}
	if i >= len(args) {
		c.errb.WriteString("usage: awk [POSIX or GNU style options] -f progfile [--] file ...\n")
		return 2, nil
	}
	src := args[i]
	operands := args[i+1:]
	prog, err := parseAwk(src)
	if err != nil {
		var se *awkSyntaxError
		if errors.As(err, &se) {
			c.errb.WriteString("awk: cmd. line:1: " + se.msg + "\n")
			return 1, nil
		}
		return 0, err
	}
	in := newAwkInterp(c, prog)
	if fs != nil {
		in.setVar("FS", strVal(*fs))
	}
	for _, a := range assigns {
		if isAwkSpecial(a[0]) && a[0] != "FS" && a[0] != "OFS" && a[0] != "ORS" && a[0] != "SUBSEP" && a[0] != "CONVFMT" && a[0] != "OFMT" {
			return 0, unsup("-v %s is not implemented", a[0])
		}
		in.setVar(a[0], strnumVal(awkUnescape(a[1])))
	}
	in.argv = append([]string{"awk"}, operands...)
	return in.run(operands)
}

func isAwkName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '_' && !isAlnum(s[i]) {
			return false
		}
	}
	return !awkKeywords[s] && !awkBuiltins[s]
}

func isAwkSpecial(name string) bool {
	switch name {
	case "NR", "NF", "FNR", "FS", "OFS", "ORS", "RS", "SUBSEP", "CONVFMT", "OFMT", "RSTART", "RLENGTH",
		"FILENAME", "ENVIRON", "ARGC", "ARGV", "IGNORECASE", "RT", "FIELDWIDTHS", "FPAT", "PROCINFO",
		"BINMODE", "LINT", "TEXTDOMAIN", "ERRNO", "SYMTAB", "FUNCTAB", "ARGIND":
		return true
	}
	return false
}

// ---- values ----

type valKind uint8

const (
	kUninit valKind = iota
	kNum
	kStr
	kStrNum // input-derived string that looks numeric: compares as a number
)

type value struct {
	k valKind
	n float64
	s string
}

func numVal(n float64) value { return value{k: kNum, n: n} }
func strVal(s string) value  { return value{k: kStr, s: s} }

// strnumVal makes the value of input data (a field, a -v assignment, a
// split() element): a strnum when it looks numeric, else a string.
func strnumVal(s string) value {
	if n, ok := looksNumeric(s); ok {
		return value{k: kStrNum, n: n, s: s}
	}
	return value{k: kStr, s: s}
}

// looksNumeric reports whether s is a decimal number with optional
// surrounding blanks, as POSIX awk's strnum test (gawk also accepts
// +inf/+nan with an explicit sign; those are refused upstream).
func looksNumeric(s string) (float64, bool) {
	t := strings.Trim(s, " \t\n")
	if t == "" {
		return 0, false
	}
	j := 0
	if t[j] == '+' || t[j] == '-' {
		j++
	}
	digits := 0
	for j < len(t) && t[j] >= '0' && t[j] <= '9' {
		j++
		digits++
	}
	if j < len(t) && t[j] == '.' {
		j++
		for j < len(t) && t[j] >= '0' && t[j] <= '9' {
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, false
	}
	if j < len(t) && (t[j] == 'e' || t[j] == 'E') {
		k := j + 1
		if k < len(t) && (t[k] == '+' || t[k] == '-') {
			k++
		}
		if k < len(t) && t[k] >= '0' && t[k] <= '9' {
			for k < len(t) && t[k] >= '0' && t[k] <= '9' {
				k++
			}
			j = k
		}
	}
	if j != len(t) {
		return 0, false
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return n, true
}

// strToNum converts a string to a number as awk does: the longest leading
// decimal prefix (after blanks), 0 when there is none.
func strToNum(s string) float64 {
	t := strings.TrimLeft(s, " \t\n\r\f\v")
	j := 0
	if j < len(t) && (t[j] == '+' || t[j] == '-') {
		j++
	}
	digits := 0
	for j < len(t) && t[j] >= '0' && t[j] <= '9' {
		j++
		digits++
	}
	if j < len(t) && t[j] == '.' {
		j++
		for j < len(t) && t[j] >= '0' && t[j] <= '9' {
			j++
			digits++
		}
	}
	if digits == 0 {
		// gawk: "+inf", "-inf", "+nan", "-nan" with an explicit sign.
		if len(t) >= 4 && (t[0] == '+' || t[0] == '-') {
			switch strings.ToLower(t[1:4]) {
			case "inf":
				if t[0] == '-' {
					return math.Inf(-1)
				}
				return math.Inf(1)
			case "nan":
				return math.NaN()
			}
		}
		return 0
	}
	if j < len(t) && (t[j] == 'e' || t[j] == 'E') {
		k := j + 1
		if k < len(t) && (t[k] == '+' || t[k] == '-') {
			k++
		}
		if k < len(t) && t[k] >= '0' && t[k] <= '9' {
			for k < len(t) && t[k] >= '0' && t[k] <= '9' {
				k++
			}
			j = k
		}
	}
	n, err := strconv.ParseFloat(t[:j], 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0
	}
	return n
}

func (v value) num() float64 {
	switch v.k {
	case kNum, kStrNum:
		return v.n
	case kStr:
		return strToNum(v.s)
	}
	return 0
}

// ---- interpreter ----

type awkCell struct {
	v     value
	arr   map[string]value
	isArr bool
}

// errExit / errNext unwind the evaluation.
type awkExit struct{ status int }

func (awkExit) Error() string { return "exit" }

type awkNext struct{}

func (awkNext) Error() string { return "next" }

type awkBreak struct{}

func (awkBreak) Error() string { return "break" }

type awkContinue struct{}

func (awkContinue) Error() string { return "continue" }

// awkFatal is a run-time error gawk reports and exits on.
type awkFatal struct {
	msg    string
	status int
}

func (e *awkFatal) Error() string { return e.msg }

type awkInterp struct {
	c       *call
	prog    *awkProgram
	vars    map[string]*awkCell
	record  string
	fields  []string // fields[0] unused; valid when split
	split   bool
	nf      int
	steps   int
	work    int64
	regexes map[string]*regexp.Regexp
	argv    []string
	status  int
	inEnd   bool
}

func newAwkInterp(c *call, prog *awkProgram) *awkInterp {
	in := &awkInterp{c: c, prog: prog, vars: map[string]*awkCell{}, regexes: map[string]*regexp.Regexp{}}
	in.setVar("FS", strVal(" "))
	in.setVar("OFS", strVal(" "))
	in.setVar("ORS", strVal("\n"))
	in.setVar("RS", strVal("\n"))
	in.setVar("SUBSEP", strVal("\x1c"))
	in.setVar("CONVFMT", strVal("%.6g"))
	in.setVar("OFMT", strVal("%.6g"))
	in.setVar("NR", numVal(0))
	in.setVar("FNR", numVal(0))
	in.setVar("RSTART", numVal(0))
	in.setVar("RLENGTH", numVal(-1))
	return in
}

func (in *awkInterp) cell(name string) *awkCell {
	c := in.vars[name]
	if c == nil {
		c = &awkCell{}
		in.vars[name] = c
	}
	return c
}

func (in *awkInterp) setVar(name string, v value) {
	in.cell(name).v = v
}

func (in *awkInterp) getVar(name string) value { return in.cell(name).v }

// charge accounts n bytes of string work against AwkWorkBudget.
func (in *awkInterp) charge(n int) error {
	in.work += int64(n)
	if in.work > AwkWorkBudget {
		return unsup("awk program exceeds the work budget of %d bytes", AwkWorkBudget)
	}
	return nil
}

func (in *awkInterp) step() error {
	in.steps++
	if in.steps > AwkStepBudget {
		return unsup("awk program exceeds the step budget of %d", AwkStepBudget)
	}
	return nil
}

// toStr converts a value to a string with CONVFMT (output: OFMT).
func (in *awkInterp) toStr(v value, output bool) (string, error) {
	switch v.k {
	case kStr, kStrNum:
		return v.s, nil
	case kUninit:
		return "", nil
	}
	n := v.n
	if math.IsInf(n, 0) {
		if n > 0 {
			return "+inf", nil
		}
		return "-inf", nil
	}
	if math.IsNaN(n) {
		return "", unsup("string value of NaN (sign is platform-dependent)")
	}
	if n == math.Trunc(n) {
		if n == 0 {
			return "0", nil
		}
		return strconv.FormatFloat(n, 'f', 0, 64), nil
	}
	name := "CONVFMT"
	if output {
		name = "OFMT"
	}
	f, err := in.toStr(in.getVar(name), false)
	if err != nil {
		return "", err
	}
	return cprintf(f, []fmtArg{{num: n, isNum: true}})
}

func (in *awkInterp) truth(v value) bool {
	switch v.k {
	case kNum, kStrNum:
		return v.n != 0
	case kStr:
		return v.s != ""
	}
	return false
}

// ---- records and fields ----

func (in *awkInterp) setRecord(s string) {
	in.record = s
	in.split = false
}

func (in *awkInterp) splitRecord() error {
	if in.split {
		return nil
	}
	if err := in.charge(len(in.record)); err != nil {
		return err
	}
	fs, err := in.toStr(in.getVar("FS"), false)
	if err != nil {
		return err
	}
	parts, err := in.splitFS(in.record, fs)
	if err != nil {
		return err
	}
	in.fields = append([]string{""}, parts...)
	in.nf = len(parts)
	in.split = true
	return in.charge(awkItemCost * len(parts))
}

// splitFS splits s by field separator fs as awk does.
func (in *awkInterp) splitFS(s, fs string) ([]string, error) {
	switch {
	case fs == " ":
		return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }), nil
	case s == "":
		return nil, nil
	case fs == "":
		var out []string
		for _, r := range s {
			out = append(out, string(r))
		}
		return out, nil
	case len(fs) == 1 && fs != "\\":
		return strings.Split(s, fs), nil
	}
	re, err := in.regex(fs)
	if err != nil {
		return nil, err
	}
	var out []string
	last := 0
	for _, m := range re.FindAllStringIndex(s, -1) {
		if m[1] == m[0] {
			continue
		}
		out = append(out, s[last:m[0]])
		last = m[1]
	}
	return append(out, s[last:]), nil
}

func (in *awkInterp) getField(i int) (value, error) {
	if i == 0 {
		return strnumVal(in.record), nil
	}
	if err := in.splitRecord(); err != nil {
		return value{}, err
	}
	if i > in.nf {
		return value{}, nil
	}
	return strnumVal(in.fields[i]), nil
}

func (in *awkInterp) setField(i int, s string) error {
	if i == 0 {
		in.setRecord(s)
		return nil
	}
	if i > 100000 {
		return unsup("field index %d too large", i)
	}
	if err := in.splitRecord(); err != nil {
		return err
	}
	for in.nf < i {
		in.fields = append(in.fields, "")
		in.nf++
	}
	in.fields[i] = s
	return in.rebuild()
}

func (in *awkInterp) rebuild() error {
	ofs, err := in.toStr(in.getVar("OFS"), false)
	if err != nil {
		return err
	}
	in.record = strings.Join(in.fields[1:in.nf+1], ofs)
	return in.charge(len(in.record))
}

func (in *awkInterp) setNF(n int) error {
	if n < 0 || n > 100000 {
		return unsup("NF = %d", n)
	}
	if err := in.splitRecord(); err != nil {
		return err
	}
	for in.nf < n {
		in.fields = append(in.fields, "")
		in.nf++
	}
	in.nf = n
	in.fields = in.fields[:n+1]
	return in.rebuild()
}

// ---- regexes ----

func (in *awkInterp) regex(src string) (*regexp.Regexp, error) {
	if re, ok := in.regexes[src]; ok {
		return re, nil
	}
	if len(in.regexes) > 1000 {
		return nil, unsup("too many distinct dynamic regexes")
	}
	re, err := compilePOSIX(in.c.re, awkRegexSource(src), flavorERE, false)
	if err != nil {
		return nil, err
	}
	in.regexes[src] = re
	return re, nil
}

// awkRegexSource resolves the awk-level escapes of a regex (\/ \" \n \t
// and octal) before POSIX translation, leaving regex escapes alone.
func awkRegexSource(src string) string {
	if !strings.Contains(src, `\`) {
		return src
	}
	var b strings.Builder
	for i := 0; i < len(src); i++ {
		if src[i] == '\\' && i+1 < len(src) {
			switch d := src[i+1]; d {
			case '/', '"':
				b.WriteByte(d)
				i++
				continue
			case 'n':
				b.WriteString(`\n`)
				i++
				continue
			case 't':
				b.WriteString(`\t`)
				i++
				continue
			case 'y':
				b.WriteString(`\b`)
				i++
				continue
			}
			b.WriteByte('\\')
			b.WriteByte(src[i+1])
			i++
			continue
		}
		b.WriteByte(src[i])
	}
	return b.String()
}

// regexOf evaluates a regex operand: a literal is its source, anything
// else is a dynamic regex from its string value.
func (in *awkInterp) regexOf(x expr) (*regexp.Regexp, error) {
	if r, ok := x.(regexLit); ok {
		return in.regex(r.src)
	}
	if g, ok := x.(groupExpr); ok {
		if r, ok := g.x.(regexLit); ok {
			return in.regex(r.src)
		}
	}
	v, err := in.eval(x)
	if err != nil {
		return nil, err
	}
	s, err := in.toStr(v, false)
	if err != nil {
		return nil, err
	}
	return in.regex(s)
}

// ---- running ----

func (in *awkInterp) run(operands []string) (int, error) {
	err := in.runBlocks(in.prog.begin)
	if err == nil && (len(in.prog.items) > 0 || len(in.prog.end) > 0) {
		err = in.mainLoop(operands)
	}
	var ex awkExit
	if err != nil && !errors.As(err, &ex) {
		return in.fail(err)
	}
	if errors.As(err, &ex) {
		in.status = ex.status
	}
	in.inEnd = true
	err = in.runBlocks(in.prog.end)
	if errors.As(err, &ex) {
		in.status = ex.status
		err = nil
	}
	if err != nil {
		return in.fail(err)
	}
	return in.status, nil
}

func (in *awkInterp) fail(err error) (int, error) {
	var f *awkFatal
	if errors.As(err, &f) {
		in.c.errb.WriteString("awk: cmd. line:1: " + f.msg + "\n")
		return f.status, nil
	}
	var n awkNext
	if errors.As(err, &n) {
		in.c.errb.WriteString("awk: cmd. line:1: fatal: `next' used in BEGIN or END action\n")
		return 2, nil
	}
	return 0, err
}

func (in *awkInterp) runBlocks(blocks [][]stmt) error {
	for _, b := range blocks {
		if err := in.execList(b); err != nil {
			return err
		}
	}
	return nil
}

func (in *awkInterp) mainLoop(operands []string) error {
	files := 0
	for idx := 0; idx < len(operands); idx++ {
		op := in.argv[idx+1]
		if name, val, ok := strings.Cut(op, "="); ok && isAwkName(name) {
			if isAwkSpecial(name) && name != "FS" && name != "OFS" {
				return unsup("command-line assignment to %s", name)
			}
			in.setVar(name, strnumVal(awkUnescape(val)))
			continue
		}
		if op == "" {
			continue
		}
		files++
		inp, err := in.c.open(op)
		if err != nil {
			return err
		}
		if inp.missing {
			return &awkFatal{msg: "fatal: cannot open file `" + op + "' for reading: No such file or directory", status: 2}
		}
		if err := in.records(inp.data, op); err != nil {
			return err
		}
	}
	if files == 0 {
		return in.records(in.c.stdin, "")
	}
	return nil
}

func (in *awkInterp) records(data []byte, name string) error {
	rs, err := in.toStr(in.getVar("RS"), false)
	if err != nil {
		return err
	}
	if len(rs) != 1 {
		return unsup("RS = %q is not implemented", rs)
	}
	in.setVar("FILENAME", strVal(name))
	in.setVar("FNR", numVal(0))
	s := string(data)
	for len(s) > 0 {
		var rec string
		if k := strings.IndexByte(s, rs[0]); k >= 0 {
			rec, s = s[:k], s[k+1:]
		} else {
			rec, s = s, ""
		}
		in.setVar("NR", numVal(in.getVar("NR").num()+1))
		in.setVar("FNR", numVal(in.getVar("FNR").num()+1))
		in.setRecord(rec)
		if err := in.step(); err != nil {
			return err
		}
		for _, it := range in.prog.items {
			ok := true
			if it.pat != nil {
				v, err := in.evalCond(it.pat)
				if err != nil {
					var n awkNext
					if errors.As(err, &n) {
						break
					}
					return err
				}
				ok = v
			}
			if !ok {
				continue
			}
			var err error
			if it.hasAct {
				err = in.execList(it.action)
			} else {
				err = in.print(nil)
			}
			if err != nil {
				var n awkNext
				if errors.As(err, &n) {
					break
				}
				return err
			}
		}
	}
	return nil
}

// evalCond evaluates a pattern or condition; a bare regex matches $0.
func (in *awkInterp) evalCond(x expr) (bool, error) {
	v, err := in.eval(x)
	if err != nil {
		return false, err
	}
	return in.truth(v), nil
}

func (in *awkInterp) execList(list []stmt) error {
	for _, s := range list {
		if err := in.exec(s); err != nil {
			return err
		}
	}
	return nil
}

func (in *awkInterp) exec(s stmt) error {
	if err := in.step(); err != nil {
		return err
	}
	switch s := s.(type) {
	case exprStmt:
		_, err := in.eval(s.x)
		return err
	case printStmt:
		if s.printf {
			return in.printf(s.args)
		}
		return in.print(s.args)
	case blockStmt:
		return in.execList(s.body)
	case ifStmt:
		ok, err := in.evalCond(s.c)
		if err != nil {
			return err
		}
		if ok {
			return in.execList(s.then)
		}
		return in.execList(s.els)
	case whileStmt:
		first := true
		for {
			if !(s.do && first) {
				ok, err := in.evalCond(s.c)
				if err != nil {
					return err
				}
				if !ok {
					return nil
				}
			}
			first = false
			if err := in.step(); err != nil {
				return err
			}
			if err := in.execList(s.body); err != nil {
				if errors.As(err, new(awkBreak)) {
					return nil
				}
				if !errors.As(err, new(awkContinue)) {
					return err
				}
			}
		}
	case forStmt:
		if s.init != nil {
			if err := in.exec(s.init); err != nil {
				return err
			}
		}
		for {
			if s.c != nil {
				ok, err := in.evalCond(s.c)
				if err != nil {
					return err
				}
				if !ok {
					return nil
				}
			}
			if err := in.step(); err != nil {
				return err
			}
			if err := in.execList(s.body); err != nil {
				if errors.As(err, new(awkBreak)) {
					return nil
				}
				if !errors.As(err, new(awkContinue)) {
					return err
				}
			}
			if s.post != nil {
				if err := in.exec(s.post); err != nil {
					return err
				}
			}
		}
	case forInStmt:
		c := in.cell(s.arr)
		if !c.isArr {
			if c.v.k != kUninit {
				return &awkFatal{msg: "fatal: attempt to use scalar `" + s.arr + "' as an array", status: 2}
			}
			c.isArr, c.arr = true, map[string]value{}
		}
		// gawk's for-in order is unspecified (hash order); only an order
		// that cannot matter is answered: at most one element.
		if len(c.arr) > 1 {
			return unsup("for (k in %s) over %d elements: iteration order is gawk's hash order", s.arr, len(c.arr))
		}
		for k := range c.arr {
			in.setVar(s.v, strnumVal(k))
			if err := in.execList(s.body); err != nil {
				if errors.As(err, new(awkBreak)) {
					return nil
				}
				if !errors.As(err, new(awkContinue)) {
					return err
				}
			}
		}
		return nil
	case nextStmt:
		if in.inEnd {
			return awkNext{}
		}
		return awkNext{}
	case exitStmt:
		st := in.status
		if s.x != nil {
			v, err := in.eval(s.x)
			if err != nil {
				return err
			}
			st = int(int64(v.num())) & 0xff
		}
		return awkExit{status: st}
	case breakStmt:
		return awkBreak{}
	case continueStmt:
		return awkContinue{}
	case deleteStmt:
		c := in.cell(s.arr)
		if !c.isArr {
			if c.v.k != kUninit {
				return &awkFatal{msg: "fatal: attempt to use scalar `" + s.arr + "' as an array", status: 2}
			}
			c.isArr, c.arr = true, map[string]value{}
		}
		if s.keys == nil {
			c.arr = map[string]value{}
			return nil
		}
		k, err := in.key(s.keys)
		if err != nil {
			return err
		}
		delete(c.arr, k)
		return nil
	}
	return unsup("statement %T", s)
}

func (in *awkInterp) print(args []expr) error {
	var parts []string
	if len(args) == 0 {
		parts = []string{in.record}
	}
	for _, a := range args {
		v, err := in.eval(a)
		if err != nil {
			return err
		}
		s, err := in.toStr(v, true)
		if err != nil {
			return err
		}
		parts = append(parts, s)
	}
	ofs, err := in.toStr(in.getVar("OFS"), false)
	if err != nil {
		return err
	}
	ors, err := in.toStr(in.getVar("ORS"), false)
	if err != nil {
		return err
	}
	in.c.out.WriteString(strings.Join(parts, ofs) + ors)
	if in.c.out.over {
		return unsup("output exceeds %d bytes", MaxOutput)
	}
	return nil
}

func (in *awkInterp) sprintf(args []expr) (string, error) {
	if len(args) == 0 {
		return "", &awkFatal{msg: "fatal: sprintf: no arguments", status: 2}
	}
	fv, err := in.eval(args[0])
	if err != nil {
		return "", err
	}
	format, err := in.toStr(fv, false)
	if err != nil {
		return "", err
	}
	var fa []fmtArg
	for _, a := range args[1:] {
		v, err := in.eval(a)
		if err != nil {
			return "", err
		}
		arg := fmtArg{}
		switch v.k {
		case kNum:
			arg.num, arg.isNum = v.n, true
			arg.str, err = in.toStr(v, false)
		case kStrNum:
			arg.num, arg.isNum, arg.str = v.n, true, v.s
			arg.strnum = true
		case kStr:
			arg.num, arg.str = strToNum(v.s), v.s
		default:
			arg.isNum, arg.strnum = true, true
		}
		if err != nil {
			return "", err
		}
		fa = append(fa, arg)
	}
	s, err := cprintf(format, fa)
	if err == nil {
		err = in.charge(len(s))
	}
	if err != nil {
		var ne *notEnoughArgs
		if errors.As(err, &ne) {
			return "", &awkFatal{msg: "fatal: not enough arguments to satisfy format string", status: 2}
		}
		return "", err
	}
	return s, nil
}

func (in *awkInterp) printf(args []expr) error {
	s, err := in.sprintf(args)
	if err != nil {
		return err
	}
	in.c.out.WriteString(s)
	if in.c.out.over {
		return unsup("output exceeds %d bytes", MaxOutput)
	}
	return nil
}

func (in *awkInterp) key(keys []expr) (string, error) {
	var parts []string
	for _, k := range keys {
		v, err := in.eval(k)
		if err != nil {
			return "", err
		}
		s, err := in.toStr(v, false)
		if err != nil {
			return "", err
		}
		if err := in.charge(len(s)); err != nil {
			return "", err
		}
		parts = append(parts, s)
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	sep, err := in.toStr(in.getVar("SUBSEP"), false)
	if err != nil {
		return "", err
	}
	return strings.Join(parts, sep), nil
}

func (in *awkInterp) array(name string) (*awkCell, error) {
	c := in.cell(name)
	if !c.isArr {
		if c.v.k != kUninit || isAwkSpecial(name) {
			return nil, &awkFatal{msg: "fatal: attempt to use scalar `" + name + "' as an array", status: 2}
		}
		c.isArr, c.arr = true, map[string]value{}
	}
	return c, nil
}

// fieldIndex evaluates a $ index.
func (in *awkInterp) fieldIndex(x expr) (int, error) {
	v, err := in.eval(x)
	if err != nil {
		return 0, err
	}
	n := v.num()
	if n < 0 {
		return 0, &awkFatal{msg: "fatal: attempt to access field " + strconv.Itoa(int(n)), status: 2}
	}
	if n > 1e6 {
		return 0, unsup("field index %g too large", n)
	}
	return int(n), nil
}

func (in *awkInterp) readVar(name string) (value, error) {
	switch name {
	case "NF":
		if err := in.splitRecord(); err != nil {
			return value{}, err
		}
		return numVal(float64(in.nf)), nil
	case "ENVIRON", "PROCINFO", "IGNORECASE", "FIELDWIDTHS", "FPAT", "RT", "SYMTAB", "FUNCTAB", "ERRNO":
		return value{}, unsup("%s is not implemented", name)
	case "ARGC":
		return numVal(float64(len(in.argv))), nil
	}
	c := in.cell(name)
	if c.isArr {
		return value{}, &awkFatal{msg: "fatal: attempt to use array `" + name + "' in a scalar context", status: 2}
	}
	return c.v, nil
}

func (in *awkInterp) assign(lv expr, v value) error {
	switch lv := lv.(type) {
	case varRef:
		switch lv.name {
		case "NF":
			return in.setNF(int(v.num()))
		case "ENVIRON", "PROCINFO", "IGNORECASE", "FIELDWIDTHS", "FPAT", "RS", "ARGC", "ARGV":
			return unsup("assignment to %s is not implemented", lv.name)
		}
		c := in.cell(lv.name)
		if c.isArr {
			return &awkFatal{msg: "fatal: attempt to use array `" + lv.name + "' in a scalar context", status: 2}
		}
		c.v = v
		return nil
	case fieldRef:
		i, err := in.fieldIndex(lv.idx)
		if err != nil {
			return err
		}
		s, err := in.toStr(v, false)
		if err != nil {
			return err
		}
		return in.setField(i, s)
	case indexRef:
		if lv.name == "ARGV" || lv.name == "ENVIRON" {
			return unsup("assignment to %s", lv.name)
		}
		c, err := in.array(lv.name)
		if err != nil {
			return err
		}
		k, err := in.key(lv.keys)
		if err != nil {
			return err
		}
		c.arr[k] = v
		return nil
	}
	return unsup("assignment to %T", lv)
}

func (in *awkInterp) eval(x expr) (value, error) {
	switch x := x.(type) {
	case numLit:
		return numVal(x.v), nil
	case strLit:
		return strVal(x.v), nil
	case regexLit:
		re, err := in.regex(x.src)
		if err != nil {
			return value{}, err
		}
		if err := in.charge(len(in.record)); err != nil {
			return value{}, err
		}
		if re.MatchString(in.record) {
			return numVal(1), nil
		}
		return numVal(0), nil
	case groupExpr:
		return in.eval(x.x)
	case varRef:
		return in.readVar(x.name)
	case fieldRef:
		i, err := in.fieldIndex(x.idx)
		if err != nil {
			return value{}, err
		}
		return in.getField(i)
	case indexRef:
		if x.name == "ARGV" {
			k, err := in.key(x.keys)
			if err != nil {
				return value{}, err
			}
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(in.argv) {
				return value{}, nil
			}
			return strnumVal(in.argv[i]), nil
		}
		if x.name == "ENVIRON" || x.name == "PROCINFO" {
			return value{}, unsup("%s is not implemented", x.name)
		}
		c, err := in.array(x.name)
		if err != nil {
			return value{}, err
		}
		k, err := in.key(x.keys)
		if err != nil {
			return value{}, err
		}
		v, ok := c.arr[k]
		if !ok {
			// Referencing an element creates it (uninitialized).
			c.arr[k] = value{}
		}
		return v, nil
	case assignExpr:
		rhs, err := in.eval(x.rhs)
		if err != nil {
			return value{}, err
		}
		if x.op != "=" {
			cur, err := in.eval(x.lhs)
			if err != nil {
				return value{}, err
			}
			n, err := arith(x.op[:1], cur.num(), rhs.num())
			if err != nil {
				return value{}, err
			}
			rhs = numVal(n)
		} else if rhs.k == kUninit {
			rhs = value{}
		}
		return rhs, in.assign(x.lhs, rhs)
	case condExpr:
		ok, err := in.evalCond(x.c)
		if err != nil {
			return value{}, err
		}
		if ok {
			return in.eval(x.a)
		}
		return in.eval(x.b)
	case unaryExpr:
		v, err := in.eval(x.x)
		if err != nil {
			return value{}, err
		}
		switch x.op {
		case "!":
			if in.truth(v) {
				return numVal(0), nil
			}
			return numVal(1), nil
		case "-":
			return numVal(-v.num()), nil
		}
		return numVal(v.num()), nil
	case incdecExpr:
		cur, err := in.eval(x.lv)
		if err != nil {
			return value{}, err
		}
		n := cur.num()
		d := 1.0
		if x.op == "--" {
			d = -1
		}
		if err := in.assign(x.lv, numVal(n+d)); err != nil {
			return value{}, err
		}
		if x.post {
			return numVal(n), nil
		}
		return numVal(n + d), nil
	case matchExpr:
		l, err := in.eval(x.l)
		if err != nil {
			return value{}, err
		}
		s, err := in.toStr(l, false)
		if err != nil {
			return value{}, err
		}
		re, err := in.regexOf(x.re)
		if err != nil {
			return value{}, err
		}
		if err := in.charge(len(s)); err != nil {
			return value{}, err
		}
		if re.MatchString(s) != x.neg {
			return numVal(1), nil
		}
		return numVal(0), nil
	case inExpr:
		c, err := in.array(x.arr)
		if err != nil {
			return value{}, err
		}
		k, err := in.key(x.keys)
		if err != nil {
			return value{}, err
		}
		if _, ok := c.arr[k]; ok {
			return numVal(1), nil
		}
		return numVal(0), nil
	case binExpr:
		return in.binary(x)
	case callExpr:
		return in.call(x)
	}
	return value{}, unsup("expression %T", x)
}

func arith(op string, a, b float64) (float64, error) {
	switch op {
	case "+":
		return a + b, nil
	case "-":
		return a - b, nil
	case "*":
		return a * b, nil
	case "/":
		if b == 0 {
			return 0, &awkFatal{msg: "error: division by zero attempted", status: 1}
		}
		return a / b, nil
	case "%":
		if b == 0 {
			return 0, &awkFatal{msg: "error: division by zero attempted in `%'", status: 1}
		}
		return math.Mod(a, b), nil
	case "^":
		return math.Pow(a, b), nil
	}
	return 0, unsup("operator %s", op)
}

func isNumeric(v value) bool { return v.k == kNum || v.k == kStrNum || v.k == kUninit }

func (in *awkInterp) binary(x binExpr) (value, error) {
	switch x.op {
	case "&&":
		l, err := in.evalCond(x.l)
		if err != nil || !l {
			return numVal(0), err
		}
		r, err := in.evalCond(x.r)
		if err != nil || !r {
			return numVal(0), err
		}
		return numVal(1), nil
	case "||":
		l, err := in.evalCond(x.l)
		if err != nil {
			return value{}, err
		}
		if l {
			return numVal(1), nil
		}
		r, err := in.evalCond(x.r)
		if err != nil || !r {
			return numVal(0), err
		}
		return numVal(1), nil
	}
	l, err := in.eval(x.l)
	if err != nil {
		return value{}, err
	}
	r, err := in.eval(x.r)
	if err != nil {
		return value{}, err
	}
	switch x.op {
	case "concat":
		ls, err := in.toStr(l, false)
		if err != nil {
			return value{}, err
		}
		rs, err := in.toStr(r, false)
		if err != nil {
			return value{}, err
		}
		if len(ls)+len(rs) > MaxOutput {
			return value{}, unsup("string longer than %d bytes", MaxOutput)
		}
		if err := in.charge(len(ls) + len(rs)); err != nil {
			return value{}, err
		}
		return strVal(ls + rs), nil
	case "<", "<=", "==", "!=", ">=", ">":
		var cmp int
		if isNumeric(l) && isNumeric(r) {
			a, b := l.num(), r.num()
			switch {
			case a < b:
				cmp = -1
			case a > b:
				cmp = 1
			case a == b:
				cmp = 0
			default:
				return value{}, unsup("comparison with NaN")
			}
		} else {
			ls, err := in.toStr(l, false)
			if err != nil {
				return value{}, err
			}
			rs, err := in.toStr(r, false)
			if err != nil {
				return value{}, err
			}
			if err := in.charge(len(ls) + len(rs)); err != nil {
				return value{}, err
			}
			cmp = strings.Compare(ls, rs)
		}
		var ok bool
		switch x.op {
		case "<":
			ok = cmp < 0
		case "<=":
			ok = cmp <= 0
		case "==":
			ok = cmp == 0
		case "!=":
			ok = cmp != 0
		case ">=":
			ok = cmp >= 0
		case ">":
			ok = cmp > 0
		}
		if ok {
			return numVal(1), nil
		}
		return numVal(0), nil
	}
	n, err := arith(x.op, l.num(), r.num())
	return numVal(n), err
}

// argStr evaluates a string argument of a builtin, charging its length
// (every string builtin scans or copies it).
func (in *awkInterp) argStr(args []expr, i int) (string, error) {
	v, err := in.eval(args[i])
	if err != nil {
		return "", err
	}
	s, err := in.toStr(v, false)
	if err != nil {
		return "", err
	}
	return s, in.charge(len(s))
}

func (in *awkInterp) argNum(args []expr, i int) (float64, error) {
	v, err := in.eval(args[i])
	if err != nil {
		return 0, err
	}
	return v.num(), nil
}

func (in *awkInterp) call(x callExpr) (value, error) {
	a := x.args
	nargs := func(min, max int) error {
		if len(a) < min || len(a) > max {
			return &awkFatal{msg: "fatal: " + x.fn + ": called with wrong number of arguments", status: 1}
		}
		return nil
	}
	switch x.fn {
	case "length":
		if len(a) == 0 {
			return numVal(float64(len(in.record))), nil
		}
		if err := nargs(1, 1); err != nil {
			return value{}, err
		}
		if v, ok := a[0].(varRef); ok {
			if c := in.cell(v.name); c.isArr {
				return numVal(float64(len(c.arr))), nil
			}
		}
		s, err := in.argStr(a, 0)
		return numVal(float64(len(s))), err
	case "substr":
		if err := nargs(2, 3); err != nil {
			return value{}, err
		}
		s, err := in.argStr(a, 0)
		if err != nil {
			return value{}, err
		}
		m, err := in.argNum(a, 1)
		if err != nil {
			return value{}, err
		}
		n := math.Inf(1)
		if len(a) == 3 {
			if n, err = in.argNum(a, 2); err != nil {
				return value{}, err
			}
		}
		return strVal(awkSubstr(s, m, n)), nil
	case "index":
		if err := nargs(2, 2); err != nil {
			return value{}, err
		}
		s, err := in.argStr(a, 0)
		if err != nil {
			return value{}, err
		}
		t, err := in.argStr(a, 1)
		if err != nil {
			return value{}, err
		}
		return numVal(float64(strings.Index(s, t) + 1)), nil
	case "split":
		if err := nargs(2, 3); err != nil {
			return value{}, err
		}
		s, err := in.argStr(a, 0)
		if err != nil {
			return value{}, err
		}
		arrRef, ok := a[1].(varRef)
		if !ok {
			return value{}, &awkFatal{msg: "fatal: split: second argument is not an array", status: 2}
		}
		var parts []string
		if len(a) == 3 {
			if _, isRe := a[2].(regexLit); isRe {
				re, err := in.regexOf(a[2])
				if err != nil {
					return value{}, err
				}
				parts = splitRegex(s, re)
			} else {
				fs, err := in.argStr(a, 2)
				if err != nil {
					return value{}, err
				}
				if parts, err = in.splitFS(s, fs); err != nil {
					return value{}, err
				}
			}
		} else {
			fs, err := in.toStr(in.getVar("FS"), false)
			if err != nil {
				return value{}, err
			}
			if parts, err = in.splitFS(s, fs); err != nil {
				return value{}, err
			}
		}
		c, err := in.array(arrRef.name)
		if err != nil {
			return value{}, err
		}
		if err := in.charge(awkItemCost * len(parts)); err != nil {
			return value{}, err
		}
		c.arr = map[string]value{}
		for i, p := range parts {
			c.arr[strconv.Itoa(i+1)] = strnumVal(p)
		}
		return numVal(float64(len(parts))), nil
	case "sub", "gsub":
		if err := nargs(2, 3); err != nil {
			return value{}, err
		}
		re, err := in.regexOf(a[0])
		if err != nil {
			return value{}, err
		}
		repl, err := in.argStr(a, 1)
		if err != nil {
			return value{}, err
		}
		var target expr = fieldRef{idx: numLit{v: 0}}
		if len(a) == 3 {
			target = a[2]
			if g, ok := target.(groupExpr); ok {
				target = g.x
			}
			if !isLvalue(target) {
				return value{}, unsup("%s target is not assignable", x.fn)
			}
		}
		tv, err := in.eval(target)
		if err != nil {
			return value{}, err
		}
		ts, err := in.toStr(tv, false)
		if err != nil {
			return value{}, err
		}
		if err := in.charge(2 * len(ts)); err != nil {
			return value{}, err
		}
		out, n := awkSubstitute(re, ts, repl, x.fn == "gsub")
		if err := in.charge(awkItemCost*n + len(out)); err != nil {
			return value{}, err
		}
		if n > 0 {
			if err := in.assign(target, strVal(out)); err != nil {
				return value{}, err
			}
		}
		return numVal(float64(n)), nil
	case "match":
		if err := nargs(2, 2); err != nil {
			return value{}, err
		}
		s, err := in.argStr(a, 0)
		if err != nil {
			return value{}, err
		}
		re, err := in.regexOf(a[1])
		if err != nil {
			return value{}, err
		}
		m := re.FindStringIndex(s)
		if m == nil {
			in.setVar("RSTART", numVal(0))
			in.setVar("RLENGTH", numVal(-1))
			return numVal(0), nil
		}
		in.setVar("RSTART", numVal(float64(m[0]+1)))
		in.setVar("RLENGTH", numVal(float64(m[1]-m[0])))
		return numVal(float64(m[0] + 1)), nil
	case "sprintf":
		s, err := in.sprintf(a)
		return strVal(s), err
	case "tolower", "toupper":
		if err := nargs(1, 1); err != nil {
			return value{}, err
		}
		s, err := in.argStr(a, 0)
		if err != nil {
			return value{}, err
		}
		if x.fn == "tolower" {
			return strVal(asciiLower(s)), nil
		}
		return strVal(asciiUpper(s)), nil
	case "int", "sqrt", "exp", "log", "sin", "cos":
		if err := nargs(1, 1); err != nil {
			return value{}, err
		}
		n, err := in.argNum(a, 0)
		if err != nil {
			return value{}, err
		}
		switch x.fn {
		case "int":
			return numVal(math.Trunc(n)), nil
		case "sqrt":
			return numVal(math.Sqrt(n)), nil
		case "exp":
			return numVal(math.Exp(n)), nil
		case "log":
			return numVal(math.Log(n)), nil
		case "sin":
			return numVal(math.Sin(n)), nil
		}
		return numVal(math.Cos(n)), nil
	case "atan2":
		if err := nargs(2, 2); err != nil {
			return value{}, err
		}
		y, err := in.argNum(a, 0)
		if err != nil {
			return value{}, err
		}
		xx, err := in.argNum(a, 1)
		if err != nil {
			return value{}, err
		}
		return numVal(math.Atan2(y, xx)), nil
	case "fflush":
		// Output is collected, so flushing is a no-op; fflush() returns 0.
		return numVal(0), nil
	}
	return value{}, unsup("builtin %s() is not implemented", x.fn)
}

// awkSubstr implements substr(s, m, n) as gawk 5.2 answers it
// (measured): m and n are truncated toward zero, a start below 1 is
// taken as 1 without shortening n, and characters are bytes (C locale).
func awkSubstr(s string, m, n float64) string {
	if math.IsNaN(m) || math.IsNaN(n) {
		return ""
	}
	start := math.Trunc(m)
	if start < 1 {
		start = 1
	}
	if start > float64(len(s)) {
		return ""
	}
	end := float64(len(s)) + 1
	if !math.IsInf(n, 1) {
		l := math.Trunc(n)
		if l <= 0 {
			return ""
		}
		end = math.Min(end, start+l)
	}
	return s[int(start)-1 : int(end)-1]
}

// awkSubstitute replaces the first (or every, for gsub) match of re in s
// with repl, where & is the matched text and \& a literal & (POSIX rules,
// as gawk since 4.0).
func awkSubstitute(re *regexp.Regexp, s, repl string, global bool) (string, int) {
	var b strings.Builder
	n := 0
	last := 0
	prevEnd := -1
	for _, m := range re.FindAllStringIndex(s, -1) {
		if m[0] == m[1] && m[0] == prevEnd {
			continue
		}
		b.WriteString(s[last:m[0]])
		for i := 0; i < len(repl); i++ {
			ch := repl[i]
			switch {
			case ch == '\\' && i+1 < len(repl) && (repl[i+1] == '&' || repl[i+1] == '\\'):
				b.WriteByte(repl[i+1])
				i++
			case ch == '&':
				b.WriteString(s[m[0]:m[1]])
			default:
				b.WriteByte(ch)
			}
		}
		last = m[1]
		prevEnd = m[1]
		n++
		if !global {
			break
		}
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}

func splitRegex(s string, re *regexp.Regexp) []string {
	if s == "" {
		return nil
	}
	var out []string
	last := 0
	for _, m := range re.FindAllStringIndex(s, -1) {
		if m[0] == m[1] {
			continue
		}
		out = append(out, s[last:m[0]])
		last = m[1]
	}
	return append(out, s[last:])
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}
