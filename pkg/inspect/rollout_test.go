package inspect

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
)

// rollout history: oldest first, the state of each revision, the change cause or the images.
func TestRenderHistory(t *testing.T) {
	at := time.Date(2026, 12, 2, 17, 3, 0, 0, time.UTC)
	pcs := &grovev1.PodCliqueSet{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "w"}}
	var out strings.Builder
	RenderHistory(&out, pcs, []Revision{
		{Number: 2, Name: "w-3cq4s1p0", Created: at, Images: []string{"worker=registry.example.com/llm/worker:v2"}, Complete: true},
		{Number: 3, Name: "w-1bq8r0ka", Created: at.Add(time.Minute), Update: true, ChangeCause: "kubectl phalanx rollout undo --to-revision=1"},
	})
	want := `PodCliqueSet default/w
REVISION  NAME                                     CREATED               STATE      CHANGE-CAUSE / IMAGES
2         w-3cq4s1p0                               2026-12-02T17:03:00Z  complete   [worker=registry.example.com/llm/worker:v2]
3         w-1bq8r0ka                               2026-12-02T17:04:00Z  updating   kubectl phalanx rollout undo --to-revision=1
`
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}
