package upstream

import (
	"bytes"
	"encoding/json"
)

// jsonMarshal is json.Marshal without HTML escaping (PR bodies and diffs keep
// "<", ">" and "&" readable).
func jsonMarshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
