package gangplugin

import (
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-sched/phalanx/pkg/gang"
)

// sharedClaim is a ResourceClaim that two or more of pods use by name and that has no
// allocation yet, with those pods ("" for none). Such a gang cannot be placed: the DRA plugin
// refuses a pod whose claim has an allocation in flight for another pod (it shares one only
// within its own pod groups), so the members after the first would fail for ever. A claim
// allocated already (an earlier pod's) is shared as the plugin allows.
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

// refuseSharedClaim is the rejection of a gang whose members pods share an unallocated
// ResourceClaim (sharedClaim), or nil.
func (p *Adapter) refuseSharedClaim(k gang.Key, pod *v1.Pod) (string, bool) {
	if len(pod.Spec.ResourceClaims) == 0 {
		return "", false
	}
	claim, users := p.sharedClaim(p.store.DeficitPods(k))
	if claim == "" {
		return "", false
	}
	sort.Strings(users)
	return fmt.Sprintf("%s: members %s share ResourceClaim %s, which is not allocated yet; Phalanx cannot place a gang whose members share an unallocated claim (give each member its own claim, or allocate the shared one first; see docs/architecture.md, DRA devices)",
		k, strings.Join(users, ", "), claim), true
}
