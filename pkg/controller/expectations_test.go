package controller

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-sched/phalanx/pkg/update"
)

func pod(name string, uid types.UID, terminating bool) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, UID: uid}}
	if terminating {
		p.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
	}
	return p
}

// A pass waits until the pod cache shows the pods it created and deleted; a PodCliqueSet
// recreated under its name does not inherit what its predecessor waited for.
func TestExpectationsAwaitOwnWrites(t *testing.T) {
	now := time.Unix(1000, 0)
	e := newExpectations()
	e.now = func() time.Time { return now }
	const key, set = "ns/pcs", types.UID("set-1")
	old := pod("pcs-0-w-1", "old", false)
	e.created(key, set, "pcs-0-w-3")
	e.deleted(key, set, old)

	cache := map[string]*corev1.Pod{old.Name: old} // lagging: neither write shown
	if awaited, _ := e.awaited(key, set, cache); fmt.Sprint(awaited) != "[pcs-0-w-1 pcs-0-w-3]" {
		t.Fatalf("awaited %v, want both writes", awaited)
	}
	cache["pcs-0-w-3"] = pod("pcs-0-w-3", "new", false)
	cache[old.Name] = pod(old.Name, "old", true)
	if awaited, _ := e.awaited(key, set, cache); len(awaited) != 0 {
		t.Fatalf("awaited %v once the cache shows the create and the deletion", awaited)
	}

	e.created(key, set, "pcs-0-w-4")
	if awaited, _ := e.awaited(key, "set-2", cache); len(awaited) != 0 {
		t.Errorf("a recreated PodCliqueSet waits for %v, its predecessor's writes", awaited)
	}
	e.created(key, set, "pcs-0-w-5")
	now = now.Add(update.ExpectationsTTL + time.Second)
	if awaited, expired := e.awaited(key, set, cache); len(awaited) != 0 || fmt.Sprint(expired) != "[pcs-0-w-5]" {
		t.Errorf("after the TTL: awaited %v expired %v, want none awaited and pcs-0-w-5 expired", awaited, expired)
	}
	e.created(key, set, "pcs-0-w-6")
	e.forget(key)
	if awaited, _ := e.awaited(key, set, cache); len(awaited) != 0 {
		t.Errorf("awaited %v after the set was forgotten", awaited)
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{"Forbidden": "Forbidden", "RequestEntityTooLarge": "Request_Entity_Too_Large", "Other": "Other"} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}
