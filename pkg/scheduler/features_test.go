package scheduler_test

import (
	"testing"

	"github.com/spf13/pflag"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/features"

	"github.com/phalanx-sched/phalanx/pkg/scheduler"
)

// Phalanx's default for NominatedNodeNameForExpectation is off, and --feature-gates still
// turns it on. (The gates are the process's: the cases run in this order.)
func TestFeatureDefaults(t *testing.T) {
	parse := func(args ...string) bool {
		t.Helper()
		opts := options.NewOptions()
		fs := pflag.NewFlagSet("phalanx-scheduler", pflag.ContinueOnError)
		for _, f := range opts.Flags.FlagSets {
			fs.AddFlagSet(f)
		}
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		if err := opts.ComponentGlobalsRegistry.Set(); err != nil {
			t.Fatal(err)
		}
		return utilfeature.DefaultFeatureGate.Enabled(features.NominatedNodeNameForExpectation)
	}
	if !utilfeature.DefaultFeatureGate.Enabled(features.NominatedNodeNameForExpectation) {
		t.Fatal("kube-scheduler's own default should be on (the test reads Phalanx's change of it)")
	}
	if err := scheduler.ApplyFeatureDefaults(); err != nil {
		t.Fatal(err)
	}
	if parse() {
		t.Error("NominatedNodeNameForExpectation is on without --feature-gates; Phalanx's default is off")
	}
	if !parse("--feature-gates=NominatedNodeNameForExpectation=true") {
		t.Error("--feature-gates=NominatedNodeNameForExpectation=true did not turn it on")
	}
}
