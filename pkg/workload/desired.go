package workload

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/index"
	"github.com/phalanx-sched/phalanx/pkg/update"
)

// Observed is what the desired world depends on besides the PodCliqueSet itself.
type Observed struct {
	// ScalingGroups are the existing scaling groups by name (their spec.replicas may have been
	// changed through the scale subresource).
	ScalingGroups map[string]*grovev1.PodCliqueScalingGroup
	// Cliques are the existing PodCliques by name (a standalone clique's spec.replicas may
	// have been changed through the scale subresource: kubectl scale, an HPA).
	Cliques map[string]*grovev1.PodClique
	// SurgePods are, per standalone PodClique, the pod indices at or above its replicas that
	// exist or that the update planner creates: they get pods (labelled phalanx.dev/surge) and
	// places in the gang's podReferences.
	SurgePods map[string][]int
	// SurgeGroupReplicas are, per scaling group, the replica indices at or above its replicas
	// that exist or that the update planner creates: each gets its cliques, pods and scaled gang.
	SurgeGroupReplicas map[string][]int
	// SurgeReplicas are the PodCliqueSet replica indices at or above spec.replicas that exist
	// or that the planner creates (ReplicaRecreate with maxSurge).
	SurgeReplicas []int
	// ReplicaTemplates are the PodCliqueSet replicas whose objects are made from another
	// template than spec.template: an update's partition holds the replicas below it at the
	// last complete revision. The template must have the same cliques and scaling groups
	// (the webhook keeps them immutable).
	ReplicaTemplates map[int]*grovev1.PodCliqueSetTemplateSpec
	// SliceGangs are, by member (MemberOf), the PodGang of the coherent slice its pods belong
	// to (Coherent): the pods that carry the label and those the update creates in a slice. Each
	// named gang is made with one podgroup per PodClique of its pods, every pod required
	// (minReplicas is their count), so that the slice is placed all-or-nothing.
	SliceGangs map[update.MemberRef]string
	// ExistingPods are the pods that exist, by name: their desired pods get their name,
	// namespace, labels and annotations only, no spec (a pod that exists is never made again
	// from it; building every pod's spec on every pass was half of Desired's time at 900 pods).
	// When set, the desired PodCliques that exist (Cliques) likewise get their sizes but no
	// pod template.
	ExistingPods map[string]*corev1.Pod
	// PodNames are the pods that exist under another name than PodName (made by another
	// operator and adopted: Grove names its pods "<clique>-<random>"), by PodName of their
	// clique and index: the desired pod takes the pod's name, so that the pod is kept.
	PodNames map[string]string
	// TopologyKeys are the node label keys of the packing domains the set's topology
	// constraints name (a domain -> key view of the Grove ClusterTopologyBinding the set names,
	// TopologyKeysOf). Nil when the set names none: its domains are node label keys already.
	// A domain it does not list is written as it is.
	TopologyKeys map[string]string
}

// ReplicaPCS is pcs as replica r is made: with its held template (Observed.ReplicaTemplates)
// in place of spec.template, or pcs itself.
func ReplicaPCS(pcs *grovev1.PodCliqueSet, templates map[int]*grovev1.PodCliqueSetTemplateSpec, r int) *grovev1.PodCliqueSet {
	t := templates[r]
	if t == nil {
		return pcs
	}
	out := *pcs // shallow: only the template differs, and nothing writes through it
	out.Spec.Template = *t
	return &out
}

// World is every object a PodCliqueSet should have. Pods carry no owner reference: it names
// their PodClique, whose UID only exists once the PodClique does.
type World struct {
	Cliques       []*grovev1.PodClique
	ScalingGroups []*grovev1.PodCliqueScalingGroup
	PodGangs      []*schedv1.PodGang
	Services      []*corev1.Service
	Pods          []*corev1.Pod
	// Claims are the ResourceClaims of Grove's resource sharing (sharing.go).
	Claims []SharedClaim
	// claimNames are the names in Claims (addClaim).
	claimNames map[string]bool
}

// GroupReplicas is the replica count of a scaling group: the template's, unless the group was
// scaled through its scale subresource since the template last set it.
func GroupReplicas(cfg *grovev1.PodCliqueScalingGroupConfig, existing *grovev1.PodCliqueScalingGroup) int32 {
	tmpl := ptr.Deref(cfg.Replicas, 1)
	if existing == nil {
		return tmpl
	}
	if existing.Annotations[AnnotationTemplateReplicas] == strconv.Itoa(int(tmpl)) {
		return existing.Spec.Replicas
	}
	return tmpl
}

// CliqueReplicas is the pod count of a standalone clique: the template's, unless its PodClique
// was scaled through its scale subresource since the template last set it (the rule of
// GroupReplicas: a scale sticks until the template's value changes).
func CliqueReplicas(c *grovev1.PodCliqueTemplateSpec, existing *grovev1.PodClique) int32 {
	if existing != nil && existing.Annotations[AnnotationTemplateReplicas] == strconv.Itoa(int(c.Spec.Replicas)) {
		return existing.Spec.Replicas
	}
	return c.Spec.Replicas
}

// ScaledClique is the template of a standalone clique with the replicas it has now; its
// minAvailable never exceeds them (a clique scaled below its minimum would otherwise be a gang
// that can never form).
func ScaledClique(c *grovev1.PodCliqueTemplateSpec, existing *grovev1.PodClique) *grovev1.PodCliqueTemplateSpec {
	n := CliqueReplicas(c, existing)
	if n == c.Spec.Replicas {
		return c
	}
	out := c.DeepCopy()
	out.Spec.Replicas = n
	out.Spec.MinAvailable = ptr.To(min(CliqueMinAvailable(c), max(n, 1)))
	return out
}

// CliqueMinAvailable is a clique's minAvailable (default: its replicas).
func CliqueMinAvailable(c *grovev1.PodCliqueTemplateSpec) int32 {
	return ptr.Deref(c.Spec.MinAvailable, c.Spec.Replicas)
}

// GroupMinAvailable is a scaling group's minAvailable (default 1).
func GroupMinAvailable(cfg *grovev1.PodCliqueScalingGroupConfig) int32 {
	return ptr.Deref(cfg.MinAvailable, 1)
}

// Desired computes the world of a PodCliqueSet (set), each replica from its template.
func Desired(set *grovev1.PodCliqueSet, obs Observed) *World {
	return (*DesiredCache)(nil).Desired(set, obs)
}

// DesiredCache keeps the worlds of one PodCliqueSet's replicas between passes: a replica whose
// inputs (its template, its observed cliques, scaling groups and pods, its surge members) are
// what they were is not built again. An update changes one replica at a time, and building
// all of them was a third of a controller pass at 100 replicas (make perf-updates). The
// objects of a world it returns are shared with later worlds: callers must not modify them
// (they copy what they write, as the controller does). Not safe for concurrent use; a nil
// cache builds every replica.
type DesiredCache struct {
	uid      types.UID
	replicas map[int]cachedReplica
}

type cachedReplica struct {
	key   string
	world *World
}

// Desired is Desired, reusing the replicas whose inputs did not change since the last call.
func (dc *DesiredCache) Desired(set *grovev1.PodCliqueSet, obs Observed) *World {
	owner := *metav1.NewControllerRef(set, grovev1.SchemeGroupVersion.WithKind("PodCliqueSet"))
	replicas := make([]int, 0, int(set.Spec.Replicas)+len(obs.SurgeReplicas))
	for r := 0; r < int(set.Spec.Replicas); r++ {
		replicas = append(replicas, r)
	}
	for _, r := range obs.SurgeReplicas {
		if r >= int(set.Spec.Replicas) {
			replicas = append(replicas, r)
		}
	}
	if dc != nil && dc.uid != set.UID {
		dc.uid, dc.replicas = set.UID, nil
	}
	var keys *replicaKeys
	if dc != nil {
		keys = newReplicaKeys(set, obs)
	}
	hashes := map[*grovev1.PodCliqueTemplateSpec]string{}
	parts := make([]*World, 0, len(replicas))
	fresh := make(map[int]cachedReplica, len(replicas))
	for _, r := range replicas {
		var key string
		if dc != nil {
			key = keys.of(r)
			if c, ok := dc.replicas[r]; ok && c.key == key {
				parts = append(parts, c.world)
				fresh[r] = c
				continue
			}
		}
		rw := &World{}
		buildReplica(set, obs, r, owner, rw, hashes)
		parts = append(parts, rw)
		fresh[r] = cachedReplica{key: key, world: rw}
	}
	if dc != nil {
		dc.replicas = fresh
	}
	w := &World{}
	for _, p := range parts {
		w.Cliques = append(w.Cliques, p.Cliques...)
		w.ScalingGroups = append(w.ScalingGroups, p.ScalingGroups...)
		w.PodGangs = append(w.PodGangs, p.PodGangs...)
		w.Services = append(w.Services, p.Services...)
		w.Pods = append(w.Pods, p.Pods...)
		for _, c := range p.Claims {
			w.addClaim(c) // the set's AllReplicas claims are in every replica's part
		}
	}
	sort.Slice(w.Pods, func(i, j int) bool { return w.Pods[i].Name < w.Pods[j].Name })
	w.sliceGangs(set, owner, obs)
	return w
}

// buildReplica adds replica r of set to w.
func buildReplica(set *grovev1.PodCliqueSet, obs Observed, r int, owner metav1.OwnerReference, w *World, hashes map[*grovev1.PodCliqueTemplateSpec]string) {
	// Replica r is made from its held template (a partition) or spec.template.
	pcs := ReplicaPCS(set, obs.ReplicaTemplates, r)
	inGroup := map[string]*grovev1.PodCliqueScalingGroupConfig{}
	for i := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		g := &pcs.Spec.Template.PodCliqueScalingGroupConfigs[i]
		for _, c := range g.CliqueNames {
			inGroup[c] = g
		}
	}
	cliques := map[string]*grovev1.PodCliqueTemplateSpec{}
	for i := range pcs.Spec.Template.Cliques {
		cliques[pcs.Spec.Template.Cliques[i].Name] = &pcs.Spec.Template.Cliques[i]
	}
	b := &replicaBuilder{pcs: pcs, replica: r, owner: owner, world: w, hashes: hashes, existing: obs.ExistingPods, podNames: obs.PodNames, obsCliques: obs.Cliques, topology: obs.TopologyKeys}
	b.service()
	// Entries that do not parse are left out here; the controller reports them.
	b.sharing, _ = SharingOf(&pcs.Spec.Template)
	if !b.sharing.Empty() {
		sharedClaims(w, b.sharing.Set, "PodCliqueSet", pcs.Name, []int{r})
	}
	base := b.gang(BasePodGangName(pcs.Name, r), "")
	for i := range pcs.Spec.Template.Cliques {
		c := &pcs.Spec.Template.Cliques[i]
		if inGroup[c.Name] != nil {
			continue
		}
		name := PodCliqueName(pcs.Name, r, c.Name)
		b.clique(ScaledClique(c, obs.Cliques[name]), name, base, nil, 0, obs.SurgePods[name])
	}
	for i := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		cfg := &pcs.Spec.Template.PodCliqueScalingGroupConfigs[i]
		sgName := ScalingGroupName(pcs.Name, r, cfg.Name)
		replicas := GroupReplicas(cfg, obs.ScalingGroups[sgName])
		minAvail := GroupMinAvailable(cfg)
		b.scalingGroup(cfg, sgName, replicas, minAvail)
		groupReplicas := make([]int, 0, int(replicas))
		for j := 0; j < int(replicas); j++ {
			groupReplicas = append(groupReplicas, j)
		}
		for _, j := range obs.SurgeGroupReplicas[sgName] {
			if j >= int(replicas) {
				groupReplicas = append(groupReplicas, j)
			}
		}
		if !b.sharing.Empty() {
			sharedClaims(w, b.sharing.Groups[cfg.Name], "PodCliqueScalingGroup", sgName, groupReplicas)
		}
		for _, j := range groupReplicas {
			gang := base
			if j >= int(minAvail) {
				gang = b.gang(ScaledPodGangName(pcs.Name, r, cfg.Name, j-int(minAvail)), base.Name)
			}
			var podGroups []string
			for _, cn := range cfg.CliqueNames {
				if c := cliques[cn]; c != nil {
					name := GroupCliqueName(pcs.Name, r, cfg.Name, j, cn)
					b.clique(c, name, gang, cfg, j, nil)
					podGroups = append(podGroups, name)
				}
			}
			// Named as Grove names it: the scaling group's name and the group replica.
			groupConstraint(gang, cfg, fmt.Sprintf("%s-%d", sgName, j), podGroups, b.topology)
		}
	}
}

// sliceGangs labels the pods of coherent slices with their slice gang and adds those gangs:
// one podgroup per PodClique, every listed pod required, the packing and priority of the
// replica's template, no base gang (a slice is placed on its own).
func (w *World) sliceGangs(set *grovev1.PodCliqueSet, owner metav1.OwnerReference, obs Observed) {
	if len(obs.SliceGangs) == 0 {
		return
	}
	gangs := map[string]*schedv1.PodGang{}
	groups := map[string]map[string]int{} // gang -> clique -> podgroup index
	for i, p := range w.Pods {
		name := obs.SliceGangs[MemberOf(p.Labels)]
		if name == "" {
			continue
		}
		// A copy: the pod may be shared with a cached replica world (DesiredCache).
		cp := *p
		cp.Labels = maps.Clone(p.Labels)
		cp.Labels[grovev1.LabelCoherentSlice] = name
		w.Pods[i], p = &cp, &cp
		g := gangs[name]
		if g == nil {
			r := index.Parse(p.Labels[grovev1.LabelPodCliqueSetReplicaIndex])
			b := &replicaBuilder{pcs: ReplicaPCS(set, obs.ReplicaTemplates, r), replica: r, owner: owner, world: w, topology: obs.TopologyKeys}
			g = b.gang(name, "")
			g.Labels[grovev1.LabelCoherentSlice] = name
			gangs[name], groups[name] = g, map[string]int{}
		}
		clique := p.Labels[grovev1.LabelPodClique]
		gi, ok := groups[name][clique]
		if !ok {
			gi = len(g.Spec.PodGroups)
			groups[name][clique] = gi
			g.Spec.PodGroups = append(g.Spec.PodGroups, schedv1.PodGroup{Name: clique})
		}
		pg := &g.Spec.PodGroups[gi]
		pg.PodReferences = append(pg.PodReferences, schedv1.NamespacedName{Namespace: p.Namespace, Name: p.Name})
		pg.MinReplicas++
	}
}

type replicaBuilder struct {
	pcs     *grovev1.PodCliqueSet
	replica int
	owner   metav1.OwnerReference
	world   *World
	// hashes are the template hashes computed so far in this Desired call, by template:
	// every replica's cliques share their template, and hashing one marshals it whole.
	hashes map[*grovev1.PodCliqueTemplateSpec]string
	// existing are Observed.ExistingPods, podNames Observed.PodNames, obsCliques
	// Observed.Cliques.
	existing   map[string]*corev1.Pod
	podNames   map[string]string
	obsCliques map[string]*grovev1.PodClique
	// topology is Observed.TopologyKeys.
	topology map[string]string
	// sharing is the resource sharing of the replica's template.
	sharing *Sharing
}

// hash is TemplateHash(c), computed once per template and Desired call.
func (b *replicaBuilder) hash(c *grovev1.PodCliqueTemplateSpec) string {
	if b.hashes == nil {
		return TemplateHash(c)
	}
	h, ok := b.hashes[c]
	if !ok {
		h = TemplateHash(c)
		b.hashes[c] = h
	}
	return h
}

// labels are the labels of every object of the replica.
func (b *replicaBuilder) labels(extra map[string]string) map[string]string {
	l := make(map[string]string, 3+len(extra))
	l[grovev1.LabelPodCliqueSet] = b.pcs.Name
	l[LabelManagedBy] = ManagedBy
	l[grovev1.LabelPodCliqueSetReplicaIndex] = strconv.Itoa(b.replica)
	for k, v := range extra {
		l[k] = v
	}
	return l
}

func (b *replicaBuilder) meta(name string, extra map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: b.pcs.Namespace, Labels: b.labels(extra), OwnerReferences: []metav1.OwnerReference{b.owner}}
}

func (b *replicaBuilder) service() {
	publish := false
	if c := b.pcs.Spec.Template.HeadlessServiceConfig; c != nil {
		publish = c.PublishNotReadyAddresses
	}
	name := ServiceName(b.pcs.Name, b.replica)
	b.world.Services = append(b.world.Services, &corev1.Service{
		ObjectMeta: b.meta(name, nil),
		Spec: corev1.ServiceSpec{
			ClusterIP:                corev1.ClusterIPNone,
			Selector:                 map[string]string{grovev1.LabelPodCliqueSet: b.pcs.Name, grovev1.LabelPodCliqueSetReplicaIndex: strconv.Itoa(b.replica)},
			PublishNotReadyAddresses: publish,
		},
	})
}

func (b *replicaBuilder) gang(name, base string) *schedv1.PodGang {
	g := &schedv1.PodGang{
		ObjectMeta: b.meta(name, nil),
		Spec:       schedv1.PodGangSpec{PriorityClassName: b.pcs.Spec.Template.PriorityClassName},
	}
	if base != "" {
		g.Labels[grovev1.LabelBasePodGang] = base
	}
	g.Spec.TopologyConstraint = gangConstraint(b.pcs.Spec.Template.TopologyConstraint, b.topology)
	b.world.PodGangs = append(b.world.PodGangs, g)
	return g
}

// gangConstraint is a Grove topology constraint as a PodGang writes it: each domain as the
// node label key keys gives it (Grove's operator resolves domains through its
// ClusterTopologyBinding the same way), or as written when keys do not name it; nil when it
// packs nothing.
func gangConstraint(tc *grovev1.TopologyConstraint, keys map[string]string) *schedv1.TopologyConstraint {
	if tc.RequiredDomain() == "" && tc.PreferredDomain() == "" {
		return nil
	}
	key := func(d string) *string {
		if k, ok := keys[d]; ok && k != "" {
			return ptr.To(k)
		}
		return ptr.To(d)
	}
	pack := &schedv1.TopologyPackConstraint{}
	if d := tc.RequiredDomain(); d != "" {
		pack.Required = key(d)
	}
	if d := tc.PreferredDomain(); d != "" {
		pack.Preferred = key(d)
	}
	return &schedv1.TopologyConstraint{PackConstraint: pack}
}

// groupConstraint adds to gang the packing of one scaling-group replica (a
// topologyConstraintGroupConfig over its cliques' podgroups, as Grove writes it), when the
// group's template packs.
func groupConstraint(gang *schedv1.PodGang, cfg *grovev1.PodCliqueScalingGroupConfig, name string, podGroups []string, keys map[string]string) {
	tc := gangConstraint(cfg.TopologyConstraint, keys)
	if tc == nil || len(podGroups) == 0 {
		return
	}
	gang.Spec.TopologyConstraintGroupConfigs = append(gang.Spec.TopologyConstraintGroupConfigs,
		schedv1.TopologyConstraintGroupConfig{Name: name, PodGroupNames: podGroups, TopologyConstraint: tc})
}

func (b *replicaBuilder) scalingGroup(cfg *grovev1.PodCliqueScalingGroupConfig, name string, replicas, minAvail int32) {
	sg := &grovev1.PodCliqueScalingGroup{
		ObjectMeta: b.meta(name, map[string]string{grovev1.LabelPodCliqueScalingGroup: name}),
		Spec: grovev1.PodCliqueScalingGroupSpec{
			Replicas:     replicas,
			MinAvailable: ptr.To(minAvail),
			CliqueNames:  append([]string(nil), cfg.CliqueNames...),
		},
	}
	sg.Annotations = map[string]string{AnnotationTemplateReplicas: strconv.Itoa(int(ptr.Deref(cfg.Replicas, 1)))}
	b.world.ScalingGroups = append(b.world.ScalingGroups, sg)
}

// clique adds a PodClique, its pods and its podgroup in gang.
func (b *replicaBuilder) clique(c *grovev1.PodCliqueTemplateSpec, name string, gang *schedv1.PodGang, group *grovev1.PodCliqueScalingGroupConfig, groupReplica int, surge []int) {
	extra := map[string]string{grovev1.LabelPodClique: name, LabelCliqueTemplate: c.Name}
	sgName := ""
	if group != nil {
		sgName = ScalingGroupName(b.pcs.Name, b.replica, group.Name)
		extra[grovev1.LabelPodCliqueScalingGroup] = sgName
		extra[grovev1.LabelPodCliqueScalingGroupReplicaIndex] = strconv.Itoa(groupReplica)
	}
	for k, v := range c.Labels {
		extra[k] = v
	}
	var spec grovev1.PodCliqueSpec
	if b.existing != nil && b.obsCliques[name] != nil {
		// It exists: only its sizes are compared (see Observed.ExistingPods); the pod
		// template is not copied.
		spec = c.Spec
		spec.PodSpec = corev1.PodSpec{}
	} else {
		spec = *c.Spec.DeepCopy()
	}
	pclq := &grovev1.PodClique{ObjectMeta: b.meta(name, extra), Spec: spec}
	pclq.Spec.MinAvailable = ptr.To(CliqueMinAvailable(c))
	pclq.Annotations = c.Annotations
	if group == nil {
		// The template's value, against which a scale through the subresource is recognised
		// (CliqueReplicas); c carries the scaled count already.
		tmpl := c.Spec.Replicas
		for i := range b.pcs.Spec.Template.Cliques {
			if b.pcs.Spec.Template.Cliques[i].Name == c.Name {
				tmpl = b.pcs.Spec.Template.Cliques[i].Spec.Replicas
			}
		}
		pclq.Annotations = maps.Clone(c.Annotations)
		if pclq.Annotations == nil {
			pclq.Annotations = map[string]string{}
		}
		pclq.Annotations[AnnotationTemplateReplicas] = strconv.Itoa(int(tmpl))
	}
	b.world.Cliques = append(b.world.Cliques, pclq)

	hash := b.hash(c)
	pg := schedv1.PodGroup{Name: name, MinReplicas: CliqueMinAvailable(c), TopologyConstraint: gangConstraint(c.TopologyConstraint, b.topology)}
	indices := make([]int, 0, int(c.Spec.Replicas)+len(surge))
	for i := 0; i < int(c.Spec.Replicas); i++ {
		indices = append(indices, i)
	}
	for _, i := range surge {
		if i >= int(c.Spec.Replicas) {
			indices = append(indices, i)
		}
	}
	if !b.sharing.Empty() {
		sharedClaims(b.world, b.sharing.Cliques[c.Name], "PodClique", name, indices)
	}
	for _, i := range indices {
		pod := b.pod(c, pclq, i, gang, hash, sgName, group, groupReplica)
		if i >= int(c.Spec.Replicas) {
			pod.Labels[grovev1.LabelSurge] = "true"
		}
		pg.PodReferences = append(pg.PodReferences, schedv1.NamespacedName{Namespace: pod.Namespace, Name: pod.Name})
		b.world.Pods = append(b.world.Pods, pod)
	}
	gang.Spec.PodGroups = append(gang.Spec.PodGroups, pg)
}

func (b *replicaBuilder) pod(c *grovev1.PodCliqueTemplateSpec, pclq *grovev1.PodClique, i int, gang *schedv1.PodGang, hash, sgName string, group *grovev1.PodCliqueScalingGroupConfig, groupReplica int) *corev1.Pod {
	labels := make(map[string]string, len(pclq.Labels)+4)
	for k, v := range pclq.Labels {
		labels[k] = v
	}
	labels[grovev1.LabelPodCliquePodIndex] = strconv.Itoa(i)
	labels[grovev1.LabelPodGang] = gang.Name
	labels[grovev1.LabelPodTemplateHash] = hash
	if base := gang.Labels[grovev1.LabelBasePodGang]; base != "" {
		labels[grovev1.LabelBasePodGang] = base
	}
	name := PodName(pclq.Name, i)
	if adopted, ok := b.podNames[name]; ok {
		name = adopted
	}
	if b.existing[name] != nil {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: b.pcs.Namespace, Labels: labels, Annotations: pclq.Annotations}}
	}
	svc := ServiceName(b.pcs.Name, b.replica)
	spec := c.Spec.PodSpec.DeepCopy()
	spec.Hostname, spec.Subdomain = name, svc
	if spec.PriorityClassName == "" {
		spec.PriorityClassName = b.pcs.Spec.Template.PriorityClassName
	}
	env := []corev1.EnvVar{
		{Name: "GROVE_PCS_NAME", Value: b.pcs.Name},
		{Name: "GROVE_PCS_INDEX", Value: strconv.Itoa(b.replica)},
		{Name: "GROVE_PCLQ_NAME", Value: pclq.Name},
		{Name: "GROVE_HEADLESS_SERVICE", Value: fmt.Sprintf("%s.%s.svc.cluster.local", svc, b.pcs.Namespace)},
		{Name: "GROVE_PCLQ_POD_INDEX", Value: strconv.Itoa(i)},
	}
	if group != nil {
		env = append(env,
			corev1.EnvVar{Name: "GROVE_PCSG_NAME", Value: sgName},
			corev1.EnvVar{Name: "GROVE_PCSG_INDEX", Value: strconv.Itoa(groupReplica)},
			corev1.EnvVar{Name: "GROVE_PCSG_TEMPLATE_NUM_PODS", Value: strconv.Itoa(groupPods(b.pcs, group))},
		)
	}
	for ci := range spec.Containers {
		spec.Containers[ci].Env = append(spec.Containers[ci].Env, env...)
	}
	for ci := range spec.InitContainers {
		spec.InitContainers[ci].Env = append(spec.InitContainers[ci].Env, env...)
	}
	injectClaims(spec, b.sharing.podClaims(b.pcs.Name, b.replica, c.Name, pclq.Name, i, group, sgName, groupReplica))
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: b.pcs.Namespace, Labels: labels, Annotations: pclq.Annotations},
		Spec:       *spec,
	}
}

// groupPods is the number of pods in one replica of a scaling group.
func groupPods(pcs *grovev1.PodCliqueSet, g *grovev1.PodCliqueScalingGroupConfig) int {
	n := 0
	for _, cn := range g.CliqueNames {
		for i := range pcs.Spec.Template.Cliques {
			if pcs.Spec.Template.Cliques[i].Name == cn {
				n += int(pcs.Spec.Template.Cliques[i].Spec.Replicas)
			}
		}
	}
	return n
}

// replicaKeys computes, per replica, a key of everything buildReplica reads for it: its
// template, whether existing pods are given, its observed cliques and scaling groups (their
// replicas and template-replicas annotation), the names of its existing pods, its surge pods
// and surge group replicas, and whether it is a surge replica.
type replicaKeys struct {
	set                    *grovev1.PodCliqueSet
	obs                    Observed
	templates              map[*grovev1.PodCliqueSetTemplateSpec]string
	cliques, groups, pods  map[int][]string
	surgePods, surgeGroups map[int][]string
	surgeReplicas          map[int]bool
	// topology is Observed.TopologyKeys written in key order (every replica's gangs read it).
	topology string
}

func newReplicaKeys(set *grovev1.PodCliqueSet, obs Observed) *replicaKeys {
	k := &replicaKeys{set: set, obs: obs, templates: map[*grovev1.PodCliqueSetTemplateSpec]string{},
		cliques: map[int][]string{}, groups: map[int][]string{}, pods: map[int][]string{},
		surgePods: map[int][]string{}, surgeGroups: map[int][]string{}, surgeReplicas: map[int]bool{}}
	for name, c := range obs.Cliques {
		r := k.replicaOf(name)
		k.cliques[r] = append(k.cliques[r], name+"/"+strconv.Itoa(int(c.Spec.Replicas))+"/"+c.Annotations[AnnotationTemplateReplicas])
	}
	for name, g := range obs.ScalingGroups {
		r := k.replicaOf(name)
		k.groups[r] = append(k.groups[r], name+"/"+strconv.Itoa(int(g.Spec.Replicas))+"/"+g.Annotations[AnnotationTemplateReplicas])
	}
	for name := range obs.ExistingPods {
		r := k.replicaOf(name)
		k.pods[r] = append(k.pods[r], name)
	}
	for name, idx := range obs.SurgePods {
		r := k.replicaOf(name)
		k.surgePods[r] = append(k.surgePods[r], name+"/"+fmt.Sprint(idx))
	}
	for name, idx := range obs.SurgeGroupReplicas {
		r := k.replicaOf(name)
		k.surgeGroups[r] = append(k.surgeGroups[r], name+"/"+fmt.Sprint(idx))
	}
	for _, r := range obs.SurgeReplicas {
		k.surgeReplicas[r] = true
	}
	if obs.TopologyKeys != nil {
		// fmt prints maps in key order.
		k.topology = fmt.Sprint(obs.TopologyKeys)
	}
	for _, m := range []map[int][]string{k.cliques, k.groups, k.pods, k.surgePods, k.surgeGroups} {
		for _, v := range m {
			sort.Strings(v)
		}
	}
	return k
}

// replicaOf is the replica index in the name of a child of the set ("<set>-<r>-..."), -1
// for a name of no replica.
func (k *replicaKeys) replicaOf(name string) int {
	rest, ok := strings.CutPrefix(name, k.set.Name+"-")
	if !ok {
		return -1
	}
	digits, _, _ := strings.Cut(rest, "-")
	r, err := strconv.Atoi(digits)
	if err != nil {
		return -1
	}
	return r
}

// of is replica r's key.
func (k *replicaKeys) of(r int) string {
	t := k.obs.ReplicaTemplates[r]
	if t == nil {
		t = &k.set.Spec.Template
	}
	th, ok := k.templates[t]
	if !ok {
		// json.Marshal writes map keys in order: equal templates key equally.
		raw, _ := json.Marshal(t)
		h := fnv.New64a()
		_, _ = h.Write(raw)
		th = strconv.FormatUint(h.Sum64(), 36)
		k.templates[t] = th
	}
	var b strings.Builder
	b.WriteString(th)
	fmt.Fprintf(&b, "|%t|%t|%s", k.obs.ExistingPods != nil, k.surgeReplicas[r], k.topology)
	for _, part := range [][]string{k.cliques[r], k.groups[r], k.pods[r], k.surgePods[r], k.surgeGroups[r]} {
		b.WriteByte('|')
		for _, s := range part {
			b.WriteString(s)
			b.WriteByte(',')
		}
	}
	return b.String()
}
