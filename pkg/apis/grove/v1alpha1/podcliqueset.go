package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.hpaPodSelector
// +kubebuilder:resource:shortName={pcs}
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.spec.replicas`
// +kubebuilder:printcolumn:name="Available",type=integer,JSONPath=`.status.availableReplicas`
// +kubebuilder:printcolumn:name="Updated",type=integer,JSONPath=`.status.updatedReplicas`
// +kubebuilder:printcolumn:name="Strategy",type=string,JSONPath=`.spec.updateStrategy.type`
// +kubebuilder:printcolumn:name="Progressing",type=string,JSONPath=`.status.conditions[?(@.type=="Progressing")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// PodCliqueSet is a set of identical replicas of a multi-role workload (for example prefill and
// decode with leaders and workers). Each replica is made of PodCliques and PodCliqueScalingGroups
// and is gang-scheduled through PodGangs. Grove's rules for its topology fields are kept (a
// PodCliqueSet Grove's API server refuses, Phalanx's refuses with the same message):
// +kubebuilder:validation:XValidation:rule="oldSelf.hasValue() || !has(self.spec.template.topologyConstraint) || !has(self.spec.template.topologyConstraint.packDomain)",message="packDomain is deprecated and cannot be used on new workloads; use pack.required",fieldPath=".spec.template.topologyConstraint.packDomain",optionalOldSelf=true,reason=FieldValueForbidden
// +kubebuilder:validation:XValidation:rule="oldSelf.hasValue() || !has(self.spec.template.cliques) || self.spec.template.cliques.all(c, !has(c.topologyConstraint) || !has(c.topologyConstraint.packDomain))",message="packDomain is deprecated and cannot be used on new workloads; use pack.required",fieldPath=".spec.template.cliques",optionalOldSelf=true,reason=FieldValueForbidden
// +kubebuilder:validation:XValidation:rule="oldSelf.hasValue() || !has(self.spec.template.podCliqueScalingGroups) || self.spec.template.podCliqueScalingGroups.all(g, !has(g.topologyConstraint) || !has(g.topologyConstraint.packDomain))",message="packDomain is deprecated and cannot be used on new workloads; use pack.required",fieldPath=".spec.template.podCliqueScalingGroups",optionalOldSelf=true,reason=FieldValueForbidden
type PodCliqueSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state of the PodCliqueSet.
	Spec PodCliqueSetSpec `json:"spec"`
	// Status is the observed state of the PodCliqueSet.
	// +optional
	Status PodCliqueSetStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// PodCliqueSetList is a list of PodCliqueSets.
type PodCliqueSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []PodCliqueSet `json:"items"`
}

// PodCliqueSetSpec is the desired state of a PodCliqueSet.
// +kubebuilder:validation:XValidation:rule="!has(self.updateStrategy) || !has(self.updateStrategy.type) || self.updateStrategy.type != 'ReplicaRecreate' || !has(self.template.cliques) || self.template.cliques.all(c, !has(c.updateStrategy))",message="clique updateStrategy is not used under ReplicaRecreate; remove it",fieldPath=".template.cliques"
// +kubebuilder:validation:XValidation:rule="!has(self.updateStrategy) || !has(self.updateStrategy.type) || self.updateStrategy.type != 'ReplicaRecreate' || !has(self.template.podCliqueScalingGroups) || self.template.podCliqueScalingGroups.all(g, !has(g.updateStrategy))",message="scaling group updateStrategy is not used under ReplicaRecreate; remove it",fieldPath=".template.podCliqueScalingGroups"
type PodCliqueSetSpec struct {
	// Replicas is the desired number of PodCliqueSet replicas.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// UpdateStrategy says how replicas are replaced when the template changes.
	// +optional
	UpdateStrategy *PodCliqueSetUpdateStrategy `json:"updateStrategy,omitempty"`
	// Template describes every replica.
	Template PodCliqueSetTemplateSpec `json:"template"`
	// RevisionHistoryLimit is how many revisions of the template are kept as
	// ControllerRevisions besides the one the PodCliqueSet moves to and the last complete one
	// (for `kubectl phalanx rollout history|undo`). Default 10.
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=0
	// +optional
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`
}

// UpdateStrategyType is the kind of update of a PodCliqueSet.
// +kubebuilder:validation:Enum=RollingUpdate;RollingRecreate;ReplicaRecreate;OnDelete;Coherent
type UpdateStrategyType string

const (
	// RollingUpdateStrategyType updates PCS replicas one at a time; inside a replica, standalone
	// cliques roll pods and scaling groups roll their replicas, each by its own budget.
	RollingUpdateStrategyType UpdateStrategyType = "RollingUpdate"
	// ReplicaRecreateStrategyType deletes and recreates whole PCS replicas (for versions that
	// cannot run beside each other), with PCS-level maxUnavailable and maxSurge.
	ReplicaRecreateStrategyType UpdateStrategyType = "ReplicaRecreate"
	// RollingRecreateStrategyType is Grove's name (and default) for the same update as
	// RollingUpdate under its default budgets: PCS replicas one at a time, pods of standalone
	// cliques and scaling-group replicas deleted and recreated one at a time (maxUnavailable 1,
	// maxSurge 0, which the webhook sets where no budget is given). Accepted so that a
	// PodCliqueSet written for Grove means the same here; it is kept as written.
	RollingRecreateStrategyType UpdateStrategyType = "RollingRecreate"
	// OnDeleteStrategyType is Grove's OnDelete: a template change deletes nothing; a member
	// that is deleted (by a user, an eviction, a node loss) or that finishes is recreated from
	// the newest template. The update ends at once; status counts the replicas whose pods all
	// run the newest template, and Progressing says how many pods wait for their deletion.
	OnDeleteStrategyType UpdateStrategyType = "OnDelete"
	// CoherentStrategyType is Grove's Coherent (GREP-393): the components a template change
	// touches are replaced in coherent slices, one PCS replica at a time. A slice is, for every
	// changed component of the replica, its minAvailable pods (standalone clique) or group
	// replicas (scaling group), created as one new gang at the new revision and placed
	// all-or-nothing, so that no replica serves with only one side of a prefill/decode pair
	// updated. Components the change did not touch are left alone. The PCS-level rollingUpdate
	// budgets count slices: with maxSurge >= 1 a new slice is available before an old one is
	// drained; with maxSurge 0 an old slice is drained first (Grove's behaviour).
	CoherentStrategyType UpdateStrategyType = "Coherent"
)

// Rolling reports whether t updates replica by replica with component budgets (RollingUpdate,
// its Grove name RollingRecreate, or unset).
func (t UpdateStrategyType) Rolling() bool {
	return t == "" || t == RollingUpdateStrategyType || t == RollingRecreateStrategyType
}

// CoherentDefaultMaxUnavailable is Coherent's maxUnavailable when none is given: 0 with a
// maxSurge other than 0 (a new slice is available before an old one goes), else 1 (an old slice
// is drained first). The webhook writes it; the controller reads the same where it did not.
func CoherentDefaultMaxUnavailable(maxSurge *intstr.IntOrString) intstr.IntOrString {
	if maxSurge != nil && maxSurge.String() != "0" && maxSurge.String() != "0%" {
		return intstr.FromInt32(0)
	}
	return intstr.FromInt32(1)
}

// DefaultProgressDeadlineSeconds is the progress deadline when none is given.
const DefaultProgressDeadlineSeconds int32 = 600

// PodCliqueSetUpdateStrategy says how a PodCliqueSet is updated.
// +kubebuilder:validation:XValidation:rule="!has(self.rollingUpdate) || (has(self.type) && (self.type == 'ReplicaRecreate' || self.type == 'Coherent')) || ((!has(self.rollingUpdate.maxUnavailable) || self.rollingUpdate.maxUnavailable == 1) && (!has(self.rollingUpdate.maxSurge) || self.rollingUpdate.maxSurge == 0))",message="rollingUpdate budgets at the PodCliqueSet level are only allowed with type ReplicaRecreate or Coherent (RollingUpdate always updates one replica at a time: maxUnavailable 1, maxSurge 0)",fieldPath=".rollingUpdate"
type PodCliqueSetUpdateStrategy struct {
	// Type is RollingUpdate (default; Grove's name RollingRecreate is the same), ReplicaRecreate,
	// OnDelete or Coherent.
	// +kubebuilder:default=RollingUpdate
	// +optional
	Type UpdateStrategyType `json:"type,omitempty"`
	// RollingUpdate holds the PCS-level budgets: PCS replicas under ReplicaRecreate, coherent
	// slices under Coherent. Only valid with those (and partition with any type but OnDelete).
	// +optional
	RollingUpdate *RollingUpdateBudget `json:"rollingUpdate,omitempty"`
	// ProgressDeadlineSeconds is how long an update may make no progress before the
	// PodCliqueSet reports Progressing=False with reason ProgressDeadlineExceeded. The update
	// keeps trying after that.
	// +kubebuilder:default=600
	// +kubebuilder:validation:Minimum=1
	// +optional
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds,omitempty"`
	// Paused stops the update where it is: no member of an older revision is replaced and no
	// surge member is created or removed while it is true. Scaling and self-healing go on
	// (a member created meanwhile takes the newest template). The PodCliqueSet reports
	// Progressing=Unknown with reason Paused, and the progress deadline does not run.
	// +optional
	Paused bool `json:"paused,omitempty"`
	// RollbackOnFailure rolls an update back to the last complete revision
	// (status.completeRevision) when its progress deadline passes or when every new member of
	// the update has failed: the controller sets that revision's template back into
	// spec.template and rolls to it with the same strategy and budgets, reports
	// Progressing=False with reason RolledBack and records a RolledBack event.
	// +optional
	RollbackOnFailure bool `json:"rollbackOnFailure,omitempty"`
}

// RollingUpdateBudget bounds how many members may be unavailable and how many may be created
// above the desired count during an update. Values are absolute numbers or percentages of the
// desired count; surge rounds up, unavailable rounds down, as for Deployments.
type RollingUpdateBudget struct {
	// MaxUnavailable is how many members may be unavailable because of the update.
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 0 : self.matches('^[0-9]+%$')",message="must be a non-negative integer or a percentage such as '25%'"
	// +optional
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
	// MaxSurge is how many members may be created above the desired count.
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 0 : self.matches('^[0-9]+%$')",message="must be a non-negative integer or a percentage such as '25%'"
	// +optional
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty"`
	// Partition holds the PodCliqueSet replicas with an index below it at the last complete
	// revision (status.completeRevision) during an update, as a StatefulSet's partition: the
	// replicas at or above it are updated (a canary), those below keep their template, and a
	// member of theirs that is lost is recreated from it. Lowering it continues the update; the
	// update completes when it is 0. Any update type but OnDelete; at most spec.replicas.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Partition *int32 `json:"partition,omitempty"`
}

// ComponentUpdateStrategy is the update strategy of a standalone clique (pods) or a scaling
// group (its replicas) under the RollingUpdate type. Defaults: maxUnavailable 1, maxSurge 0.
// The format of the values is checked by the admission webhook: a CEL rule per list item
// exceeds the apiserver's CRD cost budget.
type ComponentUpdateStrategy struct {
	// MaxUnavailable is how many members may be unavailable because of the update.
	// +kubebuilder:validation:XIntOrString
	// +optional
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
	// MaxSurge is how many members may be created above the desired count.
	// +kubebuilder:validation:XIntOrString
	// +optional
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty"`
}

// RollingUpdateConfiguration is Grove's per-component rolling-update configuration (grove#817).
// Phalanx reads maxUnavailable as the component's updateStrategy.maxUnavailable where that is
// unset (ComponentBudgets; the webhook also writes it there, and both set must agree) and
// progressDeadline as a bound on the PodCliqueSet's progress deadline.
type RollingUpdateConfiguration struct {
	// MaxUnavailable is how many pods (standalone clique) or group replicas may be unavailable
	// at once during an update.
	// +kubebuilder:validation:Minimum=0
	// +optional
	MaxUnavailable *int32 `json:"maxUnavailable,omitempty"`
	// ProgressDeadline is how long the component's update may make no step before the update
	// is reported as not progressing.
	// +optional
	ProgressDeadline *metav1.Duration `json:"progressDeadline,omitempty"`
}

// PodCliqueSetTemplateSpec describes one replica of a PodCliqueSet.
type PodCliqueSetTemplateSpec struct {
	// Cliques are the roles of a replica. There is at least one.
	// +kubebuilder:validation:MinItems=1
	// +listType=map
	// +listMapKey=name
	Cliques []PodCliqueTemplateSpec `json:"cliques"`
	// StartupType orders the start of the cliques of a replica.
	// +kubebuilder:default=CliqueStartupTypeAnyOrder
	// +optional
	StartupType *CliqueStartupType `json:"cliqueStartupType,omitempty"`
	// PriorityClassName is the priority class of every pod and PodGang of the PodCliqueSet.
	// +optional
	PriorityClassName string `json:"priorityClassName,omitempty"`
	// HeadlessServiceConfig configures the headless Service of each replica.
	// +optional
	HeadlessServiceConfig *HeadlessServiceConfig `json:"headlessServiceConfig,omitempty"`
	// TopologyConstraint packs every gang of a replica into one topology domain.
	// +optional
	TopologyConstraint *TopologyConstraint `json:"topologyConstraint,omitempty"`
	// TerminationDelay is how long a gang that fell below its minimum after having been
	// available may stay so before its PodCliqueSet replica (or scaling-group replica) is
	// recreated whole (gang termination). Default 4h.
	// +optional
	TerminationDelay *metav1.Duration `json:"terminationDelay,omitempty"`
	// PodCliqueScalingGroupConfigs are groups of cliques that scale together.
	// +listType=map
	// +listMapKey=name
	// +optional
	PodCliqueScalingGroupConfigs []PodCliqueScalingGroupConfig `json:"podCliqueScalingGroups,omitempty"`
	// ResourceClaimTemplates and ResourceSharing are Grove's (DRA claims shared by the pods
	// below an owner), kept as written (any fields) and read by the controller
	// (workload.SharingOf; the webhook refuses entries it cannot read).
	// +optional
	ResourceClaimTemplates []GroveObject `json:"resourceClaimTemplates,omitempty"`
	// +optional
	ResourceSharing []GroveObject `json:"resourceSharing,omitempty"`
}

// CliqueStartupType orders the start of the cliques of a replica.
// +kubebuilder:validation:Enum=CliqueStartupTypeAnyOrder;CliqueStartupTypeInOrder;CliqueStartupTypeExplicit
type CliqueStartupType string

const (
	// CliqueStartupTypeAnyOrder starts the cliques in any order.
	CliqueStartupTypeAnyOrder CliqueStartupType = "CliqueStartupTypeAnyOrder"
	// CliqueStartupTypeInOrder starts the cliques in the order they are listed.
	CliqueStartupTypeInOrder CliqueStartupType = "CliqueStartupTypeInOrder"
	// CliqueStartupTypeExplicit starts the cliques after those named in startsAfter.
	CliqueStartupTypeExplicit CliqueStartupType = "CliqueStartupTypeExplicit"
)

// HeadlessServiceConfig configures the headless Service of a replica.
type HeadlessServiceConfig struct {
	// PublishNotReadyAddresses publishes the addresses of pods that are not ready yet.
	PublishNotReadyAddresses bool `json:"publishNotReadyAddresses"`
}

// TopologyConstraint packs members into one topology domain. Grove names domains (rack, host)
// and resolves them through a ClusterTopologyBinding (topologyName); Phalanx's controller does
// the same where the API server serves Grove's ClusterTopologyBinding, and otherwise reads a
// domain as the node label key itself (docs/architecture.md, "Topology: every level in one placement").
// +kubebuilder:validation:XValidation:rule="has(self.pack) || has(self.packDomain)",message="topologyConstraint must specify pack or deprecated packDomain",fieldPath=".pack",reason=FieldValueRequired
// +kubebuilder:validation:XValidation:rule="!(has(self.packDomain) && has(self.pack) && has(self.pack.required))",message="must not set both pack.required and deprecated packDomain",fieldPath=".pack.required"
type TopologyConstraint struct {
	// PackDomain is the domain all members must share; deprecated for pack.required, and
	// refused on a new PodCliqueSet as Grove refuses it (kept for sets made before).
	// +optional
	PackDomain *string `json:"packDomain,omitempty"`
	// Pack is Grove's current form: required and preferred packing domains.
	// +optional
	Pack *TopologyPackConstraint `json:"pack,omitempty"`
	// TopologyName names Grove's ClusterTopologyBinding, through which the controller resolves
	// domain names to node label keys.
	// +optional
	TopologyName string `json:"topologyName,omitempty"`
}

// TopologyPackConstraint is a required and a preferred packing domain.
// +kubebuilder:validation:XValidation:rule="has(self.required) || has(self.preferred)",message="pack must specify at least one of required or preferred",reason=FieldValueRequired
type TopologyPackConstraint struct {
	// Required: the members are placed in one domain or not at all.
	// +optional
	Required string `json:"required,omitempty"`
	// Preferred: one domain when possible.
	// +optional
	Preferred string `json:"preferred,omitempty"`
}

// RequiredDomain is the required packing domain: pack.required, else packDomain.
func (t *TopologyConstraint) RequiredDomain() string {
	switch {
	case t == nil:
		return ""
	case t.Pack != nil && t.Pack.Required != "":
		return t.Pack.Required
	case t.PackDomain != nil:
		return *t.PackDomain
	}
	return ""
}

// PreferredDomain is pack.preferred.
func (t *TopologyConstraint) PreferredDomain() string {
	if t == nil || t.Pack == nil {
		return ""
	}
	return t.Pack.Preferred
}

// PodCliqueTemplateSpec describes one clique of a replica.
type PodCliqueTemplateSpec struct {
	// Name of the clique, unique in the PodCliqueSet.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=45
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`
	// Labels are added to the PodClique and its pods.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// Annotations are added to the PodClique and its pods.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
	// TopologyConstraint packs the pods of this clique into one topology domain.
	// +optional
	TopologyConstraint *TopologyConstraint `json:"topologyConstraint,omitempty"`
	// UpdateStrategy is the budget for rolling the pods of a standalone clique. It is rejected on
	// a clique that belongs to a scaling group and under ReplicaRecreate.
	// +optional
	UpdateStrategy *ComponentUpdateStrategy `json:"updateStrategy,omitempty"`
	// RollingUpdate is Grove's form of the component budget (see RollingUpdateConfiguration).
	// +optional
	RollingUpdate *RollingUpdateConfiguration `json:"rollingUpdate,omitempty"`
	// Spec is the specification of the PodClique made from this template.
	Spec PodCliqueSpec `json:"spec"`
	// ResourceSharing is Grove's: claims shared by the clique's pods (workload.SharingOf).
	// +optional
	ResourceSharing []GroveObject `json:"resourceSharing,omitempty"`
}

// PodCliqueScalingGroupConfig is a group of cliques that scale together as one unit.
// +kubebuilder:validation:XValidation:rule="!has(self.minAvailable) || !has(self.replicas) || self.minAvailable <= self.replicas",message="minAvailable must not exceed replicas",fieldPath=".minAvailable"
type PodCliqueScalingGroupConfig struct {
	// Name of the scaling group, unique in the PodCliqueSet.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=45
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`
	// CliqueNames are the cliques that form one replica of the group.
	// +kubebuilder:validation:MinItems=1
	// +listType=set
	CliqueNames []string `json:"cliqueNames"`
	// Replicas is the desired number of replicas of the group.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
	// MinAvailable is how many replicas of the group must be available for the PCS replica to
	// be available. Replicas 0..minAvailable-1 form the base gang; higher ones are scaled gangs.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +optional
	MinAvailable *int32 `json:"minAvailable,omitempty"`
	// UpdateStrategy is the budget for rolling the replicas of this group.
	// +optional
	UpdateStrategy *ComponentUpdateStrategy `json:"updateStrategy,omitempty"`
	// RollingUpdate is Grove's form of the component budget (see RollingUpdateConfiguration).
	// +optional
	RollingUpdate *RollingUpdateConfiguration `json:"rollingUpdate,omitempty"`
	// TopologyConstraint packs each replica of this group into one topology domain.
	// +optional
	TopologyConstraint *TopologyConstraint `json:"topologyConstraint,omitempty"`
	// Annotations are Grove's, for the scaling group object; kept as written.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
	// ScaleConfig (autoscaling bounds) is Grove's, kept as written, not acted on;
	// ResourceSharing (claims shared by the group's pods) is read (workload.SharingOf).
	// +optional
	ScaleConfig *GroveObject `json:"scaleConfig,omitempty"`
	// +optional
	ResourceSharing []GroveObject `json:"resourceSharing,omitempty"`
}

// PodCliqueSetStatus is the observed state of a PodCliqueSet.
type PodCliqueSetStatus struct {
	// ObservedGeneration is the generation the controller last acted on.
	// +optional
	ObservedGeneration *int64 `json:"observedGeneration,omitempty"`
	// Conditions: Available, Progressing (reason ProgressDeadlineExceeded when stalled),
	// SurgeBlocked.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// Replicas is the number of PCS replicas that exist, surge replicas included.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// UpdatedReplicas is the number of replicas whose every member runs the current template.
	// +optional
	UpdatedReplicas int32 `json:"updatedReplicas"`
	// AvailableReplicas is the number of replicas whose every gang meets its minimum with Ready pods.
	// +optional
	AvailableReplicas int32 `json:"availableReplicas"`
	// Selector selects the pods of the PodCliqueSet (for the scale subresource).
	// +optional
	Selector *string `json:"hpaPodSelector,omitempty"`
	// CurrentRevision is the hash of the template that the update moves to.
	// +optional
	CurrentRevision string `json:"currentRevision,omitempty"`
	// UpdateRevision names the ControllerRevision (apps/v1, <name>-<currentRevision>) of the
	// template that the update moves to.
	// +optional
	UpdateRevision string `json:"updateRevision,omitempty"`
	// CompleteRevision names the ControllerRevision of the last template that every member
	// reached (equal to UpdateRevision when no update is under way).
	// +optional
	CompleteRevision string `json:"completeRevision,omitempty"`
	// UpdateProgress reports the update under way, or the last one.
	// +optional
	UpdateProgress *PodCliqueSetUpdateProgress `json:"updateProgress,omitempty"`
	// CurrentGenerationHash is the revision of the template (Phalanx's controller writes it as
	// Grove's does).
	// +optional
	CurrentGenerationHash *string `json:"currentGenerationHash,omitempty"`
	// LastErrors are the errors of the controller's last pass, as Grove's operator records them:
	// set when a pass fails, emptied by the next pass that succeeds.
	// +optional
	LastErrors []LastError `json:"lastErrors,omitempty"`
	// PodGangStatuses is in Grove's schema, but Grove's operator does not write it (at the
	// pinned revision) and neither does Phalanx: kept as another writer wrote it.
	// +optional
	PodGangStatuses []GroveObject `json:"podGangStatuses,omitempty"`
}

// LastError is one error of a controller pass over the object (Grove's LastError).
type LastError struct {
	// Code identifies the kind of error (Phalanx: ERR_ and the API reason, e.g.
	// ERR_FORBIDDEN for a refusal by RBAC or a ResourceQuota; ERR_OTHER when it is not an API
	// error).
	Code string `json:"code"`
	// Description is the error as the controller's log and event say it.
	Description string `json:"description"`
	// ObservedAt is when the error was first seen (kept while the same error repeats).
	ObservedAt metav1.Time `json:"observedAt"`
}

// PodCliqueSetUpdateProgress reports an update.
type PodCliqueSetUpdateProgress struct {
	// UpdateStartedAt is when the update to the current revision started.
	UpdateStartedAt metav1.Time `json:"updateStartedAt"`
	// UpdateEndedAt is when every replica ran the current revision; unset while updating.
	// +optional
	UpdateEndedAt *metav1.Time `json:"updateEndedAt,omitempty"`
	// LastProgressAt is when the update last made a step (for the progress deadline).
	// +optional
	LastProgressAt *metav1.Time `json:"lastProgressAt,omitempty"`
	// UpdatingReplicas are the PCS replica indices being updated now.
	// Deprecated: read currentlyUpdating (Grove's name); kept for one release.
	// +optional
	// +listType=set
	UpdatingReplicas []int32 `json:"updatingReplicas,omitempty"`
	// CurrentlyUpdating are the PCS replicas being updated now, with when each started
	// (Grove's field).
	// +optional
	CurrentlyUpdating []ReplicaUpdateProgress `json:"currentlyUpdating,omitempty"`
	// The counts Grove writes, with Grove's meaning: the standalone PodCliques and the scaling
	// groups of every replica, and how many have converged to the current template
	// (workload.CountUpdated).
	// +optional
	TotalPodCliquesCount *int32 `json:"totalPodCliquesCount,omitempty"`
	// +optional
	UpdatedPodCliquesCount *int32 `json:"updatedPodCliquesCount,omitempty"`
	// +optional
	TotalPodCliqueScalingGroupsCount *int32 `json:"totalPodCliqueScalingGroupsCount,omitempty"`
	// +optional
	UpdatedPodCliqueScalingGroupsCount *int32 `json:"updatedPodCliqueScalingGroupsCount,omitempty"`
	// UpdatedStandalonePodCliques are, under Coherent, the standalone cliques (template names)
	// the update changes: the components its slices are made of (Grove's field).
	// +optional
	// +listType=set
	UpdatedStandalonePodCliques []string `json:"updatedStandalonePodCliques,omitempty"`
	// UpdatedPodCliqueScalingGroups are, under Coherent, the scaling groups (config names) with
	// a clique the update changes (Grove's field).
	// +optional
	// +listType=set
	UpdatedPodCliqueScalingGroups []string `json:"updatedPodCliqueScalingGroups,omitempty"`
}

// ReplicaUpdateProgress is the update of one PCS replica.
type ReplicaUpdateProgress struct {
	// ReplicaIndex is the PCS replica.
	ReplicaIndex int32 `json:"replicaIndex"`
	// UpdateStartedAt is when the update of this replica started.
	// +optional
	UpdateStartedAt *metav1.Time `json:"updateStartedAt,omitempty"`
	// UpdateEndedAt is when it ended.
	// +optional
	UpdateEndedAt *metav1.Time `json:"updateEndedAt,omitempty"`
	// InFlightPodGangs are, under Coherent, the gangs of the slices created for this replica
	// that are not available yet (Grove's field): the update waits for them before the next
	// slice is drained.
	// +optional
	InFlightPodGangs []string `json:"inFlightPodGangs,omitempty"`
	// Slices is, under Coherent, how many coherent slices the replica has (each a complete
	// serving set of the changed components), how many of them run the new revision, and how
	// many complete sets each revision can serve with now.
	// +optional
	Slices *CoherentSlices `json:"slices,omitempty"`
	// Components is, under Coherent, the available capacity of each changed component of the
	// replica per revision.
	// +optional
	Components []ComponentCapacity `json:"components,omitempty"`
}

// CoherentSlices counts the coherent slices of a PCS replica under update.
type CoherentSlices struct {
	// Desired is the number of slices of the replica: the fewest whole multiples of
	// minAvailable any changed component holds.
	Desired int32 `json:"desired"`
	// Updated are the slices whose members all run the new revision and are available.
	Updated int32 `json:"updated"`
	// Surge are the slices above Desired (maxSurge) that exist now.
	// +optional
	Surge int32 `json:"surge,omitempty"`
	// ServingSetsUpdated and ServingSetsOutdated are how many complete sets of the changed
	// components (minAvailable available members of each) run the new revision, and an older
	// one: what each revision can serve with now.
	ServingSetsUpdated  int32 `json:"servingSetsUpdated"`
	ServingSetsOutdated int32 `json:"servingSetsOutdated"`
}

// ComponentCapacity is the available capacity of one changed component of a PCS replica per
// revision: pods for a standalone clique, group replicas for a scaling group.
type ComponentCapacity struct {
	// Name is the PodClique or PodCliqueScalingGroup.
	Name string `json:"name"`
	// MinAvailable is the component's minAvailable: the size of its part of a slice.
	MinAvailable int32 `json:"minAvailable"`
	// Updated and Outdated are its available members at the new revision and at an older one.
	Updated  int32 `json:"updated"`
	Outdated int32 `json:"outdated"`
}

// Condition types and reasons of a PodCliqueSet.
const (
	ConditionAvailable    = "Available"
	ConditionProgressing  = "Progressing"
	ConditionSurgeBlocked = "SurgeBlocked"
	// ConditionUpdateInProgress is Grove's: True while an update of the template is under way.
	ConditionUpdateInProgress = "UpdateInProgress"

	ReasonProgressDeadlineExceeded = "ProgressDeadlineExceeded"
	// ReasonPaused is the reason of Progressing=Unknown while updateStrategy.paused holds an
	// update.
	ReasonPaused = "Paused"
	// ReasonRolledBack is the reason of Progressing=False after updateStrategy.rollbackOnFailure
	// rolled a failed update back (until the template is changed again).
	ReasonRolledBack = "RolledBack"
	// AnnotationRolledBack, set by the controller on a PodCliqueSet it rolled back, says from
	// which revision, to which, and why (JSON); it is removed when the template changes again.
	AnnotationRolledBack = "phalanx.dev/rolled-back"
)
