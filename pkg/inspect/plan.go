package inspect

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	schedulerscheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned"
	versionedfake "github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned/fake"
	"github.com/phalanx-sched/phalanx/pkg/controller"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	phalanxscheduler "github.com/phalanx-sched/phalanx/pkg/scheduler"
	_ "github.com/phalanx-sched/phalanx/pkg/scheduler/apis/config" // the plugin argument types
	"github.com/phalanx-sched/phalanx/pkg/scheduler/surgeadmission"
	"github.com/phalanx-sched/phalanx/pkg/surge"
	"github.com/phalanx-sched/phalanx/pkg/update"
	"github.com/phalanx-sched/phalanx/pkg/workload"
)

// World is the live cluster a preview starts from: the PodCliqueSet's objects, the nodes, and
// every other bound pod (they hold capacity).
type World struct {
	PCS       *grovev1.PodCliqueSet
	Cliques   []grovev1.PodClique
	Groups    []grovev1.PodCliqueScalingGroup
	Gangs     []schedv1.PodGang
	Pods      []corev1.Pod
	Services  []corev1.Service
	Nodes     []corev1.Node
	OtherPods []corev1.Pod
	// Revisions are the PodCliqueSet's ControllerRevisions (a partition holds replicas at one).
	Revisions []appsv1.ControllerRevision
}

// LoadWorld reads the World of a PodCliqueSet.
func LoadWorld(ctx context.Context, kube kubernetes.Interface, client versioned.Interface, namespace, name string) (*World, error) {
	st, err := Load(ctx, kube, client, namespace, name)
	if err != nil {
		return nil, err
	}
	w := &World{PCS: st.PCS, Gangs: st.Gangs, Pods: st.Pods}
	sel := labels.SelectorFromSet(labels.Set{grovev1.LabelPodCliqueSet: name}).String()
	cl, err := client.GroveV1alpha1().PodCliques(namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, err
	}
	w.Cliques = cl.Items
	gl, err := client.GroveV1alpha1().PodCliqueScalingGroups(namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, err
	}
	w.Groups = gl.Items
	sl, err := kube.CoreV1().Services(namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, err
	}
	w.Services = sl.Items
	rl, err := kube.AppsV1().ControllerRevisions(namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, fmt.Errorf("listing the revisions of %s: %w", name, err)
	}
	w.Revisions = rl.Items
	nl, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	w.Nodes = nl.Items
	all, err := kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName!="})
	if err != nil {
		return nil, fmt.Errorf("listing bound pods: %w", err)
	}
	mine := map[string]bool{}
	for _, p := range w.Pods {
		mine[p.Namespace+"/"+p.Name] = true
	}
	for _, p := range all.Items {
		if !mine[p.Namespace+"/"+p.Name] && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			w.OtherPods = append(w.OtherPods, p)
		}
	}
	return w, nil
}

// Step is one pass of the controller that did something.
type Step struct {
	Pass int `json:"pass"`
	// Actions are the planner's actions of the pass ("create g-0-sg[3] (surge)").
	Actions []string `json:"actions"`
	// SurgeBlocked are the units whose surge did not fit (with the admission message).
	SurgeBlocked []string `json:"surgeBlocked,omitempty"`
	// Available and Desired are the replicas available after the step's effects settled;
	// ReadyPods the Ready pods then.
	Available int32 `json:"availableReplicas"`
	Desired   int32 `json:"desiredReplicas"`
	ReadyPods int   `json:"readyPods"`
	Pods      int   `json:"pods"`
	GPUs      int64 `json:"gpus"`
}

// Preview is what an update will do, step by step.
type Preview struct {
	Namespace, Name string
	Steps           []Step `json:"steps"`
	// Done: the preview reached UpdateComplete; otherwise Stuck says what it waits for.
	Done  bool   `json:"done"`
	Stuck string `json:"stuck,omitempty"`
	// Partitioned, when the update stops at rollingUpdate.partition, says which replicas keep
	// their revision.
	Partitioned string `json:"partitioned,omitempty"`
	// MinAvailable and MinReadyPods are the lowest capacity during the update; PeakExtraGPUs
	// the most GPUs the PodCliqueSet used above its starting use (surge).
	MinAvailable  int32 `json:"minAvailableReplicas"`
	MinReadyPods  int   `json:"minReadyPods"`
	StartPods     int   `json:"startPods"`
	PeakExtraGPUs int64 `json:"peakExtraGPUs"`
}

// Profile returns the scheduler profile phalanx-scheduler runs by default (its Filter plugins
// and their arguments are what the preview's surge admission uses).
func Profile() (*config.KubeSchedulerProfile, error) {
	raw, err := phalanxscheduler.DefaultConfig(phalanxscheduler.ConfigOptions{})
	if err != nil {
		return nil, err
	}
	obj, _, err := schedulerscheme.Codecs.UniversalDecoder().Decode(raw, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("decoding the default scheduler configuration: %w", err)
	}
	cfg, ok := obj.(*config.KubeSchedulerConfiguration)
	if !ok || len(cfg.Profiles) == 0 {
		return nil, fmt.Errorf("the default scheduler configuration has no profile")
	}
	return &cfg.Profiles[0], nil
}

// PlanUpdate runs the real PodCliqueSet controller against an in-memory copy of the world with
// newSpec applied, and a simulated cluster in which every pod that fits (the same surge
// admission check the scheduler runs, on the copy) is bound and Ready before the next pass,
// and deletions are immediate. It records every pass that did something. Nothing is written
// to the cluster. maxPasses bounds a preview that does not converge.
func PlanUpdate(ctx context.Context, kube kubernetes.Interface, profile *config.KubeSchedulerProfile, w *World, newSpec grovev1.PodCliqueSetSpec, maxPasses int) (*Preview, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ns, name := w.PCS.Namespace, w.PCS.Name
	pcs := w.PCS.DeepCopy()
	pcs.Spec = newSpec
	pcs.Generation++
	var kubeObjs, phalanxObjs []runtime.Object
	phalanxObjs = append(phalanxObjs, pcs)
	for i := range w.Cliques {
		phalanxObjs = append(phalanxObjs, &w.Cliques[i])
	}
	for i := range w.Groups {
		phalanxObjs = append(phalanxObjs, &w.Groups[i])
	}
	for i := range w.Gangs {
		phalanxObjs = append(phalanxObjs, &w.Gangs[i])
	}
	for i := range w.Pods {
		kubeObjs = append(kubeObjs, &w.Pods[i])
	}
	for i := range w.Services {
		kubeObjs = append(kubeObjs, &w.Services[i])
	}
	for i := range w.Nodes {
		kubeObjs = append(kubeObjs, &w.Nodes[i])
	}
	for i := range w.Revisions {
		kubeObjs = append(kubeObjs, &w.Revisions[i])
	}
	fkube := kubefake.NewClientset(kubeObjs...)
	fclient := versionedfake.NewSimpleClientset(phalanxObjs...)
	// The fake trackers keep no resourceVersion; the preview needs one to know when the
	// controller's caches have caught up with a write.
	rv := int64(1) << 40 // above any live resourceVersion this preview starts from
	stamp := func(action clienttesting.Action) (bool, runtime.Object, error) {
		var obj runtime.Object
		switch a := action.(type) {
		case clienttesting.CreateAction:
			obj = a.GetObject()
		case clienttesting.UpdateAction:
			obj = a.GetObject()
		}
		if pod, ok := obj.(*corev1.Pod); ok && action.GetVerb() == "create" {
			surge.DefaultRequests(pod) // as the API server does
		}
		if m, err := meta.Accessor(obj); obj != nil && err == nil {
			m.SetResourceVersion(strconv.FormatInt(atomic.AddInt64(&rv, 1), 10))
		}
		return false, nil, nil
	}
	fkube.PrependReactor("*", "*", stamp)
	fclient.PrependReactor("*", "*", stamp)
	sim := &simCluster{ctx: ctx, kube: fkube, client: fclient, ns: ns, nodes: w.Nodes, others: w.OtherPods}
	ctrl := controller.New(fkube, fclient, nil)
	admitter, err := surgeadmission.NewStaticAdmitter(ctx, profile, kube, sim.world)
	if err != nil {
		return nil, err
	}
	ctrl.SetSurgeAdmitter(admitter)
	var last update.Plan
	ctrl.OnPlan = func(_ *grovev1.PodCliqueSet, p update.Plan) { last = p }
	if err := ctrl.StartInformers(ctx); err != nil {
		return nil, err
	}
	startGPUs := sim.gpus()
	pv := &Preview{Namespace: ns, Name: name, MinAvailable: pcs.Spec.Replicas, MinReadyPods: -1, StartPods: len(w.Pods)}
	idle := 0
	for pass := 1; pass <= maxPasses; pass++ {
		if err := sim.waitCaches(ctrl, name); err != nil {
			return nil, err
		}
		last = update.Plan{}
		if err := ctrl.Reconcile(ctx, ns+"/"+name); err != nil {
			return nil, fmt.Errorf("pass %d: %w", pass, err)
		}
		if err := sim.settle(); err != nil {
			return nil, fmt.Errorf("pass %d: %w", pass, err)
		}
		cur, err := fclient.GroveV1alpha1().PodCliqueSets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		ready, pods := sim.readyPods()
		gpus := sim.gpus()
		pv.MinAvailable = min(pv.MinAvailable, cur.Status.AvailableReplicas)
		if pv.MinReadyPods < 0 || ready < pv.MinReadyPods {
			pv.MinReadyPods = ready
		}
		pv.PeakExtraGPUs = max(pv.PeakExtraGPUs, gpus-startGPUs)
		if len(last.Actions) > 0 || len(last.SurgeBlocked) > 0 {
			step := Step{Pass: pass, Available: cur.Status.AvailableReplicas, Desired: cur.Spec.Replicas, ReadyPods: ready, Pods: pods, GPUs: gpus}
			for _, a := range last.Actions {
				step.Actions = append(step.Actions, a.String())
			}
			step.SurgeBlocked = append(step.SurgeBlocked, blockedMessages(cur)...)
			if len(last.Actions) > 0 {
				pv.Steps = append(pv.Steps, step)
				idle = 0
			} else {
				idle++
			}
		} else {
			idle++
		}
		if last.Done {
			pv.Done = true
			if c := meta.FindStatusCondition(cur.Status.Conditions, grovev1.ConditionProgressing); c != nil && c.Reason == controller.ReasonPartitioned {
				pv.Partitioned = c.Message
			}
			return pv, nil
		}
		if idle >= 3 {
			pv.Stuck = last.Waiting
			if c := meta.FindStatusCondition(cur.Status.Conditions, grovev1.ConditionSurgeBlocked); c != nil && c.Status == metav1.ConditionTrue {
				pv.Stuck = c.Message
			}
			if pv.Stuck == "" {
				pv.Stuck = "no step possible"
			}
			return pv, nil
		}
	}
	pv.Stuck = fmt.Sprintf("not done after %d passes", maxPasses)
	return pv, nil
}

func blockedMessages(pcs *grovev1.PodCliqueSet) []string {
	if c := meta.FindStatusCondition(pcs.Status.Conditions, grovev1.ConditionSurgeBlocked); c != nil && c.Status == metav1.ConditionTrue {
		return []string{c.Message}
	}
	return nil
}

// simCluster is the in-memory cluster of a preview: pods that fit are bound and Ready at once.
type simCluster struct {
	ctx    context.Context
	kube   *kubefake.Clientset
	client *versionedfake.Clientset
	ns     string
	nodes  []corev1.Node
	others []corev1.Pod
}

func (s *simCluster) pods() []corev1.Pod {
	l, _ := s.kube.CoreV1().Pods(s.ns).List(s.ctx, metav1.ListOptions{})
	return l.Items
}

// world is the admission check's view: the nodes, the other pods and the preview's bound pods.
func (s *simCluster) world() ([]*corev1.Node, []*corev1.Pod) {
	nodes := make([]*corev1.Node, len(s.nodes))
	for i := range s.nodes {
		nodes[i] = &s.nodes[i]
	}
	var pods []*corev1.Pod
	for i := range s.others {
		pods = append(pods, &s.others[i])
	}
	for _, p := range s.pods() {
		if p.Spec.NodeName != "" {
			pods = append(pods, p.DeepCopy())
		}
	}
	return nodes, pods
}

func (s *simCluster) readyPods() (ready, total int) {
	for _, p := range s.pods() {
		total++
		if workload.PodReady(&p) {
			ready++
		}
	}
	return ready, total
}

func (s *simCluster) gpus() int64 {
	var n int64
	for _, p := range s.pods() {
		n += gang.RequestsOf(&p).GPU
	}
	return n
}

// waitCaches waits until the controller's caches hold what the fake API holds.
func (s *simCluster) waitCaches(ctrl *controller.Controller, name string) error {
	return wait.PollUntilContextTimeout(s.ctx, 5*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		gangs, err := s.client.SchedulerV1alpha1().PodGangs(s.ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		pcs, err := s.client.GroveV1alpha1().PodCliqueSets(s.ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return cachesHold(ctrl, s.ns, s.pods(), gangs.Items, pcs), nil
	})
}

// cachesHold reports whether the controller's caches hold exactly these pods, gangs and
// PodCliqueSet (name and resourceVersion), so that its next pass sees what the last one wrote.
func cachesHold(ctrl *controller.Controller, namespace string, pods []corev1.Pod, gangs []schedv1.PodGang, pcs *grovev1.PodCliqueSet) bool {
	kf, pf := ctrl.Informers()
	cached, err := kf.Core().V1().Pods().Lister().Pods(namespace).List(labels.Everything())
	if err != nil || len(cached) != len(pods) {
		return false
	}
	rv := map[string]string{}
	for _, p := range cached {
		rv[p.Name] = p.ResourceVersion
	}
	for _, p := range pods {
		if rv[p.Name] != p.ResourceVersion {
			return false
		}
	}
	cg, err := pf.Scheduler().V1alpha1().PodGangs().Lister().PodGangs(namespace).List(labels.Everything())
	if err != nil || len(cg) != len(gangs) {
		return false
	}
	rv = map[string]string{}
	for _, g := range cg {
		rv[g.Name] = g.ResourceVersion
	}
	for _, g := range gangs {
		if rv[g.Name] != g.ResourceVersion {
			return false
		}
	}
	cur, err := pf.Grove().V1alpha1().PodCliqueSets().Lister().PodCliqueSets(namespace).Get(pcs.Name)
	return err == nil && cur.ResourceVersion == pcs.ResourceVersion
}

// settle binds every pending pod that fits (a gang's pending pods together), marks bound pods
// Running and Ready, and gangs whose pods are all bound Scheduled.
func (s *simCluster) settle() error {
	pods := s.pods()
	free := map[string]gang.Resources{}
	for _, n := range s.nodes {
		if n.Spec.Unschedulable {
			continue
		}
		free[n.Name] = gang.ResourcesOf(n.Status.Allocatable)
	}
	take := func(p *corev1.Pod) {
		if r, ok := free[p.Spec.NodeName]; ok {
			free[p.Spec.NodeName] = r.Sub(gang.RequestsOf(p))
		}
	}
	for i := range s.others {
		take(&s.others[i])
	}
	byGang := map[string][]*corev1.Pod{}
	for i := range pods {
		p := &pods[i]
		if p.Spec.NodeName != "" {
			take(p)
			continue
		}
		g := workload.GangOf(p.Labels)
		byGang[g] = append(byGang[g], p)
	}
	names := make([]string, 0, len(byGang))
	for g := range byGang {
		names = append(names, g)
	}
	sort.Strings(names)
	nodeNames := make([]string, 0, len(free))
	for n := range free {
		nodeNames = append(nodeNames, n)
	}
	sort.Strings(nodeNames)
	for _, g := range names {
		trial := map[string]gang.Resources{}
		for k, v := range free {
			trial[k] = v
		}
		placed := map[string]string{}
		ok := true
		sort.Slice(byGang[g], func(i, j int) bool { return byGang[g][i].Name < byGang[g][j].Name })
		for _, p := range byGang[g] {
			need := gang.RequestsOf(p)
			found := ""
			for _, n := range nodeNames {
				if trial[n].Fits(need) && selects(p, s.node(n)) {
					found = n
					break
				}
			}
			if found == "" {
				ok = false
				break
			}
			trial[found] = trial[found].Sub(need)
			placed[p.Name] = found
		}
		if !ok {
			continue
		}
		free = trial
		for _, p := range byGang[g] {
			p.Spec.NodeName = placed[p.Name]
			if _, err := s.kube.CoreV1().Pods(s.ns).Update(s.ctx, p, metav1.UpdateOptions{}); err != nil {
				return err
			}
		}
	}
	for _, p := range s.pods() {
		if p.Spec.NodeName == "" || workload.PodReady(&p) {
			continue
		}
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, {Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		if _, err := s.kube.CoreV1().Pods(s.ns).UpdateStatus(s.ctx, &p, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	bound := map[string]bool{}
	for _, p := range s.pods() {
		bound[p.Name] = p.Spec.NodeName != ""
	}
	gangs, err := s.client.SchedulerV1alpha1().PodGangs(s.ns).List(s.ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, g := range gangs.Items {
		all := true
		for _, pg := range g.Spec.PodGroups {
			n := int32(0)
			for _, ref := range pg.PodReferences {
				if bound[ref.Name] {
					n++
				}
			}
			if n < pg.MinReplicas {
				all = false
			}
		}
		if all && !meta.IsStatusConditionTrue(g.Status.Conditions, schedv1.ConditionScheduled) {
			meta.SetStatusCondition(&g.Status.Conditions, metav1.Condition{Type: schedv1.ConditionScheduled, Status: metav1.ConditionTrue, Reason: "QuorumBound", Message: "preview"})
			if _, err := s.client.SchedulerV1alpha1().PodGangs(s.ns).UpdateStatus(s.ctx, &g, metav1.UpdateOptions{}); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *simCluster) node(name string) *corev1.Node {
	for i := range s.nodes {
		if s.nodes[i].Name == name {
			return &s.nodes[i]
		}
	}
	return nil
}

func selects(p *corev1.Pod, n *corev1.Node) bool {
	if n == nil {
		return false
	}
	for k, v := range p.Spec.NodeSelector {
		if n.Labels[k] != v {
			return false
		}
	}
	return true
}

// RenderPlan prints the preview.
func RenderPlan(out io.Writer, pv *Preview, pal Palette) {
	fmt.Fprintf(out, "update of PodCliqueSet %s/%s\n", pv.Namespace, pv.Name)
	for i, s := range pv.Steps {
		fmt.Fprintf(out, "step %2d  %s\n", i+1, strings.Join(s.Actions, ", "))
		for _, b := range s.SurgeBlocked {
			fmt.Fprintf(out, "         %s\n", pal.paint(pal.Warn, "surge blocked: "+b))
		}
		fmt.Fprintf(out, "         then: available %d/%d, %d/%d pods Ready, %d GPUs\n", s.Available, s.Desired, s.ReadyPods, s.Pods, s.GPUs)
	}
	if pv.Done {
		fmt.Fprintf(out, "%s in %d steps; lowest capacity %d replicas available, %d of %d pods Ready; surge up to %d GPUs\n",
			pal.paint(pal.Good, "completes"), len(pv.Steps), pv.MinAvailable, pv.MinReadyPods, pv.StartPods, pv.PeakExtraGPUs)
		if pv.Partitioned != "" {
			fmt.Fprintf(out, "up to the partition: %s\n", pv.Partitioned)
		}
		return
	}
	fmt.Fprintf(out, "%s after %d steps: %s\n", pal.paint(pal.Bad, "stops"), len(pv.Steps), pv.Stuck)
}
