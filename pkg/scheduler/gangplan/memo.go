package gangplan

import (
	"encoding/json"
	"sync"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
)

// filterMemo keeps, within one pass, the profile's Filter verdicts of the last member for
// each node, so that the next member that nodes judge alike (siblingKey) is not filtered
// again on the nodes the pass has not changed since. A gang's members are nearly always alike
// (one template per podgroup): without the memo each member repeats the search of the one
// before it (percentageOfNodesToScore of the nodes, the DRA allocator on each); with it, a
// member after the first re-runs Filter only on the node that received the one before.
//
// The verdict of an unchanged node can differ for a member alike only through what other
// nodes hold: required inter-pod affinity or anti-affinity, hard topology spreading, a
// claim shared between members or allocated already, devices that are not node-local.
// siblingKey is empty, and nothing is kept, for such a member. Members' own claims by name
// (one claim per member) weigh by their specs.
type filterMemo = alikeMemo[*fwk.Status]

// alikeMemo is what a pass keeps per node for the members alike of one key (filterMemo's
// verdicts, scoreMemo's raw scores), forgotten for a node a member is placed on.
type alikeMemo[T any] struct {
	key    string
	byNode map[string]T
}

// use returns what is kept for members of key ("": nothing kept), starting afresh when the
// member is not alike the last one.
func (m *alikeMemo[T]) use(key string) map[string]T {
	if key == "" {
		m.key, m.byNode = "", nil
		return nil
	}
	if key != m.key || m.byNode == nil {
		m.key, m.byNode = key, map[string]T{}
	}
	return m.byNode
}

// changed forgets what is kept for node: a member of the pass was placed on it.
func (m *alikeMemo[T]) changed(node string) { delete(m.byNode, node) }

// passMemo keeps Filter verdicts beyond their pass, for the members alike of the next gangs
// (siblingKey): a verdict holds while the node's generation in the scheduler's snapshot is the
// one it was given at. The cache gives a node a new generation whenever a pod is assumed,
// bound or removed on it and whenever the Node object changes, so a stream of gangs of one
// template filters again only the nodes the gangs before it were placed on, where each pass
// alone filtered percentageOfNodesToScore of the nodes for its first member (BenchmarkPlan,
// `make perf`: Filter was a quarter of the scheduler's CPU on 1,000 gangs of 3).
//
// A verdict can change without its node's generation only through what the generation does
// not cover. The devices a member takes through the DRA plugin change apart from nodes: its
// verdicts are kept with the node's device fingerprint as well (deviceState), and hold while
// both are unchanged. No verdict is kept or used for pods with required anti-affinity
// anywhere (they judge other nodes of their domain; memoRules.labelsMatter), on nodes with
// pods nominated to them (preemptors, which Filter counts), for members with volumes
// (volumes and CSINodes change apart from nodes), and in passes that weigh evictions, freed
// devices or claims still to be made (preemption, surge admission).
type passMemo struct {
	mu    sync.Mutex
	byKey keptByKey[keptVerdict]
	// scores are the raw scores kept beyond their pass (keptScore), under mu as well.
	scores keptByKey[keptScore]
}

// keptVerdict is a Filter verdict and the generation of the node it was given on, with the
// node's device fingerprint for a member that takes devices (0 otherwise).
type keptVerdict struct {
	generation int64
	devices    uint64
	status     *fwk.Status
}

// keptScore is a node's raw scores (scoreMemo) for the members of one key and the generation
// of the node they were given on. Raw scores outlive their pass only for members scored by
// plugins that read the pod and the node alone (scoreKeyAcrossPasses), so they hold while
// the node's generation does, as Filter verdicts do: a stream of gangs (or plain pods) of one
// template scores again only the nodes the ones before it changed, where each pass scored
// percentageOfNodesToScore of the nodes for its first member (a CPU profile of `make perf`'s
// 1,000 gangs of 3 on 5,000 nodes: Score 19 % of the scheduler's CPU, and most of its
// allocations). Each member's scores are normalized afresh over its own feasible nodes.
type keptScore struct {
	generation int64
	raw        []fwk.PluginScore
}

// keptSet is the kept verdicts of one kind of member as a pass reads them.
type keptSet struct {
	byNode map[string]keptVerdict
	// devices are the nodes' device fingerprints at the pass's start (nil: the member takes
	// no devices).
	devices map[string]uint64
}

// get returns the kept verdict for node, if it still holds.
func (k *keptSet) get(node fwk.NodeInfo) (*fwk.Status, bool) {
	name := node.Node().Name
	kv, ok := k.byNode[name]
	if !ok || kv.generation != node.GetGeneration() || kv.devices != k.devices[name] {
		return nil, false
	}
	return kv.status, true
}

// put keeps st as node's verdict.
func (k *keptSet) put(node fwk.NodeInfo, st *fwk.Status) {
	name := node.Node().Name
	k.byNode[name] = keptVerdict{generation: node.GetGeneration(), devices: k.devices[name], status: st}
}

// passMemoKeys bounds the templates kept (a cluster's gangs use a few).
const passMemoKeys = 8

// passMemoSlack is how many entries of nodes gone a key may keep beyond twice the nodes.
const passMemoSlack = 64

// keptByKey is what passes keep per member key and node name, for at most passMemoKeys keys.
type keptByKey[T any] map[string]map[string]T

// of returns what is kept for members of key, by node name; the passMemo's mu is held.
//
// What a key keeps is dropped, all at once, when it holds more than twice the nodes (plus a
// margin): nodes come and go (autoscaling), and the entries of nodes gone would otherwise
// stay for the life of the process.
func (m *keptByKey[T]) of(key string, nodes int) map[string]T {
	if *m == nil {
		*m = keptByKey[T]{}
	}
	v := (*m)[key]
	if len(v) > 2*nodes+passMemoSlack {
		v = nil
	}
	if v == nil {
		if len(*m) >= passMemoKeys {
			for k := range *m {
				delete(*m, k) // any one: the set is small and rarely full
				break
			}
		}
		v = map[string]T{}
		(*m)[key] = v
	}
	return v
}

// keepable reports whether pod's verdicts may outlive the pass (passMemo): it has no volumes
// whose objects the node's generation does not cover. (Devices are covered by deviceState.)
func keepable(pod *v1.Pod) bool {
	for _, vol := range pod.Spec.Volumes {
		if vol.PersistentVolumeClaim != nil || vol.Ephemeral != nil || vol.CSI != nil {
			return false
		}
	}
	return true
}

// memoRules are what a pass checks once before it keeps verdicts.
type memoRules struct {
	// labelsMatter: some pod has required anti-affinity, which may select a member by its
	// labels (an index label differs from member to member).
	labelsMatter bool
	// devicesShared: some ResourceSlice is not tied to one node (network-attached devices),
	// so a member's allocation may change what other nodes offer.
	devicesShared bool
	// sharedClaims are the claims (namespace/name) that more than one pod of the pass names:
	// the first member's allocation decides where the others may go.
	sharedClaims map[string]bool
	// claim reads a claim (the planner's view of the DRA manager); nil without DRA.
	claim func(namespace, name string) (*resourceapi.ResourceClaim, error)
}

// siblingKey is what decides a Filter verdict for pod, beside the node itself and what the
// pass changes on it; "" when other nodes' contents decide it too (filterMemo).
func siblingKey(pod *v1.Pod, rules memoRules) string {
	spec := &pod.Spec
	if a := spec.Affinity; a != nil {
		if a.PodAffinity != nil && len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
			return ""
		}
		if a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
			return ""
		}
	}
	for _, c := range spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable == v1.DoNotSchedule {
			return ""
		}
	}
	for _, vol := range spec.Volumes {
		if vol.Ephemeral != nil || vol.PersistentVolumeClaim != nil {
			// An ephemeral volume's claim is each member's own (pod name + volume), and
			// VolumeBinding's Filter keeps, per node, the volumes a claim still to be bound
			// would take there, for Reserve: a verdict taken from a sibling leaves it none.
			return ""
		}
	}
	// A member's claims weigh by what they ask for: a template's name (its members' claims
	// are made alike), or the spec of a claim of its own that is not allocated yet.
	var claims []string
	for _, rc := range spec.ResourceClaims {
		switch {
		case rules.devicesShared:
			return ""
		case rc.ResourceClaimTemplateName != nil:
			claims = append(claims, rc.Name+"=template:"+*rc.ResourceClaimTemplateName)
		case rc.ResourceClaimName != nil:
			key := pod.Namespace + "/" + *rc.ResourceClaimName
			if rules.sharedClaims[key] || rules.claim == nil {
				return ""
			}
			c, err := rules.claim(pod.Namespace, *rc.ResourceClaimName)
			if err != nil || c.Status.Allocation != nil {
				return "" // allocated: where its devices are decides
			}
			raw, err := json.Marshal(c.Spec)
			if err != nil {
				return ""
			}
			claims = append(claims, rc.Name+"=spec:"+string(raw))
		}
	}
	type key struct {
		Namespace    string
		Labels       map[string]string `json:",omitempty"`
		Priority     *int32
		NodeName     string
		NodeSelector map[string]string
		Affinity     *v1.Affinity
		Tolerations  []v1.Toleration
		Spread       []v1.TopologySpreadConstraint
		Containers   []v1.Container
		Init         []v1.Container
		Overhead     v1.ResourceList
		RuntimeClass *string
		Volumes      []v1.Volume
		Claims       []string
		HostNetwork  bool
	}
	k := key{Namespace: pod.Namespace, Priority: spec.Priority, NodeName: spec.NodeName, NodeSelector: spec.NodeSelector,
		Affinity: spec.Affinity, Tolerations: spec.Tolerations, Spread: spec.TopologySpreadConstraints,
		Containers: schedulingView(spec.Containers), Init: schedulingView(spec.InitContainers), Overhead: spec.Overhead,
		RuntimeClass: spec.RuntimeClassName, Volumes: spec.Volumes, Claims: claims, HostNetwork: spec.HostNetwork}
	if rules.labelsMatter {
		k.Labels = pod.Labels
	}
	raw, err := json.Marshal(k)
	if err != nil {
		return ""
	}
	return string(raw)
}

// schedulingView is what of containers a Filter reads: resources, ports, the claims they use.
func schedulingView(cs []v1.Container) []v1.Container {
	if len(cs) == 0 {
		return nil
	}
	out := make([]v1.Container, len(cs))
	for i, c := range cs {
		out[i] = v1.Container{Resources: c.Resources, Ports: c.Ports, RestartPolicy: c.RestartPolicy}
	}
	return out
}

// statelessFilters are the Filter plugins known to keep nothing per node in the cycle state
// (their verdict is all a pass needs of them), with DynamicResources, whose per-node
// allocation the pass gets by filtering a node that fits again.
var statelessFilters = map[string]bool{
	names.NodeUnschedulable: true, names.NodeName: true, names.TaintToleration: true, names.NodeAffinity: true,
	names.NodePorts: true, names.NodeResourcesFit: true, names.VolumeRestrictions: true, names.NodeVolumeLimits: true,
	names.VolumeBinding: true, names.VolumeZone: true, names.PodTopologySpread: true, names.InterPodAffinity: true,
	names.DynamicResources: true, names.NodeDeclaredFeatures: true,
}

// memoAllowed reports whether the profile's Filter plugins leave a member's verdicts to its
// own spec and the node (siblingKey): only plugins known to keep no per-node state
// (statelessFilters), and no hard default topology spreading.
func memoAllowed(profile *config.KubeSchedulerProfile, filters []string) bool {
	for _, f := range filters {
		if !statelessFilters[f] {
			return false
		}
	}
	for _, c := range profile.PluginConfig {
		if c.Name != names.PodTopologySpread {
			continue
		}
		if args, ok := c.Args.(*config.PodTopologySpreadArgs); ok {
			for _, d := range args.DefaultConstraints {
				if d.WhenUnsatisfiable == v1.DoNotSchedule {
					return false
				}
			}
		}
	}
	return true
}
