package gangplugin

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	"k8s.io/utils/ptr"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangdra"
)

// profileHandle is a framework handle that lists the profile's Reserve plugins and has no DRA
// manager (no claim is allocated).
type profileHandle struct {
	fwk.Handle
	reserve []string
}

func (h profileHandle) ListPlugins() *config.Plugins {
	out := &config.Plugins{}
	for _, n := range h.reserve {
		out.Reserve.Enabled = append(out.Reserve.Enabled, config.Plugin{Name: n})
	}
	return out
}

func (profileHandle) SharedDRAManager() fwk.SharedDRAManager { return nil }

// Members sharing an unallocated claim are refused, naming the claim, its members and the fix,
// only in a profile that runs kube-scheduler's DynamicResources; with GangDynamicResources they
// share the allocation and go on.
func TestRefuseSharedClaimOnlyWithoutGangDRA(t *testing.T) {
	for _, tc := range []struct {
		plugin string
		refuse bool
	}{{names.DynamicResources, true}, {gangdra.Name, false}} {
		store := gang.NewStore(gang.DefaultMembership(), time.Now)
		k := gang.Key{Kind: gang.KindPodGang, Namespace: "ns", Name: "g"}
		store.SetSpec(gang.Spec{Key: k, PodGroups: []gang.PodGroup{{Name: "w", MinReplicas: 2}}})
		var pods []*v1.Pod
		for i := 0; i < 2; i++ {
			p := member(i, 0)
			p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To("shared")}}
			store.UpsertPod(p)
			pods = append(pods, p)
		}
		p := NewAdapter(profileHandle{reserve: []string{tc.plugin}}, store, Options{Name: "PodGang", Kind: gang.KindPodGang})
		msg, refused := p.refuseSharedClaim(k, pods[0])
		if refused != tc.refuse {
			t.Errorf("with %s: refused %v (%q), want %v", tc.plugin, refused, msg, tc.refuse)
		}
		if refused && !strings.Contains(msg, "members g-0, g-1 share ResourceClaim shared") || refused && !strings.Contains(msg, "enable "+gangdra.Name) {
			t.Errorf("the refusal does not name the claim, its members and the fix: %q", msg)
		}
	}
}
