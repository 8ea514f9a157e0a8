// Package groveschema reads the pinned description of Grove's CRD schemas
// (pkg/apis/grove/v1alpha1/testdata/grove-schema.txt): one field per line, "kind path type",
// with "#" comments. The schema test compares Phalanx's CRDs against it and the test framework
// builds Grove-shaped CRDs from it.
package groveschema

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// Path is the pinned file, relative to the repository root.
const Path = "pkg/apis/grove/v1alpha1/testdata/grove-schema.txt"

// Field is one line: a field path of a Grove kind and its type ("-" when the schema gives
// none, as for int-or-string fields).
type Field struct {
	Kind, Path, Type string
}

// Read returns the fields of the file at path, in file order.
func Read(path string) ([]Field, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Field
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Fields(line)
		if len(parts) != 3 {
			return nil, fmt.Errorf("%s: bad line %q", path, line)
		}
		out = append(out, Field{Kind: parts[0], Path: parts[1], Type: parts[2]})
	}
	return out, sc.Err()
}
