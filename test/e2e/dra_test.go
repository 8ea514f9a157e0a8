package e2e

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// A RollingUpdate with maxSurge 1 / maxUnavailable 0 of a clique whose pods take their GPU from
// a ResourceClaimTemplate (as Grove's resourceClaimTemplates make them), as deployed: the surge
// pod's claim does not exist before the pod does (kube-controller-manager makes it from the
// template), yet surge admission must answer for it, and the update completes with every pod
// on the new template and a claim allocated for each.
func TestDRATemplateSurgeUpdate(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	shape := framework.GPUNodes("drasurge", 2)
	env.AddNodes(t, shape)
	env.CreateGPUDeviceClass(t)
	for i := 0; i < 2; i++ {
		env.PublishGPUs(t, fmt.Sprintf("drasurge-%04d", i), 8, "h100")
	}
	tmpl := &resourcev1.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gpu"},
		Spec: resourcev1.ResourceClaimTemplateSpec{Spec: framework.GPUClaim(ns, "gpu", 1, "h100").Spec}}
	if _, err := env.Kube.ResourceV1().ResourceClaimTemplates(ns).Create(ctx, tmpl, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pcs := framework.Workers(ns, "dra", 1, 0, 600)
	spec := &pcs.Spec.Template.Cliques[0].Spec.PodSpec
	spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr.To("gpu")}}
	c := &spec.Containers[0]
	c.Resources.Limits = nil
	c.Resources.Claims = []corev1.ResourceClaim{{Name: "gpu"}}
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, pcs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitAvailable(t, ns, "dra", 1, 3)
	env.WaitRevisionComplete(t, ns, "dra")
	env.UpdatePCS(t, ns, "dra", func(p *grovev1.PodCliqueSet) {
		p.Spec.Template.Cliques[0].Spec.PodSpec.Containers[0].Image = "registry.example.com/llm/worker:v2"
	})
	framework.Eventually(t, framework.UpdateTimeout, "every pod on v2, Running, with an allocated claim", func(ctx context.Context) (bool, error) {
		pods, err := env.ListPods(ctx, ns, "dra")
		if err != nil {
			return false, err
		}
		done := 0
		for _, p := range pods {
			if p.DeletionTimestamp != nil || p.Spec.Containers[0].Image != "registry.example.com/llm/worker:v2" || !framework.ReadyPod(p) {
				continue
			}
			if len(p.Status.ResourceClaimStatuses) != 1 || p.Status.ResourceClaimStatuses[0].ResourceClaimName == nil {
				return false, fmt.Errorf("pod %s has no claim of its own", p.Name)
			}
			claim, err := env.Kube.ResourceV1().ResourceClaims(ns).Get(ctx, *p.Status.ResourceClaimStatuses[0].ResourceClaimName, metav1.GetOptions{})
			if err != nil || claim.Status.Allocation == nil {
				return false, fmt.Errorf("pod %s: claim not allocated (%v)", p.Name, err)
			}
			done++
		}
		if done != 3 || len(pods) != 3 {
			p, _ := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "dra", metav1.GetOptions{})
			return false, fmt.Errorf("%d of %d pods on v2 with their claim; conditions %v", done, len(pods), p.Status.Conditions)
		}
		return true, nil
	})
}
