package scheduler

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
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
		Profiles: []configv1.KubeSchedulerProfile{Profile()},
	}
	if o.LeaseDuration > 0 {
		cfg.LeaderElection.LeaseDuration = metav1.Duration{Duration: o.LeaseDuration}
		cfg.LeaderElection.RenewDeadline = metav1.Duration{Duration: o.RenewDeadline}
		cfg.LeaderElection.RetryPeriod = metav1.Duration{Duration: o.RetryPeriod}
	}
	if o.ReservationHold > 0 {
		cfg.Profiles[0].PluginConfig = append(cfg.Profiles[0].PluginConfig, configv1.PluginConfig{Name: "PodGang", Args: runtime.RawExtension{
			Raw: []byte(fmt.Sprintf(`{"apiVersion":%q,"kind":"PodGangArgs","reservationHoldSeconds":%d}`, configv1.SchemeGroupVersion.String(), int64(o.ReservationHold/time.Second))),
		}})
	}
	cfg.ClientConnection.Kubeconfig = o.Kubeconfig
	out, err := yaml.Marshal(&cfg)
	if err != nil {
		return nil, fmt.Errorf("rendering the default scheduler configuration: %w", err)
	}
	return out, nil
}

// Profile is the phalanx-scheduler profile: the default plugins plus the Phalanx plugins.
func Profile() configv1.KubeSchedulerProfile {
	return configv1.KubeSchedulerProfile{
		SchedulerName: ptr.To(SchedulerName),
		Plugins:       &configv1.Plugins{MultiPoint: configv1.PluginSet{Enabled: enabledPlugins()}, QueueSort: queueSort()},
	}
}
