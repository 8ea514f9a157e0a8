package controller

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	grovelisters "github.com/phalanx-sched/phalanx/pkg/client/listers/grove/v1alpha1"
)

// A check that runs on every pass records its Warning once per change, not once per pass.
func TestWarnOnlyWhenItChanges(t *testing.T) {
	rec := record.NewFakeRecorder(10)
	c := &Controller{recorder: rec}
	pcs := &grovev1.PodCliqueSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
	c.warn(pcs, ReasonTopologyNotFound, "one")
	c.warn(pcs, ReasonTopologyNotFound, "one")
	c.warn(pcs, ReasonTopologyDomainUnknown, "one") // another reason
	c.warn(pcs, ReasonTopologyNotFound, "two")
	c.clearWarning(pcs, ReasonTopologyNotFound)
	c.warn(pcs, ReasonTopologyNotFound, "two") // news again once cleared
	c.forgetWarnings("ns/a")
	c.warn(pcs, ReasonTopologyDomainUnknown, "one")
	if n := len(rec.Events); n != 5 {
		t.Fatalf("%d events, want 5", n)
	}
}

// The set's TopologyLevelsUnavailable condition says what Grove's operator says, for each way
// a constraint's domains can resolve through a ClusterTopologyBinding.
func TestTopologyCondition(t *testing.T) {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	if err := indexer.Add(&grovev1.ClusterTopologyBinding{ObjectMeta: metav1.ObjectMeta{Name: "gb200"},
		Spec: grovev1.ClusterTopologyBindingSpec{Levels: []grovev1.TopologyLevel{{Domain: "rack", Key: "example.com/rack"}}}}); err != nil {
		t.Fatal(err)
	}
	lister := grovelisters.NewClusterTopologyBindingLister(indexer)
	set := func(name, domain string) *grovev1.PodCliqueSet {
		pcs := &grovev1.PodCliqueSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s", Generation: 3}}
		if domain != "" {
			pcs.Spec.Template.TopologyConstraint = &grovev1.TopologyConstraint{TopologyName: name, Pack: &grovev1.TopologyPackConstraint{Required: domain}}
		}
		return pcs
	}
	for name, c := range map[string]struct {
		served bool
		pcs    *grovev1.PodCliqueSet
		status metav1.ConditionStatus // "": no condition
		reason string
	}{
		"no Grove topology here":         {false, set("", "kubernetes.io/hostname"), "", ""},
		"binding named, kind not served": {false, set("gb200", "rack"), metav1.ConditionUnknown, ReasonClusterTopologyNotFound},
		"no constraint":                  {true, set("", ""), metav1.ConditionFalse, ReasonAllTopologyLevelsAvailable},
		"constraint without a name":      {true, set("", "rack"), metav1.ConditionUnknown, ReasonTopologyNameMissing},
		"binding missing":                {true, set("absent", "rack"), metav1.ConditionUnknown, ReasonClusterTopologyNotFound},
		"domain not a level":             {true, set("gb200", "block"), metav1.ConditionTrue, ReasonTopologyLevelsUnavailable},
		"every domain a level":           {true, set("gb200", "rack"), metav1.ConditionFalse, ReasonAllTopologyLevelsAvailable},
	} {
		t.Run(name, func(t *testing.T) {
			ctl := &Controller{}
			if c.served {
				ctl.topologies.Store(&lister)
			}
			_, cond, keep := ctl.topologyKeys(c.pcs)
			if keep {
				t.Fatal("keep, want a condition or none")
			}
			switch {
			case c.status == "" && cond != nil:
				t.Fatalf("condition %+v, want none", cond)
			case c.status == "":
			case cond == nil || cond.Status != c.status || cond.Reason != c.reason || cond.ObservedGeneration != 3:
				t.Fatalf("condition %+v, want %s/%s at generation 3", cond, c.status, c.reason)
			}
		})
	}
}
