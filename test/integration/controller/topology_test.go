package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/controller"
	"github.com/phalanx-sched/phalanx/pkg/workload"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// waitTopologyCondition waits for the set's TopologyLevelsUnavailable condition (Grove's) to
// have status and reason.
func waitTopologyCondition(t *testing.T, env *framework.Env, ns, name string, status metav1.ConditionStatus, reason string) {
	t.Helper()
	framework.Eventually(t, wait, fmt.Sprintf("TopologyLevelsUnavailable %s/%s on %s", status, reason, name), func(ctx context.Context) (bool, error) {
		pcs, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := meta.FindStatusCondition(pcs.Status.Conditions, controller.ConditionTopologyLevelsUnavailable)
		if c == nil || c.Status != status || c.Reason != reason {
			return false, fmt.Errorf("condition %+v", c)
		}
		return true, nil
	})
}

// installTopologyCRD installs a CRD of Grove's ClusterTopologyBinding (the part Phalanx
// reads; Grove's own CRD validates more), once per control plane.
func installTopologyCRD(t *testing.T, env *framework.Env) {
	t.Helper()
	ext, err := apiextensionsclient.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "clustertopologybindings.grove.io"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: grovev1.GroupName, Scope: apiextensionsv1.ClusterScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "clustertopologybindings", Singular: "clustertopologybinding",
				Kind: "ClusterTopologyBinding", ListKind: "ClusterTopologyBindingList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1alpha1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", XPreserveUnknownFields: ptr.To(true)},
					}}}}},
		},
	}
	ctx := context.Background()
	if _, err := ext.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = ext.ApiextensionsV1().CustomResourceDefinitions().Delete(ctx, crd.Name, metav1.DeleteOptions{})
	})
	framework.Eventually(t, wait, "ClusterTopologyBindings served", func(ctx context.Context) (bool, error) {
		_, err := env.Phalanx.GroveV1alpha1().ClusterTopologyBindings().List(ctx, metav1.ListOptions{})
		return err == nil, nil
	})
}

// A PodCliqueSet whose topology constraint names a packing domain of Grove's
// ClusterTopologyBinding (pack.required: rack, topologyName: the binding) has it written into its
// PodGang as the node label key the binding gives the domain, as Grove's operator writes it,
// and its pods are placed in one rack. Before, the domain name itself was written as the label
// key and the pods stayed Pending ("no node carries label rack").
func TestPackDomainResolvedThroughClusterTopology(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	// The controller starts first: Grove's CRD installed after it is found by its poll.
	env.StartPhalanx(t, framework.Phalanx{Controller: true, Configure: func(c *controller.Controller) { c.SetTopologyPoll(200 * time.Millisecond) }})
	installTopologyCRD(t, env)
	binding := &grovev1.ClusterTopologyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: grovev1.SchemeGroupVersion.String(), Kind: "ClusterTopologyBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: "gb200-" + ns},
		Spec: grovev1.ClusterTopologyBindingSpec{Levels: []grovev1.TopologyLevel{
			{Domain: "zone", Key: localcluster.LabelZone}, {Domain: "rack", Key: localcluster.LabelRack}}},
	}
	if err := env.Phalanx.GroveV1alpha1().RESTClient().Post().Resource("clustertopologybindings").Body(binding).Do(ctx).Error(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Phalanx.GroveV1alpha1().RESTClient().Delete().Resource("clustertopologybindings").Name(binding.Name).Do(context.Background()).Error()
	})
	// 4 nodes in rack-0, 2 in rack-1: 3 whole-node pods in one rack fit only in rack-0.
	env.AddNodes(t, framework.GPUNodes("topo", 6))
	pcs := framework.Workers(ns, "tp", 0, 1, 600)
	pcs.Spec.Template.TopologyConstraint = &grovev1.TopologyConstraint{TopologyName: binding.Name, Pack: &grovev1.TopologyPackConstraint{Required: "rack"}}
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, pcs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "tp", 1, 3)
	waitTopologyCondition(t, env, ns, "tp", metav1.ConditionFalse, controller.ReasonAllTopologyLevelsAvailable)
	gang, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Get(ctx, workload.BasePodGangName("tp", 0), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tc := gang.Spec.TopologyConstraint; tc == nil || tc.PackConstraint == nil || ptr.Deref(tc.PackConstraint.Required, "") != localcluster.LabelRack {
		t.Fatalf("PodGang %s topologyConstraint %+v, want packConstraint.required %q", gang.Name, tc, localcluster.LabelRack)
	}
	pods, err := env.ListPods(ctx, ns, "tp")
	if err != nil {
		t.Fatal(err)
	}
	racks := map[string]bool{}
	for _, p := range pods {
		n, err := env.Kube.CoreV1().Nodes().Get(ctx, p.Spec.NodeName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		racks[n.Labels[localcluster.LabelRack]] = true
	}
	if len(racks) != 1 {
		t.Fatalf("pods span racks %v, want one", racks)
	}
}

// A set naming a binding that does not exist keeps its domains as written (a required
// constraint is never dropped) and says why on the set.
func TestPackDomainUnresolvedSaysWhy(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	installTopologyCRD(t, env)
	env.StartPhalanx(t, framework.Phalanx{Controller: true})
	pcs := framework.Workers(ns, "tu", 0, 1, 600)
	pcs.Spec.Template.TopologyConstraint = &grovev1.TopologyConstraint{TopologyName: "absent", Pack: &grovev1.TopologyPackConstraint{Required: "rack"}}
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, pcs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, wait, "a TopologyNotFound event naming the binding", func(ctx context.Context) (bool, error) {
		list, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range list.Items {
			if e.Reason == "TopologyNotFound" && containsAll(e.Message, `topologyName "absent"`) {
				return true, nil
			}
		}
		return false, fmt.Errorf("%d events, none TopologyNotFound", len(list.Items))
	})
	framework.Eventually(t, wait, "the PodGang with the domain kept as written", func(ctx context.Context) (bool, error) {
		gang, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Get(ctx, workload.BasePodGangName("tu", 0), metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if tc := gang.Spec.TopologyConstraint; tc == nil || ptr.Deref(tc.PackConstraint.Required, "") != "rack" {
			return false, framework.Terminal(fmt.Errorf("PodGang topologyConstraint %+v, want the domain kept as written", tc))
		}
		return true, nil
	})
	// Grove's condition says so too (Grove's TAS20 waits for it).
	waitTopologyCondition(t, env, ns, "tu", metav1.ConditionUnknown, controller.ReasonClusterTopologyNotFound)
}

// Grove's rules for the topology fields hold on Phalanx's CRD, with Grove's messages (Grove's
// TAS22 on kind created each of these on Phalanx's CRD, and every create succeeded): the
// deprecated packDomain is refused on a new PodCliqueSet at every level, a constraint names
// pack or packDomain, a pack names required or preferred, and packDomain and pack.required
// are not both set.
func TestTopologyConstraintRulesAsGroves(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	rack := ptr.To("rack")
	cases := map[string]struct {
		set  func(*grovev1.PodCliqueSet)
		want string
	}{
		"packDomain on the set": {func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.TopologyConstraint = &grovev1.TopologyConstraint{PackDomain: rack}
		}, "packDomain is deprecated and cannot be used on new workloads; use pack.required"},
		"packDomain on a clique": {func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].TopologyConstraint = &grovev1.TopologyConstraint{PackDomain: rack}
		}, "packDomain is deprecated and cannot be used on new workloads; use pack.required"},
		"no pack": {func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.TopologyConstraint = &grovev1.TopologyConstraint{TopologyName: "gb200"}
		}, "topologyConstraint must specify pack or deprecated packDomain"},
		"empty pack": {func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.TopologyConstraint = &grovev1.TopologyConstraint{Pack: &grovev1.TopologyPackConstraint{}}
		}, "pack must specify at least one of required or preferred"},
		"packDomain and pack.required": {func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.TopologyConstraint = &grovev1.TopologyConstraint{PackDomain: rack, Pack: &grovev1.TopologyPackConstraint{Required: "rack"}}
		}, "must not set both pack.required and deprecated packDomain"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			pcs := framework.Workers(ns, "cel", 0, 1, 100)
			c.set(pcs)
			_, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, pcs, metav1.CreateOptions{})
			if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("create = %v, want Invalid: %q", err, c.want)
			}
		})
	}
	pcs := framework.Workers(ns, "cel-ok", 0, 1, 100)
	pcs.Spec.Template.TopologyConstraint = &grovev1.TopologyConstraint{Pack: &grovev1.TopologyPackConstraint{Preferred: "rack"}}
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, pcs, metav1.CreateOptions{}); err != nil {
		t.Fatalf("a set with pack.preferred alone was refused: %v", err)
	}
}
