// Command repocheck fails when the files git tracks break the house rules that no compiler
// checks: a build output or other large blob committed by accident, or a top-level entry
// outside the agreed layout. `make verify` runs it on `git ls-files -z` (on standard input).
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// MaxFileBytes is the largest file the repository may track (vendor/ included).
const MaxFileBytes = 5 << 20

// topLevel is the repository layout: every tracked path starts with one of these.
var topLevel = map[string]bool{
	"cmd": true, "pkg": true, "manifests": true, "hack": true, "test": true, "vendor": true, "docs": true,
	"go.mod": true, "go.sum": true, "Makefile": true, "README.md": true, ".ci": true, ".gitignore": true,
}

// executableMagic are the first bytes of compiled programs: ELF, Mach-O (both byte orders,
// 32 and 64 bit, universal) and PE/COFF.
var executableMagic = [][]byte{
	[]byte("\x7fELF"),
	{0xfe, 0xed, 0xfa, 0xce}, {0xfe, 0xed, 0xfa, 0xcf}, {0xce, 0xfa, 0xed, 0xfe}, {0xcf, 0xfa, 0xed, 0xfe},
	{0xca, 0xfe, 0xba, 0xbe},
	[]byte("MZ"),
}

func main() {
	files, err := readNUL(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "repocheck: reading the file list:", err)
		os.Exit(2)
	}
	problems, err := check(".", files)
	if err != nil {
		fmt.Fprintln(os.Stderr, "repocheck:", err)
		os.Exit(2)
	}
	for _, p := range problems {
		fmt.Println(p)
	}
	if len(problems) > 0 {
		os.Exit(1)
	}
}

func readNUL(r io.Reader) ([]string, error) {
	var out []string
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 64<<10), 1<<20)
	s.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexByte(data, 0); i >= 0 {
			return i + 1, data[:i], nil
		}
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	})
	for s.Scan() {
		if s.Text() != "" {
			out = append(out, s.Text())
		}
	}
	return out, s.Err()
}

// check returns one line per tracked file (relative to root) that breaks a rule. A listed
// file missing from the work tree (deleted, not yet committed) is skipped.
func check(root string, files []string) ([]string, error) {
	var problems []string
	outside := map[string]bool{}
	for _, f := range files {
		top, _, _ := strings.Cut(filepath.ToSlash(f), "/")
		if !topLevel[top] {
			outside[top] = true
		}
		path := filepath.Join(root, f)
		info, err := os.Lstat(path)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if !info.Mode().IsRegular() {
			continue
		}
		if info.Size() > MaxFileBytes {
			problems = append(problems, fmt.Sprintf("%s: %d bytes, over the %d-byte limit for tracked files (a build output? add it to .gitignore)", f, info.Size(), MaxFileBytes))
			continue
		}
		if kind, err := executable(path); err != nil {
			return nil, err
		} else if kind != "" {
			problems = append(problems, fmt.Sprintf("%s: a compiled %s binary is tracked (build outputs go to bin/, which git ignores)", f, kind))
		}
	}
	names := make([]string, 0, len(outside))
	for n := range outside {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		problems = append(problems, fmt.Sprintf("%s: outside the repository layout (top level holds only cmd/ pkg/ manifests/ hack/ test/ vendor/ docs/ .ci/, go.mod, go.sum, Makefile, README.md, .gitignore)", n))
	}
	return problems, nil
}

// executable names the binary format of the file at path, or "" when it is none.
func executable(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	for i, m := range executableMagic {
		if bytes.HasPrefix(head, m) {
			switch {
			case i == 0:
				return "ELF", nil
			case i < 6:
				return "Mach-O", nil
			default:
				if isPE(f) {
					return "PE", nil
				}
			}
		}
	}
	return "", nil
}

// isPE reports whether a file that starts with "MZ" has the PE signature where its DOS header
// points (plain text may start with "MZ" too).
func isPE(f *os.File) bool {
	hdr := make([]byte, 64)
	if _, err := f.ReadAt(hdr, 0); err != nil {
		return false
	}
	off := int64(hdr[60]) | int64(hdr[61])<<8 | int64(hdr[62])<<16 | int64(hdr[63])<<24
	sig := make([]byte, 4)
	if _, err := f.ReadAt(sig, off); err != nil {
		return false
	}
	return bytes.Equal(sig, []byte("PE\x00\x00"))
}
