package admission

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
)

// example is the seed's disaggregated example: frontend (3) standalone, prefill and decode
// scaling groups of leader (1) + workers (2), 2 replicas each.
func example() *grovev1.PodCliqueSet {
	clique := func(name string, replicas int32) grovev1.PodCliqueTemplateSpec {
		return grovev1.PodCliqueTemplateSpec{Name: name, Spec: grovev1.PodCliqueSpec{
			RoleName: name, Replicas: replicas,
			PodSpec: corev1.PodSpec{SchedulerName: "phalanx-scheduler", Containers: []corev1.Container{{Name: name, Image: "inference:v1"}}},
		}}
	}
	return &grovev1.PodCliqueSet{
		ObjectMeta: metav1.ObjectMeta{Name: "multinode-disaggregated-inference", Namespace: "default"},
		Spec: grovev1.PodCliqueSetSpec{Replicas: 2, Template: grovev1.PodCliqueSetTemplateSpec{
			Cliques: []grovev1.PodCliqueTemplateSpec{clique("frontend", 3), clique("prefill-leader", 1), clique("prefill-worker", 2), clique("decode-leader", 1), clique("decode-worker", 2)},
			PodCliqueScalingGroupConfigs: []grovev1.PodCliqueScalingGroupConfig{
				{Name: "prefill", CliqueNames: []string{"prefill-leader", "prefill-worker"}, Replicas: ptr.To[int32](2)},
				{Name: "decode", CliqueNames: []string{"decode-leader", "decode-worker"}, Replicas: ptr.To[int32](2)},
			},
		}},
	}
}

func budget(surge, unavail any) *grovev1.ComponentUpdateStrategy {
	return &grovev1.ComponentUpdateStrategy{MaxSurge: ios(surge), MaxUnavailable: ios(unavail)}
}

func ios(v any) *intstr.IntOrString {
	switch v := v.(type) {
	case int:
		return ptr.To(intstr.FromInt(v))
	case string:
		return ptr.To(intstr.FromString(v))
	}
	return nil
}

func recreate(surge, unavail any) *grovev1.PodCliqueSetUpdateStrategy {
	return &grovev1.PodCliqueSetUpdateStrategy{Type: grovev1.ReplicaRecreateStrategyType,
		RollingUpdate: &grovev1.RollingUpdateBudget{MaxSurge: ios(surge), MaxUnavailable: ios(unavail)}}
}

func coherentStrategy(surge, unavail any) *grovev1.PodCliqueSetUpdateStrategy {
	return &grovev1.PodCliqueSetUpdateStrategy{Type: grovev1.CoherentStrategyType,
		RollingUpdate: &grovev1.RollingUpdateBudget{MaxSurge: ios(surge), MaxUnavailable: ios(unavail)}}
}

func TestValidatePodCliqueSet(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*grovev1.PodCliqueSet)
		// want are the exact error strings, in order; none means accepted.
		want []string
	}{
		{name: "the seed example as written", mutate: func(*grovev1.PodCliqueSet) {}},
		{name: "seed PCLQ example: replicas 3, maxSurge 1, maxUnavailable 0", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].UpdateStrategy = budget(1, 0)
		}},
		{name: "seed PCSG example: replicas 3, minAvailable 3, maxSurge 1, maxUnavailable 0", mutate: func(p *grovev1.PodCliqueSet) {
			g := &p.Spec.Template.PodCliqueScalingGroupConfigs[0]
			g.Replicas, g.MinAvailable, g.UpdateStrategy = ptr.To[int32](3), ptr.To[int32](3), budget(1, 0)
		}},
		{name: "seed ReplicaRecreate example: replicas 2, maxSurge 1, maxUnavailable 0", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.UpdateStrategy = recreate(1, 0)
		}},
		{name: "percentages", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].UpdateStrategy = budget("34%", "0%")
			p.Spec.Template.PodCliqueScalingGroupConfigs[0].UpdateStrategy = budget("0%", "50%")
		}},
		{name: "RollingUpdate with the implied PCS-level budgets spelt out", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.UpdateStrategy = &grovev1.PodCliqueSetUpdateStrategy{Type: grovev1.RollingUpdateStrategyType,
				RollingUpdate: &grovev1.RollingUpdateBudget{MaxUnavailable: ios(1), MaxSurge: ios(0)}}
		}},
		{name: "negative budget", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].UpdateStrategy = budget(-1, 1)
		}, want: []string{`spec.template.cliques[0].updateStrategy.maxSurge: Invalid value: -1: must not be negative`}},
		{name: "both zero", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.PodCliqueScalingGroupConfigs[1].UpdateStrategy = budget(0, 0)
		}, want: []string{`spec.template.podCliqueScalingGroups[1].updateStrategy: Invalid value: "maxSurge=0, maxUnavailable=0": maxSurge and maxUnavailable must not both be 0 (after rounding against spec.template.podCliqueScalingGroups[1].replicas = 2: surge rounds up, unavailable down): the update could never make a step`}},
		{name: "both zero after rounding", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].UpdateStrategy = budget(0, "30%")
		}, want: []string{`spec.template.cliques[0].updateStrategy: Invalid value: "maxSurge=0, maxUnavailable=30%": maxSurge and maxUnavailable must not both be 0 (after rounding against spec.template.cliques[0].spec.replicas = 3: surge rounds up, unavailable down): the update could never make a step`}},
		{name: "both zero after rounding at the PCS level", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.UpdateStrategy = recreate("0%", "49%")
		}, want: []string{`spec.updateStrategy.rollingUpdate: Invalid value: "maxSurge=0%, maxUnavailable=49%": maxSurge and maxUnavailable must not both be 0 (after rounding against spec.replicas = 2: surge rounds up, unavailable down): the update could never make a step`}},
		{name: "maxUnavailable above replicas", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].UpdateStrategy = budget(0, 4)
		}, want: []string{`spec.template.cliques[0].updateStrategy.maxUnavailable: Invalid value: "4": must not exceed the desired count at its level (spec.template.cliques[0].spec.replicas = 3)`}},
		{name: "maxUnavailable above PCS replicas", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.UpdateStrategy = recreate(0, 3)
		}, want: []string{`spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "3": must not exceed the desired count at its level (spec.replicas = 2)`}},
		{name: "malformed percentage", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].UpdateStrategy = budget("25 %", 1)
		}, want: []string{`spec.template.cliques[0].updateStrategy.maxSurge: Invalid value: "25 %": must be a non-negative integer or a percentage such as '25%'`}},
		{name: "percentage above 100", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].UpdateStrategy = budget("150%", 1)
		}, want: []string{`spec.template.cliques[0].updateStrategy.maxSurge: Invalid value: "150%": a percentage must be between 0% and 100%`}},
		{name: "string that is a number", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].UpdateStrategy = budget("1", 1)
		}, want: []string{`spec.template.cliques[0].updateStrategy.maxSurge: Invalid value: "1": must be a non-negative integer or a percentage such as '25%'`}},
		{name: "PCS-level budgets under RollingUpdate", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.UpdateStrategy = &grovev1.PodCliqueSetUpdateStrategy{Type: grovev1.RollingUpdateStrategyType,
				RollingUpdate: &grovev1.RollingUpdateBudget{MaxUnavailable: ios(2), MaxSurge: ios(1)}}
		}, want: []string{
			`spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "2": PodCliqueSet-level budgets are only allowed with type ReplicaRecreate; RollingUpdate updates one replica at a time (maxUnavailable 1, maxSurge 0): use the budgets of the cliques and scaling groups instead`,
			`spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "1": PodCliqueSet-level budgets are only allowed with type ReplicaRecreate; RollingUpdate updates one replica at a time (maxUnavailable 1, maxSurge 0): use the budgets of the cliques and scaling groups instead`,
		}},
		{name: "component strategy under ReplicaRecreate", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.UpdateStrategy = recreate(1, 0)
			p.Spec.Template.Cliques[0].UpdateStrategy = budget(1, 0)
			p.Spec.Template.PodCliqueScalingGroupConfigs[0].UpdateStrategy = budget(1, 1)
		}, want: []string{
			`spec.template.cliques[0].updateStrategy: Forbidden: not used under updateStrategy.type ReplicaRecreate, which recreates whole replicas under the PodCliqueSet-level budgets; remove it`,
			`spec.template.podCliqueScalingGroups[0].updateStrategy: Forbidden: not used under updateStrategy.type ReplicaRecreate, which recreates whole replicas under the PodCliqueSet-level budgets; remove it`,
		}},
		{name: "Coherent with surge slices", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.UpdateStrategy = coherentStrategy(1, 0)
		}},
		{name: "Coherent with a percentage of slices", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.UpdateStrategy = coherentStrategy("50%", nil)
		}},
		{name: "Coherent with component-level budgets", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.UpdateStrategy = coherentStrategy(1, 0)
			p.Spec.Template.Cliques[0].UpdateStrategy = budget(1, 0)
			p.Spec.Template.PodCliqueScalingGroupConfigs[1].UpdateStrategy = budget(1, 1)
			p.Spec.Template.PodCliqueScalingGroupConfigs[0].RollingUpdate = &grovev1.RollingUpdateConfiguration{MaxUnavailable: ptr.To[int32](1)}
		}, want: []string{
			`spec.template.podCliqueScalingGroups[0].rollingUpdate: Forbidden: not used under updateStrategy.type Coherent, which replaces the changed components in coherent slices under the PodCliqueSet-level budgets (spec.updateStrategy.rollingUpdate, counted in slices); remove it`,
			`spec.template.cliques[0].updateStrategy: Forbidden: not used under updateStrategy.type Coherent, which replaces the changed components in coherent slices under the PodCliqueSet-level budgets (spec.updateStrategy.rollingUpdate, counted in slices); remove it`,
			`spec.template.podCliqueScalingGroups[1].updateStrategy: Forbidden: not used under updateStrategy.type Coherent, which replaces the changed components in coherent slices under the PodCliqueSet-level budgets (spec.updateStrategy.rollingUpdate, counted in slices); remove it`,
		}},
		{name: "Coherent with both budgets 0, and a malformed one", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.UpdateStrategy = coherentStrategy(0, 0)
		}, want: []string{
			`spec.updateStrategy.rollingUpdate: Invalid value: "maxSurge=0, maxUnavailable=0": maxSurge and maxUnavailable (in coherent slices) must not both be 0: the update could never make a step; set maxSurge 1 to make a new slice before an old one goes, or maxUnavailable 1 to drain one first`,
		}},
		{name: "Coherent with a malformed budget", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.UpdateStrategy = coherentStrategy("one", nil)
		}, want: []string{
			`spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "one": must be a non-negative integer or a percentage such as '25%'`,
		}},
		{name: "updateStrategy on a clique of a scaling group", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques[2].UpdateStrategy = budget(1, 0)
		}, want: []string{`spec.template.cliques[2].updateStrategy: Forbidden: clique "prefill-worker" belongs to scaling group "prefill", whose replicas are updated as a whole; set updateStrategy on the scaling group`}},
		{name: "Grove's rollingUpdate.maxUnavailable disagrees with updateStrategy", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].UpdateStrategy = budget(0, 1)
			p.Spec.Template.Cliques[0].RollingUpdate = &grovev1.RollingUpdateConfiguration{MaxUnavailable: ptr.To[int32](2)}
		}, want: []string{`spec.template.cliques[0].rollingUpdate.maxUnavailable: Invalid value: 2: differs from spec.template.cliques[0].updateStrategy.maxUnavailable (1): rollingUpdate.maxUnavailable is Grove's name for the same budget; set one, or both to the same value`}},
		{name: "rollingUpdate on a clique of a scaling group, and a zero deadline", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques[2].RollingUpdate = &grovev1.RollingUpdateConfiguration{MaxUnavailable: ptr.To[int32](1)}
			p.Spec.Template.PodCliqueScalingGroupConfigs[0].RollingUpdate = &grovev1.RollingUpdateConfiguration{ProgressDeadline: &metav1.Duration{}}
		}, want: []string{
			`spec.template.cliques[2].rollingUpdate: Forbidden: the clique belongs to scaling group "prefill", whose replicas are updated as a whole; set rollingUpdate on the scaling group`,
			`spec.template.podCliqueScalingGroups[0].rollingUpdate.progressDeadline: Invalid value: "0s": must be positive (leave it unset for no component deadline)`,
		}},
		{name: "unknown strategy type", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.UpdateStrategy = &grovev1.PodCliqueSetUpdateStrategy{Type: "Recreate"}
		}, want: []string{`spec.updateStrategy.type: Unsupported value: "Recreate": supported values: "RollingUpdate", "RollingRecreate", "ReplicaRecreate", "OnDelete", "Coherent"`}},
		{name: "progress deadline zero", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.UpdateStrategy = &grovev1.PodCliqueSetUpdateStrategy{ProgressDeadlineSeconds: ptr.To[int32](0)}
		}, want: []string{`spec.updateStrategy.progressDeadlineSeconds: Invalid value: 0: must be at least 1`}},
		{name: "clique name not a DNS label", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].Name = "Front_End"
			p.Spec.Template.Cliques[0].Spec.RoleName = "Front_End"
		}, want: []string{`spec.template.cliques[0].name: Invalid value: "Front_End": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`}},
		{name: "PCS name not a DNS label", mutate: func(p *grovev1.PodCliqueSet) { p.Name = "inference.v2" },
			want: []string{`metadata.name: Invalid value: "inference.v2": must not contain dots`}},
		{name: "the seed's aggregated example under its own name", mutate: func(p *grovev1.PodCliqueSet) {
			p.Name = "multinode-aggregated-inference"
			c := p.Spec.Template.Cliques[0]
			c.Name, c.Spec.RoleName, c.Spec.Replicas = "aggregated-worker", "aggregated-worker", 1
			p.Spec.Template.Cliques = []grovev1.PodCliqueTemplateSpec{c}
			p.Spec.Template.PodCliqueScalingGroupConfigs = []grovev1.PodCliqueScalingGroupConfig{{Name: "aggregated-workers", CliqueNames: []string{"aggregated-worker"}, Replicas: ptr.To[int32](3)}}
		}, want: []string{`spec.template.cliques[0].name: Invalid value: "aggregated-worker": the generated pod name "multinode-aggregated-inference-3-aggregated-workers-5-aggregated-worker-1" (also its hostname) would be 73 characters, more than 63; shorten the PodCliqueSet, scaling group or clique name`}},
		{name: "generated pod name too long", mutate: func(p *grovev1.PodCliqueSet) {
			p.Name = "multinode-disaggregated-inference-for-llama"
		}, want: []string{
			`spec.template.cliques[1].name: Invalid value: "prefill-leader": the generated pod name "multinode-disaggregated-inference-for-llama-3-prefill-3-prefill-leader-1" (also its hostname) would be 72 characters, more than 63; shorten the PodCliqueSet, scaling group or clique name`,
			`spec.template.cliques[2].name: Invalid value: "prefill-worker": the generated pod name "multinode-disaggregated-inference-for-llama-3-prefill-3-prefill-worker-3" (also its hostname) would be 72 characters, more than 63; shorten the PodCliqueSet, scaling group or clique name`,
			`spec.template.cliques[3].name: Invalid value: "decode-leader": the generated pod name "multinode-disaggregated-inference-for-llama-3-decode-3-decode-leader-1" (also its hostname) would be 70 characters, more than 63; shorten the PodCliqueSet, scaling group or clique name`,
			`spec.template.cliques[4].name: Invalid value: "decode-worker": the generated pod name "multinode-disaggregated-inference-for-llama-3-decode-3-decode-worker-3" (also its hostname) would be 70 characters, more than 63; shorten the PodCliqueSet, scaling group or clique name`,
		}},
		{name: "duplicate clique", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques[4].Name = "decode-leader"
			p.Spec.Template.PodCliqueScalingGroupConfigs[1].CliqueNames = []string{"decode-leader"}
		}, want: []string{`spec.template.cliques[4].name: Duplicate value: "decode-leader"`}},
		{name: "scaling group names a missing clique", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.PodCliqueScalingGroupConfigs[1].CliqueNames = []string{"decode-leader", "decoder"}
		}, want: []string{`spec.template.podCliqueScalingGroups[1].cliqueNames[1]: Not found: "decoder"`}},
		{name: "clique in two scaling groups", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.PodCliqueScalingGroupConfigs[1].CliqueNames = []string{"decode-leader", "decode-worker", "prefill-worker"}
		}, want: []string{`spec.template.podCliqueScalingGroups[1].cliqueNames[2]: Invalid value: "prefill-worker": clique already belongs to scaling group "prefill"; a clique belongs to one scaling group at most`}},
		{name: "scaling group without cliques", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.PodCliqueScalingGroupConfigs[1].CliqueNames = nil
		}, want: []string{`spec.template.podCliqueScalingGroups[1].cliqueNames: Required value: a scaling group needs at least one clique`}},
		{name: "scaling group named like a clique", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.PodCliqueScalingGroupConfigs[1].Name = "frontend"
		}, want: []string{`spec.template.podCliqueScalingGroups[1].name: Invalid value: "frontend": must differ from every clique name: generated names would collide`}},
		{name: "clique minAvailable above replicas", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].Spec.MinAvailable = ptr.To[int32](4)
		}, want: []string{`spec.template.cliques[0].spec.minAvailable: Invalid value: 4: must not exceed replicas (3): the gang could never reach its minimum`}},
		{name: "clique minAvailable zero", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].Spec.MinAvailable = ptr.To[int32](0)
		}, want: []string{`spec.template.cliques[0].spec.minAvailable: Invalid value: 0: must be at least 1`}},
		{name: "clique without replicas", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].Spec.Replicas = 0
		}, want: []string{`spec.template.cliques[0].spec.replicas: Invalid value: 0: must be at least 1`}},
		{name: "scaling group minAvailable above replicas", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.PodCliqueScalingGroupConfigs[0].MinAvailable = ptr.To[int32](3)
		}, want: []string{`spec.template.podCliqueScalingGroups[0].minAvailable: Invalid value: 3: must not exceed replicas (2): the base gang could never be complete`}},
		{name: "role name used twice", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques[3].Spec.RoleName = p.Spec.Template.Cliques[2].Spec.RoleName
		}, want: []string{`spec.template.cliques[3].spec.roleName: Duplicate value: "` + example().Spec.Template.Cliques[2].Spec.RoleName + `"`}},
		{name: "two schedulers", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].Spec.PodSpec.SchedulerName = ""
		}, want: []string{`spec.template.cliques.spec.podSpec.schedulerName: Invalid value: "(default): frontend; phalanx-scheduler: prefill-leader,prefill-worker,decode-leader,decode-worker": every clique must use the same scheduler: a gang split across schedulers can never be placed as a whole`}},
		{name: "partition 1 of 2 (a canary)", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.UpdateStrategy = &grovev1.PodCliqueSetUpdateStrategy{RollingUpdate: &grovev1.RollingUpdateBudget{Partition: ptr.To[int32](1)}}
		}},
		{name: "partition above replicas", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.UpdateStrategy = &grovev1.PodCliqueSetUpdateStrategy{RollingUpdate: &grovev1.RollingUpdateBudget{Partition: ptr.To[int32](3)}}
		}, want: []string{`spec.updateStrategy.rollingUpdate.partition: Invalid value: 3: must not exceed spec.replicas (2): the replicas with an index below the partition keep the last complete revision`}},
		{name: "partition with OnDelete", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.UpdateStrategy = &grovev1.PodCliqueSetUpdateStrategy{Type: grovev1.OnDeleteStrategyType, RollingUpdate: &grovev1.RollingUpdateBudget{Partition: ptr.To[int32](1)}}
		}, want: []string{`spec.updateStrategy.rollingUpdate.partition: Forbidden: type OnDelete replaces nothing by itself: a partition has nothing to hold back`}},
		{name: "no cliques", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques, p.Spec.Template.PodCliqueScalingGroupConfigs = nil, nil
		}, want: []string{`spec.template.cliques: Required value: a PodCliqueSet needs at least one clique`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := example()
			tc.mutate(p)
			Default(p)
			got := ValidatePodCliqueSet(p)
			var msgs []string
			for _, e := range got {
				msgs = append(msgs, e.Error())
			}
			if strings.Join(msgs, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestValidatePodCliqueSetUpdate(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*grovev1.PodCliqueSet)
		want   []string
		// complete is the old object's status.completeRevision.
		complete string
	}{
		{name: "new image", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].Spec.PodSpec.Containers[0].Image = "inference:v2"
		}},
		{name: "new image with rollbackOnFailure after a complete revision", complete: "x-abc", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.UpdateStrategy.RollbackOnFailure = true
			p.Spec.Template.Cliques[0].Spec.PodSpec.Containers[0].Image = "inference:v2"
		}},
		{name: "rollbackOnFailure turned on, template unchanged, nothing complete yet", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.UpdateStrategy.RollbackOnFailure = true
		}},
		{name: "new image with rollbackOnFailure and no complete revision", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.UpdateStrategy.RollbackOnFailure = true
			p.Spec.Template.Cliques[0].Spec.PodSpec.Containers[0].Image = "inference:v2"
		}, want: []string{`spec.updateStrategy.rollbackOnFailure: Forbidden: no complete revision to roll back to: the PodCliqueSet has not completed its creation or an update yet (status.completeRevision is empty); change the template once it has, or set rollbackOnFailure to false`}},
		{name: "scale out and change budgets", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Replicas = 3
			p.Spec.Template.Cliques[0].Spec.Replicas = 4
			p.Spec.Template.Cliques[0].Spec.MinAvailable = ptr.To[int32](3) // unchanged after defaulting
			p.Spec.Template.PodCliqueScalingGroupConfigs[0].UpdateStrategy = budget(1, 0)
		}},
		{name: "switch to ReplicaRecreate (defaulted component strategies go)", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.UpdateStrategy.Type = grovev1.ReplicaRecreateStrategyType
		}},
		{name: "switch to Coherent (defaulted component strategies go)", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.UpdateStrategy.Type = grovev1.CoherentStrategyType
		}},
		{name: "clique added", mutate: func(p *grovev1.PodCliqueSet) {
			c := p.Spec.Template.Cliques[0]
			c.Name, c.Spec.RoleName = "router", "router"
			p.Spec.Template.Cliques = append(p.Spec.Template.Cliques, c)
		}, want: []string{`spec.template.cliques[5].name: Forbidden: clique "router" cannot be added: the set of cliques is immutable: the gangs of running replicas are built from it; create a new PodCliqueSet to change it`}},
		{name: "clique removed", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques = p.Spec.Template.Cliques[1:]
		}, want: []string{`spec.template.cliques: Forbidden: clique "frontend" cannot be removed: the set of cliques is immutable: the gangs of running replicas are built from it; create a new PodCliqueSet to change it`}},
		{name: "minAvailable changed", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].Spec.MinAvailable = ptr.To[int32](2)
		}, want: []string{`spec.template.cliques[0].spec.minAvailable: Invalid value: 2: was 3; minAvailable is immutable: the gangs of running replicas are built from it; create a new PodCliqueSet to change it`}},
		{name: "roleName changed", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.Cliques[0].Spec.RoleName = "router"
		}, want: []string{`spec.template.cliques[0].spec.roleName: Invalid value: "router": was "frontend"; roleName is immutable: the gangs of running replicas are built from it; create a new PodCliqueSet to change it`}},
		{name: "membership changed", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.PodCliqueScalingGroupConfigs[0].CliqueNames = []string{"prefill-leader"}
		}, want: []string{`spec.template.podCliqueScalingGroups[0].cliqueNames: Invalid value: ["prefill-leader"]: was [prefill-leader prefill-worker]; scaling group membership is immutable: the gangs of running replicas are built from it; create a new PodCliqueSet to change it`}},
		{name: "scaling group minAvailable changed", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.PodCliqueScalingGroupConfigs[1].MinAvailable = ptr.To[int32](2)
		}, want: []string{`spec.template.podCliqueScalingGroups[1].minAvailable: Invalid value: 2: was 1; minAvailable is immutable: the gangs of running replicas are built from it; create a new PodCliqueSet to change it`}},
		{name: "scaling group removed", mutate: func(p *grovev1.PodCliqueSet) {
			p.Spec.Template.PodCliqueScalingGroupConfigs = p.Spec.Template.PodCliqueScalingGroupConfigs[:1]
		}, want: []string{`spec.template.podCliqueScalingGroups: Forbidden: scaling group "decode" cannot be removed: scaling group membership is immutable: the gangs of running replicas are built from it; create a new PodCliqueSet to change it`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			old := example()
			Default(old)
			old.Status.CompleteRevision = tc.complete
			p := old.DeepCopy()
			tc.mutate(p)
			Default(p)
			var msgs []string
			for _, e := range ValidatePodCliqueSetUpdate(p, old) {
				msgs = append(msgs, e.Error())
			}
			if strings.Join(msgs, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// Grove's rollingUpdate.maxUnavailable becomes the component budget where updateStrategy does
// not set one.
func TestRollingUpdateMaxUnavailableDefaultsBudget(t *testing.T) {
	p := example()
	p.Spec.Template.Cliques[0].RollingUpdate = &grovev1.RollingUpdateConfiguration{MaxUnavailable: ptr.To[int32](2)}
	p.Spec.Template.PodCliqueScalingGroupConfigs[0].RollingUpdate = &grovev1.RollingUpdateConfiguration{MaxUnavailable: ptr.To[int32](0)}
	p.Spec.Template.PodCliqueScalingGroupConfigs[0].UpdateStrategy = &grovev1.ComponentUpdateStrategy{MaxSurge: ptr.To(intstr.FromInt32(1))}
	Default(p)
	if s := p.Spec.Template.Cliques[0].UpdateStrategy; s.MaxUnavailable.String() != "2" || s.MaxSurge.String() != "0" {
		t.Errorf("clique budget %+v, want maxUnavailable 2 (from rollingUpdate), maxSurge 0", s)
	}
	if s := p.Spec.Template.PodCliqueScalingGroupConfigs[0].UpdateStrategy; s.MaxUnavailable.String() != "0" || s.MaxSurge.String() != "1" {
		t.Errorf("group budget %+v, want maxUnavailable 0 (from rollingUpdate), maxSurge 1", s)
	}
	if errs := ValidatePodCliqueSet(p); len(errs) > 0 {
		t.Errorf("refused: %v", errs)
	}
}

// Grove's default strategy name is accepted unchanged and defaulted as RollingUpdate is.
func TestRollingRecreateIsGrovesRollingUpdate(t *testing.T) {
	p := example()
	p.Spec.UpdateStrategy = &grovev1.PodCliqueSetUpdateStrategy{Type: grovev1.RollingRecreateStrategyType}
	Default(p)
	if errs := ValidatePodCliqueSet(p); len(errs) > 0 {
		t.Fatalf("RollingRecreate refused: %v", errs)
	}
	if p.Spec.UpdateStrategy.Type != grovev1.RollingRecreateStrategyType {
		t.Errorf("type rewritten to %q", p.Spec.UpdateStrategy.Type)
	}
	r := example()
	Default(r)
	r.Spec.UpdateStrategy.Type = grovev1.RollingRecreateStrategyType
	if !equalJSON(t, p, r) {
		t.Error("RollingRecreate is not defaulted as RollingUpdate is")
	}
}

func TestDefault(t *testing.T) {
	p := example()
	Default(p)
	us := p.Spec.UpdateStrategy
	if us.Type != grovev1.RollingUpdateStrategyType || *us.ProgressDeadlineSeconds != 600 || us.RollingUpdate != nil {
		t.Errorf("strategy = %+v", us)
	}
	if s := p.Spec.Template.Cliques[0].UpdateStrategy; s == nil || s.MaxUnavailable.String() != "1" || s.MaxSurge.String() != "0" {
		t.Errorf("standalone clique strategy = %+v", s)
	}
	for i := 1; i < 5; i++ {
		if s := p.Spec.Template.Cliques[i].UpdateStrategy; s != nil {
			t.Errorf("clique %s of a scaling group got a strategy %+v", p.Spec.Template.Cliques[i].Name, s)
		}
		if *p.Spec.Template.Cliques[i].Spec.MinAvailable != p.Spec.Template.Cliques[i].Spec.Replicas {
			t.Errorf("clique %d minAvailable = %d", i, *p.Spec.Template.Cliques[i].Spec.MinAvailable)
		}
	}
	for _, g := range p.Spec.Template.PodCliqueScalingGroupConfigs {
		if g.UpdateStrategy == nil || g.UpdateStrategy.MaxUnavailable.String() != "1" || g.UpdateStrategy.MaxSurge.String() != "0" || *g.MinAvailable != 1 {
			t.Errorf("group %s = %+v", g.Name, g)
		}
	}
	again := p.DeepCopy()
	Default(again)
	if !equalJSON(t, p, again) {
		t.Error("Default is not idempotent")
	}
	// A user's value is kept.
	q := example()
	q.Spec.Template.Cliques[0].UpdateStrategy = &grovev1.ComponentUpdateStrategy{MaxSurge: ios(2)}
	q.Spec.Template.PodCliqueScalingGroupConfigs[0].MinAvailable = ptr.To[int32](2)
	Default(q)
	if s := q.Spec.Template.Cliques[0].UpdateStrategy; s.MaxSurge.String() != "2" || s.MaxUnavailable.String() != "1" {
		t.Errorf("user's maxSurge lost: %+v", s)
	}
	if *q.Spec.Template.PodCliqueScalingGroupConfigs[0].MinAvailable != 2 {
		t.Error("user's minAvailable lost")
	}
	// ReplicaRecreate: PCS-level budgets default, a defaulted component strategy goes, a
	// user's non-default one stays for validation to reject.
	r := example()
	Default(r)
	r.Spec.UpdateStrategy.Type = grovev1.ReplicaRecreateStrategyType
	r.Spec.Template.PodCliqueScalingGroupConfigs[1].UpdateStrategy = budget(1, 0)
	Default(r)
	if ru := r.Spec.UpdateStrategy.RollingUpdate; ru == nil || ru.MaxUnavailable.String() != "1" || ru.MaxSurge.String() != "0" {
		t.Errorf("ReplicaRecreate budgets = %+v", ru)
	}
	if r.Spec.Template.Cliques[0].UpdateStrategy != nil || r.Spec.Template.PodCliqueScalingGroupConfigs[0].UpdateStrategy != nil {
		t.Error("defaulted component strategies kept under ReplicaRecreate")
	}
	if r.Spec.Template.PodCliqueScalingGroupConfigs[1].UpdateStrategy == nil {
		t.Error("a user's component strategy was dropped silently")
	}
	// Coherent: budgets in slices; a surge makes maxUnavailable 0 (surge before drain), none 1
	// (drain first); a user's maxUnavailable stays.
	for _, tc := range []struct {
		surge, unavail any
		want           string
	}{{nil, nil, "0/1"}, {1, nil, "1/0"}, {"25%", nil, "25%/0"}, {"0%", nil, "0%/1"}, {1, 1, "1/1"}} {
		c := example()
		c.Spec.UpdateStrategy = coherentStrategy(tc.surge, tc.unavail)
		Default(c)
		ru := c.Spec.UpdateStrategy.RollingUpdate
		if got := ru.MaxSurge.String() + "/" + ru.MaxUnavailable.String(); got != tc.want {
			t.Errorf("Coherent maxSurge %v maxUnavailable %v defaulted to %s, want %s", tc.surge, tc.unavail, got, tc.want)
		}
		if c.Spec.Template.Cliques[0].UpdateStrategy != nil {
			t.Error("a component strategy defaulted under Coherent")
		}
	}
}

func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ra, err := yaml.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	rb, _ := yaml.Marshal(b)
	return string(ra) == string(rb)
}

// The samples in manifests/samples (the seed's examples) pass defaulting and validation.
func TestSamplesValid(t *testing.T) {
	for _, name := range []string{"disaggregated.yaml", "aggregated.yaml"} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "manifests", "samples", name))
		if err != nil {
			t.Fatal(err)
		}
		p := &grovev1.PodCliqueSet{}
		if err := yaml.UnmarshalStrict(raw, p); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		Default(p)
		if errs := ValidatePodCliqueSet(p); len(errs) > 0 {
			t.Errorf("%s: %v", name, errs.ToAggregate())
		}
	}
}

// A PodCliqueSet written for current Grove is accepted unchanged: strict decoding knows every
// field, the webhooks' defaulting leaves Grove's fields alone and validation passes, and a
// round trip through Phalanx's types loses nothing.
func TestGroveCurrentPodCliqueSetAccepted(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "grove-current.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	pcs := &grovev1.PodCliqueSet{}
	if err := yaml.UnmarshalStrict(raw, pcs); err != nil {
		t.Fatalf("strict decoding: %v", err)
	}
	Default(pcs)
	if errs := ValidatePodCliqueSet(pcs); len(errs) > 0 {
		t.Fatalf("refused: %v", errs)
	}
	if pcs.Spec.UpdateStrategy.Type != grovev1.RollingRecreateStrategyType {
		t.Errorf("updateStrategy.type became %q", pcs.Spec.UpdateStrategy.Type)
	}
	var in, out map[string]any
	if err := yaml.Unmarshal(raw, &in); err != nil {
		t.Fatal(err)
	}
	back, err := json.Marshal(pcs)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(back, &out); err != nil {
		t.Fatal(err)
	}
	if missing := lost(in, out, ""); len(missing) > 0 {
		t.Errorf("fields lost on the way through Phalanx's types: %v", missing)
	}
}

// lost lists the paths of in that out lacks (out may hold more: defaults).
func lost(in, out any, path string) []string {
	switch v := in.(type) {
	case map[string]any:
		o, ok := out.(map[string]any)
		if !ok {
			return []string{path}
		}
		var missing []string
		for k, iv := range v {
			ov, ok := o[k]
			if !ok {
				missing = append(missing, path+"."+k)
				continue
			}
			missing = append(missing, lost(iv, ov, path+"."+k)...)
		}
		return missing
	case []any:
		o, ok := out.([]any)
		if !ok || len(o) != len(v) {
			return []string{path}
		}
		var missing []string
		for i := range v {
			missing = append(missing, lost(v[i], o[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
		return missing
	}
	return nil
}
