package scheduler

import (
	"fmt"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
)

// FeatureDefaults are the kube-scheduler feature gates whose default Phalanx changes;
// --feature-gates still sets them either way.
//
// NominatedNodeNameForExpectation (beta, on in kube-scheduler since 1.35) writes
// status.nominatedNodeName of every pod that waits in Permit before it binds: for a gang, one
// extra pod write per member (all but the last of a quorum wait for it), about as many API
// writes as the binds themselves, for a wait that the one-pass gang plan makes a few
// milliseconds long. Phalanx reports its gangs' placement in their status instead. Turn it
// on when a cluster autoscaler must see members that wait for their quorum.
var FeatureDefaults = map[string]bool{
	string(features.NominatedNodeNameForExpectation): false,
}

// ApplyFeatureDefaults sets FeatureDefaults on the process's feature gates. Call it before
// the command line is parsed, so that --feature-gates overrides it.
func ApplyFeatureDefaults() error {
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(FeatureDefaults); err != nil {
		return fmt.Errorf("phalanx feature defaults: %w", err)
	}
	return nil
}
