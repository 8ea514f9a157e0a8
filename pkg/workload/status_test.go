package workload

import (
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
)

func readyPods(pods []*corev1.Pod) map[string]*corev1.Pod {
	out := map[string]*corev1.Pod{}
	for _, p := range pods {
		p = p.DeepCopy()
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		out[p.Name] = p
	}
	return out
}

func setReady(pods map[string]*corev1.Pod, ready bool, match func(*corev1.Pod) bool) {
	for _, p := range pods {
		if match(p) {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: map[bool]corev1.ConditionStatus{true: corev1.ConditionTrue, false: corev1.ConditionFalse}[ready]}}
		}
	}
}

// Availability as Grove counts it, on the disaggregated sample (frontend 3, minAvailable 2;
// prefill and decode groups of 2 replicas, minAvailable 1).
func TestReplicaAvailable(t *testing.T) {
	pcs := loadSample(t, "disaggregated.yaml")
	inReplica0 := func(group string, j int) func(*corev1.Pod) bool {
		return func(p *corev1.Pod) bool {
			return p.Labels[grovev1.LabelPodCliqueSetReplicaIndex] == "0" && p.Labels[grovev1.LabelPodCliqueScalingGroup] == ScalingGroupName(pcs.Name, 0, group) &&
				p.Labels[grovev1.LabelPodCliqueScalingGroupReplicaIndex] == strconv.Itoa(j)
		}
	}
	frontend := func(n int) func(*corev1.Pod) bool {
		return func(p *corev1.Pod) bool {
			return p.Labels[grovev1.LabelPodClique] == PodCliqueName(pcs.Name, 0, "frontend") && p.Name < PodName(PodCliqueName(pcs.Name, 0, "frontend"), n)
		}
	}
	pods := readyPods(Desired(pcs, Observed{}).Pods)
	if !ReplicaAvailable(pcs, 0, pods) {
		t.Fatal("every pod Ready: replica 0 not available")
	}
	setReady(pods, false, frontend(1))
	if !ReplicaAvailable(pcs, 0, pods) {
		t.Error("frontend at 2 of 3 Ready (minAvailable 2): not available")
	}
	setReady(pods, false, frontend(2))
	if ReplicaAvailable(pcs, 0, pods) {
		t.Error("frontend at 1 of 3 Ready (minAvailable 2): available")
	}
	setReady(pods, true, frontend(3))
	// The base gang's prefill replica 0 is being replaced: prefill replica 1 still serves.
	setReady(pods, false, inReplica0("prefill", 0))
	if !ReplicaAvailable(pcs, 0, pods) {
		t.Error("prefill replica 0 not Ready, replica 1 Ready (minAvailable 1): not available")
	}
	setReady(pods, false, inReplica0("prefill", 1))
	if ReplicaAvailable(pcs, 0, pods) {
		t.Error("no prefill replica Ready: available")
	}
	// A surge group replica (index 2) that is up serves like any other.
	withSurge := Desired(pcs, Observed{SurgeGroupReplicas: map[string][]int{ScalingGroupName(pcs.Name, 0, "prefill"): {2}}})
	for name, p := range readyPods(withSurge.Pods) {
		if _, ok := pods[name]; !ok {
			pods[name] = p
		}
	}
	if !ReplicaAvailable(pcs, 0, pods) {
		t.Error("prefill replicas 0 and 1 not Ready, surge replica 2 Ready: not available")
	}
	if ReplicaAvailable(pcs, 0, map[string]*corev1.Pod{}) {
		t.Error("a replica with no pod is available")
	}
}

// The counts Grove writes in updateProgress, on the disaggregated sample (two replicas, each
// with the standalone frontend and scaling groups prefill and decode).
func TestCountUpdated(t *testing.T) {
	pcs := loadSample(t, "disaggregated.yaml")
	hashes := TemplateHashes(pcs)
	pods := readyPods(Desired(pcs, Observed{}).Pods)
	want := func(name string, got UpdateCounts, pclqs, pcsgs int32) {
		t.Helper()
		if got.TotalPodCliques != 2 || got.TotalPodCliqueScalingGroups != 4 {
			t.Errorf("%s: totals %d PodCliques, %d scaling groups; want 2 and 4", name, got.TotalPodCliques, got.TotalPodCliqueScalingGroups)
		}
		if got.UpdatedPodCliques != pclqs || got.UpdatedPodCliqueScalingGroups != pcsgs {
			t.Errorf("%s: updated %d PodCliques, %d scaling groups; want %d and %d", name, got.UpdatedPodCliques, got.UpdatedPodCliqueScalingGroups, pclqs, pcsgs)
		}
	}
	want("every pod on its template, Ready", CountUpdated(pcs, pods, hashes), 2, 4)

	stale := func(match func(*corev1.Pod) bool) map[string]*corev1.Pod {
		out := map[string]*corev1.Pod{}
		for n, p := range pods {
			p = p.DeepCopy()
			if match(p) {
				p.Labels[grovev1.LabelPodTemplateHash] = "older"
			}
			out[n] = p
		}
		return out
	}
	onePrefill := func(p *corev1.Pod) bool {
		return p.Labels[grovev1.LabelPodCliqueScalingGroup] == ScalingGroupName(pcs.Name, 0, "prefill") && p.Labels[grovev1.LabelPodCliqueScalingGroupReplicaIndex] == "1"
	}
	want("one prefill group replica of replica 0 on an older template", CountUpdated(pcs, stale(onePrefill), hashes), 2, 3)
	oneFrontend := func(p *corev1.Pod) bool {
		return p.Name == PodName(PodCliqueName(pcs.Name, 0, "frontend"), 0)
	}
	want("one frontend pod of replica 0 on an older template", CountUpdated(pcs, stale(oneFrontend), hashes), 1, 4)

	notReady := readyPods(Desired(pcs, Observed{}).Pods)
	setReady(notReady, false, func(p *corev1.Pod) bool {
		return p.Labels[grovev1.LabelPodClique] == PodCliqueName(pcs.Name, 0, "frontend")
	})
	want("replica 0's frontend on its template, none Ready", CountUpdated(pcs, notReady, hashes), 1, 4)

	want("no pod yet", CountUpdated(pcs, map[string]*corev1.Pod{}, hashes), 0, 0)
}
