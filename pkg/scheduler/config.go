package scheduler

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	componentbaseconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"
	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// SchedulerName is the profile name that pods select with spec.schedulerName.
const SchedulerName = "phalanx-scheduler"

// ConfigOptions are the few settings that the default configuration takes from the command line.
type ConfigOptions struct {
	// Kubeconfig is the path of the kubeconfig; empty means in-cluster.
	Kubeconfig string
	// LeaderElect turns on leader election (lease kube-system/phalanx-scheduler).
	LeaderElect bool
	// LeaseDuration, RenewDeadline and RetryPeriod override kube-scheduler's 15s/10s/2s.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// ReservationHold, when > 0, overrides the PodGang plugin's reservationHoldSeconds.
	ReservationHold time.Duration
	// ExtraHold, when > 0, overrides the PodGang plugin's extraHoldSeconds.
	ExtraHold time.Duration
	// SchedulerNames are the names pods select Phalanx with (spec.schedulerName): one profile
	// each, all the same Phalanx profile. Empty means [SchedulerName]. Another name lets
	// Phalanx serve pods that an operator stamps with its own scheduler's name (Grove's
	// lpx-scheduler backend, see docs/operations.md).
	SchedulerNames []string
	// KAIEventProfiles sets the PodGang plugin's kaiEventProfiles: the profiles whose pods get
	// KAI scheduler's Unschedulable event in place of FailedScheduling.
	KAIEventProfiles []string
}

// ValidateSchedulerNames reports what is wrong with names for --scheduler-names: each must be
// a DNS subdomain (it is written into spec.schedulerName), unique, and not default-scheduler
// (kube-scheduler's own profile, which Phalanx must never take over).
func ValidateSchedulerNames(names []string) error {
	seen := map[string]bool{}
	for i, n := range names {
		if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 {
			return fmt.Errorf("--scheduler-names[%d] %q: %s", i, n, strings.Join(errs, "; "))
		}
		if n == corev1.DefaultSchedulerName {
			return fmt.Errorf("--scheduler-names[%d] %q: the default scheduler's pods are not Phalanx's to schedule", i, n)
		}
		if seen[n] {
			return fmt.Errorf("--scheduler-names[%d] %q: listed twice", i, n)
		}
		seen[n] = true
	}
	return nil
}

// DefaultConfig renders the KubeSchedulerConfiguration that phalanx-scheduler runs when it is
// started without --config: one profile named phalanx-scheduler with the default plugins plus
// every Phalanx plugin.
func DefaultConfig(o ConfigOptions) ([]byte, error) {
	cfg := configv1.KubeSchedulerConfiguration{
		TypeMeta: metav1.TypeMeta{APIVersion: configv1.SchemeGroupVersion.String(), Kind: "KubeSchedulerConfiguration"},
		LeaderElection: componentbaseconfigv1alpha1.LeaderElectionConfiguration{
			LeaderElect:       ptr.To(o.LeaderElect),
			ResourceName:      SchedulerName,
			ResourceNamespace: metav1.NamespaceSystem,
		},
	}
	names := o.SchedulerNames
	if len(names) == 0 {
		names = []string{SchedulerName}
	}
	if err := ValidateSchedulerNames(names); err != nil {
		return nil, err
	}
	for _, name := range names {
		p := Profile()
		p.SchedulerName = ptr.To(name)
		cfg.Profiles = append(cfg.Profiles, p)
	}
	if o.LeaseDuration > 0 {
		cfg.LeaderElection.LeaseDuration = metav1.Duration{Duration: o.LeaseDuration}
		cfg.LeaderElection.RenewDeadline = metav1.Duration{Duration: o.RenewDeadline}
		cfg.LeaderElection.RetryPeriod = metav1.Duration{Duration: o.RetryPeriod}
	}
	if args := podGangArgs(o); args != nil {
		for i := range cfg.Profiles {
			cfg.Profiles[i].PluginConfig = append(cfg.Profiles[i].PluginConfig, configv1.PluginConfig{Name: "PodGang", Args: runtime.RawExtension{Raw: args}})
		}
	}
	cfg.ClientConnection.Kubeconfig = o.Kubeconfig
	out, err := yaml.Marshal(&cfg)
	if err != nil {
		return nil, fmt.Errorf("rendering the default scheduler configuration: %w", err)
	}
	return out, nil
}

// podGangArgs are the PodGang plugin's args that o overrides, nil when it overrides none.
func podGangArgs(o ConfigOptions) []byte {
	args := map[string]any{}
	if o.ReservationHold > 0 {
		args["reservationHoldSeconds"] = int64(o.ReservationHold / time.Second)
	}
	if o.ExtraHold > 0 {
		args["extraHoldSeconds"] = int64(o.ExtraHold / time.Second)
	}
	if len(o.KAIEventProfiles) > 0 {
		args["kaiEventProfiles"] = o.KAIEventProfiles
	}
	if len(args) == 0 {
		return nil
	}
	args["apiVersion"], args["kind"] = configv1.SchemeGroupVersion.String(), "PodGangArgs"
	raw, _ := json.Marshal(args) // a map of strings, string lists and integers always marshals
	return raw
}

// Profile is the phalanx-scheduler profile: the default plugins plus the Phalanx plugins,
// without DefaultPreemption (the gang plugins preempt for every pod of the profile: whole
// gangs as the unit, docs/architecture.md rule 9; the default scheduler's profile keeps its own).
func Profile() configv1.KubeSchedulerProfile {
	return configv1.KubeSchedulerProfile{
		SchedulerName: ptr.To(SchedulerName),
		Plugins: &configv1.Plugins{
			MultiPoint: configv1.PluginSet{Enabled: enabledPlugins(), Disabled: disabledPlugins()},
			QueueSort:  queueSort(),
		},
	}
}
