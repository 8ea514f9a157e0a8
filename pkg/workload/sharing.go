package workload

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
)

// Grove's resource sharing: ResourceClaims made from a template once per owner instance
// (scope AllReplicas) or once per replica of it (PerReplica), referenced by every pod below the
// owner that a filter admits. Owners are the PodCliqueSet (its replicas), a scaling group (its
// group replicas) and a PodClique (its pods). Names are Grove's: "<owner>-all-<template>" and
// "<owner>-<replica>-<template>".

// Sharing scopes.
const (
	ScopeAllReplicas = "AllReplicas"
	ScopePerReplica  = "PerReplica"
)

// ComponentResourceClaim is the app.kubernetes.io/component of the claims made for sharing.
const ComponentResourceClaim = "resource-claim"

// SharingRef is one resourceSharing entry: the template it names (the set's
// resourceClaimTemplates first, else a ResourceClaimTemplate object in Namespace, the set's
// namespace when empty), its scope, and which children it reaches (nil: every one).
type SharingRef struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	Scope     string `json:"scope"`
	Filter    *struct {
		ChildCliqueNames       []string `json:"childCliqueNames,omitempty"`
		ChildScalingGroupNames []string `json:"childScalingGroupNames,omitempty"`
	} `json:"filter,omitempty"`
}

// reaches reports whether the entry's filter admits a child named by any of names.
func (s SharingRef) reaches(names ...string) bool {
	if s.Filter == nil {
		return true
	}
	for _, n := range names {
		if slices.Contains(s.Filter.ChildCliqueNames, n) || slices.Contains(s.Filter.ChildScalingGroupNames, n) {
			return true
		}
	}
	return false
}

// claimName is the claim of owner made from s for replica r (AllReplicas: r is ignored).
func (s SharingRef) claimName(owner string, r int) string {
	if s.Scope == ScopeAllReplicas {
		return owner + "-all-" + s.Name
	}
	return owner + "-" + strconv.Itoa(r) + "-" + s.Name
}

// ClaimTemplate is one of the set's resourceClaimTemplates.
type ClaimTemplate struct {
	Name         string                               `json:"name"`
	TemplateSpec resourcev1.ResourceClaimTemplateSpec `json:"templateSpec"`
}

// Sharing is a PodCliqueSet's resource sharing, read from the Grove fields Phalanx keeps as
// written.
type Sharing struct {
	Templates []ClaimTemplate
	Set       []SharingRef
	Groups    map[string][]SharingRef // by scaling group config name
	Cliques   map[string][]SharingRef // by clique template name
}

// SharingOf reads the resource sharing of a PodCliqueSet template. An entry that does not
// parse, or names an unknown scope, is an error naming its field; the entries that parse are
// returned with it.
func SharingOf(t *grovev1.PodCliqueSetTemplateSpec) (*Sharing, error) {
	var errs []error
	decode := func(raw []grovev1.GroveObject, field string, into func(json.RawMessage) error) {
		for i, o := range raw {
			if err := into(o.Raw); err != nil {
				errs = append(errs, fmt.Errorf("%s[%d]: %w", field, i, err))
			}
		}
	}
	refs := func(field string, raw []grovev1.GroveObject) []SharingRef {
		var out []SharingRef
		decode(raw, field, func(b json.RawMessage) error {
			var r SharingRef
			if err := json.Unmarshal(b, &r); err != nil {
				return err
			}
			switch {
			case r.Name == "":
				return fmt.Errorf("name: required")
			case r.Scope != ScopeAllReplicas && r.Scope != ScopePerReplica:
				return fmt.Errorf("scope: %q is not %s or %s", r.Scope, ScopeAllReplicas, ScopePerReplica)
			}
			out = append(out, r)
			return nil
		})
		return out
	}
	s := &Sharing{Groups: map[string][]SharingRef{}, Cliques: map[string][]SharingRef{}}
	decode(t.ResourceClaimTemplates, "spec.template.resourceClaimTemplates", func(b json.RawMessage) error {
		var ct ClaimTemplate
		if err := json.Unmarshal(b, &ct); err != nil {
			return err
		}
		if ct.Name == "" {
			return fmt.Errorf("name: required")
		}
		s.Templates = append(s.Templates, ct)
		return nil
	})
	s.Set = refs("spec.template.resourceSharing", t.ResourceSharing)
	for i := range t.PodCliqueScalingGroupConfigs {
		g := &t.PodCliqueScalingGroupConfigs[i]
		if r := refs(fmt.Sprintf("spec.template.podCliqueScalingGroups[%d].resourceSharing", i), g.ResourceSharing); len(r) > 0 {
			s.Groups[g.Name] = r
		}
	}
	for i := range t.Cliques {
		c := &t.Cliques[i]
		if r := refs(fmt.Sprintf("spec.template.cliques[%d].resourceSharing", i), c.ResourceSharing); len(r) > 0 {
			s.Cliques[c.Name] = r
		}
	}
	if len(errs) > 0 {
		return s, fmt.Errorf("resource sharing: %v", errs)
	}
	return s, nil
}

// Empty reports whether nothing is shared.
func (s *Sharing) Empty() bool {
	return s == nil || (len(s.Set) == 0 && len(s.Groups) == 0 && len(s.Cliques) == 0)
}

// Template returns the set's own template a reference names (none when the reference names a
// namespace: it is then a ResourceClaimTemplate object).
func (s *Sharing) Template(ref SharingRef) *resourcev1.ResourceClaimTemplateSpec {
	if ref.Namespace != "" {
		return nil
	}
	for i := range s.Templates {
		if s.Templates[i].Name == ref.Name {
			return &s.Templates[i].TemplateSpec
		}
	}
	return nil
}

// SharedClaim is a ResourceClaim the set's resource sharing asks for.
type SharedClaim struct {
	Name string
	// OwnerKind (PodCliqueSet, PodClique or PodCliqueScalingGroup) and OwnerName own it: it
	// goes with its owner.
	OwnerKind, OwnerName string
	// Ref is the entry it is made from (its template resolved when it is created).
	Ref SharingRef
}

// sharedClaims adds the claims of one owner instance: its AllReplicas entries once, its
// PerReplica entries once per replica in replicas.
func sharedClaims(w *World, refs []SharingRef, kind, owner string, replicas []int) {
	for _, ref := range refs {
		if ref.Scope == ScopeAllReplicas {
			w.addClaim(SharedClaim{Name: ref.claimName(owner, 0), OwnerKind: kind, OwnerName: owner, Ref: ref})
			continue
		}
		for _, r := range replicas {
			w.addClaim(SharedClaim{Name: ref.claimName(owner, r), OwnerKind: kind, OwnerName: owner, Ref: ref})
		}
	}
}

// addClaim adds c unless a claim of its name is there already (a set-wide claim is asked for
// by every replica).
func (w *World) addClaim(c SharedClaim) {
	if w.claimNames == nil {
		w.claimNames = make(map[string]bool, len(w.Claims)+1)
		for _, x := range w.Claims {
			w.claimNames[x.Name] = true
		}
	}
	if w.claimNames[c.Name] {
		return
	}
	w.claimNames[c.Name] = true
	w.Claims = append(w.Claims, c)
}

// injectClaims adds to a pod's spec the claims of the entries that reach it (Grove's order:
// the set's, its scaling group's, its clique's), each as a pod resource claim and a claim of
// every container and init container.
func injectClaims(spec *corev1.PodSpec, names []string) {
	for _, n := range names {
		spec.ResourceClaims = append(spec.ResourceClaims, corev1.PodResourceClaim{Name: n, ResourceClaimName: &n})
		for ci := range spec.Containers {
			spec.Containers[ci].Resources.Claims = append(spec.Containers[ci].Resources.Claims, corev1.ResourceClaim{Name: n})
		}
		for ci := range spec.InitContainers {
			spec.InitContainers[ci].Resources.Claims = append(spec.InitContainers[ci].Resources.Claims, corev1.ResourceClaim{Name: n})
		}
	}
}

// podClaims are the names of the shared claims a pod reaches: pod i of clique template c
// (PodClique pclq) in replica r, in scaling group config group (nil if standalone; sgName its
// scaling group, groupReplica its replica).
func (s *Sharing) podClaims(pcs string, r int, c, pclq string, i int, group *grovev1.PodCliqueScalingGroupConfig, sgName string, groupReplica int) []string {
	if s.Empty() {
		return nil
	}
	var out []string
	match := []string{c}
	if group != nil {
		match = append(match, group.Name)
	}
	for _, ref := range s.Set {
		if ref.reaches(match...) {
			out = append(out, ref.claimName(pcs, r))
		}
	}
	if group != nil {
		for _, ref := range s.Groups[group.Name] {
			if ref.reaches(c) {
				out = append(out, ref.claimName(sgName, groupReplica))
			}
		}
	}
	for _, ref := range s.Cliques[c] {
		out = append(out, ref.claimName(pclq, i))
	}
	return out
}
