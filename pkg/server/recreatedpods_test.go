package server

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

// gappedPods is a pod list-watch whose first watch is cut with 410 Gone (as after an API server
// restart), so the informer lists again: the first list has w-0 (UID old, on node-a), the
// second has a new w-0 (UID new, on node-b), made while the watch was away.
type gappedPods struct {
	mu      sync.Mutex
	lists   int
	watches []*watch.FakeWatcher
}

func (g *gappedPods) pod(uid, node, rv string) corev1.Pod {
	return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w-0", UID: types.UID(uid), ResourceVersion: rv},
		Spec: corev1.PodSpec{NodeName: node}}
}

// listWatch is a plain list and watch (no WatchList stream: the first list is a list).
type listWatch struct{ *cache.ListWatch }

func (listWatch) IsWatchListSemanticsUnSupported() bool { return true }

func (g *gappedPods) ListWatch() cache.ListerWatcher {
	return listWatch{&cache.ListWatch{
		ListFunc: func(metav1.ListOptions) (runtime.Object, error) {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.lists++
			if g.lists == 1 {
				return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: []corev1.Pod{g.pod("old", "node-a", "1")}}, nil
			}
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "3"}, Items: []corev1.Pod{g.pod("new", "node-b", "3")}}, nil
		},
		WatchFunc: func(metav1.ListOptions) (watch.Interface, error) {
			g.mu.Lock()
			defer g.mu.Unlock()
			w := watch.NewFake()
			g.watches = append(g.watches, w)
			return w, nil
		},
	}}
}

// cut ends the first watch with 410 Gone once it is open.
func (g *gappedPods) cut(ctx context.Context) error {
	var w *watch.FakeWatcher
	err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		g.mu.Lock()
		defer g.mu.Unlock()
		if len(g.watches) > 0 {
			w = g.watches[0]
		}
		return w != nil, nil
	})
	if err != nil {
		return fmt.Errorf("no watch opened: %w", err)
	}
	w.Error(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version"})
	return nil
}

// podEvents records what a handler was told, as "add UID@node", "update OLD@node->NEW@node",
// "delete UID@node".
type podEvents struct {
	mu  sync.Mutex
	got []string
}

func at(obj any) string {
	p := obj.(*corev1.Pod)
	return string(p.UID) + "@" + p.Spec.NodeName
}

func (e *podEvents) handler() cache.ResourceEventHandler {
	rec := func(s string) { e.mu.Lock(); e.got = append(e.got, s); e.mu.Unlock() }
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { rec("add " + at(obj)) },
		UpdateFunc: func(o, n any) { rec("update " + at(o) + "->" + at(n)) },
		DeleteFunc: func(obj any) { rec("delete " + at(obj)) },
	}
}

func (e *podEvents) wait(ctx context.Context, n int) ([]string, error) {
	var got []string
	err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		e.mu.Lock()
		defer e.mu.Unlock()
		got = append([]string(nil), e.got...)
		return len(got) >= n, nil
	})
	return got, err
}

// A pod deleted and made again under its name while the watch was cut reaches a plain
// informer as one update between two UIDs on two nodes (the event kube-scheduler's cache exits
// on); through splitRecreatedPods' wrapper the same relist is a delete and an add.
func TestRecreatedPodSplitIntoDeleteAndAdd(t *testing.T) {
	for _, tc := range []struct {
		name  string
		split bool
		want  string
	}{
		{"plain informer", false, "[add old@node-a update old@node-a->new@node-b]"},
		{"split", true, "[add old@node-a delete old@node-a add new@node-b]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			lw := &gappedPods{}
			var inf cache.SharedIndexInformer = cache.NewSharedIndexInformer(lw.ListWatch(), &corev1.Pod{}, 0, cache.Indexers{})
			if tc.split {
				inf = recreatedPodsSharedInformer{inf}
			}
			rec := &podEvents{}
			if _, err := inf.AddEventHandler(rec.handler()); err != nil {
				t.Fatal(err)
			}
			go inf.RunWithContext(ctx)
			if _, err := rec.wait(ctx, 1); err != nil {
				t.Fatal("no initial add")
			}
			if err := lw.cut(ctx); err != nil {
				t.Fatal(err)
			}
			n := 2
			if tc.split {
				n = 3
			}
			got, err := rec.wait(ctx, n)
			if err != nil || fmt.Sprint(got) != tc.want {
				t.Fatalf("events %v (%v), want %s", got, err, tc.want)
			}
		})
	}
}

// The scheduler reaches the pod informer through the factory it is given (Informer, and
// TypedInformer for typed handlers): both routes wrap the factory's one shared informer.
func TestSplitRecreatedPodsFactoryRoutes(t *testing.T) {
	f := informers.NewSharedInformerFactory(kubefake.NewClientset(), 0)
	split := splitRecreatedPods(f)
	shared := f.Core().V1().Pods().Informer()
	inf, ok := split.Core().V1().Pods().Informer().(recreatedPodsSharedInformer)
	if !ok || inf.GetStore() != shared.GetStore() {
		t.Fatalf("Pods().Informer() is %T, not the wrapped shared informer", split.Core().V1().Pods().Informer())
	}
	typed := split.Core().V1().Pods().TypedInformer()
	if typed.GetStore() != shared.GetStore() {
		t.Error("Pods().TypedInformer() is not over the shared informer")
	}
	if _, wrapped := split.Core().V1().Nodes().Informer().(recreatedPodsSharedInformer); wrapped {
		t.Error("the node informer changed: only pods are wrapped")
	}
}
