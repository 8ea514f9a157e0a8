package controller

import (
	"time"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/update"
)

// Hooks let a preview or a test watch the controller's passes or stop one at a chosen point.
// They are read without locking: set them before Run. Production leaves them nil.
type Hooks struct {
	// OnPlan, when set, is told the plan of every pass before it is applied (previews and
	// tests record the update's steps with it).
	OnPlan func(pcs *grovev1.PodCliqueSet, plan update.Plan)

	// AfterCreate, when set, runs after every successful create; an error ends the pass.
	// Tests use it to stop the controller at a chosen point, as a crash would.
	AfterCreate func() error

	// OnStep, when set, is told the latency of every step the controller takes (steps.go):
	// the perf harness reports their distribution.
	OnStep func(key string, latency time.Duration)
}
