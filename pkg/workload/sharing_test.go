package workload

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
)

func groveObjects(t *testing.T, objs ...any) []grovev1.GroveObject {
	t.Helper()
	out := make([]grovev1.GroveObject, 0, len(objs))
	for _, o := range objs {
		raw, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, grovev1.GroveObject{RawExtension: runtime.RawExtension{Raw: raw}})
	}
	return out
}

type m = map[string]any

// sharingSet is the shape of Grove's resource-sharing e2e workload: every level, both scopes,
// filters at the set and group levels, and an external template.
func sharingSet(t *testing.T) *grovev1.PodCliqueSet {
	tpl := func(n string) m { return m{"name": n, "templateSpec": m{"spec": m{}}} }
	clique := func(n string, sharing []grovev1.GroveObject) grovev1.PodCliqueTemplateSpec {
		return grovev1.PodCliqueTemplateSpec{Name: n, ResourceSharing: sharing, Spec: grovev1.PodCliqueSpec{Replicas: 1,
			PodSpec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}}
	}
	return &grovev1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Name: "rs-test", Namespace: "default", UID: "u"},
		Spec: grovev1.PodCliqueSetSpec{Replicas: 1, Template: grovev1.PodCliqueSetTemplateSpec{
			ResourceClaimTemplates: groveObjects(t, tpl("int-tpl"), tpl("int-tpl2"), tpl("int-tpl3"), tpl("int-tpl4"), tpl("int-tpl5"), tpl("int-tpl6"), tpl("int-tpl7"), tpl("int-tpl8")),
			ResourceSharing: groveObjects(t,
				m{"name": "int-tpl5", "scope": "AllReplicas"},
				m{"name": "ext-tpl", "scope": "PerReplica"},
				m{"name": "int-tpl", "scope": "PerReplica", "filter": m{"childCliqueNames": []string{"worker-a"}}},
				m{"name": "int-tpl7", "scope": "AllReplicas", "filter": m{"childScalingGroupNames": []string{"sga"}}}),
			Cliques: []grovev1.PodCliqueTemplateSpec{
				clique("worker-a", groveObjects(t, m{"name": "int-tpl4", "scope": "PerReplica"}, m{"name": "ext-ns-tpl", "namespace": "rs-shared", "scope": "AllReplicas"})),
				clique("worker-b", groveObjects(t, m{"name": "int-tpl6", "scope": "AllReplicas"})),
			},
			PodCliqueScalingGroupConfigs: []grovev1.PodCliqueScalingGroupConfig{{
				Name: "sga", CliqueNames: []string{"worker-b"}, Replicas: ptr.To[int32](2), MinAvailable: ptr.To[int32](1),
				ResourceSharing: groveObjects(t,
					m{"name": "int-tpl2", "scope": "AllReplicas"},
					m{"name": "int-tpl3", "scope": "PerReplica"},
					m{"name": "int-tpl8", "scope": "AllReplicas", "filter": m{"childCliqueNames": []string{"worker-b"}}}),
			}},
		}},
	}
}

// The claims and each pod's references are Grove's, name for name (its e2e test RS1 lists them).
func TestSharedClaimsAsGroveNamesThem(t *testing.T) {
	w := Desired(sharingSet(t), Observed{})
	owners := map[string]string{}
	for _, c := range w.Claims {
		owners[c.Name] = c.OwnerKind + "/" + c.OwnerName
	}
	want := map[string]string{
		"rs-test-all-int-tpl5": "PodCliqueSet/rs-test", "rs-test-0-ext-tpl": "PodCliqueSet/rs-test",
		"rs-test-0-int-tpl": "PodCliqueSet/rs-test", "rs-test-all-int-tpl7": "PodCliqueSet/rs-test",
		"rs-test-0-worker-a-0-int-tpl4": "PodClique/rs-test-0-worker-a", "rs-test-0-worker-a-all-ext-ns-tpl": "PodClique/rs-test-0-worker-a",
		"rs-test-0-sga-all-int-tpl2": "PodCliqueScalingGroup/rs-test-0-sga", "rs-test-0-sga-0-int-tpl3": "PodCliqueScalingGroup/rs-test-0-sga",
		"rs-test-0-sga-1-int-tpl3": "PodCliqueScalingGroup/rs-test-0-sga", "rs-test-0-sga-all-int-tpl8": "PodCliqueScalingGroup/rs-test-0-sga",
		"rs-test-0-sga-0-worker-b-all-int-tpl6": "PodClique/rs-test-0-sga-0-worker-b", "rs-test-0-sga-1-worker-b-all-int-tpl6": "PodClique/rs-test-0-sga-1-worker-b",
	}
	if len(owners) != len(want) || len(w.Claims) != len(want) {
		t.Errorf("%d claims %v, want %d", len(w.Claims), owners, len(want))
	}
	for n, o := range want {
		if owners[n] != o {
			t.Errorf("claim %s owned by %q, want %q", n, owners[n], o)
		}
	}
	wantRefs := map[string][]string{
		"rs-test-0-worker-a-0": {"rs-test-all-int-tpl5", "rs-test-0-ext-tpl", "rs-test-0-int-tpl", "rs-test-0-worker-a-0-int-tpl4", "rs-test-0-worker-a-all-ext-ns-tpl"},
		"rs-test-0-sga-0-worker-b-0": {"rs-test-all-int-tpl5", "rs-test-0-ext-tpl", "rs-test-all-int-tpl7", "rs-test-0-sga-all-int-tpl2", "rs-test-0-sga-0-int-tpl3",
			"rs-test-0-sga-all-int-tpl8", "rs-test-0-sga-0-worker-b-all-int-tpl6"},
		"rs-test-0-sga-1-worker-b-0": {"rs-test-all-int-tpl5", "rs-test-0-ext-tpl", "rs-test-all-int-tpl7", "rs-test-0-sga-all-int-tpl2", "rs-test-0-sga-1-int-tpl3",
			"rs-test-0-sga-all-int-tpl8", "rs-test-0-sga-1-worker-b-all-int-tpl6"},
	}
	if len(w.Pods) != len(wantRefs) {
		t.Fatalf("%d pods, want %d", len(w.Pods), len(wantRefs))
	}
	for _, p := range w.Pods {
		var got []string
		for _, rc := range p.Spec.ResourceClaims {
			if ptr.Deref(rc.ResourceClaimName, "") != rc.Name {
				t.Errorf("pod %s claim entry %s names claim %v", p.Name, rc.Name, rc.ResourceClaimName)
			}
			got = append(got, rc.Name)
		}
		if !slices.Equal(got, wantRefs[p.Name]) {
			t.Errorf("pod %s claims %v, want %v", p.Name, got, wantRefs[p.Name])
		}
		var cont []string
		for _, c := range p.Spec.Containers[0].Resources.Claims {
			cont = append(cont, c.Name)
		}
		if !slices.Equal(cont, got) {
			t.Errorf("pod %s container claims %v, want every pod claim %v", p.Name, cont, got)
		}
	}
}

func TestSharingOfNamesTheBadField(t *testing.T) {
	pcs := sharingSet(t)
	pcs.Spec.Template.PodCliqueScalingGroupConfigs[0].ResourceSharing = append(pcs.Spec.Template.PodCliqueScalingGroupConfigs[0].ResourceSharing,
		groveObjects(t, m{"name": "x", "scope": "PerPod"})...)
	s, err := SharingOf(&pcs.Spec.Template)
	if err == nil || !strings.Contains(err.Error(), "spec.template.podCliqueScalingGroups[0].resourceSharing[3]") || !strings.Contains(err.Error(), `"PerPod"`) {
		t.Fatalf("err %v, want one naming the entry and its scope", err)
	}
	if len(s.Groups["sga"]) != 3 {
		t.Errorf("the good entries are kept: %d, want 3", len(s.Groups["sga"]))
	}
}
