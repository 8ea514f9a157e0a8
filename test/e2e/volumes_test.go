package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/phalanx-sched/phalanx/test/framework"
)

// Gang members whose volumes bind when they are placed (a WaitForFirstConsumer StorageClass of
// local volumes, kube-controller-manager's PV controller binding them) go through their gang's
// one pass and the Binder like any member: a gang of 2, two matching local volumes on two of
// four nodes. Each member lands on a node with a volume of its own, each claim is bound to the
// volume of its member's node, and (with the local leader's metrics) one member was bound from
// its gang's pass. Before, such members were placed member by member.
func TestGangWithVolumesToBind(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	nodes := env.AddNodes(t, framework.GPUNodes("wffc-"+ns, 4))
	class := "phalanx-e2e-" + ns
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	if _, err := env.Kube.StorageV1().StorageClasses().Create(ctx, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: class},
		Provisioner: "kubernetes.io/no-provisioner", VolumeBindingMode: &wffc}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Kube.StorageV1().StorageClasses().Delete(context.Background(), class, metav1.DeleteOptions{})
	})
	volumeNode := map[string]string{} // PV name -> node
	for i, node := range []string{nodes[1], nodes[3]} {
		name := fmt.Sprintf("%s-%d", class, i)
		pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.PersistentVolumeSpec{
				StorageClassName:              class,
				PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
				Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
				AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				PersistentVolumeSource:        corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: "/models"}},
				NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}},
			}}
		if _, err := env.Kube.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = env.Kube.CoreV1().PersistentVolumes().Delete(context.Background(), name, metav1.DeleteOptions{})
		})
		volumeNode[name] = node
	}
	g := framework.Gang{Namespace: ns, Name: "vols", Groups: []framework.Group{{Name: "w", Pods: 2, MinReplicas: 2, GPUs: 8}}}
	pods := g.Pods()
	for i, p := range pods {
		claim := fmt.Sprintf("cache-%d", i)
		if _, err := env.Kube.CoreV1().PersistentVolumeClaims(ns).Create(ctx, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: claim},
			Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To(class), AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		p.Spec.Volumes = []corev1.Volume{{Name: "cache", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}
	}
	boundFromPass := func() float64 {
		if local == nil {
			return 0
		}
		return metricValue(leaderMetrics(t, ctx), `phalanx_gang_members_bound_from_pass_total{kind="PodGang"}`)
	}
	before := boundFromPass()
	if _, err := env.Phalanx.SchedulerV1alpha1().PodGangs(ns).Create(ctx, g.PodGang(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.CreatePods(t, pods...)
	placed := env.WaitGangBound(t, ns, g.Name, 2, 2*time.Minute)

	onNodes := map[string]bool{}
	for _, p := range placed {
		onNodes[p.Spec.NodeName] = true
	}
	if len(onNodes) != 2 || !onNodes[nodes[1]] || !onNodes[nodes[3]] {
		t.Errorf("members on %v, want one on each volume's node (%s, %s)", onNodes, nodes[1], nodes[3])
	}
	framework.Eventually(t, time.Minute, "each claim bound to the volume on its member's node", func(ctx context.Context) (bool, error) {
		for _, p := range placed {
			claim := p.Spec.Volumes[0].PersistentVolumeClaim.ClaimName
			c, err := env.Kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, claim, metav1.GetOptions{})
			if apierrors.IsNotFound(err) || (err == nil && c.Spec.VolumeName == "") {
				return false, nil
			}
			if err != nil {
				return false, err
			}
			if volumeNode[c.Spec.VolumeName] != p.Spec.NodeName {
				return false, fmt.Errorf("claim %s of %s (on %s) bound to %s, whose node is %s", claim, p.Name, p.Spec.NodeName, c.Spec.VolumeName, volumeNode[c.Spec.VolumeName])
			}
		}
		return true, nil
	})
	if local != nil {
		if got := boundFromPass() - before; got != 1 {
			t.Errorf("%v members bound from their gang's pass, want 1 (the planning member binds in its own cycle)\n%s", got, local.LinesAbout(ns, 40))
		}
	}
}
