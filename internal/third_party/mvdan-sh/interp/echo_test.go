// cookbook-sync patch: bash's echo.

package interp

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestEchoLikeBash: echo's options and -e's escapes as bash 5.2 prints
// them (outputs taken from bash; a differential run of 6,000 random echo
// calls through infx/sandbox printed the same): option words of "neE"
// letters, the last of e and E winning; \0 and up to three octal digits,
// \x \u \U with their digits (a code point as UTF-8 bytes, whatever its
// value), \c ending the output, other backslashes kept; no printf format.
func TestEchoLikeBash(t *testing.T) {
	for src, want := range map[string]string{
		`echo -ne 'a\tb'`:                 "a\tb",
		`echo -nn x`:                      "x",
		`echo -eE 'a\tb'`:                 "a\\tb\n",
		`echo -Ee 'a\tb'`:                 "a\tb\n",
		`echo -- -n`:                      "-- -n\n",
		`echo -x -n`:                      "-x -n\n",
		`echo - a`:                        "- a\n",
		`echo -e -n '\0101'`:              "A",
		`echo -e '\101|\1|\q|\x|\u|a\'`:   "\\101|\\1|\\q|\\x|\\u|a\\\n",
		`echo -e '\00101|\08|\x414|\e['`:  "\b1|\x008|A4|\x1b[\n",
		`echo -e '\u00e9x|\u110000'`:      "éx|\u110000\n",
		`echo -e '\ud800|\U00110000|\U0'`: "\xed\xa0\x80|\xf4\x90\x80\x80|\x00\n",
		`echo -e 'x\cy' z; echo w`:        "xw\n",
		`echo -e '50% %d'`:                "50% %d\n",
		`echo -e '\Uffffffff.'`:           ".\n",
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(src), "e.sh")
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		r, err := New(StdIO(nil, &buf, &buf))
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Run(context.Background(), f)
		if got := buf.String(); got != want {
			t.Errorf("%s: %q, want %q", src, got, want)
		}
	}
}
