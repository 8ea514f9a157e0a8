package workload

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
)

func loadSample(t *testing.T, name string) *grovev1.PodCliqueSet {
	t.Helper()
	// go test runs in the package's directory (file paths from runtime.Caller are not
	// usable: the Makefile builds with -trimpath).
	raw, err := os.ReadFile(filepath.Join("..", "..", "manifests", "samples", name))
	if err != nil {
		t.Fatal(err)
	}
	pcs := &grovev1.PodCliqueSet{}
	if err := yaml.UnmarshalStrict(raw, pcs); err != nil {
		t.Fatal(err)
	}
	pcs.UID = "uid-1"
	return pcs
}

func TestDesiredDisaggregated(t *testing.T) {
	pcs := loadSample(t, "disaggregated.yaml")
	w := Desired(pcs, Observed{})
	if len(w.Pods) != 30 || len(w.Cliques) != 18 || len(w.ScalingGroups) != 4 || len(w.PodGangs) != 6 || len(w.Services) != 2 {
		t.Fatalf("pods %d cliques %d groups %d gangs %d services %d", len(w.Pods), len(w.Cliques), len(w.ScalingGroups), len(w.PodGangs), len(w.Services))
	}
	gangs := map[string]int{}
	for _, g := range w.PodGangs {
		n := 0
		for _, pg := range g.Spec.PodGroups {
			n += len(pg.PodReferences)
		}
		gangs[g.Name] = n
	}
	p := "multinode-disaggregated-inference-0"
	// Scaled gangs are numbered as Grove numbers them: group replica 1 (minAvailable 1) is -0.
	if gangs[p] != 9 || gangs[p+"-prefill-0"] != 3 || gangs[p+"-decode-0"] != 3 || len(gangs) != 6 {
		t.Errorf("gang sizes %v: base = frontend 3 + two group replicas of 3, scaled = 3, numbered from 0", gangs)
	}
	for _, pod := range w.Pods {
		if pod.Labels[grovev1.LabelPodGang] == "" || pod.Spec.Hostname != pod.Name {
			t.Errorf("pod %s: labels %v hostname %q", pod.Name, pod.Labels, pod.Spec.Hostname)
		}
	}
}

// Pods that exist get their identity (name, labels) but no spec, and cliques that exist their
// sizes but no pod template: only missing objects are made from the desired world, and the
// rest of the world is the same.
func TestDesiredExistingPodsHaveNoSpec(t *testing.T) {
	pcs := loadSample(t, "disaggregated.yaml")
	full := Desired(pcs, Observed{})
	existing := map[string]*corev1.Pod{}
	for i, p := range full.Pods {
		if i%2 == 0 {
			existing[p.Name] = p
		}
	}
	cliques := map[string]*grovev1.PodClique{full.Cliques[0].Name: full.Cliques[0]}
	w := Desired(pcs, Observed{ExistingPods: existing, Cliques: cliques})
	for i, c := range w.Cliques {
		f := full.Cliques[i]
		if c.Name != f.Name || c.Spec.Replicas != f.Spec.Replicas || *c.Spec.MinAvailable != *f.Spec.MinAvailable {
			t.Errorf("clique %s: replicas %d minAvailable %d, want %s %d %d", c.Name, c.Spec.Replicas, *c.Spec.MinAvailable, f.Name, f.Spec.Replicas, *f.Spec.MinAvailable)
		}
		if _, ok := cliques[c.Name]; ok == (len(c.Spec.PodSpec.Containers) != 0) {
			t.Errorf("clique %s (exists: %v) has %d containers in its template", c.Name, ok, len(c.Spec.PodSpec.Containers))
		}
	}
	if len(w.Pods) != len(full.Pods) || len(w.PodGangs) != len(full.PodGangs) {
		t.Fatalf("%d pods, %d gangs; want %d, %d", len(w.Pods), len(w.PodGangs), len(full.Pods), len(full.PodGangs))
	}
	for i, p := range w.Pods {
		f := full.Pods[i]
		if p.Name != f.Name || !reflect.DeepEqual(p.Labels, f.Labels) {
			t.Errorf("pod %d: %s %v, want %s %v", i, p.Name, p.Labels, f.Name, f.Labels)
		}
		switch _, ok := existing[p.Name]; {
		case ok && len(p.Spec.Containers) != 0:
			t.Errorf("existing pod %s got a spec", p.Name)
		case !ok && !reflect.DeepEqual(p.Spec, f.Spec):
			t.Errorf("missing pod %s: spec differs from the full world's", p.Name)
		}
	}
}

// A scaling group scaled through its scale subresource keeps its size while the template
// keeps its value; a template change wins.
func TestGroupReplicas(t *testing.T) {
	cfg := &grovev1.PodCliqueScalingGroupConfig{Name: "g", Replicas: ptr.To[int32](2)}
	scaled := &grovev1.PodCliqueScalingGroup{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{AnnotationTemplateReplicas: "2"}},
		Spec: grovev1.PodCliqueScalingGroupSpec{Replicas: 5}}
	if got := GroupReplicas(cfg, nil); got != 2 {
		t.Errorf("new group: %d", got)
	}
	if got := GroupReplicas(cfg, scaled); got != 5 {
		t.Errorf("scaled group: %d, want 5", got)
	}
	cfg.Replicas = ptr.To[int32](3)
	if got := GroupReplicas(cfg, scaled); got != 3 {
		t.Errorf("template changed: %d, want 3", got)
	}
}

func TestTemplateHashStable(t *testing.T) {
	pcs := loadSample(t, "disaggregated.yaml")
	c := pcs.Spec.Template.Cliques[0]
	c.Labels = map[string]string{"a": "1", "b": "2", "c": "3"}
	h := TemplateHash(&c)
	for i := 0; i < 20; i++ {
		if TemplateHash(&c) != h {
			t.Fatal("hash depends on map order")
		}
	}
	c.Spec.PodSpec.Containers[0].Image = "other"
	if TemplateHash(&c) == h {
		t.Fatal("a new image must change the revision")
	}
}

// Grove's pack.required and pack.preferred mean what Phalanx's packDomain means (a node label
// key here): every gang of the replica carries them; pack.required wins over the deprecated
// packDomain.
func TestGangPackFromGroveTopology(t *testing.T) {
	for name, tc := range map[string]struct {
		in                  grovev1.TopologyConstraint
		required, preferred string
	}{
		"packDomain":             {in: grovev1.TopologyConstraint{PackDomain: ptr.To("rack")}, required: "rack"},
		"pack.required wins":     {in: grovev1.TopologyConstraint{PackDomain: ptr.To("zone"), Pack: &grovev1.TopologyPackConstraint{Required: "rack"}}, required: "rack"},
		"pack.preferred only":    {in: grovev1.TopologyConstraint{Pack: &grovev1.TopologyPackConstraint{Preferred: "block"}}, preferred: "block"},
		"required and preferred": {in: grovev1.TopologyConstraint{TopologyName: "ignored", Pack: &grovev1.TopologyPackConstraint{Required: "rack", Preferred: "host"}}, required: "rack", preferred: "host"},
	} {
		pcs := loadSample(t, "disaggregated.yaml")
		pcs.Spec.Template.TopologyConstraint = &tc.in
		for _, g := range Desired(pcs, Observed{}).PodGangs {
			pc := g.Spec.TopologyConstraint.PackConstraint
			if ptr.Deref(pc.Required, "") != tc.required || ptr.Deref(pc.Preferred, "") != tc.preferred {
				t.Errorf("%s: gang %s packs required %q preferred %q, want %q %q", name, g.Name, ptr.Deref(pc.Required, ""), ptr.Deref(pc.Preferred, ""), tc.required, tc.preferred)
			}
		}
	}
}

// A scaling group's topology constraint packs each of its replicas (a
// topologyConstraintGroupConfig over the replica's cliques' podgroups, in whichever gang the
// replica is in) and a clique's packs its podgroup, as Grove writes them.
func TestGangLevelsFromGroveTopology(t *testing.T) {
	pcs := loadSample(t, "disaggregated.yaml")
	for i := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		if cfg := &pcs.Spec.Template.PodCliqueScalingGroupConfigs[i]; cfg.Name == "prefill" {
			cfg.TopologyConstraint = &grovev1.TopologyConstraint{Pack: &grovev1.TopologyPackConstraint{Required: "nvlink-domain"}}
		}
	}
	for i := range pcs.Spec.Template.Cliques {
		if c := &pcs.Spec.Template.Cliques[i]; c.Name == "decode-worker" {
			c.TopologyConstraint = &grovev1.TopologyConstraint{Pack: &grovev1.TopologyPackConstraint{Preferred: "rack"}}
		}
	}
	groups, cliques := map[string][]string{}, map[string]string{}
	for _, g := range Desired(pcs, Observed{}).PodGangs {
		for _, c := range g.Spec.TopologyConstraintGroupConfigs {
			if ptr.Deref(c.TopologyConstraint.PackConstraint.Required, "") != "nvlink-domain" {
				t.Errorf("gang %s group %s packs %+v", g.Name, c.Name, c.TopologyConstraint.PackConstraint)
			}
			groups[g.Name+"/"+c.Name] = c.PodGroupNames
		}
		for _, pg := range g.Spec.PodGroups {
			if tc := pg.TopologyConstraint; tc != nil {
				cliques[pg.Name] = ptr.Deref(tc.PackConstraint.Preferred, "") + ptr.Deref(tc.PackConstraint.Required, "")
			}
		}
	}
	p := "multinode-disaggregated-inference-0"
	want := map[string][]string{
		p + "/" + p + "-prefill-0":           {p + "-prefill-0-prefill-leader", p + "-prefill-0-prefill-worker"},
		p + "-prefill-0/" + p + "-prefill-1": {p + "-prefill-1-prefill-leader", p + "-prefill-1-prefill-worker"},
	}
	for k, v := range want {
		if !reflect.DeepEqual(groups[k], v) {
			t.Errorf("group config %s: podgroups %v, want %v (all: %v)", k, groups[k], v, groups)
		}
	}
	if len(groups) != 4 { // two PCS replicas, two prefill replicas each
		t.Errorf("%d group configs, want 4: %v", len(groups), groups)
	}
	if cliques[p+"-decode-0-decode-worker"] != "rack" || cliques[p+"-decode-1-decode-worker"] != "rack" || len(cliques) != 4 {
		t.Errorf("podgroup constraints %v, want rack on each decode-worker podgroup only", cliques)
	}
}

// A standalone clique scaled through its PodClique's scale subresource keeps the scaled
// count until the template's replicas change; its minAvailable never exceeds it.
func TestCliqueReplicas(t *testing.T) {
	pcs := loadSample(t, "disaggregated.yaml")
	c := &pcs.Spec.Template.Cliques[0] // frontend, 3 replicas
	name := PodCliqueName(pcs.Name, 0, c.Name)
	scaled := &grovev1.PodClique{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{AnnotationTemplateReplicas: "3"}},
		Spec: grovev1.PodCliqueSpec{Replicas: 1}}
	if got := CliqueReplicas(c, nil); got != 3 {
		t.Errorf("new clique: %d", got)
	}
	w := Desired(pcs, Observed{Cliques: map[string]*grovev1.PodClique{name: scaled}})
	pods := 0
	for _, p := range w.Pods {
		if p.Labels[grovev1.LabelPodClique] == name {
			pods++
			if p.Labels[grovev1.LabelSurge] != "" {
				t.Errorf("pod %s of a scaled clique is labelled surge", p.Name)
			}
		}
	}
	if pods != 1 {
		t.Errorf("scaled clique has %d pods, want 1", pods)
	}
	for _, q := range w.Cliques {
		if q.Name == name && (q.Spec.Replicas != 1 || *q.Spec.MinAvailable != 1 || q.Annotations[AnnotationTemplateReplicas] != "3") {
			t.Errorf("scaled PodClique %+v %v: want replicas 1, minAvailable 1, template replicas 3", q.Spec, q.Annotations)
		}
	}
	c.Spec.Replicas = 4
	if got := CliqueReplicas(c, scaled); got != 4 {
		t.Errorf("template changed: %d, want 4", got)
	}
}

// A replica with a template of its own (held by an update's partition) gets its pods, cliques
// and their hashes from it; the other replicas from spec.template; names and gangs are the
// same either way.
func TestDesiredReplicaTemplates(t *testing.T) {
	pcs := loadSample(t, "disaggregated.yaml")
	held := pcs.Spec.Template.DeepCopy()
	for i := range pcs.Spec.Template.Cliques {
		pcs.Spec.Template.Cliques[i].Spec.PodSpec.Containers[0].Image = "registry.example.com/new:v2"
	}
	plain := Desired(pcs, Observed{})
	w := Desired(pcs, Observed{ReplicaTemplates: map[int]*grovev1.PodCliqueSetTemplateSpec{0: held}})
	if len(w.Pods) != len(plain.Pods) || len(w.PodGangs) != len(plain.PodGangs) || len(w.Cliques) != len(plain.Cliques) {
		t.Fatalf("the held replica changed the shape: %d/%d pods, %d/%d gangs", len(w.Pods), len(plain.Pods), len(w.PodGangs), len(plain.PodGangs))
	}
	heldHashes := TemplateHashes(&grovev1.PodCliqueSet{Spec: grovev1.PodCliqueSetSpec{Template: *held}})
	heldImages := map[string]string{}
	for _, c := range held.Cliques {
		heldImages[c.Name] = c.Spec.PodSpec.Containers[0].Image
	}
	newHashes := TemplateHashes(pcs)
	for i, pod := range w.Pods {
		r, clique := pod.Labels[grovev1.LabelPodCliqueSetReplicaIndex], pod.Labels[LabelCliqueTemplate]
		want, image := newHashes[clique], "registry.example.com/new:v2"
		if r == "0" {
			want, image = heldHashes[clique], heldImages[clique]
		}
		if pod.Name != plain.Pods[i].Name || pod.Labels[grovev1.LabelPodTemplateHash] != want || pod.Spec.Containers[0].Image != image {
			t.Errorf("replica %s pod %s: hash %s image %s; want %s %s", r, pod.Name, pod.Labels[grovev1.LabelPodTemplateHash], pod.Spec.Containers[0].Image, want, image)
		}
	}
}

// DesiredCache gives the world Desired gives, pass after pass, while the inputs change as an
// update changes them (existing pods, scaled cliques and groups, surge members, held
// templates, a new template, a new set under the same name), and reuses the replicas whose
// inputs did not change.
func TestDesiredCacheIsDesired(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	base := loadSample(t, "disaggregated.yaml")
	base.Spec.Replicas = 4
	all := Desired(base, Observed{})
	cache := &DesiredCache{}
	pcs := base.DeepCopy()
	held := base.Spec.Template.DeepCopy()
	reused := 0
	for pass := 0; pass < 300; pass++ {
		obs := Observed{ExistingPods: map[string]*corev1.Pod{}, Cliques: map[string]*grovev1.PodClique{}, ScalingGroups: map[string]*grovev1.PodCliqueScalingGroup{}}
		for _, p := range all.Pods {
			if rng.Intn(4) != 0 {
				obs.ExistingPods[p.Name] = p
			}
		}
		for _, c := range all.Cliques {
			if rng.Intn(3) != 0 {
				c := c.DeepCopy()
				if rng.Intn(8) == 0 {
					c.Spec.Replicas++
				}
				obs.Cliques[c.Name] = c
			}
		}
		for _, g := range all.ScalingGroups {
			g := g.DeepCopy()
			if rng.Intn(8) == 0 {
				g.Spec.Replicas = 3
			}
			obs.ScalingGroups[g.Name] = g
		}
		switch rng.Intn(6) {
		case 0:
			obs.SurgeGroupReplicas = map[string][]int{ScalingGroupName(pcs.Name, rng.Intn(4), "prefill"): {2}}
		case 1:
			obs.SurgePods = map[string][]int{PodCliqueName(pcs.Name, rng.Intn(4), "frontend"): {3}}
		case 2:
			obs.ReplicaTemplates = map[int]*grovev1.PodCliqueSetTemplateSpec{rng.Intn(4): held}
		case 3:
			obs.SurgeReplicas = []int{4}
		}
		if pass%50 == 49 {
			// A new template, and now and then a new set of the same name.
			pcs.Spec.Template.Cliques[0].Spec.PodSpec.Containers[0].Image = fmt.Sprintf("registry.example.com/frontend:v%d", pass)
			if pass%100 == 99 {
				pcs.UID = types.UID(fmt.Sprintf("uid-%d", pass))
			}
		}
		prev := map[string]*grovev1.PodClique{}
		if cache.replicas != nil {
			for _, c := range cache.replicas {
				for _, pc := range c.world.Cliques {
					prev[pc.Name] = pc
				}
			}
		}
		got, want := cache.Desired(pcs, obs), Desired(pcs, obs)
		if !apiequality.Semantic.DeepEqual(got, want) {
			t.Fatalf("pass %d: the cached world differs from Desired's", pass)
		}
		for _, c := range got.Cliques {
			if prev[c.Name] == c {
				reused++
			}
		}
	}
	if reused == 0 {
		t.Error("no replica was reused between passes")
	}
}
