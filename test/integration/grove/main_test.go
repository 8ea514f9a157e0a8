// Package grove holds the tests that share a cluster with Grove's operator as Grove installs
// it: the API server serves Grove-shaped CRDs (framework.WriteGroveShapedCRDs: Phalanx's CRD of
// each Grove kind cut to Grove's pinned schema, so whatever Phalanx writes outside Grove's
// schema is pruned as on a Grove cluster) and no PodGroup CRD; the tests play the operator's
// part and run phalanx-scheduler as its gang scheduler.
package grove

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// wait bounds the waits for a placement.
const wait = 60 * time.Second

func TestMain(m *testing.M) {
	root, err := localcluster.RepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "grove-crds-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := 1
	if err := framework.WriteGroveShapedCRDs(root, dir); err != nil {
		fmt.Fprintf(os.Stderr, "writing Grove-shaped CRDs: %v\n", err)
	} else {
		code = framework.RunWithCRDs(m, dir)
	}
	_ = os.RemoveAll(dir)
	os.Exit(code)
}
