package gangplugin

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	policylisters "k8s.io/client-go/listers/policy/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/metrics"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangdra"
)

// Gang-aware preemption (docs/architecture.md rule 9) replaces kube-scheduler's DefaultPreemption in the
// Phalanx profiles. The preemptor is the whole deficit of its gang (every member its quorum
// still needs), or one pod (a pod of no gang, or a member placed on its own once its gang's
// quorum is bound). It finds one placement for all of them with the planner, on the snapshot
// with the victims removed, or preempts nothing. Victims are units that can go without
// breaking a gang (gang.Store.VictimUnits), chosen by gang.SelectVictims: lowest priority,
// then the fewest whole gangs, the fewest GPUs, the youngest.

// Preemption outcomes (label of phalanx_preemptions_total).
const (
	PreemptPreempted    = "Preempted"
	PreemptWaiting      = "WaitingForVictims"
	PreemptNoRoom       = "NoRoom"
	PreemptNoCandidates = "NoCandidates"
	PreemptNotEligible  = "NotEligible"
	PreemptNotNeeded    = "NotNeeded"
)

// preemptionGrace is how long, beyond the longest termination grace period of its victims, a
// preemptor waits for them before it may preempt again.
const preemptionGrace = 30 * time.Second

// preemptor is what one preemption tries to place.
type preemptor struct {
	// gang is the preemptor's gang, the zero Key for a pod of no gang.
	gang gang.Key
	pods []*v1.Pod
	prio int32
	// label is the preemptor as events and messages name it.
	label string
}

// victimChoice is the outcome of victim selection in one domain.
type victimChoice struct {
	units []gang.Unit
	nodes map[string]string // where the preemptor's pods go once the units are gone
}

// preemptFor is PostFilter's preemption for pod: Success when victims were evicted (a pod of
// no gang is nominated to its node; a gang's room is held instead), or nil and a status that
// says why nothing was.
func (p *Adapter) preemptFor(ctx context.Context, pod *v1.Pod) (*fwk.PostFilterResult, *fwk.Status) {
	logger := klog.FromContext(ctx)
	kind := "Pod"
	k, member := p.store.Membership().KeyOf(pod)
	if member {
		kind = k.Kind.String()
	}
	outcome := func(o string) { metrics.Preemptions.WithLabelValues(kind, o).Inc() }
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy == v1.PreemptNever {
		outcome(PreemptNotEligible)
		return nil, fwk.NewStatus(fwk.Unschedulable, "not eligible for preemption: preemptionPolicy is Never")
	}
	if member && p.store.PreemptsNever(k) {
		outcome(PreemptNotEligible)
		return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("not eligible for preemption: %s has preemptionPolicy Never", k))
	}
	pl := p.planner()
	if pl == nil {
		return nil, fwk.NewStatus(fwk.Unschedulable, "preemption needs the gang planner, which this profile has not started")
	}
	pre, why := p.preemptorOf(pod, k, member)
	if pre == nil {
		outcome(PreemptNotEligible)
		return nil, fwk.NewStatus(fwk.Unschedulable, why)
	}
	snapshot := p.handle.SnapshotSharedLister()
	nodes, err := snapshot.NodeInfos().List()
	if err != nil {
		return nil, fwk.AsStatus(fmt.Errorf("listing nodes for preemption: %w", err))
	}
	if wait, msg := p.victimsPending(pre, pod, nodes); wait {
		outcome(PreemptWaiting)
		if pre.gang != (gang.Key{}) {
			p.setWait(pre.gang, gang.Wait{Reason: gang.ReasonWaitingForPreemption, Message: msg})
		}
		return nil, fwk.NewStatus(fwk.Unschedulable, msg)
	}
	var pods, dying []*v1.Pod
	for _, n := range nodes {
		for _, pi := range n.GetPods() {
			pods = append(pods, pi.GetPod())
			if v := pi.GetPod(); v.DeletionTimestamp != nil && p.store.PriorityOf(v) < pre.prio {
				dying = append(dying, v)
			}
		}
	}
	orphaned := p.orphanedClaims(ctx, pre)
	if len(dying) > 0 || len(orphaned) > 0 {
		// Lower-priority pods already on their way out (a preemption whose record this
		// scheduler lost in a restart, another scheduler's preemption, a drain), and the
		// devices of pods already gone, may make the room: if they do, wait for them instead
		// of choosing more victims.
		fits := false
		for _, domain := range p.domainsOf(pre, nodes) {
			res, err := pl.Plan(ctx, PlanInput{Snapshot: snapshot, Pods: pre.pods, Nodes: domain, Evicted: dying, Freed: orphaned, Filter: p.holdsFilter()})
			if err != nil {
				return nil, fwk.AsStatus(fmt.Errorf("planning %s without the terminating pods: %w", pre.label, err))
			}
			if fits = res.Failed == nil; fits {
				break
			}
		}
		if fits {
			outcome(PreemptWaiting)
			msg := fmt.Sprintf("%s fits once %d terminating pods of lower priority are gone; it waits for them and preempts nothing more", pre.label, len(dying))
			if len(orphaned) > 0 {
				msg = fmt.Sprintf("%s fits once %d terminating pods of lower priority are gone and %d ResourceClaims of deleted pods are deallocated; it waits for them and preempts nothing more", pre.label, len(dying), len(orphaned))
			}
			if pre.gang != (gang.Key{}) {
				p.setWait(pre.gang, gang.Wait{Reason: gang.ReasonWaitingForPreemption, Message: msg})
			}
			return nil, fwk.NewStatus(fwk.Unschedulable, msg)
		}
	}
	cands := p.store.PreemptionCandidates(pods, pre.prio, pre.gang, startedAt)
	if len(cands) == 0 {
		outcome(PreemptNoCandidates)
		return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("preemption cannot help %s: no pod of lower priority than %d runs on the nodes", pre.label, pre.prio))
	}
	choice, err := p.chooseVictims(ctx, pl, pre, nodes, cands)
	if err != nil {
		return nil, fwk.AsStatus(fmt.Errorf("choosing victims for %s: %w", pre.label, err))
	}
	if choice == nil {
		outcome(PreemptNoRoom)
		return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("preemption cannot help %s: it does not fit even with all %d pods of lower priority removed; nothing is preempted", pre.label, len(cands)))
	}
	if len(choice.units) == 0 {
		outcome(PreemptNotNeeded)
		return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("%s fits without preemption; nothing is preempted", pre.label))
	}
	outcome(PreemptPreempted)
	msg := p.startPreemption(ctx, pre, choice, nodes)
	logger.V(2).Info("Preempting for a gang", "preemptor", pre.label, "victims", len(victimPods(choice.units)), "units", len(choice.units))
	if pre.gang != (gang.Key{}) {
		// A gang's room is held for it (the hold filters every other pod of the profile off
		// its planned nodes); a nominated node per member would add nothing the hold does not,
		// and the framework would weigh each nominated member against the others' plans.
		return &fwk.PostFilterResult{NominatingInfo: &fwk.NominatingInfo{NominatingMode: fwk.ModeNoop}}, fwk.NewStatus(fwk.Success, msg)
	}
	// A pod of no gang is nominated, as kube-scheduler's DefaultPreemption does.
	return &fwk.PostFilterResult{NominatingInfo: &fwk.NominatingInfo{NominatedNodeName: choice.nodes[pod.Name], NominatingMode: fwk.ModeOverride}},
		fwk.NewStatus(fwk.Success, msg)
}

// preemptorOf returns what pod preempts for, or nil and why it does not preempt: a surge
// member never preempts (its update falls back to maxUnavailable instead); a member the
// quorum does not need leaves preemption to the members it does need.
func (p *Adapter) preemptorOf(pod *v1.Pod, k gang.Key, member bool) (*preemptor, string) {
	pre := &preemptor{pods: []*v1.Pod{pod}, prio: p.store.PriorityOf(pod), label: "pod " + pod.Namespace + "/" + pod.Name}
	if !member {
		return pre, ""
	}
	if p.store.Membership().IsSurge(pod) {
		return nil, fmt.Sprintf("%s: a surge member does not preempt", k)
	}
	pre.gang = k
	if !p.store.QuorumBound(k) {
		deficit := p.store.DeficitPods(k)
		if !containsPod(deficit, pod) {
			return nil, fmt.Sprintf("%s: preemption is left to the members its quorum needs", k)
		}
		pre.pods = deficit
		pre.label = fmt.Sprintf("%s (%d members)", k, len(deficit))
	} else {
		pre.label = fmt.Sprintf("%s member %s", k, pod.Name)
	}
	if !plannable(p.planner(), pre.pods) {
		return nil, fmt.Sprintf("%s: members the gang planner does not plan (volume claims, or resource claims in a profile without DynamicResources): preemption cannot weigh what their victims would free", k)
	}
	return pre, ""
}

// victimsPending reports whether an earlier preemption for the preemptor still waits for its
// victims to leave the nodes: the gang's recorded victims, or for a single pod (as upstream)
// a lower-priority pod terminating on its nominated node.
func (p *Adapter) victimsPending(pre *preemptor, pod *v1.Pod, nodes []fwk.NodeInfo) (bool, string) {
	if pre.gang != (gang.Key{}) {
		pf, ok := p.store.PreemptionInFlight(pre.gang)
		if !ok {
			return false, ""
		}
		want := make(map[string]bool, len(pf.Victims))
		for _, v := range pf.Victims {
			want[v] = true
		}
		left := 0
		for _, n := range nodes {
			for _, pi := range n.GetPods() {
				if want[pi.GetPod().Namespace+"/"+pi.GetPod().Name] {
					left++
				}
			}
		}
		if left > 0 {
			return true, fmt.Sprintf("%s waits for %d of the %d pods it preempted (%s) to terminate; their room is held for it until %s",
				pre.gang, left, len(pf.Victims), strings.Join(pf.Gangs, ", "), pf.Until.UTC().Format(time.RFC3339))
		}
		if claims := p.claimsAllocated(pf.Claims); claims > 0 {
			return true, fmt.Sprintf("%s waits for %d of the %d ResourceClaims of the pods it preempted (%s) to be deallocated; their devices are its room until %s",
				pre.gang, claims, len(pf.Claims), strings.Join(pf.Gangs, ", "), pf.Until.UTC().Format(time.RFC3339))
		}
		return false, ""
	}
	nominated := pod.Status.NominatedNodeName
	if nominated == "" {
		return false, ""
	}
	for _, n := range nodes {
		if n.Node().Name != nominated {
			continue
		}
		for _, pi := range n.GetPods() {
			if v := pi.GetPod(); v.DeletionTimestamp != nil && p.store.PriorityOf(v) < pre.prio {
				return true, fmt.Sprintf("%s waits for lower-priority pods terminating on its nominated node %s", pre.label, nominated)
			}
		}
	}
	return false, ""
}

// chooseVictims returns the victims of the cheapest preemption that makes room for pre, or
// nil when none does. With required packing each domain is weighed on its own (the gang must
// land in one); units whose eviction a PodDisruptionBudget does not allow are used only when
// no choice without them exists, as upstream does.
func (p *Adapter) chooseVictims(ctx context.Context, pl Planner, pre *preemptor, nodes []fwk.NodeInfo, cands []gang.Candidate) (*victimChoice, error) {
	pdbs := p.listPDBs()
	var best *victimChoice
	for _, domain := range p.domainsOf(pre, nodes) {
		inDomain := map[string]bool{}
		for _, n := range domain {
			inDomain[n.Node().Name] = true
		}
		var dc []gang.Candidate
		for _, c := range cands {
			if inDomain[c.Node] {
				dc = append(dc, c)
			}
		}
		if len(dc) == 0 {
			continue
		}
		units := p.store.VictimUnits(dc)
		allowed, guarded := splitByPDB(units, pdbs)
		var choice *victimChoice
		var err error
		for _, set := range [][]gang.Unit{allowed, units} {
			if len(set) == 0 {
				continue
			}
			if choice, err = p.selectIn(ctx, pl, pre, domain, set); err != nil || choice != nil {
				break
			}
			if len(guarded) == 0 {
				break // the second set is the first: nothing more to try
			}
		}
		if err != nil {
			return nil, err
		}
		if choice != nil && len(choice.units) == 0 {
			return choice, nil
		}
		if choice != nil && (best == nil || cheaper(choice.units, best.units)) {
			best = choice
		}
	}
	return best, nil
}

// selectIn runs gang.SelectVictims over units, with the planner as the fit check.
func (p *Adapter) selectIn(ctx context.Context, pl Planner, pre *preemptor, domain []fwk.NodeInfo, units []gang.Unit) (*victimChoice, error) {
	var planErr error
	levels := p.preemptorLevels(pre)
	plan := func(chosen []gang.Unit) map[string]string {
		victims := victimPods(chosen)
		in := PlanInput{Snapshot: p.handle.SnapshotSharedLister(), Pods: pre.pods, Nodes: domain, Evicted: victims, Filter: p.holdsFilter()}
		if pack, fits := p.packWithout(pre, levels, domain, victims); !fits {
			return nil // the gang's packing levels have no room, even with these victims gone
		} else if pack != nil {
			in.Filter = pack.filter(in.Filter)
		}
		res, err := pl.Plan(ctx, in)
		if err != nil {
			planErr = err
			return nil
		}
		if res.Failed != nil {
			return nil
		}
		return res.Nodes
	}
	if nodes := plan(nil); nodes != nil || planErr != nil {
		// Room without evicting anything: what failed was not capacity (a back-off, a
		// Permit timeout, a node taken meanwhile); nothing is preempted.
		return &victimChoice{nodes: nodes}, planErr
	}
	// A set of units that frees fewer GPUs than the preemptor lacks cannot make room: most
	// of SelectVictims' questions are answered without a planning pass.
	var free, need int64
	for _, n := range domain {
		free += NodeFree(n).GPU
	}
	for _, pod := range pre.pods {
		need += gang.RequestsOf(pod).GPU
	}
	fits := func(u []gang.Unit) bool {
		freed := free
		for _, x := range u {
			freed += x.GPUs
		}
		return freed >= need && planErr == nil && plan(u) != nil
	}
	chosen, ok := gang.SelectVictims(units, fits)
	if planErr != nil {
		return nil, planErr
	}
	if !ok {
		return nil, nil
	}
	nodes := plan(chosen)
	if nodes == nil {
		return nil, planErr
	}
	return &victimChoice{units: chosen, nodes: nodes}, nil
}

// cheaper orders two victim sets as SelectVictims orders units: the lower highest priority,
// then fewer whole gangs, fewer GPUs, fewer pods.
func cheaper(a, b []gang.Unit) bool {
	sa, sb := summarize(a), summarize(b)
	for i := range sa {
		if sa[i] != sb[i] {
			return sa[i] < sb[i]
		}
	}
	return false
}

func summarize(units []gang.Unit) [4]int64 {
	var out [4]int64 // highest priority, whole gangs, GPUs, pods
	for i, u := range units {
		if i == 0 || int64(u.Priority) > out[0] {
			out[0] = int64(u.Priority)
		}
		if u.Whole {
			out[1]++
		}
		out[2] += u.GPUs
		out[3] += int64(len(u.Pods))
	}
	return out
}

// domainsOf is where the preemptor may be placed: every node, or with a required packing
// label each domain of it on its own.
func (p *Adapter) domainsOf(pre *preemptor, nodes []fwk.NodeInfo) [][]fwk.NodeInfo {
	if pre.gang != (gang.Key{}) {
		if spec, ok := p.store.Spec(pre.gang); ok && spec.Pack.Required != "" {
			return splitDomains(nodes, spec.Pack.Required)
		}
	}
	return [][]fwk.NodeInfo{nodes}
}

// splitDomains groups nodes by their value of label; nodes without it are in no domain.
func splitDomains(nodes []fwk.NodeInfo, label string) [][]fwk.NodeInfo {
	by := map[string][]fwk.NodeInfo{}
	var keys []string
	for _, n := range nodes {
		v, ok := n.Node().Labels[label]
		if !ok {
			continue
		}
		if _, seen := by[v]; !seen {
			keys = append(keys, v)
		}
		by[v] = append(by[v], n)
	}
	sort.Strings(keys)
	out := make([][]fwk.NodeInfo, 0, len(keys))
	for _, k := range keys {
		out = append(out, by[k])
	}
	return out
}

// listPDBs returns the PodDisruptionBudgets preemption honours (none without a lister).
func (p *Adapter) listPDBs() []*policyv1.PodDisruptionBudget {
	if p.pdbs == nil {
		return nil
	}
	pdbs, err := p.pdbs.List(labels.Everything())
	if err != nil {
		return nil
	}
	return pdbs
}

// splitByPDB separates the units whose eviction every PodDisruptionBudget allows from those
// that some budget would not allow (more of the unit's pods match it than its
// disruptionsAllowed).
func splitByPDB(units []gang.Unit, pdbs []*policyv1.PodDisruptionBudget) (allowed, guarded []gang.Unit) {
	if len(pdbs) == 0 {
		return units, nil
	}
	for _, u := range units {
		if violatesPDB(u, pdbs) {
			guarded = append(guarded, u)
		} else {
			allowed = append(allowed, u)
		}
	}
	return allowed, guarded
}

func violatesPDB(u gang.Unit, pdbs []*policyv1.PodDisruptionBudget) bool {
	for _, pdb := range pdbs {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || sel.Empty() {
			continue
		}
		matched := int32(0)
		for _, c := range u.Pods {
			if c.Pod.Namespace != pdb.Namespace || !sel.Matches(labels.Set(c.Pod.Labels)) {
				continue
			}
			if _, disrupted := pdb.Status.DisruptedPods[c.Pod.Name]; disrupted {
				continue // already counted against the budget
			}
			matched++
		}
		if matched > 0 && matched > pdb.Status.DisruptionsAllowed {
			return true
		}
	}
	return false
}

// startPreemption records the preemption, marks and tells the victim gangs, holds the room
// for the preemptor and evicts the victims off the scheduling path. It returns the message
// the preemptor's gang waits with.
func (p *Adapter) startPreemption(ctx context.Context, pre *preemptor, choice *victimChoice, nodes []fwk.NodeInfo) string {
	victims := victimPods(choice.units)
	var names, gangs []string
	var maxGrace int64
	perGang := map[gang.Key]int{}
	whole := map[gang.Key]bool{}
	for _, u := range choice.units {
		switch {
		case u.Gang == (gang.Key{}):
			metrics.PreemptionVictims.WithLabelValues("pod").Inc()
		case u.Whole:
			metrics.PreemptionVictims.WithLabelValues("gang").Inc()
			whole[u.Gang] = true
		default:
			metrics.PreemptionVictims.WithLabelValues("member").Inc()
		}
		if u.Gang != (gang.Key{}) {
			perGang[u.Gang] += len(u.Pods)
		}
	}
	for _, v := range victims {
		names = append(names, v.Namespace+"/"+v.Name)
		grace := int64(v1.DefaultTerminationGracePeriodSeconds)
		if v.Spec.TerminationGracePeriodSeconds != nil {
			grace = *v.Spec.TerminationGracePeriodSeconds
		}
		maxGrace = max(maxGrace, grace)
	}
	for k := range perGang {
		gangs = append(gangs, k.String())
	}
	sort.Strings(gangs)
	if plain := len(victims) - sumValues(perGang); plain > 0 {
		gangs = append(gangs, fmt.Sprintf("%d pods of no gang", plain))
	}
	now := time.Now()
	until := now.Add(time.Duration(maxGrace)*time.Second + preemptionGrace)
	for k, n := range perGang {
		note := fmt.Sprintf("%d members preempted (members above the gang's minimum) to make room for %s of higher priority %d", n, pre.label, pre.prio)
		if whole[k] {
			note = fmt.Sprintf("preempted whole (%d members) to make room for %s of higher priority %d", n, pre.label, pre.prio)
			p.markDisrupted(k, note)
		}
		// The victim gang's own writer: the preemptor may be of another kind.
		if sink := p.sinkFor(k.Kind); sink != nil {
			sink.Preempted(k, note)
		}
	}
	msg := fmt.Sprintf("preempting %d pods of lower priority (%s) to make room; waiting for them to terminate", len(victims), strings.Join(gangs, ", "))
	if pre.gang != (gang.Key{}) {
		// The hold is what the gang will have on each node: what its members there request now
		// (an established gang preempting for its deficit) plus the preemptor's planned pods. A
		// reservation counts as taken back once the gang's pods request it all, so the members
		// it already has must be in it, or they would end the hold at once.
		held := map[string]gang.Resources{}
		for _, n := range nodes {
			for _, pi := range n.GetPods() {
				if k, ok := p.store.Membership().KeyOf(pi.GetPod()); ok && k == pre.gang && pi.GetPod().DeletionTimestamp == nil {
					r := gang.RequestsOf(pi.GetPod())
					r.Devices = p.store.DevicesOf(pi.GetPod())
					held[n.Node().Name] = held[n.Node().Name].Add(r)
				}
			}
		}
		dra := p.handle.SharedDRAManager()
		for _, pod := range pre.pods {
			if n := choice.nodes[pod.Name]; n != "" {
				r := gang.RequestsOf(pod)
				if dra != nil {
					// The devices its claims will take: the victims' devices are its room too.
					r.Devices = gangdra.DevicesWanted(dra.ResourceClaims(), pod)
				}
				held[n] = held[n].Add(r)
			}
		}
		p.recordPreemption(pre.gang, gang.Preemption{Victims: names, Gangs: gangs, Nodes: held, Since: now, Until: until, Priority: pre.prio,
			Claims: p.freedClaims(victims)})
		p.setWait(pre.gang, gang.Wait{Reason: gang.ReasonWaitingForPreemption, Message: msg})
	}
	// Victims waiting in Permit hold no bound node: rejecting them frees it at once.
	var evict []*v1.Pod
	for _, v := range victims {
		if wp := p.handle.GetWaitingPod(v.UID); wp != nil {
			wp.Reject(p.opts.Name, "preempted by "+pre.label)
			continue
		}
		evict = append(evict, v)
	}
	preemptorPod := pre.pods[0]
	go p.evict(klog.NewContext(context.Background(), klog.FromContext(ctx)), preemptorPod, pre.label, evict)
	return msg
}

// orphanedClaims are the allocated claims of pods that no longer exist
// (gangdra.OrphanedClaims), when pre's pods have claims; none without DRA.
func (p *Adapter) orphanedClaims(ctx context.Context, pre *preemptor) []*resourceapi.ResourceClaim {
	dra := p.handle.SharedDRAManager()
	if dra == nil || !slices.ContainsFunc(pre.pods, func(pod *v1.Pod) bool { return len(pod.Spec.ResourceClaims) > 0 }) {
		return nil
	}
	pods := p.handle.SharedInformerFactory().Core().V1().Pods().Lister()
	orphaned, err := gangdra.OrphanedClaims(dra.ResourceClaims(), func(ns, name string, uid types.UID) bool {
		pod, err := pods.Pods(ns).Get(name)
		return err == nil && pod.UID == uid
	})
	if err != nil {
		klog.FromContext(ctx).V(2).Info("Listing the claims of deleted pods; preemption counts none of them free", "err", err)
		return nil
	}
	return orphaned
}

// freedClaims are the victims' ResourceClaims whose devices their eviction frees
// (gangdra.FreedClaims), which the preemptor's plan counted on; none without DRA.
func (p *Adapter) freedClaims(victims []*v1.Pod) []gang.ClaimRef {
	dra := p.handle.SharedDRAManager()
	if dra == nil {
		return nil
	}
	var out []gang.ClaimRef
	for _, c := range gangdra.FreedClaims(dra.ResourceClaims(), victims) {
		out = append(out, gang.ClaimRef{Namespace: c.Namespace, Name: c.Name, UID: c.UID})
	}
	return out
}

// claimsAllocated counts the claims of refs that still exist with an allocation: their
// devices are not free yet (kube-controller-manager deallocates a claim, or deletes a pod's
// claim from a template, some time after its pods are gone).
func (p *Adapter) claimsAllocated(refs []gang.ClaimRef) int {
	dra := p.handle.SharedDRAManager()
	if dra == nil {
		return 0
	}
	n := 0
	for _, r := range refs {
		if c, err := dra.ResourceClaims().Get(r.Namespace, r.Name); err == nil && c.UID == r.UID && c.Status.Allocation != nil {
			n++
		}
	}
	return n
}

// evictParallel bounds the victims evicted at once by one preemption.
const evictParallel = 16

// evict marks each victim with the DisruptionTarget pod condition (reason
// PreemptionByScheduler, as kube-scheduler does) and deletes it with its own grace period,
// evictParallel at a time: the preemptor waits for the last of them.
func (p *Adapter) evict(ctx context.Context, preemptor *v1.Pod, label string, victims []*v1.Pod) {
	cs := p.handle.ClientSet()
	logger := klog.FromContext(ctx)
	var wg sync.WaitGroup
	slots := make(chan struct{}, evictParallel)
	for _, v := range victims {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			p.evictOne(ctx, cs, logger, preemptor, label, v)
		}()
	}
	wg.Wait()
}

// evictOne marks and deletes one victim, and records the Preempted event on it.
func (p *Adapter) evictOne(ctx context.Context, cs kubernetes.Interface, logger klog.Logger, preemptor *v1.Pod, label string, v *v1.Pod) {
	cond := v1.PodCondition{Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: v1.PodReasonPreemptionByScheduler,
		Message: fmt.Sprintf("%s: preempting to make room for %s", preemptor.Spec.SchedulerName, label), LastTransitionTime: metav1.Now()}
	patch, _ := json.Marshal(map[string]any{"status": map[string]any{"conditions": []v1.PodCondition{cond}}})
	if _, err := cs.CoreV1().Pods(v.Namespace).Patch(ctx, v.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil && !apierrors.IsNotFound(err) {
		logger.Error(err, "Marking a preemption victim", "pod", klog.KObj(v))
	}
	err := cs.CoreV1().Pods(v.Namespace).Delete(ctx, v.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &v.UID}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		logger.Error(err, "Deleting a preemption victim", "pod", klog.KObj(v))
		return
	}
	if rec := p.handle.EventRecorder(); rec != nil {
		rec.Eventf(v, preemptor, v1.EventTypeNormal, "Preempted", "Preempting", "Preempted by %s on node %s", label, v.Spec.NodeName)
	}
}

// preemptorLevels are the preemptor gang's packing levels with its spec (gang.Spec.Levels);
// nil for a preemptor without levels inside the gang (or a single pod).
func (p *Adapter) preemptorLevels(pre *preemptor) *levelsOf {
	if pre.gang == (gang.Key{}) || len(pre.pods) == 0 {
		return nil
	}
	spec, ok := p.store.Spec(pre.gang)
	if !ok {
		return nil
	}
	if levels := spec.Levels(); len(levels) > 0 {
		return &levelsOf{spec: spec, levels: levels}
	}
	return nil
}

// levelsOf is a gang's spec with its packing levels.
type levelsOf struct {
	spec   gang.Spec
	levels []gang.Level
}

// packWithout is the preemptor's packing levels (those inside the gang: a scaling-group
// replica's, a podgroup's) chosen as if victims were gone: the pass may place each member only
// in its levels' domains, so that a preemption never counts on room the gang's own placement
// then refuses (a podgroup split over two racks). Nil and true for a preemptor without such
// levels (l nil); false when a required level has no room even without the victims.
func (p *Adapter) packWithout(pre *preemptor, l *levelsOf, domain []fwk.NodeInfo, victims []*v1.Pod) (*memberPack, bool) {
	if l == nil {
		return nil, true
	}
	freed := make(map[string]gang.Resources, len(victims))
	for _, v := range victims {
		freed[v.Spec.NodeName] = freed[v.Spec.NodeName].Add(gang.RequestsOf(v))
	}
	pack, msg := p.choosePack(pre.gang, &l.spec, l.levels, pre.pods[0], topoNodes(domain, freed))
	return pack, msg == ""
}

func victimPods(units []gang.Unit) []*v1.Pod {
	var out []*v1.Pod
	for _, u := range units {
		for _, c := range u.Pods {
			out = append(out, c.Pod)
		}
	}
	return out
}

func sumValues(m map[gang.Key]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// startedAt is when the pod started running, or its creation before that.
func startedAt(p *v1.Pod) time.Time {
	if p.Status.StartTime != nil {
		return p.Status.StartTime.Time
	}
	return p.CreationTimestamp.Time
}

// pdbLister returns the profile's PodDisruptionBudget lister. It must be asked for before
// the informer factory starts.
func pdbLister(h fwk.Handle) policylisters.PodDisruptionBudgetLister {
	return h.SharedInformerFactory().Policy().V1().PodDisruptionBudgets().Lister()
}
