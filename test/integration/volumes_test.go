package integration

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-sched/phalanx/test/framework"
)

// A gang whose members mount bound volumes goes through the one-pass plan like any other
// (no member-by-member fallback): each member lands on the node its local volume is pinned
// to, the gang is planned once, and no member waits in Permit for a status write of its
// own. The test plays the PV controller (there is none in this control plane): each claim is
// pre-bound to its volume, then marked bound as the controller marks it.
func TestGangWithBoundVolumesIsPlanned(t *testing.T) {
	env := framework.Shared(t)
	env.StartScheduler(t, nil)
	ns := env.NewNamespace(t)
	names := env.AddNodes(t, nodes("vol", 4, 8))
	ctx := framework.Context(t)
	g := framework.Gang{Namespace: ns, Name: "cached", Groups: []framework.Group{{Name: "w", Pods: 3, MinReplicas: 3, GPUs: 8}}}
	// Member i's model cache lives on node 3-i: not where an empty cluster's scoring alone
	// would put every member.
	want := map[string]string{}
	for i := 0; i < 3; i++ {
		claim := fmt.Sprintf("%s-cache-%d", ns, i)
		pod := g.PodName("w", i)
		want[pod] = names[3-i]
		bindLocalVolume(ctx, t, env, ns, claim, names[3-i])
	}
	before := framework.Metric(t, "phalanx_gang_plans_total", map[string]string{"kind": "PodGang", "outcome": "Placed"})
	pods := g.Pods()
	for i, p := range pods {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "cache", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: fmt.Sprintf("%s-cache-%d", ns, i)}}})
	}
	if _, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Create(ctx, g.PodGang(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.CreatePods(t, pods...)
	env.WaitGangBound(t, ns, g.Name, 3, wait)
	bound, err := env.GangPods(ctx, ns, g.Name)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range bound {
		if p.Spec.NodeName != want[p.Name] {
			t.Errorf("%s bound to %s, want %s (where its volume is)", p.Name, p.Spec.NodeName, want[p.Name])
		}
	}
	if planned := framework.Metric(t, "phalanx_gang_plans_total", map[string]string{"kind": "PodGang", "outcome": "Placed"}) - before; planned < 1 {
		t.Errorf("the gang with bound volumes was placed member by member (plans +%v), not by one pass", planned)
	}
}

// bindLocalVolume makes a local PersistentVolume on node and the claim bound to it, with the
// statuses and the bind-completed annotation kube-controller-manager's PV controller writes.
func bindLocalVolume(ctx context.Context, t *testing.T, env *framework.Env, ns, claim, node string) {
	t.Helper()
	size := corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}
	pvc, err := env.Kube.CoreV1().PersistentVolumeClaims(ns).Create(ctx, &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: claim, Annotations: map[string]string{"pv.kubernetes.io/bind-completed": "yes"}},
		Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv-" + claim, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: new(string), Resources: corev1.VolumeResourceRequirements{Requests: size}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pv, err := env.Kube.CoreV1().PersistentVolumes().Create(ctx, &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-" + claim},
		Spec: corev1.PersistentVolumeSpec{Capacity: size, AccessModes: pvc.Spec.AccessModes, StorageClassName: "",
			PersistentVolumeSource: corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: "/models"}},
			ClaimRef:               &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: ns, Name: claim, UID: pvc.UID},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Kube.CoreV1().PersistentVolumes().Delete(context.Background(), pv.Name, metav1.DeleteOptions{})
	})
	pv.Status.Phase = corev1.VolumeBound
	if _, err := env.Kube.CoreV1().PersistentVolumes().UpdateStatus(ctx, pv, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	pvc.Status.Phase = corev1.ClaimBound
	pvc.Status.Capacity = size
	if _, err := env.Kube.CoreV1().PersistentVolumeClaims(ns).UpdateStatus(ctx, pvc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}
