package v1alpha1

// Labels that Grove puts on the objects it makes. Phalanx writes and reads the same keys so that
// workloads made by the Grove operator and by Phalanx are scheduled the same way.
const (
	// LabelPodCliqueSet names the PodCliqueSet that owns an object.
	LabelPodCliqueSet = "app.kubernetes.io/part-of"
	// LabelPodGang names the PodGang a pod belongs to.
	LabelPodGang = "grove.io/podgang"
	// LabelBasePodGang, on a pod of a scaled PodGang, names the base PodGang it is gated on.
	LabelBasePodGang = "grove.io/base-podgang"
	// LabelPodClique names the PodClique a pod belongs to.
	LabelPodClique = "grove.io/podclique"
	// LabelPodCliqueScalingGroup names the PodCliqueScalingGroup a PodClique or pod belongs to.
	LabelPodCliqueScalingGroup = "grove.io/podcliquescalinggroup"
	// LabelPodCliqueSetReplicaIndex is the PCS replica index of a pod, PodClique or PodGang.
	LabelPodCliqueSetReplicaIndex = "grove.io/podcliqueset-replica-index"
	// LabelPodCliqueScalingGroupReplicaIndex is the PCSG replica index of a pod or PodClique.
	LabelPodCliqueScalingGroupReplicaIndex = "grove.io/podcliquescalinggroup-replica-index"
	// LabelPodCliquePodIndex is the index of a pod inside its PodClique.
	LabelPodCliquePodIndex = "grove.io/podclique-pod-index"
	// LabelPodTemplateHash is the hash of the pod template a pod was made from (its revision).
	LabelPodTemplateHash = "grove.io/pod-template-hash"

	// SchedulingGatePodGangPendingCreation is the scheduling gate the Grove operator puts on
	// pods until their PodGang exists.
	SchedulingGatePodGangPendingCreation = "grove.io/podgang-pending-creation"
)

// Phalanx's own extension keys, not Grove's.
const (
	// LabelSurge marks a pod or PodGang created above the desired count during an update.
	// Surge members never count toward a gang's quorum and never hold it hostage.
	LabelSurge = "phalanx.dev/surge"
	// LabelCoherentSlice, on a pod, names the PodGang of the coherent slice it was created
	// with (updateStrategy Coherent): the pod is a member of that gang, which places the whole
	// slice all-or-nothing, instead of the gang of grove.io/podgang. The controller removes
	// the label once the slice is available; the pod is then a member of its regular gang
	// again. On a PodGang it marks a slice gang.
	LabelCoherentSlice = "phalanx.dev/coherent-slice"
)
