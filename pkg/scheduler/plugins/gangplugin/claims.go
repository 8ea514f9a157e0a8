package gangplugin

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangdra"
)

// sharedClaim is a ResourceClaim that two or more of pods use by name and that has no
// allocation yet, with those pods ("" for none). Without GangDynamicResources in the profile
// such a gang cannot be placed: kube-scheduler's DynamicResources plugin refuses a pod whose
// claim has an allocation in flight for another pod (it shares one only within its own pod
// groups), so the members after the first would fail for ever. A claim allocated already (an
// earlier pod's) is shared as the plugin allows.
func (p *Adapter) sharedClaim(pods []*v1.Pod) (string, []string) {
	users := map[string][]string{}
	for _, pod := range pods {
		for _, rc := range pod.Spec.ResourceClaims {
			if rc.ResourceClaimName != nil { // a template's claim is the pod's own
				users[*rc.ResourceClaimName] = append(users[*rc.ResourceClaimName], pod.Name)
			}
		}
	}
	names := make([]string, 0, len(users))
	for name, u := range users {
		if len(u) > 1 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		if dra := p.handle.SharedDRAManager(); dra != nil {
			if c, err := dra.ResourceClaims().Get(pods[0].Namespace, name); err == nil && c.Status.Allocation != nil {
				continue
			}
		}
		return name, users[name]
	}
	return "", nil
}

// refuseSharedClaim is the rejection of a gang whose members share an unallocated
// ResourceClaim (sharedClaim) in a profile that runs kube-scheduler's DynamicResources plugin
// rather than GangDynamicResources, or nil.
func (p *Adapter) refuseSharedClaim(k gang.Key, pod *v1.Pod) (string, bool) {
	if len(pod.Spec.ResourceClaims) == 0 || p.claimsShared() {
		return "", false
	}
	claim, users := p.sharedClaim(p.store.DeficitPods(k))
	if claim == "" {
		return "", false
	}
	sort.Strings(users)
	return fmt.Sprintf("%s: members %s share ResourceClaim %s, which is not allocated yet, and the scheduler profile runs %s instead of %s, which lets a gang's members share an allocation in flight (enable %s and disable %s, as Phalanx's own profile does, or give each member its own claim; see docs/architecture.md, DRA devices)",
		k, strings.Join(users, ", "), claim, names.DynamicResources, gangdra.Name, gangdra.Name, names.DynamicResources), true
}

// runsDRA reports whether the profile runs DynamicResources or GangDynamicResources at
// Filter: its pods' devices are capacity the gang plugin must watch.
func (p *Adapter) runsDRA() bool {
	return p.profileRuns(func(pl *config.Plugins) []config.Plugin { return pl.Filter.Enabled }, names.DynamicResources, gangdra.Name)
}

// claimsShared reports whether the profile runs GangDynamicResources at Reserve: members of a
// gang share an unallocated claim through it. Read once, at the first use (the profile's
// plugin lists are complete only after every plugin was built).
func (p *Adapter) claimsShared() bool {
	p.sharedOnce.Do(func() {
		p.shared = p.profileRuns(func(pl *config.Plugins) []config.Plugin { return pl.Reserve.Enabled }, gangdra.Name)
	})
	return p.shared
}

// profileRuns reports whether the profile enables one of names at the extension point that
// at picks from its plugins (false when the handle does not list them).
func (p *Adapter) profileRuns(at func(*config.Plugins) []config.Plugin, names ...string) bool {
	lister, ok := p.handle.(interface{ ListPlugins() *config.Plugins })
	if !ok {
		return false
	}
	for _, pl := range at(lister.ListPlugins()) {
		if slices.Contains(names, pl.Name) {
			return true
		}
	}
	return false
}
