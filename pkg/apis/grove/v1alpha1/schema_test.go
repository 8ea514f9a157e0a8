package v1alpha1

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/phalanx-sched/phalanx/hack/groveschema"
)

// groveSchema is the pinned description of Grove's CRD schemas: one line per field path with
// its type, read from Grove's operator/api and scheduler/api CRDs. Regenerate it from a Grove
// checkout with
//
//	go test ./pkg/apis/grove/v1alpha1 -run TestCRDsAreSupersetOfGrove -args -grove-crds=DIR -grove-ref=COMMIT
//
// where DIR holds Grove's grove.io_*.yaml and scheduler.grove.io_podgangs.yaml.
const groveSchema = "testdata/grove-schema.txt" // groveschema.Path, from this package

var (
	groveCRDs = flag.String("grove-crds", "", "directory with Grove's CRDs: rewrite "+groveSchema+" from them")
	groveRef  = flag.String("grove-ref", "", "the Grove commit the CRDs come from (recorded in "+groveSchema+")")
)

// notInPhalanx are the Grove field paths (and what lies under them) that Phalanx's CRDs
// deliberately lack, with the reason.
var notInPhalanx = map[string]string{
	"PodClique .spec.podSpec.workloadRef":                            "PodSpec.workloadRef is the Kubernetes 1.35 alpha field that 1.37 replaced with schedulingGroup; the API server Phalanx targets does not serve it",
	"PodCliqueSet .spec.template.cliques[].spec.podSpec.workloadRef": "as for PodClique",
}

// Installing Phalanx's CRDs over Grove's must prune nothing Grove writes: every field path of
// Grove's schema exists in Phalanx's with the same type, or lies under a field Phalanx keeps
// whole (x-kubernetes-preserve-unknown-fields).
func TestCRDsAreSupersetOfGrove(t *testing.T) {
	if *groveCRDs != "" {
		writeGroveSchema(t)
	}
	fields, err := groveschema.Read(groveSchema)
	if err != nil {
		t.Fatal(err)
	}
	ours := map[string]schemaPaths{}
	for _, name := range []string{"grove.io_podcliques.yaml", "grove.io_podcliquescalinggroups.yaml", "grove.io_podcliquesets.yaml", "scheduler.grove.io_podgangs.yaml"} {
		kind, paths := readCRD(t, filepath.Join("..", "..", "..", "..", "manifests", "helm", "phalanx", "files", "crds", name))
		ours[kind] = paths
	}
	checked := 0
	for _, f := range fields {
		kind, path, typ := f.Kind, f.Path, strings.TrimPrefix(f.Type, "-")
		checked++
		if excepted(kind, path) {
			continue
		}
		p := ours[kind]
		if p.types == nil {
			t.Errorf("Phalanx has no CRD for Grove's kind %s", kind)
			continue
		}
		if p.keptWhole(path) {
			continue
		}
		got, ok := p.types[path]
		switch {
		case !ok:
			t.Errorf("%s %s (%s): Grove writes it, Phalanx's CRD would prune it", kind, path, typ)
		case got != typ && got != "" && typ != "":
			t.Errorf("%s %s: Grove's type %s, Phalanx's %s", kind, path, typ, got)
		}
	}
	if checked < 1000 {
		t.Fatalf("%s lists %d field paths; the pinned schema looks truncated", groveSchema, checked)
	}
}

// excepted reports whether path is, or lies under, a path of notInPhalanx.
func excepted(kind, path string) bool {
	for k := range notInPhalanx {
		ek, ep, _ := strings.Cut(k, " ")
		if ek == kind && (path == ep || strings.HasPrefix(path, ep+".") || strings.HasPrefix(path, ep+"[]")) {
			return true
		}
	}
	return false
}

type schemaPaths struct {
	types map[string]string // path -> type ("" when the schema gives none)
	whole []string          // paths kept whole
}

func (p schemaPaths) keptWhole(path string) bool {
	for _, w := range p.whole {
		if strings.HasPrefix(path, w+".") || strings.HasPrefix(path, w+"[]") {
			return true
		}
	}
	return false
}

func readCRD(t *testing.T, path string) (string, schemaPaths) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	p := schemaPaths{types: map[string]string{}}
	for _, v := range crd.Spec.Versions {
		if v.Name == "v1alpha1" && v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			walk(v.Schema.OpenAPIV3Schema, "", &p)
		}
	}
	return crd.Spec.Names.Kind, p
}

func walk(s *apiextensionsv1.JSONSchemaProps, path string, p *schemaPaths) {
	if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields && path != "" {
		p.whole = append(p.whole, path)
	}
	for name, child := range s.Properties {
		child := child
		p.types[path+"."+name] = child.Type
		walk(&child, path+"."+name, p)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		walk(s.AdditionalProperties.Schema, path+".<key>", p)
	}
	if s.Items != nil && s.Items.Schema != nil {
		walk(s.Items.Schema, path+"[]", p)
	}
}

func writeGroveSchema(t *testing.T) {
	t.Helper()
	if *groveRef == "" {
		t.Fatal("-grove-ref names the Grove commit the CRDs come from")
	}
	var lines []string
	for _, name := range []string{"grove.io_podcliques.yaml", "grove.io_podcliquescalinggroups.yaml", "grove.io_podcliquesets.yaml", "scheduler.grove.io_podgangs.yaml"} {
		kind, p := readCRD(t, filepath.Join(*groveCRDs, name))
		for path, typ := range p.types {
			if typ == "" {
				typ = "-"
			}
			lines = append(lines, fmt.Sprintf("%s %s %s", kind, path, typ))
		}
	}
	sort.Strings(lines)
	head := fmt.Sprintf("# Field paths and types of Grove's CRDs (github.com/ai-dynamo/grove at %s): kind, path, type.\n# Regenerate: see groveSchema in schema_test.go.\n", *groveRef)
	if err := os.WriteFile(groveSchema, []byte(head+strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
