package framework

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// recorder is a testing.TB whose Fatalf ends only the goroutine that calls it.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	fatal  string
	logged []string
}

func (r *recorder) Helper() {}
func (r *recorder) Logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logged = append(r.logged, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.mu.Lock()
	r.fatal = fmt.Sprintf(format, args...)
	r.mu.Unlock()
	panic(r)
}

// runEventually calls Eventually on a recorder and returns what it failed with ("" when it passed).
func runEventually(t *testing.T, timeout time.Duration, cond func(context.Context) (bool, error)) *recorder {
	t.Helper()
	r := &recorder{TB: t}
	func() {
		defer func() {
			if p := recover(); p != nil && p != r {
				panic(p)
			}
		}()
		Eventually(r, timeout, "the thing", cond)
	}()
	return r
}

func TestEventuallyStopsOnTerminalError(t *testing.T) {
	for _, err := range []error{
		Terminal(errors.New("the pod was deleted; it will never be Ready")),
		apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "p", errors.New("RBAC")),
		apierrors.NewBadRequest("bad selector"),
	} {
		calls := 0
		r := runEventually(t, time.Minute, func(context.Context) (bool, error) { calls++; return false, err })
		if calls != 1 {
			t.Errorf("%v: cond called %d times, want 1 (a terminal error is not waited out)", err, calls)
		}
		if !strings.Contains(r.fatal, "gave up waiting for the thing") || !strings.Contains(r.fatal, err.Error()) {
			t.Errorf("%v: failed with %q, want the error named", err, r.fatal)
		}
	}
}

func TestEventuallyReportsLastError(t *testing.T) {
	calls := 0
	r := runEventually(t, 300*time.Millisecond, func(context.Context) (bool, error) {
		calls++
		if calls < 3 {
			return false, errors.New("not yet")
		}
		return false, apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, "p")
	})
	if calls < 3 {
		t.Fatalf("a retriable error stopped the wait after %d calls", calls)
	}
	if !strings.Contains(r.fatal, "timed out after 300ms waiting for the thing") || !strings.Contains(r.fatal, `pods "p" not found`) {
		t.Errorf("failed with %q, want the timeout and the last error", r.fatal)
	}
	if len(r.logged) != 2 {
		t.Errorf("logged %q, want each new error once", r.logged)
	}
	if r := runEventually(t, time.Second, func(context.Context) (bool, error) { return true, nil }); r.fatal != "" {
		t.Errorf("a met condition failed: %s", r.fatal)
	}
}
