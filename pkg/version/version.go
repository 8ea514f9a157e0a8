// Package version reports the Phalanx version and the Kubernetes release it embeds.
package version

import (
	"fmt"
	"runtime"

	k8sversion "k8s.io/component-base/version"
)

// Version is the Phalanx release, set at build time with
// -ldflags "-X github.com/phalanx-sched/phalanx/pkg/version.Version=...".
var Version = "v0.0.0-dev"

// String is the one-line version report printed by --version.
func String(component string) string {
	return fmt.Sprintf("%s %s (kubernetes %s, %s %s/%s)",
		component, Version, k8sversion.Get().GitVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
