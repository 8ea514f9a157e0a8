package framework

import (
	"testing"

	"k8s.io/component-base/metrics/legacyregistry"
)

// Metric sums, over the series of the named metric whose labels include want, the counter or
// gauge value, or the sample count of a histogram. It reads the registry of this process (the
// in-process scheduler and controller).
func Metric(t testing.TB, name string, want map[string]string) float64 {
	t.Helper()
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatalf("gathering metrics: %v", err)
	}
	var sum float64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			for k, v := range want {
				if labels[k] != v {
					continue series
				}
			}
			switch {
			case m.Counter != nil:
				sum += m.GetCounter().GetValue()
			case m.Gauge != nil:
				sum += m.GetGauge().GetValue()
			case m.Histogram != nil:
				sum += float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return sum
}

// GangAttempts are the counters of this process that move when a gang member of a kind
// ("PodGang", "PodGroup") holds a node: it waits in Permit, it is assumed and then released
// (Unreserve counts a Permit rejection), or its gang is released with a back-off.
type GangAttempts struct{ PermitWaits, PermitRejections, Backoffs float64 }

// ReadGangAttempts reads the GangAttempts counters of kind.
func ReadGangAttempts(t testing.TB, kind string) GangAttempts {
	t.Helper()
	k := map[string]string{"kind": kind}
	return GangAttempts{
		PermitWaits:      Metric(t, "phalanx_permit_waits_total", k),
		PermitRejections: Metric(t, "phalanx_permit_rejections_total", k),
		Backoffs:         Metric(t, "phalanx_gang_backoffs_total", k),
	}
}

// ExpectNoNodeHeld fails the test when, since before, a member of a gang of kind waited in
// Permit, was assumed on a node and released, or had its gang released: a gang that cannot fit
// must be turned away before any member holds a node, not by Permit's timeout.
func ExpectNoNodeHeld(t testing.TB, kind string, before GangAttempts) {
	t.Helper()
	now := ReadGangAttempts(t, kind)
	if now != before {
		t.Errorf("members of a %s that cannot fit held nodes: Permit waits +%v, Permit rejections +%v, gang back-offs +%v; want none",
			kind, now.PermitWaits-before.PermitWaits, now.PermitRejections-before.PermitRejections, now.Backoffs-before.Backoffs)
	}
}
