package framework

import (
	"context"
	"testing"
	"time"

	"github.com/phalanx-sched/phalanx/pkg/controller"
)

// StartController runs the PodCliqueSet controller in this process, as manifests/'
// ServiceAccount, until the end of the test or until the returned stop function is called (a
// crash, as far as the API server can tell). configure may set test hooks before it starts.
func (e *Env) StartController(t testing.TB, configure func(*controller.Controller)) (stop func()) {
	t.Helper()
	kube, client := e.Kube, e.Phalanx
	if e.SAKube != nil {
		kube, client = e.SAKube, e.SAPhalanx
	}
	recorder, stopRecorder := controller.NewRecorder(kube)
	c := controller.New(kube, client, recorder)
	if configure != nil {
		configure(c)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := c.Run(ctx, 2); err != nil {
			t.Errorf("controller: %v", err)
		}
	}()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Errorf("controller did not stop within 30s")
		}
		stopRecorder()
	}
	t.Cleanup(stop)
	return stop
}
