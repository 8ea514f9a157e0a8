// Package gangplan is the gang planner of the Phalanx profiles: in one pass against the
// scheduling cycle's snapshot it finds a node for every member a gang needs for its quorum,
// with the profile's own PreFilter, Filter, PreScore and Score plugins, the members placed
// earlier in the pass counting on their nodes for the later ones. The gang plugins then narrow
// each member's own cycle to its planned node (gangplugin.Planner), so that a gang that cannot
// be placed whole is found out before any member holds a node, and a gang that can is placed
// in consecutive one-node cycles. See docs/architecture.md, "One pass per gang".
package gangplan

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	schedulerappconfig "k8s.io/kubernetes/cmd/kube-scheduler/app/config"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkplugins "k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangdra"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	volumehelpers "k8s.io/component-helpers/storage/volume"
)

// skipped are the plugins a plan does not run: the gang plugins themselves (the planner is
// theirs; their Filter and Score come in through PlanInput; GangGate admits to the queue), and the volume plugins, whose
// Filter keeps state in the plugin instance that a second instance cannot share. Members
// with volumes are not planned (Plans). DynamicResources runs when the planner has the
// scheduler's DRA manager (Install): its allocator reads claims, slices and allocations there,
// and a member placed in the pass has its allocation signalled in flight (the plugin's
// Reserve) so that the members after it see its devices taken; the pass withdraws them
// (Unreserve) before it returns, whatever its outcome.
var skipped = map[string]bool{
	"PodGang": true, "PodGroup": true, "WorkloadPodGroup": true,
	// PreEnqueue only, and not in the planner's registry (kube-scheduler's plugins).
	"GangGate": true,
}

const (
	// As the scheduler: below this many nodes every node is evaluated.
	minFeasibleNodesToFind           = 100
	minFeasibleNodesPercentageToFind = 5
)

// Planner implements gangplugin.Planner with a framework of the profile's plugins. Passes are
// serialized (they run in the scheduling cycle, which is serial anyway).
type Planner struct {
	mu     sync.Mutex
	fw     framework.Framework
	lister *SnapshotLister
	// percentage is the profile's (or the configuration's) percentageOfNodesToScore.
	percentage *int32
	// gangWeight is the Score weight of the gang plugins in the profile.
	gangWeight int64
	// next is where the next member's search starts, as the scheduler's nextStartNodeIndex,
	// so that equal nodes are not always tried in the same order.
	next int
	// nominated: the framework has the scheduler's nominator (Install), and Filter counts the pods of
	// equal or higher priority nominated to a node (preemptors) as the members' own cycles do;
	// a plan that ignored them would put a member where its cycle then fails.
	nominated bool
	// dra: the framework runs the DynamicResources plugin (with the scheduler's DRA manager,
	// seen through draView).
	dra     bool
	draView *draView
	// volumes: the framework runs VolumeBinding's Reserve, so that a member whose claims are
	// still to be bound (WaitForFirstConsumer) takes its volumes in the pass's view (the
	// planner's own VolumeBinding instance keeps assume caches of its own, nothing the
	// scheduler's cycles see) and the members after it cannot be given the same ones.
	volumes bool
	// memo: members alike are not filtered again on nodes the pass has not changed
	// (filterMemo); off when the profile's Filter plugins make verdicts depend on other nodes.
	memo bool
	// kept are the verdicts that outlive their pass (passMemo), used with memo; keptAlone
	// those of the passes of pods of no gang (PlanInput.Alone), kept apart so that a stream
	// of plain pods of many templates does not push the gangs' templates out.
	kept      passMemo
	keptAlone passMemo
	// scoreMemo: members alike are not scored again on nodes the pass has not changed
	// (scoreMemo); scorePlugins are the framework's Score plugins, which decide it per member.
	scoreMemo    bool
	scorePlugins []string
	// norm totals the scores kept by scoreMemo without the framework's allocations per member
	// (normalizer); nil: the framework's NormalizeScores does.
	norm *normalizer
	// filterRuns counts the profile's Filter runs of the passes, scoredNodes the nodes their
	// Score plugins ran on (for tests).
	filterRuns  atomic.Int64
	scoredNodes atomic.Int64
	// claims reads the members' PersistentVolumeClaims (Plans); nil without an informer
	// factory, when no member with volume claims is planned.
	claims corelisters.PersistentVolumeClaimLister
}

var _ gangplugin.Planner = &Planner{}

// Install gives every profile of sched that has a gang store in rt a planner built from the
// profile's configuration.
func Install(ctx context.Context, cc *schedulerappconfig.CompletedConfig, sched *scheduler.Scheduler, rt *gangplugin.Runtime) error {
	for i := range cc.ComponentConfig.Profiles {
		prof := &cc.ComponentConfig.Profiles[i]
		h, ok := sched.Profiles[prof.SchedulerName]
		if !ok || rt.StoreOf(h) == nil {
			continue
		}
		pct := prof.PercentageOfNodesToScore
		if pct == nil {
			pct = cc.ComponentConfig.PercentageOfNodesToScore
		}
		pl, err := NewWithDRA(ctx, prof, pct, h.SharedDRAManager(), frameworkruntime.WithInformerFactory(cc.InformerFactory),
			frameworkruntime.WithClientSet(cc.Client), frameworkruntime.WithKubeConfig(cc.KubeConfig),
			frameworkruntime.WithPodNominator(sched.SchedulingQueue), frameworkruntime.WithSharedCSIManager(h.SharedCSIManager()))
		if err != nil {
			return fmt.Errorf("gang planner of profile %s: %w", prof.SchedulerName, err)
		}
		pl.nominated = true
		rt.SetPlanner(h, pl)
		context.AfterFunc(ctx, func() { rt.SetPlanner(h, nil) })
	}
	return nil
}

// New builds a planner with the PreFilter, Filter, PreScore and Score plugins that profile
// enables (but the skipped ones and DynamicResources), configured as the profile configures
// them. It plans no member with resource claims.
func New(ctx context.Context, profile *config.KubeSchedulerProfile, percentage *int32, opts ...frameworkruntime.Option) (*Planner, error) {
	return NewWithDRA(ctx, profile, percentage, nil, opts...)
}

// NewWithDRA is New with the scheduler's DRA manager (nil: none): the planner then runs the
// profile's DynamicResources plugin too and plans members with resource claims.
func NewWithDRA(ctx context.Context, profile *config.KubeSchedulerProfile, percentage *int32, dra fwk.SharedDRAManager, opts ...frameworkruntime.Option) (*Planner, error) {
	var weight int64 = 1
	for _, set := range []config.PluginSet{profile.Plugins.MultiPoint, profile.Plugins.Score} {
		for _, p := range set.Enabled {
			if p.Name == "PodGang" && p.Weight > 0 {
				weight = int64(p.Weight)
			}
		}
	}
	withDRA := dra != nil && (enables(profile.Plugins, names.DynamicResources) || enables(profile.Plugins, gangdra.Name))
	withVolumes := enables(profile.Plugins, names.VolumeBinding)
	pluginConfig, err := planningConfig(profile.PluginConfig, withDRA)
	if err != nil {
		return nil, err
	}
	prof := &config.KubeSchedulerProfile{
		// Its own name: plugins key what they add to shared informers by profile name (the
		// DRA plugin's pod index), and the profile's own instances added theirs already.
		SchedulerName: profile.SchedulerName + "/gang-planner",
		PluginConfig:  pluginConfig,
		Plugins:       planningPlugins(profile.Plugins, withDRA, withVolumes),
	}
	lister := &SnapshotLister{}
	opts = append(opts, frameworkruntime.WithSnapshotSharedLister(lister),
		frameworkruntime.WithLogger(klog.FromContext(ctx).WithName("gang-planner")))
	var view *draView
	if withDRA {
		view = newDRAView(dra)
		opts = append(opts, frameworkruntime.WithSharedDRAManager(view))
	}
	built := map[string]fwk.Plugin{}
	fw, err := frameworkruntime.NewFramework(ctx, capturingRegistry(frameworkplugins.NewInTreeRegistry(), built), prof, opts...)
	if err != nil {
		return nil, fmt.Errorf("building the planning framework: %w", err)
	}
	var filters []string
	for _, p := range fw.ListPlugins().Filter.Enabled {
		filters = append(filters, p.Name)
	}
	pl := &Planner{fw: fw, lister: lister, percentage: percentage, gangWeight: weight, dra: withDRA, draView: view, volumes: withVolumes, memo: memoAllowed(profile, filters), scoreMemo: true}
	scoring := fw.ListPlugins().Score.Enabled
	for _, p := range scoring {
		pl.scorePlugins = append(pl.scorePlugins, p.Name)
	}
	pl.norm = newNormalizer(scoring, built)
	if f := fw.SharedInformerFactory(); f != nil {
		pl.claims = f.Core().V1().PersistentVolumeClaims().Lister()
	}
	return pl, nil
}

// planningConfig is the profile's plugin config for the planner's framework: with DRA, the
// DynamicResources args the profile gives GangDynamicResources (which the planner runs as
// DynamicResources), or their defaults, when it gives none to DynamicResources itself.
func planningConfig(in []config.PluginConfig, withDRA bool) ([]config.PluginConfig, error) {
	if !withDRA || slices.ContainsFunc(in, func(c config.PluginConfig) bool { return c.Name == names.DynamicResources }) {
		return in, nil
	}
	var given runtime.Object
	for _, c := range in {
		if c.Name == gangdra.Name {
			given = c.Args
		}
	}
	args, err := gangdra.Args(given)
	if err != nil {
		return nil, err
	}
	return append(slices.Clone(in), config.PluginConfig{Name: names.DynamicResources, Args: args}), nil
}

// enables reports whether the profile's plugins run name at Filter: enabled there, or
// multi-point and not disabled there.
func enables(in *config.Plugins, name string) bool {
	if enabledIn(in.Filter, name) {
		return true
	}
	if !enabledIn(in.MultiPoint, name) {
		return false
	}
	for _, p := range in.Filter.Disabled {
		if p.Name == name || p.Name == "*" {
			return false
		}
	}
	return true
}

func enabledIn(s config.PluginSet, name string) bool {
	for _, p := range s.Enabled {
		if p.Name == name {
			return true
		}
	}
	return false
}

// Plans reports whether a pass judges pod as its own cycle would: for resource claims only
// with the DRA plugin, for volume claims still to be bound only with VolumeBinding's Reserve.
//
// The pass's own volume plugins (VolumeBinding, VolumeZone, VolumeRestrictions,
// NodeVolumeLimits) judge a node by a member's bound volumes' node affinity, zone and limits,
// as the member's cycle does. A claim still to be bound (WaitForFirstConsumer) needs a volume
// picked and assumed, or two members could be given one volume: the pass runs VolumeBinding's
// Reserve for such a member (in the planner's own assume caches, withdrawn when the pass
// ends), and the member's cycle (the Binder's, or its own) picks and binds again on the node
// the pass chose. Without VolumeBinding in the profile such a member is placed member by
// member.
func (pl *Planner) Plans(pod *v1.Pod) bool {
	if len(pod.Spec.ResourceClaims) > 0 && !pl.dra {
		return false
	}
	if pl.volumes {
		return true
	}
	for _, vol := range pod.Spec.Volumes {
		var claim string
		switch {
		case vol.PersistentVolumeClaim != nil:
			claim = vol.PersistentVolumeClaim.ClaimName
		case vol.Ephemeral != nil:
			claim = pod.Name + "-" + vol.Name // the ephemeral volume's claim (ephemeral.VolumeClaimName)
		default:
			continue
		}
		if !pl.boundClaim(pod.Namespace, claim) {
			return false
		}
	}
	return true
}

// hasVolumeClaims reports whether pod mounts a PersistentVolumeClaim or an ephemeral volume.
func hasVolumeClaims(pod *v1.Pod) bool {
	return slices.ContainsFunc(pod.Spec.Volumes, func(v v1.Volume) bool { return v.PersistentVolumeClaim != nil || v.Ephemeral != nil })
}

// boundClaim reports whether the claim exists and is fully bound, as VolumeBinding reads it
// (a volume named and the PV controller's bind-completed annotation): a claim pre-bound by
// its author is still bound by the member's own cycle.
func (pl *Planner) boundClaim(namespace, name string) bool {
	if pl.claims == nil {
		return false
	}
	c, err := pl.claims.PersistentVolumeClaims(namespace).Get(name)
	return err == nil && c.DeletionTimestamp == nil && c.Spec.VolumeName != "" && metav1.HasAnnotation(c.ObjectMeta, volumehelpers.AnnBindCompleted)
}

// planningPlugins is the profile's plugin set (its multi-point plugins included) for the
// PreFilter, Filter, PreScore and Score extension points, without the skipped plugins, and
// nothing at the other points but what a framework must have.
func planningPlugins(in *config.Plugins, withDRA, withVolumes bool) *config.Plugins {
	out := in.DeepCopy()
	var skip []config.Plugin
	for n := range skipped {
		skip = append(skip, config.Plugin{Name: n})
	}
	if !withDRA {
		skip = append(skip, config.Plugin{Name: names.DynamicResources})
	}
	sort.Slice(skip, func(i, j int) bool { return skip[i].Name < skip[j].Name })
	drop := func(s *config.PluginSet) {
		kept := s.Enabled[:0]
		for _, p := range s.Enabled {
			if p.Name == gangdra.Name {
				// The planner's framework has kube-scheduler's plugins only: it runs
				// DynamicResources itself (its pass is one pod-group cycle already).
				p.Name = names.DynamicResources
			}
			if !skipped[p.Name] && (withDRA || p.Name != names.DynamicResources) {
				kept = append(kept, p)
			}
		}
		s.Enabled = kept
		disabled := s.Disabled[:0]
		for _, p := range s.Disabled {
			if !withDRA || p.Name != names.DynamicResources {
				disabled = append(disabled, p)
			}
		}
		s.Disabled = append(disabled, skip...)
	}
	for _, s := range []*config.PluginSet{&out.MultiPoint, &out.PreFilter, &out.Filter, &out.PreScore, &out.Score} {
		drop(s)
	}
	none := config.PluginSet{Disabled: []config.Plugin{{Name: "*"}}}
	out.PreEnqueue, out.PostFilter, out.Reserve, out.Permit, out.PreBind, out.PostBind = none, none, none, none, none, none
	// Reserve signals a planned member's device allocation in flight and assumes the volumes
	// of its claims still to be bound, in the pass's view; Unreserve withdraws both.
	var reserve []config.Plugin
	if withVolumes {
		reserve = append(reserve, config.Plugin{Name: names.VolumeBinding})
	}
	if withDRA {
		reserve = append(reserve, config.Plugin{Name: names.DynamicResources})
	}
	if len(reserve) > 0 {
		out.Reserve = config.PluginSet{Enabled: reserve, Disabled: []config.Plugin{{Name: "*"}}}
	}
	out.QueueSort = config.PluginSet{Enabled: []config.Plugin{{Name: names.PrioritySort}}, Disabled: []config.Plugin{{Name: "*"}}}
	out.Bind = config.PluginSet{Enabled: []config.Plugin{{Name: names.DefaultBinder}}, Disabled: []config.Plugin{{Name: "*"}}}
	return out
}

// SnapshotLister is a framework's view of the cluster that its owner points at a snapshot
// before each use (the cycle's, for a plan; a fresh one, for a surge check). Cur must be set
// while the framework runs.
type SnapshotLister struct{ Cur fwk.SharedLister }

func (l *SnapshotLister) NodeInfos() fwk.NodeInfoLister       { return l.Cur.NodeInfos() }
func (l *SnapshotLister) StorageInfos() fwk.StorageInfoLister { return l.Cur.StorageInfos() }
func (l *SnapshotLister) PodGroupStates() fwk.PodGroupStateLister {
	return l.Cur.PodGroupStates()
}
func (l *SnapshotLister) PodGroups() fwk.PodGroupLister { return l.Cur.PodGroups() }
func (l *SnapshotLister) CompositePodGroupStates() fwk.CompositePodGroupStateLister {
	return l.Cur.CompositePodGroupStates()
}
func (l *SnapshotLister) CompositePodGroups() fwk.CompositePodGroupLister {
	return l.Cur.CompositePodGroups()
}

// reservedPod is a member whose device allocation the pass signalled in flight.
type reservedPod struct {
	state fwk.CycleState
	pod   *v1.Pod
	node  string
}

// placedPod is a member placed earlier in the pass, on its (copied) node.
type placedPod struct {
	info fwk.PodInfo
	node fwk.NodeInfo
}

// Plan places in.Pods in order. Each pod is checked as its own cycle would check it: the
// profile's PreFilter (with the pods placed before it added through the PreFilter
// extensions), Filter on nodes until the scheduler's number of feasible nodes is found, then
// PreScore and Score, highest total first. A node that receives a pod is copied, so the
// snapshot is never written. The first pod that fits no node ends the pass.
func (pl *Planner) Plan(ctx context.Context, in gangplugin.PlanInput) (gangplugin.PlanResult, error) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.lister.Cur = in.Snapshot
	defer func() { pl.lister.Cur = nil }()
	res := gangplugin.PlanResult{Nodes: make(map[string]string, len(in.Pods))}
	if len(in.Nodes) == 0 {
		if len(in.Pods) > 0 {
			res.Failed, res.Reason = in.Pods[0], "no nodes"
		}
		return res, nil
	}
	copies := map[string]fwk.NodeInfo{} // nodes that received a pod of the pass or lost an evicted one
	var done []placedPod
	var placed []fwk.NodeInfo // done's nodes, for the gang plugin's score
	evicted, err := pl.evict(ctx, in, copies)
	if err != nil {
		return res, err
	}
	if pl.dra {
		// The pass's allocations stay in its view; the evicted pods' devices (and those of
		// in.Freed) are free in it, as their nodes' room is; the members' claims not made yet
		// exist in it.
		defer pl.draView.claims.beginPass(devicesFreedBy(pl.draView.claims.ResourceClaimTracker, in.Evicted, in.Freed), in.Claims)()
	}
	view := func(n fwk.NodeInfo) fwk.NodeInfo {
		if len(copies) == 0 {
			return n
		}
		if c, ok := copies[n.Node().Name]; ok {
			return c
		}
		return n
	}
	toFind := pl.numFeasibleNodesToFind(len(in.Nodes))
	// Members whose device allocations the pass signalled in flight, withdrawn (in reverse)
	// before it returns: the plan reserves nothing.
	var reserved []reservedPod
	defer func() {
		for i := len(reserved) - 1; i >= 0; i-- {
			r := reserved[i]
			pl.fw.RunReservePluginsUnreserve(ctx, r.state, r.pod, r.node)
		}
	}()
	// Members that share a ResourceClaim take the devices the first of them was allocated:
	// the DRA plugin keeps that allocation in the pass's pod-group cycle state (this framework's
	// cycles are the planner's own: the scheduler core never reads them).
	var group fwk.PodGroupCycleState
	if pl.dra {
		group = gangdra.NewGroupCycle()
	}
	var memo filterMemo
	var scores scoreMemo
	rules, err := pl.memoRules(in)
	if err != nil {
		return res, err
	}
	// Verdicts outlive the pass only for passes over the cluster as it is (passMemo).
	keep := pl.memo && !rules.labelsMatter && len(in.Evicted) == 0 && len(in.Freed) == 0 && len(in.Claims) == 0
	kept := &pl.kept
	if in.Alone {
		kept = &pl.keptAlone
	}
	if keep {
		kept.mu.Lock()
		defer kept.mu.Unlock()
	}
	// The devices as the pass starts, for the verdicts of members that take devices
	// (deviceState); nil when none does or they cannot be read (nothing of theirs is kept).
	var devices *deviceState
	var devicesKeys map[string]bool // the kept sets with such verdicts
	if keep && slices.ContainsFunc(in.Pods, pl.takesDevices) {
		if devices, err = nodeDevices(pl.draView); err != nil {
			klog.FromContext(ctx).V(4).Info("Not keeping the verdicts of members that take devices", "err", err)
			devices = nil
		} else {
			devicesKeys = map[string]bool{}
			defer pl.forgetOnClassChange(ctx, kept, devices.classes, devicesKeys)
		}
	}
	// Raw scores outlive the pass on the same terms (keptScore), for the nodes the pass did
	// not copy.
	var scoresKept *keptScores
	if keep && pl.scoreMemo {
		all, err := in.Snapshot.NodeInfos().List()
		if err != nil {
			return res, fmt.Errorf("listing the snapshot's nodes: %w", err)
		}
		scoresKept = &keptScores{byKey: &kept.scores, nodes: len(all), copied: func(node string) bool {
			_, ok := copies[node]
			return ok
		}}
	}
	var bufs passBufs
	for _, pod := range in.Pods {
		takes := pl.takesDevices(pod)
		var verdicts map[string]*fwk.Status
		var known *keptSet
		var key string
		if pl.memo || pl.scoreMemo {
			key = siblingKey(pod, rules)
		}
		if pl.memo {
			verdicts = memo.use(key)
			if keep && key != "" && keepable(pod) {
				switch {
				case !takes:
					known = &keptSet{byNode: kept.byKey.of(key, len(in.Nodes))}
				case devices != nil && !rules.devicesShared:
					// (devices not tied to one node are not in the fingerprint: a member that
					// takes devices through an extended resource has no claim for siblingKey
					// to turn away, so it is turned away here)
					key += "\x00classes:" + devices.classes
					devicesKeys[key] = true
					known = &keptSet{byNode: kept.byKey.of(key, len(in.Nodes)), devices: devices.byNode}
				}
			}
		}
		state := framework.NewCycleState()
		if group != nil {
			state.SetPodGroupSchedulingCycle(group)
		}
		pre, st, _ := pl.fw.RunPreFilterPlugins(ctx, state, pod)
		if st.Code() == fwk.Error {
			return res, fmt.Errorf("PreFilter of %s: %w", pod.Name, st.AsError())
		}
		if !st.IsSuccess() {
			res.Failed, res.Reason = pod, st.Message()
			return res, nil
		}
		for _, v := range evicted {
			if st := pl.fw.RunPreFilterExtensionRemovePod(ctx, state, pod, v.info, v.node); !st.IsSuccess() {
				return res, fmt.Errorf("PreFilter RemovePod of %s for %s: %w", v.info.GetPod().Name, pod.Name, st.AsError())
			}
		}
		for _, d := range done {
			if st := pl.fw.RunPreFilterExtensionAddPod(ctx, state, pod, d.info, d.node); !st.IsSuccess() {
				return res, fmt.Errorf("PreFilter AddPod of %s for %s: %w", d.info.GetPod().Name, pod.Name, st.AsError())
			}
		}
		var scoring *scoreUse
		if pl.scoreMemo && !takes {
			scoring = &scoreUse{memo: &scores, key: key, kept: scoresKept, bufs: &bufs.scores}
		}
		best, reason, err := pl.place(ctx, state, pod, takes, pre, in, view, toFind, verdicts, known, scoring, placed, &bufs)
		if err != nil {
			return res, err
		}
		if best == nil {
			res.Failed, res.Reason = pod, reason
			return res, nil
		}
		if takes || (pl.volumes && hasVolumeClaims(pod)) {
			// The members after it must see its devices and volumes taken, as its own Reserve
			// will take them (in the pass's view only: draView, the planner's assume caches).
			if st := pl.fw.RunReservePluginsReserve(ctx, state, pod, best.Node().Name); !st.IsSuccess() {
				pl.fw.RunReservePluginsUnreserve(ctx, state, pod, best.Node().Name)
				if st.Code() == fwk.Error {
					return res, fmt.Errorf("Reserve of %s's devices on %s: %w", pod.Name, best.Node().Name, st.AsError())
				}
				res.Failed, res.Reason = pod, st.Message()
				return res, nil
			}
			reserved = append(reserved, reservedPod{state: state, pod: pod, node: best.Node().Name})
		}
		c := best.Snapshot()
		onNode := pod.DeepCopy()
		onNode.Spec.NodeName = c.Node().Name
		info, err := framework.NewPodInfo(onNode)
		if err != nil {
			return res, err
		}
		c.AddPodInfo(info)
		copies[c.Node().Name] = c
		memo.changed(c.Node().Name)
		scores.changed(c.Node().Name)
		done = append(done, placedPod{info: info, node: c})
		placed = append(placed, c)
		res.Nodes[pod.Name] = c.Node().Name
	}
	return res, nil
}

// place finds pod's node: Filter (feasible), then Score (best); nil and the Filter reasons
// when no node fits. devices: pod takes devices through the DRA plugin (takesDevices).
//
// A member with resource claims takes the verdicts of a member alike (filterMemo) when its
// claims' Score does not depend on the devices chosen per node (allocationScored): the DRA
// plugin's Filter keeps each node's allocation in the cycle state for Score and Reserve, so
// without the memo every member of a DRA gang ran the allocator on every node it tried (the
// pass's largest cost in the DRA workload of `make perf`). Only the chosen node needs its
// allocation then, for Reserve: it is filtered again, and if it no longer fits (it cannot
// while the pass holds the snapshot, but the allocator is the judge) the member is placed
// again without the memo.
func (pl *Planner) place(ctx context.Context, state fwk.CycleState, pod *v1.Pod, devices bool, pre *fwk.PreFilterResult, in gangplugin.PlanInput, view func(fwk.NodeInfo) fwk.NodeInfo, toFind int, verdicts map[string]*fwk.Status, kept *keptSet, scoring *scoreUse, placed []fwk.NodeInfo, bufs *passBufs) (fwk.NodeInfo, string, error) {
	reuse := devices && (verdicts != nil || kept != nil) && !pl.allocationScored(pod)
	for {
		feasible, unfiltered, reasons, err := pl.feasible(ctx, state, pod, pre, in, view, toFind, verdicts, kept, devices, reuse, bufs)
		if err != nil {
			return nil, "", err
		}
		if len(feasible) == 0 {
			return nil, Summarize(reasons), nil
		}
		best, err := pl.best(ctx, state, pod, feasible, placed, in, scoring)
		if err != nil {
			return nil, "", err
		}
		if !unfiltered[best.Node().Name] {
			return best, "", nil
		}
		st := pl.filter(ctx, state, pod, best)
		if st.Code() == fwk.Error {
			return nil, "", fmt.Errorf("Filter of %s on %s: %w", pod.Name, best.Node().Name, st.AsError())
		}
		if st.IsSuccess() {
			return best, "", nil
		}
		klog.FromContext(ctx).V(4).Info("A member's kept verdict did not hold on its chosen node; placing it again without kept verdicts", "pod", klog.KObj(pod), "node", best.Node().Name, "status", st.Message())
		reuse = false
	}
}

// allocationScored reports whether the Score of pod's claims depends on the devices Filter
// picked on each node (a request with a prioritized list, FirstAvailable: the DRA plugin
// scores the alternative it allocated), or the claims cannot be read: true then.
func (pl *Planner) allocationScored(pod *v1.Pod) bool {
	if !pl.dra {
		return true
	}
	for _, rc := range pod.Spec.ResourceClaims {
		name := rc.ResourceClaimName
		if name == nil {
			for _, s := range pod.Status.ResourceClaimStatuses {
				if s.Name == rc.Name {
					name = s.ResourceClaimName
				}
			}
		}
		if name == nil {
			return true // not made yet (or not needed): not read, so not known
		}
		c, err := pl.draView.claims.Get(pod.Namespace, *name)
		if err != nil {
			return true
		}
		if c.Status.Allocation != nil {
			continue // scored by its allocation, the same on every node
		}
		if slices.ContainsFunc(c.Spec.Devices.Requests, func(r resourceapi.DeviceRequest) bool { return len(r.FirstAvailable) > 0 }) {
			return true
		}
	}
	return false
}

// forgetOnClassChange drops the verdicts a pass kept under keys when the DeviceClasses
// changed while it ran (the allocator reads them live; classes is their fingerprint at the
// pass's start); kept.mu is held.
func (pl *Planner) forgetOnClassChange(ctx context.Context, kept *passMemo, classes string, keys map[string]bool) {
	now, err := deviceClasses(pl.draView)
	if err == nil && now == classes {
		return
	}
	klog.FromContext(ctx).V(5).Info("DeviceClasses changed during the pass: dropping its kept verdicts of members that take devices", "err", err)
	for key := range keys {
		delete(kept.byKey, key)
	}
}

// filter runs the profile's Filter plugins for pod on node (with the pods nominated to it,
// when the planner has the scheduler's nominator).
func (pl *Planner) filter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, node fwk.NodeInfo) *fwk.Status {
	pl.filterRuns.Add(1)
	if pl.nominated {
		return pl.fw.RunFilterPluginsWithNominatedPods(ctx, state, pod, node)
	}
	return pl.fw.RunFilterPlugins(ctx, state, pod, node)
}

// memoRules reads, once per pass, what makes members' verdicts depend on their labels or on
// other nodes (filterMemo).
func (pl *Planner) memoRules(in gangplugin.PlanInput) (memoRules, error) {
	var r memoRules
	if !pl.memo {
		return r, nil
	}
	anti, err := in.Snapshot.NodeInfos().HavePodsWithRequiredAntiAffinityList()
	if err != nil {
		return r, fmt.Errorf("listing nodes with required anti-affinity: %w", err)
	}
	r.labelsMatter = len(anti) > 0
	if !slices.ContainsFunc(in.Pods, pl.takesDevices) {
		return r, nil
	}
	r.claim = pl.draView.claims.Get
	named := map[string]int{}
	for _, p := range in.Pods {
		for _, rc := range p.Spec.ResourceClaims {
			if rc.ResourceClaimName != nil {
				named[p.Namespace+"/"+*rc.ResourceClaimName]++
			}
		}
	}
	for k, n := range named {
		if n > 1 {
			if r.sharedClaims == nil {
				r.sharedClaims = map[string]bool{}
			}
			r.sharedClaims[k] = true
		}
	}
	all, err := pl.draView.ResourceSlices().ListWithDeviceTaintRules()
	if err != nil {
		return r, fmt.Errorf("listing ResourceSlices: %w", err)
	}
	r.devicesShared = slices.ContainsFunc(all, func(s *resourceapi.ResourceSlice) bool { return s.Spec.NodeName == nil || *s.Spec.NodeName == "" })
	return r, nil
}

// evict copies the nodes of in.Evicted without them (into copies) and returns each with its
// copied node, for the PreFilter RemovePod extensions.
func (pl *Planner) evict(ctx context.Context, in gangplugin.PlanInput, copies map[string]fwk.NodeInfo) ([]placedPod, error) {
	if len(in.Evicted) == 0 {
		return nil, nil
	}
	byName := make(map[string]fwk.NodeInfo, len(in.Nodes))
	for _, n := range in.Nodes {
		byName[n.Node().Name] = n
	}
	out := make([]placedPod, 0, len(in.Evicted))
	for _, v := range in.Evicted {
		n, ok := copies[v.Spec.NodeName]
		if !ok {
			orig, known := byName[v.Spec.NodeName]
			if !known {
				continue // not a candidate node: nothing to free there
			}
			n = orig.Snapshot()
			copies[v.Spec.NodeName] = n
		}
		if err := n.RemovePod(klog.FromContext(ctx), v); err != nil {
			return nil, fmt.Errorf("removing evicted pod %s/%s from node %s: %w", v.Namespace, v.Name, v.Spec.NodeName, err)
		}
		info, err := framework.NewPodInfo(v)
		if err != nil {
			return nil, err
		}
		out = append(out, placedPod{info: info, node: n})
	}
	return out, nil
}

// feasible runs Filter (the profile's, then the gang plugin's) from the rotating start until
// toFind nodes pass or every candidate was tried; reasons counts why the others did not. The
// profile's verdicts are taken from, and kept in, verdicts (nil: none kept; filterMemo) and
// kept (the verdicts of earlier passes, nil: none; passMemo). A member that takes devices
// takes a kept success only with reuseFits (place); unfiltered are the feasible nodes it
// took one for, whose allocations its cycle state lacks.
func (pl *Planner) feasible(ctx context.Context, state fwk.CycleState, pod *v1.Pod, pre *fwk.PreFilterResult, in gangplugin.PlanInput, view func(fwk.NodeInfo) fwk.NodeInfo, toFind int, verdicts map[string]*fwk.Status, kept *keptSet, devices, reuseFits bool, bufs *passBufs) ([]fwk.NodeInfo, map[string]bool, map[string]int, error) {
	feasible := bufs.feasible[:0]
	defer func() { bufs.feasible = feasible[:0] }()
	var unfiltered map[string]bool
	reasons := map[string]int{}
	n := len(in.Nodes)
	tried := 0
	// The nodes are taken in chunks of as many as are still to be found; the nodes of a chunk
	// whose verdicts are not known are filtered in parallel, as the scheduler filters, and the
	// chunk is then read in order: what is found, and where the next search starts, are those
	// of one node at a time.
	chunk, toFilter := bufs.chunk[:0], bufs.toFilter[:0]
	defer func() { bufs.chunk, bufs.toFilter = chunk[:0], toFilter[:0] }()
	for tried < n && len(feasible) < toFind {
		chunk, toFilter = chunk[:0], toFilter[:0]
		for range min(toFind-len(feasible), n-tried) {
			orig := in.Nodes[(pl.next+tried)%n]
			c := candidate{node: view(orig)}
			tried++
			if pre != nil && !pre.AllNodes() && !pre.NodeNames.Has(c.node.Node().Name) {
				c.outside = true
				chunk = append(chunk, c)
				continue
			}
			name := c.node.Node().Name
			c.status, c.known = verdicts[name]
			// Verdicts on a node with nominated pods are neither kept nor used (passMemo), nor
			// those on the pass's copy of a node (its generation is the copy's own: it cannot
			// hold for a later pass, and it would replace the node's own verdict).
			c.keep = kept != nil && c.node == orig && !pl.hasNominated(name)
			if !c.known && c.keep {
				// (not copied into verdicts: the members after it read kept as well, and a
				// node the pass has not copied keeps its generation for the whole pass)
				c.status, c.known = kept.get(c.node)
			}
			if c.known && c.status.IsSuccess() && devices {
				// The DRA plugin's Filter keeps the node's allocation in the cycle state, for
				// its Score and Reserve: a node that fits is filtered again unless its Score
				// does not need it (place); one that does not fit is not.
				if reuseFits {
					if unfiltered == nil {
						unfiltered = map[string]bool{}
					}
					unfiltered[name] = true
				} else {
					c.known = false
				}
			}
			if !c.known {
				toFilter = append(toFilter, len(chunk))
			}
			chunk = append(chunk, c)
		}
		if err := pl.filterAll(ctx, state, pod, chunk, toFilter); err != nil {
			return nil, nil, nil, err
		}
		for _, c := range chunk {
			if c.outside {
				reasons["not among the nodes PreFilter allows"]++
				continue
			}
			st := c.status
			if !c.known {
				name := c.node.Node().Name
				if verdicts != nil {
					verdicts[name] = st
				}
				if c.keep {
					kept.put(c.node, st)
				}
			}
			if st.IsSuccess() && in.Filter != nil {
				st = in.Filter(pod, c.node)
			}
			if st.IsSuccess() {
				feasible = append(feasible, c.node)
				continue
			}
			for _, r := range st.Reasons() {
				reasons[r]++
			}
		}
	}
	pl.next = (pl.next + tried) % n
	return feasible, unfiltered, reasons, nil
}

// passBufs are a pass's buffers for its members' searches and scores, reused member after
// member: what feasible returns is valid until the next member's search.
type passBufs struct {
	chunk    []candidate
	toFilter []int
	feasible []fwk.NodeInfo
	scores   scoreBufs
}

// candidate is a node a search tries, with its verdict.
type candidate struct {
	node fwk.NodeInfo
	// outside: not among the nodes PreFilter allows.
	outside bool
	// known: status is a verdict taken from a memo; otherwise Filter gives it.
	known  bool
	status *fwk.Status
	// keep: the verdict may be kept beyond the pass (passMemo).
	keep bool
}

// filterAll runs the profile's Filter for pod on the candidates at the indices at, in
// parallel when there is more than one (the plugins' Filter is safe for concurrent nodes:
// the scheduler runs it so), and sets their statuses.
func (pl *Planner) filterAll(ctx context.Context, state fwk.CycleState, pod *v1.Pod, candidates []candidate, at []int) error {
	run := func(i int) { candidates[at[i]].status = pl.filter(ctx, state, pod, candidates[at[i]].node) }
	if len(at) == 1 {
		run(0)
	} else if len(at) > 1 {
		pl.fw.Parallelizer().Until(ctx, len(at), run, "GangPlanFilter")
	}
	for _, i := range at {
		if c := candidates[i]; c.status.Code() == fwk.Error {
			return fmt.Errorf("Filter of %s on %s: %w", pod.Name, c.node.Node().Name, c.status.AsError())
		}
	}
	return nil
}

// hasNominated reports whether pods are nominated to node (their Filter counts them).
func (pl *Planner) hasNominated(node string) bool {
	return pl.nominated && len(pl.fw.NominatedPodsForNode(node)) > 0
}

// scoreUse is a member's access to the pass's kept raw scores: key is its Filter key
// (siblingKey), which scoreKey completes once PreScore ran; kept, when not nil, lends those of
// earlier passes (keptScore).
type scoreUse struct {
	memo *scoreMemo
	key  string
	kept *keptScores
	// bufs are the pass's, for every member's scores.
	bufs *scoreBufs
}

// keptScores is a pass's access to the raw scores of earlier passes: nodes is the number of
// nodes in the snapshot, copied tells the nodes the pass copied (a pod of the pass placed on
// one, or one evicted from it: their scores are the pass's own).
type keptScores struct {
	byKey  *keptByKey[keptScore]
	nodes  int
	copied func(node string) bool
}

// best scores the feasible nodes and returns the highest (the first of equals); placed are
// the nodes of the pass's earlier pods, for the gang plugin's score; scoring, when not nil,
// lends the raw scores of members alike (scoreMemo).
func (pl *Planner) best(ctx context.Context, state fwk.CycleState, pod *v1.Pod, feasible, placed []fwk.NodeInfo, in gangplugin.PlanInput, scoring *scoreUse) (fwk.NodeInfo, error) {
	if len(feasible) == 1 {
		return feasible[0], nil
	}
	if st := pl.fw.RunPreScorePlugins(ctx, state, pod, feasible); !st.IsSuccess() {
		return nil, fmt.Errorf("PreScore of %s: %w", pod.Name, st.AsError())
	}
	var raw map[string][]fwk.PluginScore
	var kept map[string]keptScore
	var copied func(string) bool
	if scoring != nil {
		skip := state.GetSkipScorePlugins().Has
		key := scoreKey(pod, scoring.key, pl.scorePlugins, skip)
		raw = scoring.memo.use(key)
		if k := scoring.kept; raw != nil && k != nil {
			if across := scoreKeyAcrossPasses(key, pl.scorePlugins, skip, k.nodes); across != "" {
				kept, copied = k.byKey.of(across, k.nodes), k.copied
			}
		}
	}
	var totals []int64
	if raw != nil {
		var err error
		if totals, err = pl.scoreKept(ctx, state, pod, feasible, raw, kept, copied, scoring.bufs); err != nil {
			return nil, err
		}
	} else {
		scores, st := pl.fw.RunScorePlugins(ctx, state, pod, feasible)
		if !st.IsSuccess() {
			return nil, fmt.Errorf("Score of %s: %w", pod.Name, st.AsError())
		}
		pl.scoredNodes.Add(int64(len(feasible)))
		totals = totalsOf(scores)
	}
	var gangScore func(fwk.NodeInfo) int64
	if in.Score != nil {
		gangScore = in.Score(pod, placed)
	}
	bestAt, bestScore := 0, int64(-1)
	for i, total := range totals {
		if gangScore != nil {
			total += pl.gangWeight * gangScore(feasible[i])
		}
		if total > bestScore {
			bestAt, bestScore = i, total
		}
	}
	return feasible[bestAt], nil
}

// numFeasibleNodesToFind is the scheduler's rule for how many feasible nodes are enough.
func (pl *Planner) numFeasibleNodesToFind(all int) int {
	if all < minFeasibleNodesToFind {
		return all
	}
	var pct int32
	if pl.percentage != nil {
		pct = *pl.percentage
	}
	if pct == 0 {
		pct = max(int32(50)-int32(all)/125, minFeasibleNodesPercentageToFind)
	}
	return max(all*int(pct)/100, minFeasibleNodesToFind)
}

// Summarize is "3× Insufficient nvidia.com/gpu, 1× node(s) had untolerated taint": Filter
// reasons with how many nodes gave each, most frequent first ("no nodes" for none).
func Summarize(counts map[string]int) string {
	type rc struct {
		r string
		c int
	}
	l := make([]rc, 0, len(counts))
	for r, c := range counts {
		l = append(l, rc{r, c})
	}
	sort.Slice(l, func(i, j int) bool {
		if l[i].c != l[j].c {
			return l[i].c > l[j].c
		}
		return l[i].r < l[j].r
	})
	parts := make([]string, 0, len(l))
	for _, x := range l {
		parts = append(parts, fmt.Sprintf("%d× %s", x.c, x.r))
	}
	if len(parts) == 0 {
		return "no nodes"
	}
	return strings.Join(parts, ", ")
}
