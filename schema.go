package agentsh

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/internal/userfile"
)

// maxSchemaSize bounds a schema file.
const maxSchemaSize = 1 << 20

// ReadSchema reads and compiles a JSON Schema file for the data of an
// answer (agent.WithSchema). The file must be a regular file of at most
// 1 MiB holding an object schema; the error of any other begins with
// path.
func ReadSchema(path string) (*core.Schema, error) {
	b, err := userfile.Read(path, maxSchemaSize)
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: no such file; give the path of a JSON Schema file", path)
	case errors.As(err, &pe):
		return nil, fmt.Errorf("%s: %v", path, pe.Err)
	case err != nil:
		return nil, fmt.Errorf("%v; give the path of a JSON Schema file of at most 1 MiB", err)
	}
	s, err := agent.CompileOutputSchema(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return s, nil
}
