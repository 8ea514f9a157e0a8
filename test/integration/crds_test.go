package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/phalanx-sched/phalanx/test/framework"
)

var pcsResource = schema.GroupVersionResource{Group: "grove.io", Version: "v1alpha1", Resource: "podcliquesets"}

func readSample(t *testing.T, root, name string) *unstructured.Unstructured {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "manifests", "samples", name))
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(raw, &obj.Object); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return obj
}

// The seed's two PodCliqueSet examples are accepted by the CRDs as written, with strict field
// validation (an unknown or misspelt field would be refused, not pruned).
func TestSamplesAcceptedByCRDs(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	dyn, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"disaggregated.yaml", "aggregated.yaml"} {
		t.Run(name, func(t *testing.T) {
			obj := readSample(t, env.Root, name)
			obj.SetNamespace(ns)
			if _, err := dyn.Resource(pcsResource).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
				t.Fatalf("%s refused: %v", name, err)
			}
			got, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, obj.GetName(), metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Spec.Replicas != 2 || len(got.Spec.Template.Cliques) == 0 || got.Spec.UpdateStrategy == nil {
				t.Errorf("%s round-trip lost fields: %+v", name, got.Spec)
			}
			if got.Spec.UpdateStrategy.ProgressDeadlineSeconds == nil {
				t.Errorf("%s: progressDeadlineSeconds not kept", name)
			}
		})
	}
}

// Rules that the schema itself enforces name the field and the reason.
func TestCRDSchemaRejectsInvalidSpecs(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	dyn, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		mutate func(spec map[string]any)
		want   []string
	}{
		{
			name: "PCS-level budgets under RollingUpdate",
			mutate: func(spec map[string]any) {
				spec["updateStrategy"] = map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxSurge": 1}}
			},
			want: []string{"spec.updateStrategy.rollingUpdate", "only allowed with type ReplicaRecreate"},
		},
		{
			name: "unknown strategy type",
			mutate: func(spec map[string]any) {
				spec["updateStrategy"] = map[string]any{"type": "Recreate"}
			},
			want: []string{"spec.updateStrategy.type", "Unsupported value"},
		},
		{
			name: "negative PCS maxUnavailable",
			mutate: func(spec map[string]any) {
				spec["updateStrategy"] = map[string]any{"type": "ReplicaRecreate", "rollingUpdate": map[string]any{"maxUnavailable": -1}}
			},
			want: []string{"spec.updateStrategy.rollingUpdate.maxUnavailable", "non-negative integer or a percentage"},
		},
		{
			name: "malformed percentage",
			mutate: func(spec map[string]any) {
				spec["updateStrategy"] = map[string]any{"type": "ReplicaRecreate", "rollingUpdate": map[string]any{"maxSurge": "fifty%"}}
			},
			want: []string{"spec.updateStrategy.rollingUpdate.maxSurge", "percentage"},
		},
		{
			name: "PCSG minAvailable above replicas",
			mutate: func(spec map[string]any) {
				tmpl := spec["template"].(map[string]any)
				groups := tmpl["podCliqueScalingGroups"].([]any)
				groups[0].(map[string]any)["minAvailable"] = 5
			},
			want: []string{"minAvailable", "must not exceed replicas"},
		},
		{
			name: "component strategy under ReplicaRecreate",
			mutate: func(spec map[string]any) {
				spec["updateStrategy"] = map[string]any{"type": "ReplicaRecreate"}
			},
			want: []string{"spec.template.cliques", "not used under ReplicaRecreate"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := readSample(t, env.Root, "disaggregated.yaml")
			obj.SetNamespace(ns)
			obj.SetName("invalid")
			tc.mutate(obj.Object["spec"].(map[string]any))
			_, err := dyn.Resource(pcsResource).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{})
			if err == nil {
				t.Fatalf("accepted; want a rejection naming %v", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
