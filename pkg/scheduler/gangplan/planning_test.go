package gangplan

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"

	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangdra"
)

// A profile that runs GangDynamicResources in place of DynamicResources gives the planner
// kube-scheduler's DynamicResources (its framework has no Phalanx plugin), with the args the
// profile gives the wrapper or their defaults; without a DRA manager, neither.
func TestPlanningPluginsMapGangDynamicResources(t *testing.T) {
	in := &config.Plugins{MultiPoint: config.PluginSet{
		Enabled:  []config.Plugin{{Name: names.NodeResourcesFit}, {Name: gangdra.Name, Weight: 2}},
		Disabled: []config.Plugin{{Name: names.DefaultPreemption}, {Name: names.DynamicResources}},
	}}
	if !enables(in, gangdra.Name) {
		t.Fatal("the wrapper is not seen as enabled")
	}
	out := planningPlugins(in, true, false)
	var enabled, disabled []string
	for _, p := range out.MultiPoint.Enabled {
		enabled = append(enabled, p.Name)
	}
	for _, p := range out.MultiPoint.Disabled {
		disabled = append(disabled, p.Name)
	}
	if !slices.Contains(enabled, names.DynamicResources) || slices.Contains(enabled, gangdra.Name) || slices.Contains(disabled, names.DynamicResources) {
		t.Errorf("planner plugins: enabled %v, disabled %v; want DynamicResources enabled in place of %s", enabled, disabled, gangdra.Name)
	}
	if !slices.Equal(out.Reserve.Enabled, []config.Plugin{{Name: names.DynamicResources}}) {
		t.Errorf("planner Reserve %v", out.Reserve.Enabled)
	}
	cfg, err := planningConfig(nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg) != 1 || cfg[0].Name != names.DynamicResources {
		t.Fatalf("planner plugin config %v, want DynamicResources' default args", cfg)
	}
	if _, ok := cfg[0].Args.(*config.DynamicResourcesArgs); !ok {
		t.Errorf("args of type %T", cfg[0].Args)
	}
	if _, err := planningConfig([]config.PluginConfig{{Name: gangdra.Name, Args: &config.NodeResourcesFitArgs{}}}, true); err == nil || !strings.Contains(err.Error(), gangdra.Name) {
		t.Errorf("wrong args for the wrapper: err = %v, want it to name %s", err, gangdra.Name)
	}
	without := planningPlugins(in, false, false)
	for _, p := range without.MultiPoint.Enabled {
		if p.Name == names.DynamicResources || p.Name == gangdra.Name {
			t.Errorf("without a DRA manager the planner runs %s", p.Name)
		}
	}
}
