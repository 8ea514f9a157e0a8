package scheduler

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
