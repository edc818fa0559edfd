package testutil

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SARIFSchema compiles report/testdata/sarif-schema-2.1.0.json (the OASIS
// SARIF 2.1.0 schema, errata 01: see report/testdata/README.md) with
// formats asserted. Nothing is read from the network: the draft-04
// meta-schema is the library's own.
func SARIFSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ModuleRoot(), "report", "testdata", "sarif-schema-2.1.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	const id = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// ValidateSARIF validates a printed log against the schema.
func ValidateSARIF(sch *jsonschema.Schema, out []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}
