package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiwait "k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// boundFromPass is how many gang members of kind this process has bound from the cycle of the
// pass that placed them.
func boundFromPass(t *testing.T, kind string) float64 {
	return framework.Metric(t, "phalanx_gang_members_bound_from_pass_total", map[string]string{"kind": kind})
}

// A gang leaves the queue once: the first member's cycle plans the quorum, and the other
// members are assumed and bound from that cycle. None of them is popped for a cycle of its own
// (kube-scheduler's algorithm runs once for the gang), and none waits in Permit.
func TestGangLeavesTheQueueOnce(t *testing.T) {
	env := framework.Shared(t)
	env.StartScheduler(t, nil)
	ns := env.NewNamespace(t)
	env.AddNodes(t, nodes("once-q", 3, 8))
	kind := gang.KindPodGang.String()
	before, attempts := boundFromPass(t, kind), framework.ReadGangAttempts(t, kind)
	cycles := framework.Metric(t, "scheduler_scheduling_algorithm_duration_seconds", nil)
	g := leaderWorkers(ns, "lw")
	env.CreateGang(t, g)
	env.WaitGangBound(t, ns, g.Name, 5, wait)
	if got := boundFromPass(t, kind) - before; got != 4 {
		t.Errorf("%v members bound from the pass's cycle, want 4 (every member but the one whose cycle planned the gang)", got)
	}
	if now := framework.ReadGangAttempts(t, kind); now.PermitWaits != attempts.PermitWaits {
		t.Errorf("%v members waited in Permit; the quorum is assumed in one cycle, so none should", now.PermitWaits-attempts.PermitWaits)
	}
	if got := framework.Metric(t, "scheduler_scheduling_algorithm_duration_seconds", nil) - cycles; got >= 5 {
		t.Errorf("%v scheduling cycles ran the algorithm for a gang of 5; its members should not have cycles of their own", got)
	}
}

// A member bound from its gang's cycle whose bind fails is not lost: it is unreserved, its
// failure is recorded on it (FailedScheduling), and it goes back to the queue and binds on its
// own once the bind can succeed; its siblings, bound with the quorum, stay.
func TestGangMemberBoundFromThePassRetriesAFailedBind(t *testing.T) {
	env := framework.Shared(t)
	env.StartScheduler(t, nil)
	ns := env.NewNamespace(t)
	env.AddNodes(t, nodes("once-f", 3, 8))
	g := leaderWorkers(ns, "lwf")
	denied := g.PodName("worker-b", 1)
	ctx := context.Background()
	policy := denyBinding(t, env, denied)
	before := boundFromPass(t, gang.KindPodGang.String())
	env.CreateGang(t, g)

	// The denied member's failure is recorded on it while the other four bind.
	if err := apiwait.PollUntilContextTimeout(ctx, 100*time.Millisecond, wait, true, func(ctx context.Context) (bool, error) {
		evs, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + denied})
		if err != nil {
			return false, err
		}
		for _, ev := range evs.Items {
			if ev.Reason == "FailedScheduling" && strings.Contains(ev.Message, "denied by test") {
				return true, nil
			}
		}
		return false, nil
	}); err != nil {
		t.Fatalf("no FailedScheduling event naming the denied bind on %s: %v", denied, err)
	}
	env.WaitGangBound(t, ns, g.Name, 4, wait)
	if boundFromPass(t, gang.KindPodGang.String())-before < 1 {
		t.Fatalf("no member was bound from the pass's cycle; the test does not reach the Binder")
	}
	pod, err := env.Kube.CoreV1().Pods(ns).Get(ctx, denied, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pod.Spec.NodeName != "" {
		t.Fatalf("%s bound on %s though its bind is denied", denied, pod.Spec.NodeName)
	}
	if err := env.Kube.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Delete(ctx, policy, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitGangBound(t, ns, g.Name, 5, wait)
}

// denyBinding makes the API server refuse every bind of a pod named name, with "denied by
// test", and waits until it does (a policy takes effect a moment after it is created). It
// returns the name of the policy binding, whose deletion lifts the refusal; both objects are
// deleted when the test ends.
func denyBinding(t *testing.T, env *framework.Env, name string) string {
	t.Helper()
	ctx := context.Background()
	adm := env.Kube.AdmissionregistrationV1()
	policyName := "deny-binding-" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))
	policy := &admissionv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: policyName},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionv1.Fail),
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create},
					Rule:       admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods/binding"}},
				},
			}}},
			Validations: []admissionv1.Validation{{Expression: "object.metadata.name != '" + name + "'", Message: "denied by test"}},
		},
	}
	if _, err := adm.ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = adm.ValidatingAdmissionPolicies().Delete(context.Background(), policyName, metav1.DeleteOptions{})
	})
	binding := &admissionv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: policyName},
		Spec:       admissionv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policyName, ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny}},
	}
	if _, err := adm.ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = adm.ValidatingAdmissionPolicyBindings().Delete(context.Background(), policyName, metav1.DeleteOptions{})
	})
	// Probe: a dry-run bind of a pod of that name elsewhere is refused once the policy holds
	// (admission runs before the bind is applied; a dry run applies nothing).
	probeNS := env.NewNamespace(t)
	probe := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: probeNS, Name: name},
		Spec: corev1.PodSpec{SchedulerName: "nobody", Containers: []corev1.Container{{Name: "c", Image: "probe"}}}}
	if _, err := env.Kube.CoreV1().Pods(probeNS).Create(ctx, probe, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := apiwait.PollUntilContextTimeout(ctx, 100*time.Millisecond, wait, true, func(ctx context.Context) (bool, error) {
		err := env.Kube.CoreV1().Pods(probeNS).Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Namespace: probeNS, Name: name},
			Target: corev1.ObjectReference{Kind: "Node", Name: "no-such-node"}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err != nil && strings.Contains(err.Error(), "denied by test"), nil
	}); err != nil {
		t.Fatalf("the binding policy did not take effect: %v", err)
	}
	return policyName
}
