package admission

import (
	"encoding/json"
	"testing"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
)

// FuzzValidate feeds arbitrary JSON to Default and the validators: no input may panic them,
// and Default must be idempotent on whatever it accepts. Run longer with
// go test -mod=vendor -run x -fuzz FuzzValidate -fuzztime 60s ./pkg/admission/
func FuzzValidate(f *testing.F) {
	seed, _ := json.Marshal(example())
	f.Add(seed)
	rr := example()
	rr.Spec.UpdateStrategy = recreate("50%", 0)
	seed, _ = json.Marshal(rr)
	f.Add(seed)
	f.Add([]byte(`{"spec":{"replicas":-3,"template":{"cliques":[{"name":"a","updateStrategy":{"maxSurge":"%","maxUnavailable":"999999999999%"},"spec":{"replicas":2147483647}}],"podCliqueScalingGroups":[{"name":"a","cliqueNames":["a","a"],"replicas":-1,"minAvailable":0}]}}}`))
	f.Add([]byte(`{"metadata":{"name":""},"spec":{"updateStrategy":{"type":"ReplicaRecreate","rollingUpdate":{"maxSurge":"-1%"}}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		p := &grovev1.PodCliqueSet{}
		if err := json.Unmarshal(raw, p); err != nil {
			return
		}
		old := p.DeepCopy()
		Default(p)
		_ = ValidatePodCliqueSet(p)
		_ = ValidatePodCliqueSetUpdate(p, old)
		_ = ValidatePodCliqueSetUpdate(p, example())
		again := p.DeepCopy()
		Default(again)
		a, _ := json.Marshal(p)
		b, _ := json.Marshal(again)
		if string(a) != string(b) {
			t.Fatalf("Default is not idempotent:\n%s\n%s", a, b)
		}
	})
}
