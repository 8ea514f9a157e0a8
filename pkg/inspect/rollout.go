package inspect

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned"
	"github.com/phalanx-sched/phalanx/pkg/controller"
)

// Revision is one entry of a PodCliqueSet's template history. It is also the JSON of
// `kubectl phalanx rollout history -o json`.
type Revision struct {
	Number      int64     `json:"revision"`
	Name        string    `json:"name"`
	Created     time.Time `json:"created"`
	ChangeCause string    `json:"changeCause,omitempty"`
	// Update: the PodCliqueSet moves to this revision; Complete: the last revision every
	// member reached.
	Update   bool `json:"update,omitempty"`
	Complete bool `json:"complete,omitempty"`
	// Images are the containers' images by clique, "clique=image".
	Images []string `json:"images"`
}

// LoadHistory reads a PodCliqueSet and its template history, oldest first.
func LoadHistory(ctx context.Context, kube kubernetes.Interface, client versioned.Interface, namespace, name string) (*grovev1.PodCliqueSet, []Revision, []*appsv1.ControllerRevision, error) {
	pcs, err := client.GroveV1alpha1().PodCliqueSets(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading PodCliqueSet %s/%s: %w", namespace, name, err)
	}
	list, err := kube.AppsV1().ControllerRevisions(namespace).List(ctx, metav1.ListOptions{LabelSelector: labels.Set{grovev1.LabelPodCliqueSet: name}.String()})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("listing the revisions of %s: %w", name, err)
	}
	ptrs := make([]*appsv1.ControllerRevision, len(list.Items))
	for i := range list.Items {
		ptrs[i] = &list.Items[i]
	}
	crs := controller.Revisions(ptrs, pcs)
	out := make([]Revision, 0, len(crs))
	for _, cr := range crs {
		r := Revision{Number: cr.Revision, Name: cr.Name, Created: cr.CreationTimestamp.Time, ChangeCause: cr.Annotations[controller.AnnotationChangeCause],
			Update: cr.Name == pcs.Status.UpdateRevision, Complete: cr.Name == pcs.Status.CompleteRevision}
		if t, err := controller.RevisionTemplate(cr); err == nil {
			for _, c := range t.Cliques {
				if c.Spec.PodSpec.Containers != nil {
					r.Images = append(r.Images, c.Name+"="+c.Spec.PodSpec.Containers[0].Image)
				}
			}
		}
		out = append(out, r)
	}
	return pcs, out, crs, nil
}

// RenderHistory prints the history as a table.
func RenderHistory(out io.Writer, pcs *grovev1.PodCliqueSet, revs []Revision) {
	fmt.Fprintf(out, "PodCliqueSet %s/%s\n", pcs.Namespace, pcs.Name)
	if len(revs) == 0 {
		fmt.Fprintln(out, "no revisions recorded (the controller records one per template it rolls to)")
		return
	}
	fmt.Fprintf(out, "%-9s %-40s %-21s %-10s %s\n", "REVISION", "NAME", "CREATED", "STATE", "CHANGE-CAUSE / IMAGES")
	for _, r := range revs {
		state := ""
		switch {
		case r.Update && r.Complete:
			state = "current"
		case r.Update:
			state = "updating"
		case r.Complete:
			state = "complete"
		}
		note := r.ChangeCause
		if note == "" {
			note = fmt.Sprint(r.Images)
		}
		fmt.Fprintf(out, "%-9s %-40s %-21s %-10s %s\n", strconv.FormatInt(r.Number, 10), r.Name, r.Created.UTC().Format(time.RFC3339), orDash(state), note)
	}
}

// Undo sets the PodCliqueSet's template to that of revision to (0: the revision before the
// one it moves to), which the controller then rolls to with the PodCliqueSet's own strategy and
// budgets, as any template change. It returns the revision it rolled back to.
func Undo(ctx context.Context, kube kubernetes.Interface, client versioned.Interface, namespace, name string, to int64) (int64, error) {
	pcs, revs, crs, err := LoadHistory(ctx, kube, client, namespace, name)
	if err != nil {
		return 0, err
	}
	if to < 0 {
		return 0, fmt.Errorf("--to-revision %d: must not be negative", to)
	}
	var target *appsv1.ControllerRevision
	if to == 0 {
		// The newest revision other than the one the PodCliqueSet moves to.
		for i := len(crs) - 1; i >= 0; i-- {
			if crs[i].Name != pcs.Status.UpdateRevision {
				target = crs[i]
				break
			}
		}
		if target == nil {
			return 0, fmt.Errorf("PodCliqueSet %s has no earlier revision to roll back to (%d recorded)", name, len(revs))
		}
	} else {
		for _, cr := range crs {
			if cr.Revision == to {
				target = cr
			}
		}
		if target == nil {
			var have []int64
			for _, r := range revs {
				have = append(have, r.Number)
			}
			return 0, fmt.Errorf("--to-revision %d: PodCliqueSet %s has no such revision (recorded: %v)", to, name, have)
		}
	}
	if target.Name == pcs.Status.UpdateRevision {
		return target.Revision, fmt.Errorf("PodCliqueSet %s already moves to revision %d (%s): nothing to roll back", name, target.Revision, target.Name)
	}
	tmpl, err := controller.RevisionTemplate(target)
	if err != nil {
		return 0, err
	}
	patch, err := controller.TemplatePatch(pcs, tmpl, map[string]string{
		controller.AnnotationChangeCause: fmt.Sprintf("kubectl phalanx rollout undo --to-revision=%d", target.Revision)})
	if err != nil {
		return 0, err
	}
	if _, err := client.GroveV1alpha1().PodCliqueSets(namespace).Patch(ctx, name, types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
		return 0, fmt.Errorf("rolling %s back to revision %d: %w", name, target.Revision, err)
	}
	return target.Revision, nil
}
