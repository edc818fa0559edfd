package report

import (
	"encoding/json"
	"io"
)

// PrintJSON writes the report as indented JSON, HTML characters unescaped
// (schema: SCHEMA.md, version SchemaVersion). Errors are w's.
func PrintJSON(w io.Writer, r *Report) error {
	e := json.NewEncoder(w)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	return e.Encode(r)
}
