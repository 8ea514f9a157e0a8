package framework

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// ServiceAccountUser is the user of manifests/' ServiceAccount, the identity phalanx-scheduler
// (scheduler, controller and webhooks) runs as in a cluster.
const ServiceAccountUser = "system:serviceaccount:phalanx-system:phalanx-scheduler"

// rbacKinds are the objects of manifests/ that make up the ServiceAccount and what it may do.
var rbacKinds = map[string]bool{
	"Namespace": true, "ServiceAccount": true,
	"ClusterRole": true, "ClusterRoleBinding": true, "Role": true, "RoleBinding": true,
}

// installServiceAccount applies the ServiceAccount and the RBAC of manifests/ to the cluster
// and writes, in dir, a kubeconfig that acts as that ServiceAccount: the admin credentials
// impersonating ServiceAccountUser (the API server adds the ServiceAccount's groups). Phalanx
// run by the tests with it is refused exactly what the shipped RBAC refuses, so a call the
// manifests do not grant fails the tests that make it (as the controller's pod patch once did
// only in a real cluster).
func installServiceAccount(ctx context.Context, root string, cfg *rest.Config, adminKubeconfig, dir string) (kubeconfig string, as *rest.Config, err error) {
	objs, err := RenderManifests(root)
	if err != nil {
		return "", nil, fmt.Errorf("rendering manifests/: %w", err)
	}
	var rbac []*unstructured.Unstructured
	for _, o := range objs {
		if rbacKinds[o.GetKind()] {
			rbac = append(rbac, o)
		}
	}
	if len(rbac) == 0 {
		return "", nil, fmt.Errorf("manifests/ has no ServiceAccount or RBAC objects")
	}
	if err := Apply(ctx, cfg, rbac, false); err != nil {
		return "", nil, fmt.Errorf("applying the RBAC of manifests/: %w", err)
	}
	if err := waitAuthorized(ctx, cfg); err != nil {
		return "", nil, err
	}
	kc, err := clientcmd.LoadFromFile(adminKubeconfig)
	if err != nil {
		return "", nil, err
	}
	for _, ai := range kc.AuthInfos {
		ai.Impersonate = ServiceAccountUser
	}
	kubeconfig = filepath.Join(dir, "phalanx-serviceaccount.kubeconfig")
	if err := clientcmd.WriteToFile(*kc, kubeconfig); err != nil {
		return "", nil, err
	}
	as = rest.CopyConfig(cfg)
	as.Impersonate = rest.ImpersonationConfig{UserName: ServiceAccountUser}
	return kubeconfig, as, nil
}

// phalanxKubeconfig is the kubeconfig in-process Phalanx runs with: the ServiceAccount's, or the
// admin's where the harness has none (the e2e suite's Env).
func (e *Env) phalanxKubeconfig() string {
	if e.ServiceAccountKubeconfig == "" {
		return e.Cluster.Kubeconfig
	}
	return e.ServiceAccountKubeconfig
}

// waitAuthorized waits until the API server's authorizer has the bindings just applied: one
// rule of each bound role is asked for (a fresh binding is seen a moment later, and the first
// informers of a test would log refusals and back off meanwhile).
func waitAuthorized(ctx context.Context, cfg *rest.Config) error {
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	asks := []authorizationv1.ResourceAttributes{
		{Verb: "list", Resource: "pods"},                                   // system:kube-scheduler
		{Verb: "list", Group: "scheduler.grove.io", Resource: "podgangs"},  // phalanx-scheduler
		{Verb: "patch", Resource: "pods", Namespace: "default"},            // phalanx-controller
		{Verb: "create", Resource: "secrets", Namespace: "phalanx-system"}, // phalanx-webhook-cert
	}
	var denied string
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		for _, a := range asks {
			sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
				User: ServiceAccountUser, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:phalanx-system", "system:authenticated"},
				ResourceAttributes: &a,
			}}
			got, err := kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
			if err != nil {
				return false, err
			}
			if !got.Status.Allowed {
				denied = fmt.Sprintf("%s %s.%s", a.Verb, a.Resource, a.Group)
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("the ServiceAccount's RBAC not in effect (still denied: %s): %w", denied, err)
	}
	return nil
}
