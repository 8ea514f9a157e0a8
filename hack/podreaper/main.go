// Command podreaper confirms the deletion of terminating pods on the local control plane's
// fake nodes, as a kubelet does: a delete with grace period 0 and the pod's UID as precondition,
// so that a newer pod of the same name (a replacement the controller made since) is never
// taken. KWOK v0.8's pod-delete stage deletes by name alone: it took replacements in about one
// update of 900 pods in three (found with `make perf-updates` and -perf.audit), which no real
// kubelet does (kubernetes/kubernetes#25224). hack/kwok/stages.yaml leaves deletions to this
// command; localcluster starts it beside KWOK. Pods annotated phalanx.dev/kwok-no-kubelet are
// left alone, as KWOK's stages leave them (their kubelet is gone).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

// noKubelet marks a pod whose kubelet is gone (tests of lost nodes): its deletion is never
// confirmed.
const noKubelet = "phalanx.dev/kwok-no-kubelet"

// victim is one pod incarnation to delete.
type victim struct {
	namespace, name string
	uid             types.UID
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the API server")
	workers := flag.Int("workers", 8, "parallel deletions")
	flag.Parse()
	if err := run(*kubeconfig, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "podreaper:", err)
		os.Exit(1)
	}
}

func run(kubeconfig string, workers int) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("reading --kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = 500, 1000
	cfg.UserAgent = "podreaper"
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[victim]())
	defer queue.ShutDown()
	factory := informers.NewSharedInformerFactory(kube, 0)
	enqueue := func(obj any) {
		if p, ok := obj.(*corev1.Pod); ok && p.DeletionTimestamp != nil && p.Spec.NodeName != "" {
			if _, gone := p.Annotations[noKubelet]; !gone {
				queue.Add(victim{namespace: p.Namespace, name: p.Name, uid: p.UID})
			}
		}
	}
	if _, err := factory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
	}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	for i := 0; i < workers; i++ {
		go func() {
			for {
				v, shutdown := queue.Get()
				if shutdown {
					return
				}
				err := kube.CoreV1().Pods(v.namespace).Delete(ctx, v.name, metav1.DeleteOptions{
					GracePeriodSeconds: ptr.To[int64](0),
					Preconditions:      &metav1.Preconditions{UID: &v.uid},
				})
				switch {
				case err == nil, apierrors.IsNotFound(err), apierrors.IsConflict(err):
					// Gone, or this name is a newer pod now: nothing of this incarnation left.
					queue.Forget(v)
				case ctx.Err() != nil:
				default:
					klog.ErrorS(err, "Confirming a pod deletion; retrying", "pod", klog.KRef(v.namespace, v.name), "uid", v.uid)
					queue.AddRateLimited(v)
				}
				queue.Done(v)
			}
		}()
	}
	klog.InfoS("Confirming the deletion of terminating pods", "workers", workers)
	<-ctx.Done()
	return nil
}
