package gang

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
)

// A reservation written as the annotation reads back the same (Since to the second, as the
// API keeps times).
func TestReservationAnnotationRoundTrip(t *testing.T) {
	in := &Reservation{Since: time.Date(2026, 12, 3, 13, 0, 0, 0, time.UTC), Nodes: map[string]Resources{
		"n1": {MilliCPU: 1500, Memory: 64 << 30, GPU: 8},
		"n2": {GPU: 4},
	}}
	raw, err := in.Annotation()
	if err != nil {
		t.Fatal(err)
	}
	out := ReservationFromPodGang(&schedv1.PodGang{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{schedv1.AnnotationReservation: raw}}})
	if out == nil {
		t.Fatalf("annotation %s does not read back", raw)
	}
	if !out.Since.Equal(in.Since) || len(out.Nodes) != 2 || out.Nodes["n1"] != in.Nodes["n1"] || out.Nodes["n2"] != in.Nodes["n2"] {
		t.Errorf("read back %+v from %s, want %+v", out, raw, in)
	}
}
