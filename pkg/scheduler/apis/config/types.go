package config

import (
	"fmt"
	"reflect"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
)

// GangArgs are the settings both gang plugins take.
type GangArgs struct {
	// PermitWaitingTimeSeconds is how long placed members of a gang wait in Permit for the rest
	// of the quorum before all of them are released (a PodGroup's scheduleTimeoutSeconds
	// overrides it). Default 30 for PodGang, 60 for PodGroup (as the scheduler-plugins
	// coscheduling plugin) and WorkloadPodGroup.
	PermitWaitingTimeSeconds *int64 `json:"permitWaitingTimeSeconds,omitempty"`
	// BackoffSeconds is how long a gang whose member failed waits before it is tried again.
	// Default 5.
	BackoffSeconds *int64 `json:"backoffSeconds,omitempty"`
	// SurgeLabelKey is the pod label (value "true") that marks surge members; both plugins of
	// a profile must agree, they share one gang engine. Default phalanx.dev/surge.
	SurgeLabelKey string `json:"surgeLabelKey,omitempty"`
	// ReservationHoldSeconds is how long the capacity an old gang member frees, when the
	// controller deletes it to replace it, is held for the replacement (PodGang annotation
	// phalanx.dev/reservation): other pods are filtered off that capacity meanwhile. 0 turns
	// holds off. Default 120. Read by the PodGang plugin only.
	ReservationHoldSeconds *int64 `json:"reservationHoldSeconds,omitempty"`
	// ExtraHoldSeconds is how long, at most, a gang that failed to place its minimum keeps
	// members above any minimum (surge members, members beyond a podgroup's minReplicas) of
	// gangs of equal or lower priority from being placed, counted from its first failed
	// attempt: capacity that arrives a node at a time then completes the minimum before it
	// grows other gangs (docs/architecture.md, rule "5 minimums first"). 0 turns the hold off.
	// Default 30. Read by the PodGang plugin only, for every gang of its profile (one gang
	// engine per profile); a profile without it holds no extras.
	ExtraHoldSeconds *int64 `json:"extraHoldSeconds,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// PodGangArgs configure the PodGang plugin. PodGang is also the queue-sort plugin, whose args
// kube-scheduler requires to be the same in every profile: what differs by profile is listed
// by profile name.
type PodGangArgs struct {
	metav1.TypeMeta `json:",inline"`
	GangArgs        `json:",inline"`
	// KAIEventProfiles are the profiles (schedulerNames) whose pods, when a cycle cannot place
	// them, get KAI scheduler's event in place of kube-scheduler's FailedScheduling: a Warning
	// of reason Unschedulable written through the core Events API with source component the
	// profile's name (repeats counted on one event). For a profile that stands in for KAI's
	// scheduler (kai-scheduler) where tools read KAI's events: Grove's e2e suite waits for them
	// (docs/grove-suite.md). Default none.
	KAIEventProfiles []string `json:"kaiEventProfiles,omitempty"`
}

// Validate reports every invalid field with its path.
func (a *PodGangArgs) Validate(path *field.Path) field.ErrorList {
	errs := a.GangArgs.Validate(path)
	seen := map[string]bool{}
	for i, name := range a.KAIEventProfiles {
		p := path.Child("kaiEventProfiles").Index(i)
		if name == "" {
			errs = append(errs, field.Required(p, "a profile's schedulerName"))
		} else if seen[name] {
			errs = append(errs, field.Duplicate(p, name))
		}
		seen[name] = true
	}
	return errs
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// PodGroupArgs configure the PodGroup plugin (scheduler-plugins PodGroups).
type PodGroupArgs struct {
	metav1.TypeMeta `json:",inline"`
	GangArgs        `json:",inline"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// WorkloadPodGroupArgs configure the WorkloadPodGroup plugin (upstream scheduling.k8s.io
// PodGroups of the Workload API).
type WorkloadPodGroupArgs struct {
	metav1.TypeMeta `json:",inline"`
	GangArgs        `json:",inline"`
}

// Defaults.
const (
	DefaultPermitWaitingTimeSeconds         int64 = 30
	DefaultPodGroupPermitWaitingTimeSeconds int64 = 60
	DefaultBackoffSeconds                   int64 = 5
	DefaultReservationHoldSeconds           int64 = 120
	DefaultExtraHoldSeconds                 int64 = 30
	DefaultSurgeLabelKey                          = grovev1.LabelSurge
)

// SetDefaultsPodGangArgs fills unset fields.
func SetDefaultsPodGangArgs(a *PodGangArgs) { a.setDefaults(DefaultPermitWaitingTimeSeconds) }

// SetDefaultsPodGroupArgs fills unset fields.
func SetDefaultsPodGroupArgs(a *PodGroupArgs) { a.setDefaults(DefaultPodGroupPermitWaitingTimeSeconds) }

// SetDefaultsWorkloadPodGroupArgs fills unset fields (the Permit timeout as for PodGroups).
func SetDefaultsWorkloadPodGroupArgs(a *WorkloadPodGroupArgs) {
	a.setDefaults(DefaultPodGroupPermitWaitingTimeSeconds)
}

func (a *GangArgs) setDefaults(permit int64) {
	if a.PermitWaitingTimeSeconds == nil {
		a.PermitWaitingTimeSeconds = &permit
	}
	if a.BackoffSeconds == nil {
		v := DefaultBackoffSeconds
		a.BackoffSeconds = &v
	}
	if a.SurgeLabelKey == "" {
		a.SurgeLabelKey = DefaultSurgeLabelKey
	}
	if a.ReservationHoldSeconds == nil {
		v := DefaultReservationHoldSeconds
		a.ReservationHoldSeconds = &v
	}
	if a.ExtraHoldSeconds == nil {
		v := DefaultExtraHoldSeconds
		a.ExtraHoldSeconds = &v
	}
}

// Validate reports every invalid field with its path.
func (a *GangArgs) Validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if a.PermitWaitingTimeSeconds != nil && *a.PermitWaitingTimeSeconds <= 0 {
		errs = append(errs, field.Invalid(path.Child("permitWaitingTimeSeconds"), *a.PermitWaitingTimeSeconds, "must be greater than 0"))
	}
	if a.BackoffSeconds != nil && *a.BackoffSeconds < 0 {
		errs = append(errs, field.Invalid(path.Child("backoffSeconds"), *a.BackoffSeconds, "must not be negative"))
	}
	if a.ReservationHoldSeconds != nil && *a.ReservationHoldSeconds < 0 {
		errs = append(errs, field.Invalid(path.Child("reservationHoldSeconds"), *a.ReservationHoldSeconds, "must not be negative (0 turns holds off)"))
	}
	if a.ExtraHoldSeconds != nil && *a.ExtraHoldSeconds < 0 {
		errs = append(errs, field.Invalid(path.Child("extraHoldSeconds"), *a.ExtraHoldSeconds, "must not be negative (0 turns the hold off)"))
	}
	if a.SurgeLabelKey != "" {
		for _, msg := range validation.IsQualifiedName(a.SurgeLabelKey) {
			errs = append(errs, field.Invalid(path.Child("surgeLabelKey"), a.SurgeLabelKey, msg))
		}
	}
	return errs
}

// PermitWaitingTime is the defaulted Permit timeout.
func (a *GangArgs) PermitWaitingTime() time.Duration {
	return time.Duration(*a.PermitWaitingTimeSeconds) * time.Second
}

// ReservationHold is the defaulted hold of freed capacity for replacements.
func (a *GangArgs) ReservationHold() time.Duration {
	return time.Duration(*a.ReservationHoldSeconds) * time.Second
}

// ExtraHold is the defaulted longest hold of extras for a gang that waits for its minimum.
func (a *GangArgs) ExtraHold() time.Duration {
	return time.Duration(*a.ExtraHoldSeconds) * time.Second
}

// Backoff is the defaulted gang back-off.
func (a *GangArgs) Backoff() time.Duration {
	return time.Duration(*a.BackoffSeconds) * time.Second
}

// DecodeArgs returns the arguments of gang plugin name from obj (nil: every default), as type
// T (PodGangArgs, PodGroupArgs or WorkloadPodGroupArgs): copied, defaulted with setDefaults
// and validated. An error names the plugin and the field.
func DecodeArgs[T any, P interface {
	*T
	runtime.Object
	Validate(*field.Path) field.ErrorList
}](name string, obj runtime.Object, setDefaults func(P)) (T, error) {
	var args T
	switch a := obj.(type) {
	case nil:
	case P:
		args = *a.DeepCopyObject().(P)
	default:
		return args, fmt.Errorf("%s: want args of type %s, got %T", name, reflect.TypeOf(args).Name(), obj)
	}
	setDefaults(&args)
	if errs := P(&args).Validate(nil); len(errs) > 0 {
		return args, fmt.Errorf("%s: invalid args: %w", name, errs.ToAggregate())
	}
	return args, nil
}
