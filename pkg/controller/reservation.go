package controller

import (
	"encoding/json"
	"fmt"
	"maps"
	"sort"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	resourcehelper "k8s.io/component-helpers/resource"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/index"
	"github.com/phalanx-sched/phalanx/pkg/update"
)

// replacedPod reports whether p is deleted this pass to be replaced: a pod of a standalone
// clique, of a scaling-group replica or of a PodCliqueSet replica that the planner replaces.
func replacedPod(p *corev1.Pod, ro *rollout) bool {
	if p.Spec.NodeName == "" || p.DeletionTimestamp != nil {
		return false
	}
	return ro.replaced[memberOf(p)] ||
		ro.replaced[update.MemberRef{Kind: update.SetReplicas, Unit: replicasUnitName, Index: index.Parse(p.Labels[grovev1.LabelPodCliqueSetReplicaIndex])}]
}

// reservations computes, for every gang that loses members to replacement this pass, the
// capacity its bound pods hold on each node now (before the deletion): the scheduler keeps
// what the gang has not taken back yet for its replacements (gang.Reservation). Surge members
// are left out: they go when the update completes, so the node a surge member frees would
// otherwise stay held, for nobody, until the hold expires (it blocked the next replica's surge
// for reservationHoldSeconds: TestPartition). devices counts the DRA devices a pod's claims
// were allocated (gang.DevicesAllocated), kept for the replacements as its GPUs are. Keys are
// gang names; values are annotation values.
func reservations(obs *observed, ro *rollout, now metav1.Time, devices func(*corev1.Pod) (int64, error)) (map[string]string, error) {
	out := map[string]string{}
	if len(ro.replaced) == 0 && len(ro.replacedSlices) == 0 {
		return out, nil // nothing is replaced this pass (most passes): no pod to look at
	}
	// Each gang that loses a member to replacement, with its bound live pods. A member
	// replaced with its coherent slice (Coherent) is taken back by the slice gang that makes
	// it again, not by its regular gang: the slice gang holds what the slice's pods hold.
	replaced := map[string]bool{}
	bound := map[string][]*corev1.Pod{}
	for _, p := range obs.pods {
		if sg := ro.replacedSlices[memberOf(p)]; sg != "" {
			if p.Spec.NodeName != "" && p.DeletionTimestamp == nil {
				replaced[sg] = true
				bound[sg] = append(bound[sg], p)
			}
			continue
		}
		g := p.Labels[grovev1.LabelPodGang]
		if g == "" {
			continue
		}
		if replacedPod(p, ro) {
			replaced[g] = true
		}
		if p.Spec.NodeName != "" && p.DeletionTimestamp == nil && p.Labels[grovev1.LabelSurge] != "true" {
			bound[g] = append(bound[g], p)
		}
	}
	for g := range replaced {
		r := schedv1.Reservation{Since: now, Nodes: map[string]corev1.ResourceList{}}
		for _, p := range bound[g] {
			sum := r.Nodes[p.Spec.NodeName]
			if sum == nil {
				sum = corev1.ResourceList{}
			}
			for name, q := range resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{}) {
				if name != corev1.ResourceCPU && name != corev1.ResourceMemory && name != "nvidia.com/gpu" {
					continue
				}
				cur := sum[name]
				cur.Add(q)
				sum[name] = cur
			}
			n, err := devices(p)
			if err != nil {
				return nil, err
			}
			if n > 0 {
				cur := sum[schedv1.ReservationDevices]
				cur.Add(*resource.NewQuantity(n, resource.DecimalSI))
				sum[schedv1.ReservationDevices] = cur
			}
			r.Nodes[p.Spec.NodeName] = sum
		}
		raw, err := json.Marshal(r)
		if err != nil {
			return nil, fmt.Errorf("encoding the reservation of PodGang %s: %w", g, err)
		}
		out[g] = string(raw)
	}
	return out, nil
}

// reserve writes the reservations onto the gangs that lose members: those that stay
// (RollingUpdate replacements) and those about to be deleted and created again
// (ReplicaRecreate), so that the scheduler holds the capacity from now on, through the
// deletion, until the new object carries the reservation itself.
func (a *applier) reserve(obs *observed, res map[string]string) error {
	names := make([]string, 0, len(res))
	for g := range res {
		names = append(names, g)
	}
	sort.Strings(names)
	for _, g := range names {
		if obs.gangs[g] == nil {
			continue
		}
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{
			"annotations": map[string]string{schedv1.AnnotationReservation: res[g]},
		}})
		if _, err := a.c.client.SchedulerV1alpha1().PodGangs(a.pcs.Namespace).Patch(a.ctx, g, types.MergePatchType, patch, metav1.PatchOptions{}); ignoreNotFound(err) != nil {
			return fmt.Errorf("reserving the capacity of PodGang %s for its replacements: %w", g, err)
		}
	}
	return nil
}

// claimDevices counts the DRA devices pod's claims were allocated, read from the API server
// (the controller keeps no cache of claims: it reads them only for the members a pass
// replaces). A claim that is gone counts nothing; any other failure to read one is an error,
// so that the pass is retried instead of deleting the member without holding its devices
// (another pod could take them before the replacement).
func (a *applier) claimDevices(pod *corev1.Pod) (int64, error) {
	if len(pod.Spec.ResourceClaims) == 0 {
		return 0, nil
	}
	var failed error
	n := gang.DevicesAllocated(func(ns, name string) (*resourcev1.ResourceClaim, error) {
		c, err := a.c.kube.ResourceV1().ResourceClaims(ns).Get(a.ctx, name, metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) && failed == nil {
			failed = fmt.Errorf("reading ResourceClaim %s of replaced member %s to hold its devices: %w", name, pod.Name, err)
		}
		return c, err
	}, pod)
	return n, failed
}

// recreatedGang is the new gang of a recreated replica: it carries the reservation of what
// the old one held and points at it.
func recreatedGang(want *schedv1.PodGang, reservation string) *schedv1.PodGang {
	g := want.DeepCopy()
	if reservation != "" {
		if g.Annotations == nil {
			g.Annotations = map[string]string{}
		}
		g.Annotations[schedv1.AnnotationReservation] = reservation
		g.Spec.ReuseReservationRef = &schedv1.NamespacedName{Namespace: want.Namespace, Name: want.Name}
	}
	return g
}

// AnnotationPendingReservations, on a PodCliqueSet, keeps the reservations of recreated
// gangs (ReplicaRecreate) that could not be created again in the pass that deleted them,
// because the old object was still terminating (a finalizer of another controller, or a slow
// API server): gang name to reservation. The pass that creates the gang once the old one is
// gone takes its reservation from here, so the replacement keeps the capacity its replica
// held even across a restart of the controller. Entries leave when their gang is created or
// no longer wanted.
const AnnotationPendingReservations = "phalanx.dev/pending-reservations"

// pendingReservations reads AnnotationPendingReservations; an unreadable value (written by
// hand) is reported and treated as empty, since a reservation only shortens a wait.
func pendingReservations(pcs *grovev1.PodCliqueSet) (map[string]string, error) {
	raw := pcs.Annotations[AnnotationPendingReservations]
	if raw == "" {
		return map[string]string{}, nil
	}
	out := map[string]string{}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return map[string]string{}, fmt.Errorf("annotation %s of PodCliqueSet %s: %w", AnnotationPendingReservations, pcs.Name, err)
	}
	return out, nil
}

// keepPending writes pending as AnnotationPendingReservations (removing it when empty) when
// it differs from what the PodCliqueSet carries.
func (a *applier) keepPending(pending map[string]string) error {
	cur, _ := pendingReservations(a.pcs)
	if maps.Equal(cur, pending) && (len(pending) > 0 || a.pcs.Annotations[AnnotationPendingReservations] == "") {
		return nil
	}
	var value any // null removes the annotation
	if len(pending) > 0 {
		raw, err := json.Marshal(pending)
		if err != nil {
			return err
		}
		value = string(raw)
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{AnnotationPendingReservations: value}}})
	got, err := a.c.client.GroveV1alpha1().PodCliqueSets(a.pcs.Namespace).Patch(a.ctx, a.pcs.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		return fmt.Errorf("keeping the reservations of recreated gangs on PodCliqueSet %s: %w", a.pcs.Name, err)
	}
	// The deferred status write starts from this version while the cache shows the one the
	// pass read (statuswriter.go).
	a.c.own.note(a.key(), "PodCliqueSet", got.Name, a.pcs.ResourceVersion, got)
	a.pcs = got
	return nil
}
