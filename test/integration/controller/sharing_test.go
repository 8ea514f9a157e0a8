package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"testing"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// publishFabric publishes a network-attached pool of 8 devices of the test driver (every node
// reaches it, as an IMEX channel or a NIC fabric), removed with the test.
func publishFabric(t *testing.T, env *framework.Env, ns string) {
	t.Helper()
	env.CreateGPUDeviceClass(t)
	fabric := &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "fabric-" + ns},
		Spec: resourcev1.ResourceSliceSpec{Driver: framework.GPUDriver, AllNodes: ptr.To(true),
			Pool: resourcev1.ResourcePool{Name: "fabric-" + ns, Generation: 1, ResourceSliceCount: 1}}}
	for i := 0; i < 8; i++ {
		fabric.Spec.Devices = append(fabric.Spec.Devices, resourcev1.Device{Name: fmt.Sprintf("channel-%d", i)})
	}
	if _, err := env.Kube.ResourceV1().ResourceSlices().Create(context.Background(), fabric, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Kube.ResourceV1().ResourceSlices().Delete(context.Background(), fabric.Name, metav1.DeleteOptions{})
	})
}

// fabricClaim is a claim of one device of the test driver.
func fabricClaim() resourcev1.ResourceClaimSpec {
	return resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "ch",
		Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: framework.GPUDriver}}}}}
}

// shareFabric makes pcs share, per replica, a claim of one fabric device (publishFabric) by
// all its pods (Grove's resourceSharing, scope PerReplica, the set's own template "fabric").
func shareFabric(t *testing.T, env *framework.Env, ns string, pcs *grovev1.PodCliqueSet) {
	t.Helper()
	publishFabric(t, env, ns)
	pcs.Spec.Template.ResourceClaimTemplates = append(pcs.Spec.Template.ResourceClaimTemplates,
		groveObject(t, map[string]any{"name": "fabric", "templateSpec": map[string]any{"spec": fabricClaim()}}))
	pcs.Spec.Template.ResourceSharing = append(pcs.Spec.Template.ResourceSharing, groveObject(t, map[string]any{"name": "fabric", "scope": "PerReplica"}))
}

func groveObject(t *testing.T, v any) grovev1.GroveObject {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return grovev1.GroveObject{RawExtension: runtime.RawExtension{Raw: raw}}
}

// Grove's resourceSharing with Phalanx's controller: a claim per PodCliqueSet replica from the
// set's own template, and a claim per scaling-group replica from a ResourceClaimTemplate
// object, each made once with Grove's name and owned by the object it is shared under, and
// referenced by every pod below it (pod and containers). A scaling group scaled in loses the
// claims of the replicas it removed. Every pod runs: the claims are allocated from a
// network-attached pool, each shared by the pods of its owner.
func TestResourceSharingClaims(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	// Whole-node pods on 9 nodes; the shared claims take devices of a network-attached pool.
	env.AddNodes(t, framework.GPUNodes("share", 9))
	publishFabric(t, env, ns)
	env.StartPhalanx(t, framework.Phalanx{Controller: true})
	claimSpec := fabricClaim()
	if _, err := env.Kube.ResourceV1().ResourceClaimTemplates(ns).Create(ctx, &resourcev1.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: "imex"}, Spec: resourcev1.ResourceClaimTemplateSpec{Spec: claimSpec}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pcs := framework.GroupSet(ns, "rs", 3, 1, 0, 1)
	pcs.Spec.Template.ResourceClaimTemplates = []grovev1.GroveObject{groveObject(t, map[string]any{"name": "net", "templateSpec": map[string]any{"spec": claimSpec}})}
	pcs.Spec.Template.ResourceSharing = []grovev1.GroveObject{groveObject(t, map[string]any{"name": "net", "scope": "PerReplica"})}
	pcs.Spec.Template.PodCliqueScalingGroupConfigs[0].ResourceSharing = []grovev1.GroveObject{
		groveObject(t, map[string]any{"name": "imex", "scope": "PerReplica", "filter": map[string]any{"childCliqueNames": []string{"worker"}}})}
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, pcs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	claimsNow := func(ctx context.Context) (map[string]string, error) {
		list, err := env.Kube.ResourceV1().ResourceClaims(ns).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/component=resource-claim"})
		if err != nil {
			return nil, err
		}
		out := map[string]string{}
		for _, c := range list.Items {
			if c.DeletionTimestamp != nil {
				continue
			}
			owner := ""
			if ref := metav1.GetControllerOf(&c); ref != nil {
				owner = ref.Kind + "/" + ref.Name
			}
			out[c.Name] = owner
		}
		return out, nil
	}
	waitClaims := func(want map[string]string) {
		t.Helper()
		framework.Eventually(t, wait, fmt.Sprintf("claims %v", want), func(ctx context.Context) (bool, error) {
			got, err := claimsNow(ctx)
			if err != nil {
				return false, err
			}
			if len(got) != len(want) {
				return false, fmt.Errorf("claims %v", got)
			}
			for n, o := range want {
				if got[n] != o {
					return false, fmt.Errorf("claim %s owned by %q, want %q (all: %v)", n, got[n], o, got)
				}
			}
			return true, nil
		})
	}
	waitClaims(map[string]string{
		"rs-0-net":       "PodCliqueSet/rs",
		"rs-0-sg-0-imex": "PodCliqueScalingGroup/rs-0-sg", "rs-0-sg-1-imex": "PodCliqueScalingGroup/rs-0-sg", "rs-0-sg-2-imex": "PodCliqueScalingGroup/rs-0-sg",
	})
	framework.Eventually(t, wait, "every pod references its claims", func(ctx context.Context) (bool, error) {
		pods, err := env.ListPods(ctx, ns, "rs")
		if err != nil {
			return false, err
		}
		if len(pods) != 9 {
			return false, fmt.Errorf("%d pods", len(pods))
		}
		for _, p := range pods {
			want := []string{"rs-0-net"}
			if p.Labels[grovev1.LabelPodClique] != "" && slices.Contains([]string{"worker"}, p.Labels["phalanx.dev/clique-template"]) {
				want = append(want, "rs-0-sg-"+p.Labels[grovev1.LabelPodCliqueScalingGroupReplicaIndex]+"-imex")
			}
			var got []string
			for _, rc := range p.Spec.ResourceClaims {
				got = append(got, ptr.Deref(rc.ResourceClaimName, ""))
			}
			sort.Strings(got)
			sort.Strings(want)
			if !slices.Equal(got, want) {
				return false, framework.Terminal(fmt.Errorf("pod %s references %v, want %v", p.Name, got, want))
			}
			if n := len(p.Spec.Containers[0].Resources.Claims); n != len(want) {
				return false, framework.Terminal(fmt.Errorf("pod %s container claims %d, want %d", p.Name, n, len(want)))
			}
		}
		return true, nil
	})
	env.WaitAvailable(t, ns, "rs", 1, 9)
	// Scaled in through the group (kubectl scale pcsg, an HPA): its third replica goes.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		sg, err := env.Phalanx.GroveV1alpha1().PodCliqueScalingGroups(ns).Get(ctx, "rs-0-sg", metav1.GetOptions{})
		if err != nil {
			return err
		}
		sg.Spec.Replicas = 2
		_, err = env.Phalanx.GroveV1alpha1().PodCliqueScalingGroups(ns).Update(ctx, sg, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	waitClaims(map[string]string{
		"rs-0-net":       "PodCliqueSet/rs",
		"rs-0-sg-0-imex": "PodCliqueScalingGroup/rs-0-sg", "rs-0-sg-1-imex": "PodCliqueScalingGroup/rs-0-sg",
	})
}
