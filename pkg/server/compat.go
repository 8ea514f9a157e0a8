package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/discovery"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"

	"github.com/phalanx-sched/phalanx/pkg/metrics"
)

// Supported API server minors. BuiltMinor is the Kubernetes minor this build's scheduler
// framework comes from (the k8s.io/kubernetes requirement in go.mod; a test keeps them
// equal). One build serves every minor from OldestServerMinor to BuiltMinor: the
// compatibility suite (make test-compat, docs/compatibility.md) runs it against each.
const (
	BuiltMinor        = 37
	OldestServerMinor = 34
)

// gatedAPI is a feature gate of the scheduler framework whose informer needs an API that
// older API servers do not serve. With the gate on and the API missing, the informer never
// syncs and the scheduler waits for it forever without scheduling anything.
type gatedAPI struct {
	gate         featuregate.Feature
	groupVersion string
	resource     string
	// without says what a cluster loses while the gate is off.
	without string
}

// gatedAPIs are the framework's gated informers of APIs newer than OldestServerMinor.
var gatedAPIs = []gatedAPI{
	{features.DRADeviceTaintRules, "resource.k8s.io/v1", "devicetaintrules",
		"DeviceTaintRule objects are not applied (taints published in ResourceSlices still are); the API server has none to apply"},
	{features.DynamicResourceAllocation, "resource.k8s.io/v1", "resourceslices",
		"pods with ResourceClaims are not scheduled by their devices; the API server drops pods' resourceClaims without the API"},
	{features.GenericWorkload, "scheduling.k8s.io/v1beta1", "podgroups",
		"the framework's own Workload gang cycle is off (Phalanx's WorkloadPodGroup plugin schedules upstream PodGroups and waits for the API itself)"},
	{features.CompositePodGroup, "scheduling.k8s.io/v1alpha3", "compositepodgroups",
		"composite PodGroups are not read"},
}

// ServerSupport is what AdaptToServer found.
type ServerSupport struct {
	// Version is the API server's gitVersion.
	Version string
	// Minor is its minor version, 0 when it could not be parsed.
	Minor int
	// Disabled are the feature gates turned off because the API server lacks their API.
	Disabled []featuregate.Feature
}

// AdaptToServer checks the API server's version against the supported range and turns off
// every gated informer whose API the server does not serve, so that one build schedules on
// every supported minor instead of waiting forever for an informer that cannot sync.
//
// It refuses (an error that names the server's version, the supported range and the fix) an
// API server older than OldestServerMinor, and a gate set explicitly with --feature-gates
// whose API the server lacks. A server newer than BuiltMinor is logged, not refused (the
// version-skew policy lets the scheduler be one minor older). Discovery errors are retried
// for up to timeout (an API server that is still starting), then returned.
func AdaptToServer(ctx context.Context, client discovery.DiscoveryInterface, gates featuregate.MutableVersionedFeatureGate, timeout time.Duration) (ServerSupport, error) {
	logger := klog.FromContext(ctx)
	var info *version.Info
	var last error
	err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(context.Context) (bool, error) {
		info, last = client.ServerVersion()
		return last == nil, nil
	})
	if err != nil {
		return ServerSupport{}, fmt.Errorf("asking the API server for its version: %w", firstErr(last, err))
	}
	s := ServerSupport{Version: info.GitVersion, Minor: serverMinor(info)}
	switch {
	case s.Minor == 0:
		logger.Info("Could not read the API server's minor version; assuming it is supported", "version", info.GitVersion, "minor", info.Minor)
	case s.Minor < OldestServerMinor:
		return s, fmt.Errorf("the API server is %s; this phalanx-scheduler (Kubernetes 1.%d scheduler framework) supports API servers 1.%d to 1.%d: upgrade the control plane, or run a Phalanx release built on Kubernetes 1.%d or older (docs/compatibility.md)",
			info.GitVersion, BuiltMinor, OldestServerMinor, BuiltMinor, s.Minor)
	case s.Minor > BuiltMinor+1:
		logger.Info("The API server is newer than the version-skew policy allows for this scheduler (one minor); scheduling may miss fields it does not know", "server", info.GitVersion, "built", "1."+strconv.Itoa(BuiltMinor))
	case s.Minor > BuiltMinor:
		logger.Info("The API server is one minor newer than this scheduler's framework (allowed by the version-skew policy)", "server", info.GitVersion, "built", "1."+strconv.Itoa(BuiltMinor))
	}
	served := map[string]map[string]bool{}
	for _, g := range gatedAPIs {
		if !gates.Enabled(g.gate) {
			continue
		}
		resources, ok := served[g.groupVersion]
		if !ok {
			var err error
			if resources, err = servedResources(ctx, client, g.groupVersion, timeout); err != nil {
				return s, err
			}
			served[g.groupVersion] = resources
		}
		if resources[g.resource] {
			continue
		}
		if gates.ExplicitlySet(g.gate) {
			return s, fmt.Errorf("--feature-gates=%s=true needs %s %s, which the API server (%s) does not serve: enable that API on the API server or remove the gate", g.gate, g.groupVersion, g.resource, info.GitVersion)
		}
		if err := gates.SetFromMap(map[string]bool{string(g.gate): false}); err != nil {
			return s, fmt.Errorf("turning off feature gate %s (the API server does not serve %s %s): %w", g.gate, g.groupVersion, g.resource, err)
		}
		s.Disabled = append(s.Disabled, g.gate)
		metrics.Register()
		metrics.ServerFeatureDisabled.WithLabelValues(string(g.gate)).Set(1)
		logger.Info("The API server does not serve an API a feature gate needs; the gate is off for this process", "featureGate", g.gate,
			"api", g.groupVersion+" "+g.resource, "server", info.GitVersion, "without", g.without)
	}
	return s, nil
}

// servedResources lists the resources discovery serves in groupVersion (none when the group
// version is not served), retrying other errors for up to timeout.
func servedResources(ctx context.Context, client discovery.DiscoveryInterface, groupVersion string, timeout time.Duration) (map[string]bool, error) {
	out := map[string]bool{}
	var last error
	err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(context.Context) (bool, error) {
		list, err := client.ServerResourcesForGroupVersion(groupVersion)
		switch {
		case apierrors.IsNotFound(err):
			return true, nil
		case err != nil:
			last = err
			return false, nil
		}
		for _, r := range list.APIResources {
			out[r.Name] = true
		}
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("asking the API server whether it serves %s: %w", groupVersion, firstErr(last, err))
	}
	return out, nil
}

// serverMinor is the numeric minor of info ("34+" on some distributions reads as 34).
func serverMinor(info *version.Info) int {
	m, err := strconv.Atoi(strings.TrimRight(info.Minor, "+"))
	if err != nil || m <= 0 {
		return 0
	}
	return m
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
