package gangplugin

import (
	"testing"
	"time"

	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// The same Warning reason is recorded at most once per WarnEvery for a gang; another reason
// or another gang is not held back, nor a gang that was forgotten.
func TestWarningsRateLimited(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	l := NewWarnLimiter(func() time.Time { return now })
	a, b := gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: "a"}, gang.Key{Kind: gang.KindWorkloadPodGroup, Namespace: "ns", Name: "b"}
	if !l.MayWarn(a, "MemberUnschedulable") || l.MayWarn(a, "MemberUnschedulable") {
		t.Error("the same reason twice in a row")
	}
	if !l.MayWarn(a, "InsufficientResources") || !l.MayWarn(b, "MemberUnschedulable") {
		t.Error("another reason or another gang held back")
	}
	if l.MayWarn(b, "MemberUnschedulable") {
		t.Error("the same reason again for b")
	}
	l.Forget(b)
	if !l.MayWarn(b, "MemberUnschedulable") {
		t.Error("held back after Forget")
	}
	now = now.Add(WarnEvery)
	if !l.MayWarn(a, "InsufficientResources") {
		t.Error("held back after WarnEvery")
	}
}
