package config

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// PodGangArgs configure the PodGang plugin.
type PodGangArgs struct {
	metav1.TypeMeta `json:",inline"`

	// PermitWaitingTimeSeconds is how long placed members of a gang wait in Permit for the rest
	// of the quorum before all of them are released. Default 30.
	PermitWaitingTimeSeconds *int64 `json:"permitWaitingTimeSeconds,omitempty"`
	// BackoffSeconds is how long a gang whose member failed waits before it is tried again.
	// Default 5.
	BackoffSeconds *int64 `json:"backoffSeconds,omitempty"`
	// SurgeLabelKey is the pod label (value "true") that marks surge members. Default
	// phalanx.dev/surge.
	SurgeLabelKey string `json:"surgeLabelKey,omitempty"`
}

// Defaults.
const (
	DefaultPermitWaitingTimeSeconds int64 = 30
	DefaultBackoffSeconds           int64 = 5
	DefaultSurgeLabelKey                  = grovev1.LabelSurge
)

// SetDefaultsPodGangArgs fills unset fields.
func SetDefaultsPodGangArgs(a *PodGangArgs) {
	if a.PermitWaitingTimeSeconds == nil {
		v := DefaultPermitWaitingTimeSeconds
		a.PermitWaitingTimeSeconds = &v
	}
	if a.BackoffSeconds == nil {
		v := DefaultBackoffSeconds
		a.BackoffSeconds = &v
	}
	if a.SurgeLabelKey == "" {
		a.SurgeLabelKey = DefaultSurgeLabelKey
	}
}

// ValidatePodGangArgs reports every invalid field with its path.
func ValidatePodGangArgs(path *field.Path, a *PodGangArgs) field.ErrorList {
	var errs field.ErrorList
	if a.PermitWaitingTimeSeconds != nil && *a.PermitWaitingTimeSeconds <= 0 {
		errs = append(errs, field.Invalid(path.Child("permitWaitingTimeSeconds"), *a.PermitWaitingTimeSeconds, "must be greater than 0"))
	}
	if a.BackoffSeconds != nil && *a.BackoffSeconds < 0 {
		errs = append(errs, field.Invalid(path.Child("backoffSeconds"), *a.BackoffSeconds, "must not be negative"))
	}
	if a.SurgeLabelKey != "" {
		for _, msg := range validation.IsQualifiedName(a.SurgeLabelKey) {
			errs = append(errs, field.Invalid(path.Child("surgeLabelKey"), a.SurgeLabelKey, msg))
		}
	}
	return errs
}

// PermitWaitingTime is the defaulted Permit timeout.
func (a *PodGangArgs) PermitWaitingTime() time.Duration {
	return time.Duration(*a.PermitWaitingTimeSeconds) * time.Second
}

// Backoff is the defaulted gang back-off.
func (a *PodGangArgs) Backoff() time.Duration {
	return time.Duration(*a.BackoffSeconds) * time.Second
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// PodGroupArgs configure the PodGroup plugin (scheduler-plugins PodGroups).
type PodGroupArgs struct {
	metav1.TypeMeta `json:",inline"`

	// PermitWaitingTimeSeconds is how long placed members of a group wait in Permit for the
	// rest of minMember, unless the group sets scheduleTimeoutSeconds. Default 60 (as the
	// scheduler-plugins coscheduling plugin).
	PermitWaitingTimeSeconds *int64 `json:"permitWaitingTimeSeconds,omitempty"`
	// BackoffSeconds is how long a group whose member failed waits before it is tried again.
	// Default 5.
	BackoffSeconds *int64 `json:"backoffSeconds,omitempty"`
	// SurgeLabelKey must equal the PodGang plugin's: both plugins of a profile share one gang
	// engine. Default phalanx.dev/surge.
	SurgeLabelKey string `json:"surgeLabelKey,omitempty"`
}

// DefaultPodGroupPermitWaitingTimeSeconds is the PodGroup Permit timeout when none is set.
const DefaultPodGroupPermitWaitingTimeSeconds int64 = 60

// SetDefaultsPodGroupArgs fills unset fields.
func SetDefaultsPodGroupArgs(a *PodGroupArgs) {
	if a.PermitWaitingTimeSeconds == nil {
		v := DefaultPodGroupPermitWaitingTimeSeconds
		a.PermitWaitingTimeSeconds = &v
	}
	if a.BackoffSeconds == nil {
		v := DefaultBackoffSeconds
		a.BackoffSeconds = &v
	}
	if a.SurgeLabelKey == "" {
		a.SurgeLabelKey = DefaultSurgeLabelKey
	}
}

// ValidatePodGroupArgs reports every invalid field with its path.
func ValidatePodGroupArgs(path *field.Path, a *PodGroupArgs) field.ErrorList {
	return ValidatePodGangArgs(path, &PodGangArgs{PermitWaitingTimeSeconds: a.PermitWaitingTimeSeconds, BackoffSeconds: a.BackoffSeconds, SurgeLabelKey: a.SurgeLabelKey})
}

// PermitWaitingTime is the defaulted Permit timeout.
func (a *PodGroupArgs) PermitWaitingTime() time.Duration {
	return time.Duration(*a.PermitWaitingTimeSeconds) * time.Second
}

// Backoff is the defaulted group back-off.
func (a *PodGroupArgs) Backoff() time.Duration {
	return time.Duration(*a.BackoffSeconds) * time.Second
}
