package admission

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// MaxGeneratedNameLength bounds every name Phalanx derives from a PodCliqueSet: pod names are
// also their hostnames and the PodClique names are label values, both DNS labels.
const MaxGeneratedNameLength = validation.DNS1123LabelMaxLength

var percentRE = regexp.MustCompile(`^(0|[1-9][0-9]*)%$`)

// ValidatePodCliqueSet checks a PodCliqueSet as it would be stored (after Default). Every error
// names the field path and the reason.
func ValidatePodCliqueSet(pcs *grovev1.PodCliqueSet) field.ErrorList {
	var errs field.ErrorList
	spec := &pcs.Spec
	specPath := field.NewPath("spec")
	tplPath := specPath.Child("template")
	for _, msg := range validation.IsDNS1123Label(pcs.Name) {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), pcs.Name, msg))
	}
	if spec.Replicas < 0 {
		errs = append(errs, field.Invalid(specPath.Child("replicas"), spec.Replicas, "must not be negative"))
	}

	// Cliques: names, replicas, minAvailable, one scheduler.
	cliquesPath := tplPath.Child("cliques")
	if len(spec.Template.Cliques) == 0 {
		errs = append(errs, field.Required(cliquesPath, "a PodCliqueSet needs at least one clique"))
	}
	cliqueIndex := map[string]int{}
	roles := map[string]bool{}
	schedulers := map[string][]string{}
	for i := range spec.Template.Cliques {
		c := &spec.Template.Cliques[i]
		p := cliquesPath.Index(i)
		for _, msg := range validation.IsDNS1123Label(c.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), c.Name, msg))
		}
		if _, dup := cliqueIndex[c.Name]; dup {
			errs = append(errs, field.Duplicate(p.Child("name"), c.Name))
		} else {
			cliqueIndex[c.Name] = i
		}
		// Grove's rule: role names are unique among the cliques; one may be empty.
		if _, dup := roles[c.Spec.RoleName]; dup {
			errs = append(errs, field.Duplicate(p.Child("spec", "roleName"), c.Spec.RoleName))
		} else {
			roles[c.Spec.RoleName] = true
		}
		if c.Spec.Replicas < 1 {
			errs = append(errs, field.Invalid(p.Child("spec", "replicas"), c.Spec.Replicas, "must be at least 1"))
		}
		if m := c.Spec.MinAvailable; m != nil && c.Spec.Replicas >= 1 {
			switch {
			case *m < 1:
				errs = append(errs, field.Invalid(p.Child("spec", "minAvailable"), *m, "must be at least 1"))
			case *m > c.Spec.Replicas:
				errs = append(errs, field.Invalid(p.Child("spec", "minAvailable"), *m,
					fmt.Sprintf("must not exceed replicas (%d): the gang could never reach its minimum", c.Spec.Replicas)))
			}
		}
		schedulers[c.Spec.PodSpec.SchedulerName] = append(schedulers[c.Spec.PodSpec.SchedulerName], c.Name)
	}
	if len(schedulers) > 1 {
		var parts []string
		for name, cliques := range schedulers {
			if name == "" {
				name = "(default)"
			}
			parts = append(parts, fmt.Sprintf("%s: %s", name, strings.Join(cliques, ",")))
		}
		sort.Strings(parts)
		errs = append(errs, field.Invalid(cliquesPath.Child("spec", "podSpec", "schedulerName"), strings.Join(parts, "; "),
			"every clique must use the same scheduler: a gang split across schedulers can never be placed as a whole"))
	}

	// Scaling groups: names, membership, replicas, minAvailable.
	groupsPath := tplPath.Child("podCliqueScalingGroups")
	groupOf := map[string]string{}
	groupNames := sets.New[string]()
	for i := range spec.Template.PodCliqueScalingGroupConfigs {
		g := &spec.Template.PodCliqueScalingGroupConfigs[i]
		p := groupsPath.Index(i)
		for _, msg := range validation.IsDNS1123Label(g.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), g.Name, msg))
		}
		if groupNames.Has(g.Name) {
			errs = append(errs, field.Duplicate(p.Child("name"), g.Name))
		}
		if _, clash := cliqueIndex[g.Name]; clash {
			errs = append(errs, field.Invalid(p.Child("name"), g.Name, "must differ from every clique name: generated names would collide"))
		}
		groupNames.Insert(g.Name)
		if len(g.CliqueNames) == 0 {
			errs = append(errs, field.Required(p.Child("cliqueNames"), "a scaling group needs at least one clique"))
		}
		for j, cn := range g.CliqueNames {
			cp := p.Child("cliqueNames").Index(j)
			if _, ok := cliqueIndex[cn]; !ok {
				errs = append(errs, field.NotFound(cp, cn))
				continue
			}
			if other, taken := groupOf[cn]; taken {
				errs = append(errs, field.Invalid(cp, cn, fmt.Sprintf("clique already belongs to scaling group %q; a clique belongs to one scaling group at most", other)))
				continue
			}
			groupOf[cn] = g.Name
		}
		replicas := ptr.Deref(g.Replicas, 1)
		if replicas < 0 {
			errs = append(errs, field.Invalid(p.Child("replicas"), replicas, "must not be negative"))
		}
		if m := g.MinAvailable; m != nil {
			switch {
			case *m < 1:
				errs = append(errs, field.Invalid(p.Child("minAvailable"), *m, "must be at least 1"))
			case *m > replicas:
				errs = append(errs, field.Invalid(p.Child("minAvailable"), *m,
					fmt.Sprintf("must not exceed replicas (%d): the base gang could never be complete", replicas)))
			}
		}
	}
	errs = append(errs, validateNameLengths(pcs, groupOf)...)
	errs = append(errs, validateStrategies(pcs, groupOf)...)
	// Grove's fields Phalanx's controller acts on (each message names the entry's field).
	if _, err := workload.SharingOf(&spec.Template); err != nil {
		errs = append(errs, field.Invalid(tplPath, "resourceSharing", err.Error()))
	}
	if _, err := workload.TopologyName(pcs); err != nil {
		errs = append(errs, field.Invalid(tplPath, "topologyName", err.Error()))
	}
	return errs
}

// validateStrategies checks the update strategy at every level.
func validateStrategies(pcs *grovev1.PodCliqueSet, groupOf map[string]string) field.ErrorList {
	var errs field.ErrorList
	spec := &pcs.Spec
	usPath := field.NewPath("spec", "updateStrategy")
	typ := grovev1.RollingUpdateStrategyType
	if us := spec.UpdateStrategy; us != nil {
		if us.Type != "" {
			typ = us.Type
		}
		if !typ.Rolling() && typ != grovev1.ReplicaRecreateStrategyType && typ != grovev1.OnDeleteStrategyType && typ != grovev1.CoherentStrategyType {
			errs = append(errs, field.NotSupported(usPath.Child("type"), us.Type, []string{
				string(grovev1.RollingUpdateStrategyType), string(grovev1.RollingRecreateStrategyType), string(grovev1.ReplicaRecreateStrategyType),
				string(grovev1.OnDeleteStrategyType), string(grovev1.CoherentStrategyType)}))
		}
		if d := us.ProgressDeadlineSeconds; d != nil && *d < 1 {
			errs = append(errs, field.Invalid(usPath.Child("progressDeadlineSeconds"), *d, "must be at least 1"))
		}
		if ru := us.RollingUpdate; ru != nil {
			rp := usPath.Child("rollingUpdate")
			if pt := ru.Partition; pt != nil {
				switch {
				case *pt < 0:
					errs = append(errs, field.Invalid(rp.Child("partition"), *pt, "must not be negative"))
				case *pt > spec.Replicas:
					errs = append(errs, field.Invalid(rp.Child("partition"), *pt,
						fmt.Sprintf("must not exceed spec.replicas (%d): the replicas with an index below the partition keep the last complete revision", spec.Replicas)))
				}
				if typ == grovev1.OnDeleteStrategyType && *pt > 0 {
					errs = append(errs, field.Forbidden(rp.Child("partition"), "type OnDelete replaces nothing by itself: a partition has nothing to hold back"))
				}
			}
			switch typ {
			case grovev1.ReplicaRecreateStrategyType:
				errs = append(errs, validateBudget(rp, ru.MaxSurge, ru.MaxUnavailable, int(spec.Replicas), "spec.replicas")...)
			case grovev1.CoherentStrategyType:
				errs = append(errs, validateSliceBudget(rp, ru.MaxSurge, ru.MaxUnavailable)...)
			default:
				if ru.MaxUnavailable != nil && !isInt(*ru.MaxUnavailable, 1) {
					errs = append(errs, field.Invalid(rp.Child("maxUnavailable"), ru.MaxUnavailable.String(),
						"PodCliqueSet-level budgets are only allowed with type ReplicaRecreate; RollingUpdate updates one replica at a time (maxUnavailable 1, maxSurge 0): use the budgets of the cliques and scaling groups instead"))
				}
				if ru.MaxSurge != nil && !isInt(*ru.MaxSurge, 0) {
					errs = append(errs, field.Invalid(rp.Child("maxSurge"), ru.MaxSurge.String(),
						"PodCliqueSet-level budgets are only allowed with type ReplicaRecreate; RollingUpdate updates one replica at a time (maxUnavailable 1, maxSurge 0): use the budgets of the cliques and scaling groups instead"))
				}
			}
		}
	}
	// Under ReplicaRecreate and Coherent the PodCliqueSet-level budgets govern: component budgets
	// are refused (notUsed says why).
	notUsed := ""
	switch typ {
	case grovev1.ReplicaRecreateStrategyType:
		notUsed = "not used under updateStrategy.type ReplicaRecreate, which recreates whole replicas under the PodCliqueSet-level budgets; remove it"
	case grovev1.CoherentStrategyType:
		notUsed = "not used under updateStrategy.type Coherent, which replaces the changed components in coherent slices under the PodCliqueSet-level budgets (spec.updateStrategy.rollingUpdate, counted in slices); remove it"
	}
	for i := range spec.Template.Cliques {
		c := &spec.Template.Cliques[i]
		p := field.NewPath("spec", "template", "cliques").Index(i)
		errs = append(errs, validateRollingUpdate(p, c.RollingUpdate, c.UpdateStrategy, notUsed, groupOf[c.Name])...)
	}
	for i := range spec.Template.PodCliqueScalingGroupConfigs {
		g := &spec.Template.PodCliqueScalingGroupConfigs[i]
		p := field.NewPath("spec", "template", "podCliqueScalingGroups").Index(i)
		errs = append(errs, validateRollingUpdate(p, g.RollingUpdate, g.UpdateStrategy, notUsed, "")...)
	}
	for i := range spec.Template.Cliques {
		c := &spec.Template.Cliques[i]
		if c.UpdateStrategy == nil {
			continue
		}
		p := field.NewPath("spec", "template", "cliques").Index(i).Child("updateStrategy")
		switch {
		case notUsed != "":
			errs = append(errs, field.Forbidden(p, notUsed))
		case groupOf[c.Name] != "":
			errs = append(errs, field.Forbidden(p, fmt.Sprintf("clique %q belongs to scaling group %q, whose replicas are updated as a whole; set updateStrategy on the scaling group", c.Name, groupOf[c.Name])))
		default:
			errs = append(errs, validateBudget(p, c.UpdateStrategy.MaxSurge, c.UpdateStrategy.MaxUnavailable, int(c.Spec.Replicas),
				fmt.Sprintf("spec.template.cliques[%d].spec.replicas", i))...)
		}
	}
	for i := range spec.Template.PodCliqueScalingGroupConfigs {
		g := &spec.Template.PodCliqueScalingGroupConfigs[i]
		if g.UpdateStrategy == nil {
			continue
		}
		p := field.NewPath("spec", "template", "podCliqueScalingGroups").Index(i).Child("updateStrategy")
		if notUsed != "" {
			errs = append(errs, field.Forbidden(p, notUsed))
			continue
		}
		errs = append(errs, validateBudget(p, g.UpdateStrategy.MaxSurge, g.UpdateStrategy.MaxUnavailable, int(ptr.Deref(g.Replicas, 1)),
			fmt.Sprintf("spec.template.podCliqueScalingGroups[%d].replicas", i))...)
	}
	return errs
}

// validateRollingUpdate checks Grove's rollingUpdate of a component at p: it must agree with
// the component's updateStrategy.maxUnavailable when both are set, and is not used where
// notUsed says why (ReplicaRecreate, Coherent) or on a clique of a scaling group (group names
// the group).
func validateRollingUpdate(p *field.Path, ru *grovev1.RollingUpdateConfiguration, us *grovev1.ComponentUpdateStrategy, notUsed string, group string) field.ErrorList {
	if ru == nil {
		return nil
	}
	rp := p.Child("rollingUpdate")
	var errs field.ErrorList
	switch {
	case notUsed != "":
		return append(errs, field.Forbidden(rp, notUsed))
	case group != "":
		return append(errs, field.Forbidden(rp, fmt.Sprintf("the clique belongs to scaling group %q, whose replicas are updated as a whole; set rollingUpdate on the scaling group", group)))
	}
	if m := ru.MaxUnavailable; m != nil && us != nil && us.MaxUnavailable != nil && *us.MaxUnavailable != intstr.FromInt32(*m) {
		errs = append(errs, field.Invalid(rp.Child("maxUnavailable"), *m,
			fmt.Sprintf("differs from %s (%s): rollingUpdate.maxUnavailable is Grove's name for the same budget; set one, or both to the same value", p.Child("updateStrategy", "maxUnavailable"), us.MaxUnavailable.String())))
	}
	if d := ru.ProgressDeadline; d != nil && d.Duration <= 0 {
		errs = append(errs, field.Invalid(rp.Child("progressDeadline"), d.Duration.String(), "must be positive (leave it unset for no component deadline)"))
	}
	return errs
}

// validateBudget checks one level's maxSurge and maxUnavailable against its desired count.
// Unset values are the defaults (maxSurge 0, maxUnavailable 1).
func validateBudget(p *field.Path, maxSurge, maxUnavailable *intstr.IntOrString, desired int, desiredField string) field.ErrorList {
	var errs field.ErrorList
	surge, surgeOK := budgetValue(p.Child("maxSurge"), maxSurge, 0, desired, true, &errs)
	unavail, unavailOK := budgetValue(p.Child("maxUnavailable"), maxUnavailable, 1, desired, false, &errs)
	if !surgeOK || !unavailOK || desired == 0 {
		return errs
	}
	if maxUnavailable != nil && maxUnavailable.Type == intstr.Int && unavail > desired {
		errs = append(errs, field.Invalid(p.Child("maxUnavailable"), maxUnavailable.String(),
			fmt.Sprintf("must not exceed the desired count at its level (%s = %d)", desiredField, desired)))
	}
	if surge == 0 && unavail == 0 {
		errs = append(errs, field.Invalid(p, fmt.Sprintf("maxSurge=%s, maxUnavailable=%s", str(maxSurge, "0"), str(maxUnavailable, "1")),
			fmt.Sprintf("maxSurge and maxUnavailable must not both be 0 (after rounding against %s = %d: surge rounds up, unavailable down): the update could never make a step", desiredField, desired)))
	}
	return errs
}

// validateSliceBudget checks the PodCliqueSet-level budgets of Coherent, counted in coherent
// slices: their number depends on the replicas and minAvailable of the components an update
// changes, so a percentage is only checked for its form (a budget that rounds to 0 on both
// sides is read as maxUnavailable 1, as for every level); both set to 0 never make a step.
func validateSliceBudget(p *field.Path, maxSurge, maxUnavailable *intstr.IntOrString) field.ErrorList {
	var errs field.ErrorList
	_, surgeOK := budgetValue(p.Child("maxSurge"), maxSurge, 0, 1, true, &errs)
	_, unavailOK := budgetValue(p.Child("maxUnavailable"), maxUnavailable, 1, 1, false, &errs)
	if surgeOK && unavailOK && maxSurge != nil && maxUnavailable != nil && isInt(*maxSurge, 0) && isInt(*maxUnavailable, 0) {
		errs = append(errs, field.Invalid(p, "maxSurge=0, maxUnavailable=0",
			"maxSurge and maxUnavailable (in coherent slices) must not both be 0: the update could never make a step; set maxSurge 1 to make a new slice before an old one goes, or maxUnavailable 1 to drain one first"))
	}
	return errs
}

// budgetValue resolves a budget, reporting a malformed one. ok is false when v is invalid.
func budgetValue(p *field.Path, v *intstr.IntOrString, def, desired int, roundUp bool, errs *field.ErrorList) (int, bool) {
	if v == nil {
		return def, true
	}
	if v.Type == intstr.Int {
		if v.IntVal < 0 {
			*errs = append(*errs, field.Invalid(p, v.IntVal, "must not be negative"))
			return 0, false
		}
		return int(v.IntVal), true
	}
	if !percentRE.MatchString(v.StrVal) {
		*errs = append(*errs, field.Invalid(p, v.StrVal, "must be a non-negative integer or a percentage such as '25%'"))
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
	if err != nil || n > 100 {
		*errs = append(*errs, field.Invalid(p, v.StrVal, "a percentage must be between 0% and 100%"))
		return 0, false
	}
	f := float64(n) * float64(desired) / 100
	if roundUp {
		return int(math.Ceil(f)), true
	}
	return int(math.Floor(f)), true
}

func isInt(v intstr.IntOrString, n int32) bool { return v.Type == intstr.Int && v.IntVal == n }

func str(v *intstr.IntOrString, def string) string {
	if v == nil {
		return def + " (default)"
	}
	return v.String()
}

// validateNameLengths checks that the longest names Phalanx generates fit in a DNS label: the
// pod name (also the hostname) with the highest replica and index numbers, surge included
// (indices up to twice the desired count).
func validateNameLengths(pcs *grovev1.PodCliqueSet, groupOf map[string]string) field.ErrorList {
	var errs field.ErrorList
	topReplica := max(2*int(pcs.Spec.Replicas)-1, 0)
	groups := map[string]*grovev1.PodCliqueScalingGroupConfig{}
	for i := range pcs.Spec.Template.PodCliqueScalingGroupConfigs {
		groups[pcs.Spec.Template.PodCliqueScalingGroupConfigs[i].Name] = &pcs.Spec.Template.PodCliqueScalingGroupConfigs[i]
	}
	for i := range pcs.Spec.Template.Cliques {
		c := &pcs.Spec.Template.Cliques[i]
		topIndex := max(2*int(c.Spec.Replicas)-1, 0)
		clique := workload.PodCliqueName(pcs.Name, topReplica, c.Name)
		if g := groups[groupOf[c.Name]]; g != nil {
			clique = workload.GroupCliqueName(pcs.Name, topReplica, g.Name, max(2*int(ptr.Deref(g.Replicas, 1))-1, 0), c.Name)
		}
		pod := workload.PodName(clique, topIndex)
		if len(pod) > MaxGeneratedNameLength {
			errs = append(errs, field.Invalid(field.NewPath("spec", "template", "cliques").Index(i).Child("name"), c.Name, fmt.Sprintf("the generated pod name %q (also its hostname) would be %d characters, more than %d; shorten the PodCliqueSet, scaling group or clique name",
				pod, len(pod), MaxGeneratedNameLength)))
		}
	}
	return errs
}

// ValidatePodCliqueSetUpdate checks an update: the new object must be valid, and what the
// gangs of running replicas are built from must not change (clique set, scaling group
// membership, minAvailable, roleName).
func ValidatePodCliqueSetUpdate(newPCS, oldPCS *grovev1.PodCliqueSet) field.ErrorList {
	errs := ValidatePodCliqueSet(newPCS)
	const why = "is immutable: the gangs of running replicas are built from it; create a new PodCliqueSet to change it"
	cliquesPath := field.NewPath("spec", "template", "cliques")
	oldCliques := map[string]*grovev1.PodCliqueTemplateSpec{}
	for i := range oldPCS.Spec.Template.Cliques {
		oldCliques[oldPCS.Spec.Template.Cliques[i].Name] = &oldPCS.Spec.Template.Cliques[i]
	}
	newNames := sets.New[string]()
	for i := range newPCS.Spec.Template.Cliques {
		c := &newPCS.Spec.Template.Cliques[i]
		newNames.Insert(c.Name)
		old := oldCliques[c.Name]
		p := cliquesPath.Index(i)
		if old == nil {
			errs = append(errs, field.Forbidden(p.Child("name"), fmt.Sprintf("clique %q cannot be added: the set of cliques %s", c.Name, why)))
			continue
		}
		if !ptr.Equal(c.Spec.MinAvailable, old.Spec.MinAvailable) {
			errs = append(errs, field.Invalid(p.Child("spec", "minAvailable"), ptr.Deref(c.Spec.MinAvailable, -1),
				fmt.Sprintf("was %d; minAvailable %s", ptr.Deref(old.Spec.MinAvailable, -1), why)))
		}
		if c.Spec.RoleName != old.Spec.RoleName {
			errs = append(errs, field.Invalid(p.Child("spec", "roleName"), c.Spec.RoleName, fmt.Sprintf("was %q; roleName %s", old.Spec.RoleName, why)))
		}
	}
	for name := range oldCliques {
		if !newNames.Has(name) {
			errs = append(errs, field.Forbidden(cliquesPath, fmt.Sprintf("clique %q cannot be removed: the set of cliques %s", name, why)))
		}
	}
	if s := newPCS.Spec.UpdateStrategy; s != nil && s.RollbackOnFailure && oldPCS.Status.CompleteRevision == "" &&
		!apiequality.Semantic.DeepEqual(newPCS.Spec.Template, oldPCS.Spec.Template) {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "updateStrategy", "rollbackOnFailure"),
			"no complete revision to roll back to: the PodCliqueSet has not completed its creation or an update yet (status.completeRevision is empty); change the template once it has, or set rollbackOnFailure to false"))
	}
	groupsPath := field.NewPath("spec", "template", "podCliqueScalingGroups")
	oldGroups := map[string]*grovev1.PodCliqueScalingGroupConfig{}
	for i := range oldPCS.Spec.Template.PodCliqueScalingGroupConfigs {
		oldGroups[oldPCS.Spec.Template.PodCliqueScalingGroupConfigs[i].Name] = &oldPCS.Spec.Template.PodCliqueScalingGroupConfigs[i]
	}
	newGroups := sets.New[string]()
	for i := range newPCS.Spec.Template.PodCliqueScalingGroupConfigs {
		g := &newPCS.Spec.Template.PodCliqueScalingGroupConfigs[i]
		newGroups.Insert(g.Name)
		old := oldGroups[g.Name]
		p := groupsPath.Index(i)
		if old == nil {
			errs = append(errs, field.Forbidden(p.Child("name"), fmt.Sprintf("scaling group %q cannot be added: scaling group membership %s", g.Name, why)))
			continue
		}
		if !sets.New(g.CliqueNames...).Equal(sets.New(old.CliqueNames...)) {
			errs = append(errs, field.Invalid(p.Child("cliqueNames"), g.CliqueNames, fmt.Sprintf("was %v; scaling group membership %s", old.CliqueNames, why)))
		}
		if !ptr.Equal(g.MinAvailable, old.MinAvailable) {
			errs = append(errs, field.Invalid(p.Child("minAvailable"), ptr.Deref(g.MinAvailable, -1),
				fmt.Sprintf("was %d; minAvailable %s", ptr.Deref(old.MinAvailable, -1), why)))
		}
	}
	for name := range oldGroups {
		if !newGroups.Has(name) {
			errs = append(errs, field.Forbidden(groupsPath, fmt.Sprintf("scaling group %q cannot be removed: scaling group membership %s", name, why)))
		}
	}
	return errs
}
