package framework

import (
	"fmt"
	"os"
	"path/filepath"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/phalanx-sched/phalanx/hack/groveschema"
)

// groveCRDFiles are Phalanx's CRDs of the kinds Grove's operator installs.
var groveCRDFiles = []string{"grove.io_podcliques.yaml", "grove.io_podcliquescalinggroups.yaml", "grove.io_podcliquesets.yaml", "scheduler.grove.io_podgangs.yaml"}

// WriteGroveShapedCRDs writes into dir the CRDs a cluster has when Grove's operator, not
// Phalanx, installed them: Phalanx's CRD of each Grove kind with every field that Grove's
// schema (groveschema.Path, pinned) lacks removed, so the API server prunes what Phalanx would write there
// exactly as Grove's CRDs do. Names, scope, subresources and the OpenAPI validation of the
// fields both have are Phalanx's (a superset of Grove's, by TestCRDsAreSupersetOfGrove). No
// scheduling.x-k8s.io PodGroup CRD is written: a Grove cluster has none.
func WriteGroveShapedCRDs(root, dir string) error {
	keep, err := readGroveSchema(filepath.Join(root, groveschema.Path))
	if err != nil {
		return err
	}
	for _, name := range groveCRDFiles {
		raw, err := os.ReadFile(filepath.Join(root, "manifests", "helm", "phalanx", "files", "crds", name))
		if err != nil {
			return err
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(raw, &crd); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		paths := keep[crd.Spec.Names.Kind]
		if len(paths) == 0 {
			return fmt.Errorf("%s lists no field of %s", groveschema.Path, crd.Spec.Names.Kind)
		}
		for i := range crd.Spec.Versions {
			if s := crd.Spec.Versions[i].Schema; s != nil && s.OpenAPIV3Schema != nil {
				pruneToPaths(s.OpenAPIV3Schema, "", paths)
			}
		}
		out, err := yaml.Marshal(&crd)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), out, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// readGroveSchema reads the pinned schema: kind to the set of its field paths.
func readGroveSchema(path string) (map[string]map[string]bool, error) {
	fields, err := groveschema.Read(path)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]bool{}
	for _, f := range fields {
		if out[f.Kind] == nil {
			out[f.Kind] = map[string]bool{}
		}
		out[f.Kind][f.Path] = true
	}
	return out, nil
}

// pruneToPaths removes from s every property whose path (".a.b[].c", as GroveSchema writes
// them) is not in keep, and the CEL rules (they may name removed fields; Grove's rules are its
// own). What lies under a map's values or a field kept whole is left as it is: GroveSchema
// does not describe it.
func pruneToPaths(s *apiextensionsv1.JSONSchemaProps, path string, keep map[string]bool) {
	s.XValidations = nil
	for name, child := range s.Properties {
		p := path + "." + name
		if !keep[p] {
			delete(s.Properties, name)
			continue
		}
		pruneToPaths(&child, p, keep)
		s.Properties[name] = child
	}
	if len(s.Required) > 0 {
		req := s.Required[:0]
		for _, name := range s.Required {
			if _, ok := s.Properties[name]; ok {
				req = append(req, name)
			}
		}
		s.Required = req
	}
	if s.Items != nil && s.Items.Schema != nil {
		pruneToPaths(s.Items.Schema, path+"[]", keep)
	}
}
