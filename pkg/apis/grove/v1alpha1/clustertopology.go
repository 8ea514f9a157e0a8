package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +genclient
// +genclient:nonNamespaced
// +genclient:onlyVerbs=get,list,watch
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:skipversion

// ClusterTopologyBinding is Grove's cluster topology (grove.io/v1alpha1, cluster-scoped): the
// ordered levels of the cluster's hierarchy, each a domain name that workloads use in their
// topology constraints (rack, block, zone) and the node label key that carries it. Phalanx's
// controller only reads it, to turn a PodCliqueSet's packing domains into the node label keys
// a PodGang names, as Grove's operator does; the CRD is Grove's (Phalanx installs none: it is
// read when the API server serves it).
type ClusterTopologyBinding struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ClusterTopologyBindingSpec `json:"spec"`
}

// ClusterTopologyBindingSpec is the part of Grove's spec Phalanx reads.
type ClusterTopologyBindingSpec struct {
	// Levels are the hierarchy's levels, from the broadest to the narrowest.
	Levels []TopologyLevel `json:"levels"`
}

// TopologyLevel is one level: a domain name and the node label key whose value names the
// domain a node is in.
type TopologyLevel struct {
	Domain string `json:"domain"`
	Key    string `json:"key"`
}

// +kubebuilder:object:root=true
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:skipversion

// ClusterTopologyBindingList is a list of ClusterTopologyBindings.
type ClusterTopologyBindingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterTopologyBinding `json:"items"`
}
