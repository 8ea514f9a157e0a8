package controller

import (
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/controller"
	"github.com/phalanx-sched/phalanx/pkg/update"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// A PodCliqueSet stored without the defaulting webhook (a restore, an outage under
// failurePolicy Ignore) is updated with the budgets the webhook would have written: Grove's
// per-component rollingUpdate.maxUnavailable (2 here, with no updateStrategy) lets one pass
// replace two pods at once. (This environment registers no webhook.)
func TestGroveComponentBudgetWithoutWebhook(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	ns := env.NewNamespace(t)
	env.AddNodes(t, framework.GPUNodes("budget", 3))
	var mu sync.Mutex
	most := 0
	env.StartPhalanx(t, framework.Phalanx{Controller: true, Configure: func(c *controller.Controller) {
		c.OnPlan = func(_ *grovev1.PodCliqueSet, plan update.Plan) {
			deletes := 0
			for _, a := range plan.Actions {
				if a.Type == update.Delete && !a.Surge {
					deletes++
				}
			}
			mu.Lock()
			most = max(most, deletes)
			mu.Unlock()
		}
	}})
	pcs := framework.Workers(ns, "gb", 0, 1, 600)
	pcs.Spec.Template.Cliques[0].UpdateStrategy = nil
	pcs.Spec.Template.Cliques[0].RollingUpdate = &grovev1.RollingUpdateConfiguration{MaxUnavailable: ptr.To[int32](2)}
	if _, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Create(ctx, pcs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	stored, err := env.Phalanx.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, "gb", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if stored.Spec.Template.Cliques[0].UpdateStrategy != nil {
		t.Fatalf("a webhook defaulted the PodCliqueSet (updateStrategy %+v): the test needs it stored as written", stored.Spec.Template.Cliques[0].UpdateStrategy)
	}
	env.WaitAvailable(t, ns, "gb", 1, 3)
	env.SetImage(t, ns, "gb", "registry.example.com/llm/worker:v2")
	env.WaitUpdated(t, ns, "gb", "registry.example.com/llm/worker:v2", 3)
	mu.Lock()
	defer mu.Unlock()
	if most != 2 {
		t.Errorf("at most %d old pods replaced in one pass; Grove's rollingUpdate.maxUnavailable 2 allows 2", most)
	}
}
