package workload

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
)

func TestTopologyName(t *testing.T) {
	pcs := gtSet(1)
	if n, err := TopologyName(pcs); n != "" || err != nil {
		t.Fatalf("no constraint: %q, %v; want none", n, err)
	}
	pcs.Spec.Template.TopologyConstraint = &grovev1.TopologyConstraint{TopologyName: "gb200", PackDomain: ptr.To("zone")}
	pcs.Spec.Template.PodCliqueScalingGroupConfigs[0].TopologyConstraint = &grovev1.TopologyConstraint{Pack: &grovev1.TopologyPackConstraint{Required: "rack"}}
	pcs.Spec.Template.Cliques[0].TopologyConstraint = &grovev1.TopologyConstraint{Pack: &grovev1.TopologyPackConstraint{Preferred: "host"}}
	if n, err := TopologyName(pcs); n != "gb200" || err != nil {
		t.Fatalf("inherited: %q, %v; want gb200", n, err)
	}
	if got := TopologyDomains(pcs); strings.Join(got, ",") != "zone,rack,host" {
		t.Errorf("domains %v, want zone, rack, host", got)
	}
	pcs.Spec.Template.Cliques[0].TopologyConstraint.TopologyName = "other"
	if _, err := TopologyName(pcs); err == nil || !strings.Contains(err.Error(), "spec.template.cliques[0].topologyConstraint.topologyName") {
		t.Fatalf("two names: %v; want an error naming the field", err)
	}
}

// Every level's domains are written as the binding's node label keys; a domain the binding
// does not list is written as it is.
func TestDesiredResolvesPackDomains(t *testing.T) {
	pcs := gtSet(1)
	pcs.Namespace, pcs.UID = "ns", "u"
	pcs.Spec.Template.TopologyConstraint = &grovev1.TopologyConstraint{TopologyName: "gb200", PackDomain: ptr.To("zone")}
	pcs.Spec.Template.PodCliqueScalingGroupConfigs[0].TopologyConstraint = &grovev1.TopologyConstraint{Pack: &grovev1.TopologyPackConstraint{Required: "rack"}}
	pcs.Spec.Template.Cliques[1].TopologyConstraint = &grovev1.TopologyConstraint{Pack: &grovev1.TopologyPackConstraint{Preferred: "nvlink"}}
	keys := TopologyKeysOf(&grovev1.ClusterTopologyBinding{ObjectMeta: metav1.ObjectMeta{Name: "gb200"}, Spec: grovev1.ClusterTopologyBindingSpec{
		Levels: []grovev1.TopologyLevel{{Domain: "zone", Key: "topology.kubernetes.io/zone"}, {Domain: "rack", Key: "example.com/rack"}}}})
	w := Desired(pcs, Observed{TopologyKeys: keys})
	base := w.PodGangs[0]
	if got := ptr.Deref(base.Spec.TopologyConstraint.PackConstraint.Required, ""); got != "topology.kubernetes.io/zone" {
		t.Errorf("gang level required %q, want the zone key", got)
	}
	if len(base.Spec.TopologyConstraintGroupConfigs) == 0 || ptr.Deref(base.Spec.TopologyConstraintGroupConfigs[0].TopologyConstraint.PackConstraint.Required, "") != "example.com/rack" {
		t.Errorf("group level %+v, want required example.com/rack", base.Spec.TopologyConstraintGroupConfigs)
	}
	found := false
	for _, g := range w.PodGangs {
		for _, pg := range g.Spec.PodGroups {
			if strings.HasSuffix(pg.Name, "-b") {
				found = true
				if tc := pg.TopologyConstraint; tc == nil || ptr.Deref(tc.PackConstraint.Preferred, "") != "nvlink" {
					t.Errorf("podgroup %s constraint %+v, want preferred nvlink as written", pg.Name, tc)
				}
			}
		}
	}
	if !found {
		t.Fatal("no podgroup of clique b")
	}
}
