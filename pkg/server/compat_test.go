package server

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	fakediscovery "k8s.io/client-go/discovery/fake"
	kubetesting "k8s.io/client-go/testing"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/features"
)

// fakeServer is discovery of an API server of the given minor serving groupVersion/resources.
func fakeServer(minor string, served map[string][]string) *fakediscovery.FakeDiscovery {
	d := &fakediscovery.FakeDiscovery{Fake: &kubetesting.Fake{}, FakedServerVersion: &version.Info{Major: "1", Minor: minor, GitVersion: "v1." + strings.TrimRight(minor, "+") + ".4"}}
	for gv, resources := range served {
		l := &metav1.APIResourceList{GroupVersion: gv}
		for _, r := range resources {
			l.APIResources = append(l.APIResources, metav1.APIResource{Name: r})
		}
		d.Resources = append(d.Resources, l)
	}
	return d
}

// server134 serves what a 1.34 API server serves of the gated APIs: DRA v1 without
// DeviceTaintRules, no scheduling.k8s.io v1beta1 or v1alpha3.
var server134 = map[string][]string{"resource.k8s.io/v1": {"deviceclasses", "resourceclaims", "resourceclaimtemplates", "resourceslices"}}

func gates(t *testing.T, set map[string]bool) featuregate.MutableVersionedFeatureGate {
	t.Helper()
	g := utilfeature.DefaultMutableFeatureGate.DeepCopy()
	if err := g.SetFromMap(set); err != nil {
		t.Fatal(err)
	}
	return g
}

func TestAdaptToServerTurnsOffGatesOfMissingAPIs(t *testing.T) {
	g := gates(t, nil)
	if !g.Enabled(features.DRADeviceTaintRules) {
		t.Fatal("DRADeviceTaintRules is off by default: this test no longer tests the 1.37 default")
	}
	s, err := AdaptToServer(context.Background(), fakeServer("34", server134), g, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if g.Enabled(features.DRADeviceTaintRules) {
		t.Error("DRADeviceTaintRules still on against a server without resource.k8s.io/v1 devicetaintrules")
	}
	if !g.Enabled(features.DynamicResourceAllocation) {
		t.Error("DynamicResourceAllocation turned off although resource.k8s.io/v1 resourceslices is served")
	}
	if len(s.Disabled) != 1 || s.Disabled[0] != features.DRADeviceTaintRules || s.Minor != 34 || s.Version != "v1.34.4" {
		t.Errorf("support %+v, want DRADeviceTaintRules disabled on v1.34.4", s)
	}
}

func TestAdaptToServerKeepsGatesOfServedAPIs(t *testing.T) {
	g := gates(t, nil)
	served := map[string][]string{"resource.k8s.io/v1": append([]string{"devicetaintrules"}, server134["resource.k8s.io/v1"]...)}
	s, err := AdaptToServer(context.Background(), fakeServer("37", served), g, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Disabled) != 0 || !g.Enabled(features.DRADeviceTaintRules) {
		t.Errorf("gates turned off on a server that serves their APIs: %v", s.Disabled)
	}
}

func TestAdaptToServerRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		minor  string
		set    map[string]bool
		served map[string][]string
		want   []string
	}{
		{"server older than supported", "33", nil, server134, []string{"v1.33.4", "1.34 to 1.37", "upgrade the control plane"}},
		{"explicit gate whose API is missing", "34", map[string]bool{"DRADeviceTaintRules": true}, server134,
			[]string{"--feature-gates=DRADeviceTaintRules=true", "resource.k8s.io/v1 devicetaintrules", "v1.34.4"}},
		{"explicit workload gate on a server without the API", "36", map[string]bool{"GenericWorkload": true}, server134,
			[]string{"--feature-gates=GenericWorkload=true", "scheduling.k8s.io/v1beta1 podgroups"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := AdaptToServer(context.Background(), fakeServer(tc.minor, tc.served), gates(t, tc.set), time.Second)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestAdaptToServerNewerServerAccepted(t *testing.T) {
	served := map[string][]string{"resource.k8s.io/v1": append([]string{"devicetaintrules"}, server134["resource.k8s.io/v1"]...)}
	for _, minor := range []string{"38", "39+", "x"} {
		if _, err := AdaptToServer(context.Background(), fakeServer(minor, served), gates(t, nil), time.Second); err != nil {
			t.Errorf("minor %q: %v", minor, err)
		}
	}
}

// BuiltMinor is the minor of the k8s.io/kubernetes requirement in go.mod.
func TestBuiltMinorMatchesGoMod(t *testing.T) {
	raw, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "k8s.io/kubernetes" {
			if want := "v1." + strconv.Itoa(BuiltMinor) + "."; !strings.HasPrefix(f[1], want) {
				t.Fatalf("go.mod requires k8s.io/kubernetes %s, BuiltMinor is %d", f[1], BuiltMinor)
			}
			return
		}
	}
	t.Fatal("no k8s.io/kubernetes requirement in go.mod")
}
