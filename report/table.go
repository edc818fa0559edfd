package report

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// table is a tab-separated table written with two spaces between columns,
// like text/tabwriter, that fits a terminal width: when a line would be
// wider, the optional columns are dropped (in the order given), then the
// widest of the shrinkable columns is shortened in the middle with "…"
// (never below 12 runes; the end of a config key is what tells keys apart), until the table fits or nothing is left to drop or shorten.
// Identifying columns (verdicts, roles) are never cut. Rows are buffered
// until Flush.
type table struct {
	out    *bytes.Buffer
	width  int
	drop   []int // optional columns, least useful first
	shrink []int // free-text columns that may be shortened
	buf    bytes.Buffer
}

func newTable(out *bytes.Buffer, width int, drop, shrink []int) *table {
	return &table{out: out, width: width, drop: drop, shrink: shrink}
}

// Write buffers p (rows separated by "\n", cells by "\t").
func (t *table) Write(p []byte) (int, error) { return t.buf.Write(p) }

// Flush writes the buffered rows, aligned.
func (t *table) Flush() {
	text := strings.TrimSuffix(t.buf.String(), "\n")
	t.buf.Reset()
	if text == "" {
		return
	}
	var rows [][]string
	cols := 0
	for _, l := range strings.Split(text, "\n") {
		r := strings.Split(l, "\t")
		rows = append(rows, r)
		cols = max(cols, len(r))
	}
	widths := func() []int {
		w := make([]int, cols)
		for _, r := range rows {
			for i, c := range r {
				w[i] = max(w[i], utf8.RuneCountInString(c))
			}
		}
		return w
	}
	w := widths()
	total := func() int {
		n := 0
		for _, x := range w {
			n += x + 2
		}
		return n - 2
	}
	dropped := map[int]bool{}
	for _, c := range t.drop {
		if t.width <= 0 || total() <= t.width {
			break
		}
		if c < cols {
			dropped[c] = true
			w[c] = -2 // its width and separator no longer count
		}
	}
	const minCol = 12
	for t.width > 0 && total() > t.width {
		wide := -1
		for _, i := range t.shrink {
			if i < cols && !dropped[i] && w[i] > minCol && (wide < 0 || w[i] > w[wide]) {
				wide = i
			}
		}
		if wide < 0 {
			break
		}
		limit := max(minCol, w[wide]-(total()-t.width))
		for _, r := range rows {
			if wide < len(r) && utf8.RuneCountInString(r[wide]) > limit {
				r[wide] = clip(r[wide], limit) // keeps the end: key suffixes tell keys apart
			}
		}
		w = widths()
		for c := range dropped {
			w[c] = -2
		}
	}
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			if dropped[i] {
				continue
			}
			line.WriteString(c)
			if i < len(r)-1 {
				line.WriteString(strings.Repeat(" ", max(0, w[i]-utf8.RuneCountInString(c))+2))
			}
		}
		t.out.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}
