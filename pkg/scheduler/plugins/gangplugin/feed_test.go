package gangplugin

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// storeWriters are the methods of *gang.Store that take its write lock, read from pkg/gang's
// source so that a new writer is guarded without editing this test.
func storeWriters(t *testing.T) map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "gang", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("pkg/gang sources: %v", err)
	}
	locks := map[string]bool{}            // methods that take the write lock themselves
	calls := map[string]map[string]bool{} // methods each method calls on its receiver
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Body == nil {
				continue
			}
			if star, ok := fn.Recv.List[0].Type.(*ast.StarExpr); !ok || star.X.(*ast.Ident).Name != "Store" {
				continue
			}
			recv := fn.Recv.List[0].Names[0].Name
			calls[fn.Name.Name] = map[string]bool{}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if inner, ok := sel.X.(*ast.SelectorExpr); ok && inner.Sel.Name == "mu" && sel.Sel.Name == "Lock" {
					locks[fn.Name.Name] = true
				}
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == recv {
					calls[fn.Name.Name][sel.Sel.Name] = true
				}
				return true
			})
		}
	}
	// A method writes when it locks or calls, on its receiver, a method that writes.
	writes := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for m := range calls {
			if writes[m] {
				continue
			}
			w := locks[m]
			for c := range calls[m] {
				w = w || writes[c]
			}
			if w {
				writes[m], changed = true, true
			}
		}
	}
	out := map[string]bool{}
	for m := range writes {
		if ast.IsExported(m) {
			out[m] = true
		}
	}
	if !out["UpsertPod"] || !out["Assume"] || out["QuorumMet"] {
		t.Fatalf("found writers %v: the detection no longer matches pkg/gang", out)
	}
	return out
}

// TestOneStoreWriter: in the scheduler's packages only feed.go writes the gang store
// (construction-time configuration excepted), so that what changes the store can be read
// in one place.
func TestOneStoreWriter(t *testing.T) {
	writers := storeWriters(t)
	allowed := map[string]map[string]bool{
		"feed.go":    nil, // every writer
		"podgang.go": {"SetReservationHold": true, "SetExtraHold": true, "SetDepartureCheck": true},
	}
	receiver := regexp.MustCompile(`(?i)(store|store\(\)|gangs)$`)
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	checked := 0
	err := filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		base := filepath.Base(path)
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !writers[sel.Sel.Name] {
				return true
			}
			if !receiver.MatchString(exprString(sel.X)) {
				return true
			}
			if ok, listed := allowed[base]; listed && (ok == nil || ok[sel.Sel.Name]) {
				return true
			}
			t.Errorf("%s: %s.%s writes the gang store outside feed.go", fset.Position(call.Pos()), exprString(sel.X), sel.Sel.Name)
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Fatalf("checked only %d files under %s", checked, root)
	}
}

func exprString(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return exprString(x.X) + "." + x.Sel.Name
	case *ast.CallExpr:
		return exprString(x.Fun) + "()"
	}
	return ""
}
