// Package helm checks the Helm chart (manifests/helm/phalanx) without a cluster: helm lint in
// both modes, helm template against the kustomize variants (the same objects where both
// exist), and bad values refused with a message that names the value. The chart's install,
// upgrade and uninstall on a real cluster are test/e2e's TestKindHelm*.
package helm

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// root is the repository's root: go test runs in the package's directory (file paths from
// runtime.Caller are not usable: the Makefile builds with -trimpath).
func root(t *testing.T) string {
	dir, err := localcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestChartLints(t *testing.T) {
	helm, err := framework.HelmBinary(root(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"full", "schedulerOnly"} {
		out, err := exec.Command(helm, "lint", "--strict", framework.ChartDir(root(t)), "--set", "mode="+mode).CombinedOutput()
		if err != nil {
			t.Errorf("helm lint --strict (mode %s): %v\n%s", mode, err, out)
		}
	}
}

// helmOnly are the labels and annotations the chart adds to what kustomize writes.
var helmOnly = []string{"app.kubernetes.io/instance", "app.kubernetes.io/version", "app.kubernetes.io/managed-by", "helm.sh/chart", "checksum/config", "helm.sh/resource-policy"}

// normalize removes what only the chart writes (its bookkeeping labels and annotations) and
// parses the scheduler configuration, so that comments and flow style do not count.
func normalize(t *testing.T, o *unstructured.Unstructured) map[string]any {
	t.Helper()
	c := o.DeepCopy().Object
	strip := func(path ...string) {
		m, ok, _ := unstructured.NestedStringMap(c, path...)
		if !ok {
			return
		}
		for _, k := range helmOnly {
			delete(m, k)
		}
		if k := path[len(path)-1]; k == "labels" && len(path) == 2 {
			// Object labels: kustomize labels some objects app.kubernetes.io/name and not
			// others; the selector labels (pod template, selectors) are compared in full.
			delete(m, "app.kubernetes.io/name")
		}
		if len(m) == 0 {
			unstructured.RemoveNestedField(c, path...)
			return
		}
		_ = unstructured.SetNestedStringMap(c, m, path...)
	}
	strip("metadata", "labels")
	strip("metadata", "annotations")
	strip("spec", "template", "metadata", "labels")
	strip("spec", "template", "metadata", "annotations")
	if cfg, ok, _ := unstructured.NestedString(c, "data", "config.yaml"); ok {
		var parsed any
		if err := yaml.Unmarshal([]byte(cfg), &parsed); err != nil {
			t.Fatalf("%s config.yaml: %v", o.GetName(), err)
		}
		c["data"] = map[string]any{"config.yaml": parsed}
	}
	// Through JSON: ints and floats compare as the same numbers on both sides.
	raw, _ := json.Marshal(c)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return out
}

func key(o *unstructured.Unstructured) string {
	return o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
}

func byKey(t *testing.T, objs []*unstructured.Unstructured) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, o := range objs {
		if _, dup := out[key(o)]; dup {
			t.Errorf("%s rendered twice", key(o))
		}
		out[key(o)] = normalize(t, o)
	}
	return out
}

// The chart with default values renders the objects of the kustomize variant of its mode,
// field for field; the one object only kustomize writes is the Namespace (helm install
// --create-namespace makes it).
func TestChartMatchesKustomize(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		mode, kustomization string
	}{
		{"full", filepath.Join(root(t), "manifests")},
		{"schedulerOnly", filepath.Join(root(t), "manifests", "scheduler-only")},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			chart, err := framework.RenderChart(ctx, root(t), "phalanx-system", "mode="+tc.mode, "image.tag=latest")
			if err != nil {
				t.Fatal(err)
			}
			kust, err := framework.RenderKustomization(tc.kustomization)
			if err != nil {
				t.Fatal(err)
			}
			got, want := byKey(t, chart), byKey(t, kust)
			var onlyChart, onlyKustomize []string
			for k := range got {
				if _, ok := want[k]; !ok {
					onlyChart = append(onlyChart, k)
				}
			}
			for k := range want {
				if _, ok := got[k]; !ok && k != "Namespace /phalanx-system" {
					onlyKustomize = append(onlyKustomize, k)
				}
			}
			sort.Strings(onlyChart)
			sort.Strings(onlyKustomize)
			if len(onlyChart)+len(onlyKustomize) > 0 {
				t.Errorf("objects differ:\nonly in the chart: %v\nonly in kustomize: %v", onlyChart, onlyKustomize)
			}
			for k, w := range want {
				if g, ok := got[k]; ok && !reflect.DeepEqual(g, w) {
					gy, _ := yaml.Marshal(g)
					wy, _ := yaml.Marshal(w)
					t.Errorf("%s differs:\nchart:\n%s\nkustomize:\n%s", k, gy, wy)
				}
			}
		})
	}
}

// Mode schedulerOnly installs no CRD, no grove.io RBAC, no webhook and no controller.
func TestChartSchedulerOnlyInstallsNoGroveParts(t *testing.T) {
	objs, err := framework.RenderChart(context.Background(), root(t), "phalanx-system", "mode=schedulerOnly")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range framework.SchedulerOnlyViolations(objs) {
		t.Errorf("mode schedulerOnly: %s", v)
	}
}

// Values reach the objects they name.
func TestChartValues(t *testing.T) {
	objs, err := framework.RenderChart(context.Background(), root(t), "gpu-sched",
		"replicas=3", "controller.workers=8", "controller.kubeAPIQPS=200", "webhook.port=8443",
		"nodeSelector.pool=system", "tolerations[0].key=dedicated", "tolerations[0].operator=Exists",
		"priorityClassName=", "metrics.service.enabled=false", "pluginArgs.PodGang.permitWaitingTimeSeconds=90",
		"profiles[0].schedulerName=gpu-gangs", "profiles[0].plugins[0]=PodGang",
		"profiles[1].schedulerName=kai-scheduler", "profiles[1].plugins[0]=PodGang", "pluginArgs.PodGang.kaiEventProfiles[0]=kai-scheduler")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		found[o.GetKind()+"/"+o.GetName()] = o
		if o.GetKind() == "Service" && o.GetName() == "phalanx-scheduler-metrics" {
			t.Error("metrics.service.enabled=false still renders the metrics Service")
		}
	}
	d := found["Deployment/phalanx-scheduler"]
	if d == nil {
		t.Fatal("no Deployment")
	}
	if r, _, _ := unstructured.NestedFieldNoCopy(d.Object, "spec", "replicas"); fmt.Sprint(r) != "3" {
		t.Errorf("replicas %v, want 3", r)
	}
	spec, _, _ := unstructured.NestedMap(d.Object, "spec", "template", "spec")
	if _, ok := spec["priorityClassName"]; ok {
		t.Error("priorityClassName= still sets one")
	}
	if ns, _, _ := unstructured.NestedStringMap(spec, "nodeSelector"); ns["pool"] != "system" {
		t.Errorf("nodeSelector %v", ns)
	}
	c := spec["containers"].([]any)[0].(map[string]any)
	args := strings.Join(toStrings(c["args"]), " ")
	for _, want := range []string{"--controller-workers=8", "--controller-kube-api-qps=200", "--webhook-port=8443",
		"--webhook-secret=gpu-sched/phalanx-webhook-tls", "--webhook-service=gpu-sched/phalanx-webhook"} {
		if !strings.Contains(args, want) {
			t.Errorf("args %q lack %s", args, want)
		}
	}
	cfg, _, _ := unstructured.NestedString(found["ConfigMap/phalanx-scheduler-config"].Object, "data", "config.yaml")
	for _, want := range []string{"schedulerName: gpu-gangs", `"permitWaitingTimeSeconds":90`} {
		if !strings.Contains(cfg, want) {
			t.Errorf("scheduler configuration lacks %s:\n%s", want, cfg)
		}
	}
	// PodGang is the queue-sort plugin: kube-scheduler wants its args the same in every profile.
	if n := strings.Count(cfg, `"kaiEventProfiles":["kai-scheduler"],"permitWaitingTimeSeconds":90`); n != 2 {
		t.Errorf("PodGang args alike in %d profiles, want both:\n%s", n, cfg)
	}
	if strings.Contains(cfg, "schedulerName: phalanx-scheduler") {
		t.Errorf("profiles replaced the default profile, but it is still rendered:\n%s", cfg)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}

// Bad values fail helm template (and so helm install) with a message naming the value.
func TestChartRefusesBadValues(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  []string
		want string
	}{
		{"both modes off", []string{"mode=none"}, `mode: must be "full"`},
		{"zero replicas with leader election", []string{"replicas=0"}, "replicas: 0 with leaderElection.enabled"},
		{"replicas without leader election", []string{"replicas=2", "leaderElection.enabled=false"}, "replicas: 2 without leaderElection.enabled"},
		{"unknown profile plugin", []string{"profiles[0].schedulerName=x", "profiles[0].plugins[0]=Coscheduling"}, `profiles[0].plugins: unknown plugin "Coscheduling"`},
		{"profile without a name", []string{"profiles[0].plugins[0]=PodGang"}, "profiles[0].schedulerName: must be set"},
		{"two profiles one name", []string{"profiles[0].schedulerName=x", "profiles[0].plugins[0]=PodGang", "profiles[1].schedulerName=x", "profiles[1].plugins[0]=PodGang"}, `profiles[1].schedulerName: "x" is used by two profiles`},
		{"args of an unknown plugin", []string{"pluginArgs.Gang.backoffSeconds=1"}, "pluginArgs.Gang: unknown plugin"},
		{"ServiceMonitor without the Prometheus operator", []string{"metrics.serviceMonitor.enabled=true"}, "metrics.serviceMonitor.enabled: the cluster does not serve monitoring.coreos.com/v1"},
		{"webhook failure policy", []string{"webhook.failurePolicy=Sometimes"}, "webhook.failurePolicy: must be Fail or Ignore"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := framework.RenderChart(context.Background(), root(t), "phalanx-system", tc.set...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("helm template --set %v: %v\nwant an error saying %q", tc.set, err, tc.want)
			}
		})
	}
}
