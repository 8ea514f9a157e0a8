package framework

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"
)

var apiextensionsCRD = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// fieldManager is the server-side apply manager of what the tests apply from manifests/.
const fieldManager = "phalanx-tests"

// RenderManifests reads manifests/kustomization.yaml and what it lists (files, and
// directories with a kustomization of their own). The tests' renderer understands
// kustomizations made of resources only (which is what manifests/ is) and refuses anything
// else, so that what it applies is what `kubectl kustomize manifests/` prints.
func RenderManifests(root string) ([]*unstructured.Unstructured, error) {
	return RenderKustomization(filepath.Join(root, "manifests"))
}

// RenderKustomization renders the resources-only kustomization in dir (see RenderManifests).
func RenderKustomization(dir string) ([]*unstructured.Unstructured, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		return nil, err
	}
	var k map[string]any
	if err := yaml.Unmarshal(raw, &k); err != nil {
		return nil, fmt.Errorf("%s/kustomization.yaml: %w", dir, err)
	}
	for key := range k {
		if key != "apiVersion" && key != "kind" && key != "resources" {
			return nil, fmt.Errorf("%s/kustomization.yaml uses %q; the test renderer understands resources only", dir, key)
		}
	}
	list, _ := k["resources"].([]any)
	var out []*unstructured.Unstructured
	for _, r := range list {
		path := filepath.Join(dir, fmt.Sprint(r))
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			objs, err := RenderKustomization(path)
			if err != nil {
				return nil, err
			}
			out = append(out, objs...)
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		for i, doc := range bytes.Split(data, []byte("\n---\n")) {
			obj := &unstructured.Unstructured{}
			if err := yaml.Unmarshal(doc, &obj.Object); err != nil {
				return nil, fmt.Errorf("%s document %d: %w", path, i, err)
			}
			if len(obj.Object) == 0 {
				continue
			}
			out = append(out, obj)
		}
	}
	return out, nil
}

// Apply server-side applies objs in order (dry-run: the API server validates and admits but
// stores nothing), waiting for CRDs to be established before anything else.
func Apply(ctx context.Context, cfg *rest.Config, objs []*unstructured.Unstructured, dryRun bool) error {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	opts := metav1.ApplyOptions{FieldManager: fieldManager, Force: true}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	for _, obj := range objs {
		gvk := obj.GroupVersionKind()
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return fmt.Errorf("%s %s: %w", gvk.Kind, obj.GetName(), err)
		}
		var ri dynamic.ResourceInterface = dyn.Resource(m.Resource)
		if m.Scope.Name() == meta.RESTScopeNameNamespace {
			ri = dyn.Resource(m.Resource).Namespace(obj.GetNamespace())
		}
		if _, err := ri.Apply(ctx, obj.GetName(), obj, opts); err != nil {
			return fmt.Errorf("applying %s %s/%s: %w", gvk.Kind, obj.GetNamespace(), obj.GetName(), err)
		}
		if gvk.Kind == "CustomResourceDefinition" && !dryRun {
			if err := waitEstablished(ctx, dyn, obj.GetName()); err != nil {
				return err
			}
			mapper.Reset()
		}
	}
	return nil
}

func waitEstablished(ctx context.Context, dyn dynamic.Interface, name string) error {
	crd := dyn.Resource(apiextensionsCRD)
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		u, err := crd.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == "Established" && m["status"] == "True" {
				return true, nil
			}
		}
		return false, nil
	})
}

// HelmBinary is bin/helm (make bin/helm builds it from hack/tools/helm), or an error that says
// how to get it.
func HelmBinary(root string) (string, error) {
	bin := filepath.Join(root, "bin", "helm")
	if d := os.Getenv("PHALANX_BIN_DIR"); d != "" {
		if _, err := os.Stat(filepath.Join(d, "helm")); err == nil {
			bin = filepath.Join(d, "helm")
		}
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("%s: %w (make bin/helm builds it)", bin, err)
	}
	return bin, nil
}

// ChartDir is the Helm chart of Phalanx.
func ChartDir(root string) string { return filepath.Join(root, "manifests", "helm", "phalanx") }

// RenderChart runs helm template on the chart with the release namespace and --set values,
// and returns its objects in order. A refused value comes back as helm's message.
func RenderChart(ctx context.Context, root, namespace string, set ...string) ([]*unstructured.Unstructured, error) {
	helm, err := HelmBinary(root)
	if err != nil {
		return nil, err
	}
	args := []string{"template", "phalanx", ChartDir(root), "--namespace", namespace}
	for _, s := range set {
		args = append(args, "--set", s)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, helm, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("helm %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	var out []*unstructured.Unstructured
	for i, doc := range bytes.Split(stdout.Bytes(), []byte("\n---\n")) {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(bytes.TrimPrefix(doc, []byte("---\n")), &obj.Object); err != nil {
			return nil, fmt.Errorf("helm template document %d: %w", i, err)
		}
		if len(obj.Object) > 0 {
			out = append(out, obj)
		}
	}
	return out, nil
}

// SchedulerOnlyViolations lists what the scheduler-only install (manifests/scheduler-only, the
// chart's mode schedulerOnly) must not contain: a CRD, a webhook configuration, RBAC on
// grove.io objects, or a Deployment that runs the controller or the webhooks.
func SchedulerOnlyViolations(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, o := range objs {
		what := o.GetKind() + " " + o.GetName()
		switch o.GetKind() {
		case "CustomResourceDefinition", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration":
			out = append(out, "installs "+what)
		case "ClusterRole", "Role":
			rules, _, _ := unstructured.NestedSlice(o.Object, "rules")
			for _, r := range rules {
				groups, _, _ := unstructured.NestedStringSlice(r.(map[string]any), "apiGroups")
				for _, g := range groups {
					if g == "grove.io" {
						out = append(out, fmt.Sprintf("%s grants access to grove.io objects: %v", what, r))
					}
				}
			}
		case "Deployment":
			containers, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
			args, _, _ := unstructured.NestedStringSlice(containers[0].(map[string]any), "args")
			if joined := strings.Join(args, " "); !strings.Contains(joined, "--controller-workers=0") || !strings.Contains(joined, "--webhook-port=0") {
				out = append(out, fmt.Sprintf("%s args %v: want --controller-workers=0 and --webhook-port=0", what, args))
			}
		}
	}
	return out
}
