package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-sched/phalanx/test/framework"
)

// helmRun runs bin/helm against the suite's cluster and fails the test with its output.
func helmRun(t *testing.T, env *framework.Env, args ...string) string {
	t.Helper()
	helm, err := framework.HelmBinary(env.Root)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, helm, append([]string{"--kubeconfig", env.Kubeconfig}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// kindValues are the chart values that say what hack/kind's overlay says to the kustomize
// install: the image built for this run, the GPU workers' taint tolerated, and the KWOK
// nodes the tests add kept out.
func kindValues(t *testing.T, env *framework.Env) []string {
	t.Helper()
	d, err := env.Kube.AppsV1().Deployments(systemNamespace).Get(framework.Context(t), deployment, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	image := d.Spec.Template.Spec.Containers[0].Image
	i := strings.LastIndex(image, ":")
	return []string{
		"--set", "image.repository=" + image[:i], "--set", "image.tag=" + image[i+1:], "--set", "image.pullPolicy=Never",
		"--set", "tolerations[0].key=phalanx.dev/kind-gpu", "--set", "tolerations[0].operator=Exists", "--set", "tolerations[0].effect=NoSchedule",
		"--set", "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key=phalanx.dev/fake-node",
		"--set", "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator=DoesNotExist",
	}
}

// The Helm chart on a real cluster: it takes over the install kind-up made from manifests/,
// is upgraded while a PodCliqueSet is mid-update (the replicas roll one by one, the lease
// moves, the update completes with no index twice and nothing lost), switches to
// schedulerOnly (webhooks and controller gone, CRDs and the PodCliqueSet kept) and back,
// uninstalls (everything but the CRDs gone), installs and uninstalls mode schedulerOnly on its
// own, and installs mode full again, which leaves the cluster as the next test expects it.
func TestKindHelmInstallUpgradeUninstall(t *testing.T) {
	_, image := kindCluster(t)
	env := framework.Shared(t)
	ctx := framework.Context(t)
	values := kindValues(t, env)
	// --force-conflicts on every upgrade: after a take-over, kubectl (kind-up's apply -k)
	// still co-owns every field whose value it set, and server-side apply refuses to change
	// them for Helm without it (docs/helm.md).
	release := []string{"phalanx", framework.ChartDir(env.Root), "--namespace", systemNamespace, "--wait", "--timeout", "5m", "--force-conflicts"}

	out := helmRun(t, env, append(append([]string{"upgrade", "--install", "--take-ownership", "--server-side=true"}, release...), values...)...)
	t.Logf("helm took over the kustomize install: %s", firstLine(out))
	waitPhalanxAvailable(t, env)

	ns := env.NewNamespace(t)
	twins := rollUnderWay(t, env, ns, "helm", image)
	// A new chart revision with a changed configuration: every replica restarts (the
	// checksum/config annotation), the leader among them, in the middle of the update.
	// Admission must answer throughout: a replica told to stop keeps serving the webhooks
	// while the Service drops it (preStop), so creates never time out on a vanished pod IP.
	before := leaderPod(t, env)
	probe := servingSet(ns, "helm-probe", image, 1, 1, 1, 0)
	admitted, refused := 0, []string{}
	probing, stopProbing := context.WithCancel(ctx)
	probed := make(chan struct{})
	go func() {
		defer close(probed)
		for probing.Err() == nil {
			_, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(probing, probe.DeepCopy(), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			switch {
			case probing.Err() != nil:
			case err != nil:
				refused = append(refused, err.Error())
			default:
				admitted++
			}
			select {
			case <-probing.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	helmRun(t, env, append(append([]string{"upgrade"}, release...), append(values, "--set", "logVerbosity=3", "--set", "pluginArgs.PodGang.backoffSeconds=4")...)...)
	waitPhalanxAvailable(t, env)
	stopProbing()
	<-probed
	t.Logf("while both replicas rolled: %d creates admitted, %d failed", admitted, len(refused))
	if len(refused) > 0 {
		t.Errorf("admission failed %d times while the chart upgrade rolled the replicas: %v", len(refused), refused)
	}
	waitImageReady(t, env, ns, "helm", image+":v2", 3, kindTimeout)
	env.WaitUpdated(t, ns, "helm", image+":v2", 3)
	twins.check(t)
	if after := leaderPod(t, env); after == before {
		t.Errorf("the leader %s survived an upgrade that changed the configuration", after)
	}

	// schedulerOnly: the webhooks and the controller go; CRDs (resource-policy keep) and the
	// PodCliqueSet stay.
	helmRun(t, env, append(append([]string{"upgrade"}, release...), append(values, "--set", "mode=schedulerOnly")...)...)
	waitPhalanxAvailable(t, env)
	if _, err := env.Kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, "phalanx", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("validating webhook configuration after mode=schedulerOnly: %v, want not found", err)
	}
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "helm", metav1.GetOptions{}); err != nil {
		t.Errorf("the PodCliqueSet after mode=schedulerOnly: %v (the CRD must be kept)", err)
	}
	helmRun(t, env, append(append([]string{"upgrade"}, release...), values...)...)
	waitPhalanxAvailable(t, env)

	helmRun(t, env, "uninstall", "phalanx", "--namespace", systemNamespace, "--wait", "--timeout", "5m")
	framework.Eventually(t, 2*time.Minute, "the chart's objects removed", func(ctx context.Context) (bool, error) {
		if _, err := env.Kube.AppsV1().Deployments(systemNamespace).Get(ctx, deployment, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return false, fmt.Errorf("deployment: %v", err)
		}
		if _, err := env.Kube.RbacV1().ClusterRoles().Get(ctx, "phalanx-controller", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return false, fmt.Errorf("ClusterRole phalanx-controller: %v", err)
		}
		return true, nil
	})
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "helm", metav1.GetOptions{}); err != nil {
		t.Errorf("the PodCliqueSet after helm uninstall: %v (the CRDs are kept)", err)
	}
	// schedulerOnly installed and uninstalled on its own: no webhook configuration, the CRDs
	// (kept from the full install) untouched.
	helmRun(t, env, append(append([]string{"install"}, release...), append(values, "--set", "mode=schedulerOnly")...)...)
	waitPhalanxAvailable(t, env)
	if _, err := env.Kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, "phalanx", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("mutating webhook configuration with mode=schedulerOnly installed: %v, want not found", err)
	}
	helmRun(t, env, "uninstall", "phalanx", "--namespace", systemNamespace, "--wait", "--timeout", "5m")
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "helm", metav1.GetOptions{}); err != nil {
		t.Errorf("the PodCliqueSet after uninstalling mode=schedulerOnly: %v", err)
	}
	helmRun(t, env, append(append([]string{"install"}, release...), values...)...)
	waitPhalanxAvailable(t, env)
	// The reinstalled controller adopts the PodCliqueSet: its pods are still Ready on v2.
	waitImageReady(t, env, ns, "helm", image+":v2", 3, kindTimeout)
	// Admission answers before the next test creates through it: the replicas Ready is not
	// the reinstalled webhook Service's endpoints programmed (the next three tests' creates
	// were refused, "connect: connection refused", 0.1 s after this test ended).
	framework.Eventually(t, 2*time.Minute, "the reinstalled webhooks answering", func(ctx context.Context) (bool, error) {
		probe := servingSet(ns, "helm-admitted", image, 1, 1, 1, 0)
		_, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err == nil, err
	})
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
