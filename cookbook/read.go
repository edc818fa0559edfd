// Package cookbook reads the SGLang cookbook's AgentX launch data
// (sgl-project/sglang docs/src/snippets/agentx/<org>/<model>.jsx) and decodes
// every selection (cell × point × router × KV tier) exactly as the cookbook
// page's own decoder (docs/src/snippets/_agentx.jsx) does, into shell text
// and into the shared launch model (package launch).
//
// It also validates the data (Parse refuses a file the page could not
// decode, naming file:line:col and the JSON path), encodes typed data back
// into the upstream files' exact layout (Encode, EncodeFile), and gives
// writers what they need of the decoder (entry.go: BlockEntry.Render,
// Reproduces, BlockEntry.EncodedSize, File.FullBlocks, SortWorkerArgs,
// SortEnv). Generating snippets from InferenceX lives in package generate;
// this package does not depend on InferenceX (package infx) or on the
// exclusion list.
//
// Format and decoding rules: ../shared/spec/agentx-format.md, sections (a)
// (data model) and (b) (decoding algorithm, steps 1–6). The oracle is
// ../shared/golden/agentx (TestGoldenAgentX).
package cookbook

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/js"
)

// File is one parsed and validated AgentX data file. The embedded Data is
// the typed literal; the materialized base blocks of every cell and router
// (spec (b) step 1) are computed once by Parse, so Decode is read-only and a
// File may be used from several goroutines.
type File struct {
	// Name is the path as given to ReadFile / Parse.
	Name string
	// Rel is the path relative to docs/src/snippets/agentx/ when Name
	// contains that directory ("Qwen/qwen3.5.jsx", the oracle's `file`),
	// else Name.
	Rel string
	// RepoPath is the path relative to the sglang repository root when Name
	// contains docs/src/snippets/ ("docs/src/snippets/agentx/Qwen/qwen3.5.jsx")
	// or, the docs' home before 2026-08-03, docs_new/src/snippets/; else Name.
	RepoPath string
	// SHA256 is the hex SHA-256 of the file's bytes.
	SHA256 string
	// Header holds the leading `//` comment lines (without "// "), which
	// repeat the InferenceX main sha and the mirrored PR numbers.
	Header []string

	Data

	src      []byte // the whole file
	litStart int    // byte offset of the literal's '{' in src
	litEnd   int    // byte offset just past its '}'

	// base[ci][router] = materialized point-0 blocks.
	base []map[string][]mblock
	kv   kvSettings
	// pointBlocks holds the patched blocks of points >= 1 (spec (b) step 2).
	pointBlocks map[routerPoint][]mblock
}

// Error is a decoding error with its position: File, 1-based Line and Col
// (0 when unknown) and the JSON Path inside the agentx literal ("" when the
// error is in the JS envelope). Error() gives "file:line:col: path: msg".
type Error = launch.InputError

// ReadFile reads and parses the AgentX data file at path. Errors are *Error
// (bad content) or the os error (unreadable file).
func ReadFile(path string) (*File, error) {
	src, err := launch.ReadInput(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, src)
}

// Parse parses src, the content of the AgentX data file called name:
//  1. the JS module is parsed with tdewolff/parse/v2/js (syntax errors get
//     line:col), and its envelope is checked token by token: comments, then
//     `export const agentx = {…};` and nothing else;
//  2. the object literal is decoded as strict JSON (encoding/json) into Data;
//  3. the data is validated (unknown KV tiers, bad ref/from/envRef indexes,
//     patches longer than the block list, …) and every cell's routers are
//     materialized (spec (b) step 1).
//
// Every error is an *Error naming name, line:col and, for data errors, the
// JSON path. Block, diff and patch objects have a closed key set (spec (a)
// "Blocks", "diff semantics", "point.patch"): an unknown key there is an
// error, since the page would silently drop the change. Unknown keys
// elsewhere (top level, cells, points, prov — where the format has grown
// before, spec (e)) are ignored. The invariants of spec (f) are enforced:
// env and envRef exclusive, refs to earlier cells only, no patch on point
// 0, unique cell ids, statuses in the spec's sets. The files-key hashes are
// not checked here (the page does not check them): see CheckFileKeys.
// src is not retained or modified.
func Parse(name string, src []byte) (_ *File, err error) {
	defer launch.RecoverInput(name, &err)
	buf := make([]byte, len(src), len(src)+1)
	copy(buf, src)
	sum := sha256.Sum256(buf)
	f := &File{Name: name, Rel: name, RepoPath: name, SHA256: hex.EncodeToString(sum[:]), src: buf}
	slash := filepath.ToSlash(name)
	if i := strings.LastIndex(slash, "snippets/agentx/"); i >= 0 {
		f.Rel = slash[i+len("snippets/agentx/"):]
	}
	if i := strings.LastIndex(slash, "docs/src/snippets/"); i >= 0 {
		f.RepoPath = slash[i:]
	} else if i := strings.LastIndex(slash, "docs_new/src/snippets/"); i >= 0 {
		f.RepoPath = slash[i:] // the docs' home before 2026-08-03
	}
	// The JS syntax check (the whole module through tdewolff/parse/v2/js)
	// runs next to the envelope scan and the JSON decoding; its error, with
	// line:col, wins over theirs.
	if len(bytes.TrimSpace(f.src)) == 0 {
		return nil, f.errAt(0, "", "empty file: want `export const agentx = {…};`")
	}
	syntax := make(chan error, 1)
	go func() {
		var serr error
		defer func() { syntax <- serr }()
		defer launch.RecoverInput(name, &serr) // its own goroutine: Parse's recover does not reach it
		serr = f.jsSyntax(bytes.Clone(buf))
	}()
	err = f.envelope()
	if err == nil {
		err = f.decodeJSON()
	}
	if serr := <-syntax; serr != nil {
		return nil, serr
	}
	if err != nil {
		return nil, err
	}
	if err := f.validate(); err != nil {
		return nil, err
	}
	if err := f.materializeAll(); err != nil {
		return nil, err
	}
	f.prepareKV()
	f.preparePoints()
	return f, nil
}

// errAt builds an *Error at byte offset off of the file (off < 0: no position).
func (f *File) errAt(off int, path, format string, args ...any) *Error {
	e := &Error{File: f.Name, Path: path, Msg: fmt.Sprintf(format, args...)}
	if off >= 0 {
		e.Line, e.Col = f.position(off)
	}
	return e
}

// position converts a byte offset into a 1-based line and column (columns
// count Unicode code points, as tdewolff/parse does).
func (f *File) position(off int) (int, int) {
	if off > len(f.src) {
		off = len(f.src)
	}
	line, col, _ := parse.Position(bytes.NewReader(f.src), off)
	return line, col
}

// jsSyntax parses src (a private copy of the file: the parser writes a NUL
// past its end) as a JS module and reports syntax errors with line:col:
// truncations, unbalanced braces and the like.
func (f *File) jsSyntax(src []byte) error {
	if _, err := js.Parse(parse.NewInputBytes(src), js.Options{}); err != nil {
		var pe *parse.Error
		if errors.As(err, &pe) {
			return &Error{File: f.Name, Line: pe.Line, Col: pe.Column, Msg: "JavaScript syntax: " + pe.Message}
		}
		return &Error{File: f.Name, Msg: "JavaScript syntax: " + err.Error()}
	}
	return nil
}

// envelope checks the JS module shape and finds the literal's span.
func (f *File) envelope() error {
	lx := js.NewLexer(parse.NewInputBytes(f.src))
	off := 0
	next := func() (js.TokenType, []byte, int) {
		for {
			tt, data := lx.Next()
			start := off
			off += len(data)
			switch tt {
			case js.WhitespaceToken, js.LineTerminatorToken:
				continue
			case js.CommentToken, js.CommentLineTerminatorToken:
				if f.litStart == 0 {
					c := strings.TrimRight(string(data), "\r\n")
					if strings.HasPrefix(c, "//") {
						f.Header = append(f.Header, strings.TrimPrefix(strings.TrimPrefix(c, "//"), " "))
					}
				}
				continue
			}
			return tt, data, start
		}
	}
	want := []struct {
		tt   js.TokenType
		text string
	}{{js.ExportToken, "export"}, {js.ConstToken, "const"}, {js.IdentifierToken, "agentx"}, {js.EqToken, "="}}
	for _, w := range want {
		tt, data, at := next()
		if tt != w.tt || string(data) != w.text {
			got := string(data)
			if tt == js.ErrorToken {
				got = "end of file"
			}
			return f.errAt(at, "", "want `%s` (envelope `export const agentx = {…};`), got %q", w.text, got)
		}
	}
	tt, data, at := next()
	if tt != js.OpenBraceToken {
		return f.errAt(at, "", "want the object literal `{` after `export const agentx =`, got %q", string(data))
	}
	f.litStart = at
	depth := 1
	for depth > 0 {
		tt, _, at = next()
		switch tt {
		case js.OpenBraceToken:
			depth++
		case js.CloseBraceToken:
			depth--
		case js.ErrorToken:
			return f.errAt(at, "", "unexpected end of file inside the agentx literal")
		}
	}
	f.litEnd = at + 1
	tt, data, at = next()
	if tt != js.SemicolonToken {
		return f.errAt(at, "", "want `;` after the agentx literal, got %q", string(data))
	}
	if tt, data, at = next(); tt != js.ErrorToken {
		return f.errAt(at, "", "unexpected %q after `export const agentx = {…};` (want end of file)", string(data))
	}
	return nil
}

// decodeJSON decodes the literal span as strict JSON.
func (f *File) decodeJSON() error {
	span := f.src[f.litStart:f.litEnd]
	if err := json.Unmarshal(span, &f.Data); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			off := f.litStart + int(se.Offset) - 1
			if off < f.litStart {
				off = f.litStart
			}
			return f.errAt(off, "", "agentx literal is not strict JSON: %s", se.Error())
		case errors.As(err, &te):
			return f.errAt(f.litStart+int(te.Offset), te.Field, "cannot use JSON %s as %s", te.Value, te.Type)
		}
		return f.errAt(f.litStart, "", "agentx literal: %v", err)
	}
	return nil
}

// jpath is a JSON path inside the agentx literal, built from keys (string)
// and array indexes (int).
type jpath []any

func (p jpath) with(elems ...any) jpath {
	out := make(jpath, len(p), len(p)+len(elems))
	copy(out, p)
	return append(out, elems...)
}

// String renders the path as `cells[3].routers.dynamo.blocks[2].ref`; keys
// that are not plain identifiers are written `["--flag"]`.
func (p jpath) String() string {
	var b strings.Builder
	for _, e := range p {
		switch v := e.(type) {
		case int:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(v))
			b.WriteByte(']')
		case string:
			if plainKey(v) {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(v)
			} else {
				b.WriteByte('[')
				b.WriteString(strconv.Quote(v))
				b.WriteByte(']')
			}
		}
	}
	return b.String()
}

func plainKey(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// errPath builds an *Error at the JSON path p (line:col located by
// re-scanning the literal; only done on error).
func (f *File) errPath(p jpath, format string, args ...any) *Error {
	return f.errAt(f.locate(p), p.String(), format, args...)
}

// locate returns the byte offset in f.src of the value (or key) at path p,
// the deepest existing prefix if the path does not fully exist, or -1.
func (f *File) locate(p jpath) int {
	span := f.src[f.litStart:f.litEnd]
	dec := json.NewDecoder(bytes.NewReader(span))
	skipTo := func() int {
		i := int(dec.InputOffset())
		for i < len(span) && (span[i] == ' ' || span[i] == '\n' || span[i] == '\r' || span[i] == '\t' || span[i] == ',' || span[i] == ':') {
			i++
		}
		return i
	}
	best := 0
	for _, e := range p {
		t, err := dec.Token()
		if err != nil {
			return f.litStart + best
		}
		d, ok := t.(json.Delim)
		if !ok {
			return f.litStart + best
		}
		found := false
		switch {
		case d == '{':
			key, isKey := e.(string)
			for dec.More() {
				kstart := skipTo()
				kt, err := dec.Token()
				if err != nil {
					return f.litStart + best
				}
				if isKey && kt == key {
					best = kstart
					found = true
					break
				}
				var skip json.RawMessage
				if dec.Decode(&skip) != nil {
					return f.litStart + best
				}
			}
		case d == '[':
			idx, isIdx := e.(int)
			for i := 0; dec.More(); i++ {
				if isIdx && i == idx {
					best = skipTo()
					found = true
					break
				}
				var skip json.RawMessage
				if dec.Decode(&skip) != nil {
					return f.litStart + best
				}
			}
		}
		if !found {
			return f.litStart + best
		}
	}
	return f.litStart + best
}
