package gang

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
)

const ns = "default"

type podOpt func(*v1.Pod)

func surge(p *v1.Pod) { p.Labels["phalanx.dev/surge"] = "true" }
func gated(p *v1.Pod) { p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "hold"}} }
func bound(p *v1.Pod) { p.Spec.NodeName = "node-" + p.Name }
func base(b string) podOpt {
	return func(p *v1.Pod) { p.Labels["grove.io/base-podgang"] = b }
}

// pod makes member i of podgroup group of gang g, with 4 GPUs.
func pod(g, group string, i int, opts ...podOpt) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s-%s-%d", g, group, i), UID: types.UID(fmt.Sprintf("%s-%s-%d", g, group, i)),
			Labels: map[string]string{"grove.io/podgang": g, "grove.io/podclique": group, "grove.io/podclique-pod-index": strconv.Itoa(i)}},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{ResourceGPU: resource.MustParse("4")},
			Limits:   v1.ResourceList{ResourceGPU: resource.MustParse("4")}}}}},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

// spec makes a gang whose podgroups are given as "name:min".
func spec(g string, groups ...string) Spec {
	s := Spec{Key: Key{Kind: KindPodGang, Namespace: ns, Name: g}, CreatedAt: time.Unix(1000, 0)}
	for _, gr := range groups {
		name, min, _ := strings.Cut(gr, ":")
		m, _ := strconv.Atoi(min)
		s.PodGroups = append(s.PodGroups, PodGroup{Name: name, MinReplicas: int32(m)})
	}
	return s
}

func key(g string) Key { return Key{Kind: KindPodGang, Namespace: ns, Name: g} }

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newTestStore() (*Store, *clock) {
	c := &clock{t: time.Unix(2000, 0)}
	return NewStore(DefaultMembership(), c.now), c
}

// Rule 1 (quorum) and rule 2 (surge members do not count).
func TestQuorum(t *testing.T) {
	cases := []struct {
		name    string
		groups  []string
		pods    []*v1.Pod
		assumed []string
		want    bool
	}{
		{"nothing placed", []string{"w:2"}, []*v1.Pod{pod("g", "w", 0), pod("g", "w", 1)}, nil, false},
		{"one of two assumed", []string{"w:2"}, []*v1.Pod{pod("g", "w", 0), pod("g", "w", 1)}, []string{"g-w-0"}, false},
		{"both assumed", []string{"w:2"}, []*v1.Pod{pod("g", "w", 0), pod("g", "w", 1)}, []string{"g-w-0", "g-w-1"}, true},
		{"bound plus assumed", []string{"w:2"}, []*v1.Pod{pod("g", "w", 0, bound), pod("g", "w", 1)}, []string{"g-w-1"}, true},
		{"every podgroup must reach its minimum", []string{"l:1", "w:2"}, []*v1.Pod{pod("g", "l", 0), pod("g", "w", 0), pod("g", "w", 1)}, []string{"g-w-0", "g-w-1"}, false},
		{"all podgroups at minimum", []string{"l:1", "w:2"}, []*v1.Pod{pod("g", "l", 0, bound), pod("g", "w", 0), pod("g", "w", 1)}, []string{"g-w-0", "g-w-1"}, true},
		{"surge member does not count", []string{"w:2"}, []*v1.Pod{pod("g", "w", 0, bound), pod("g", "w", 2, surge)}, []string{"g-w-2"}, false},
		{"members above minimum are extras", []string{"w:2"}, []*v1.Pod{pod("g", "w", 0), pod("g", "w", 1), pod("g", "w", 2)}, []string{"g-w-0", "g-w-2"}, true},
		{"minimum zero", []string{"w:0"}, []*v1.Pod{pod("g", "w", 0)}, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newTestStore()
			s.SetSpec(spec("g", tc.groups...))
			byName := map[string]*v1.Pod{}
			for _, p := range tc.pods {
				s.UpsertPod(p)
				byName[p.Name] = p
			}
			for _, name := range tc.assumed {
				s.Assume(byName[name], "n1")
			}
			if got := s.QuorumMet(key("g")); got != tc.want {
				t.Errorf("QuorumMet = %v, want %v (%s)", got, tc.want, s.QuorumProgress(key("g")))
			}
		})
	}
}

// PreEnqueue admission: the gang must exist, each podgroup needs minReplicas present and
// ungated non-surge members, surge members wait for establishment (rule 2), scaled gangs
// wait for their base (rule 4).
func TestAdmit(t *testing.T) {
	cases := []struct {
		name       string
		specs      []Spec
		pods       []*v1.Pod
		candidate  *v1.Pod
		establish  []string // gangs whose pods are all bound and which are marked established
		wantOK     bool
		wantReason string
	}{
		{name: "gang object missing", pods: nil, candidate: pod("g", "w", 0), wantReason: ReasonGangNotFound},
		{name: "not all members created", specs: []Spec{spec("g", "w:2")}, candidate: pod("g", "w", 0), wantReason: ReasonWaitingForMembers},
		{name: "all members present", specs: []Spec{spec("g", "w:2")}, pods: []*v1.Pod{pod("g", "w", 1)}, candidate: pod("g", "w", 0), wantOK: true},
		{name: "a sibling is still gated", specs: []Spec{spec("g", "w:2")}, pods: []*v1.Pod{pod("g", "w", 1, gated)}, candidate: pod("g", "w", 0), wantReason: ReasonWaitingForMembers},
		{name: "surge members do not make up a quorum", specs: []Spec{spec("g", "w:2")}, pods: []*v1.Pod{pod("g", "w", 2, surge)}, candidate: pod("g", "w", 0), wantReason: ReasonWaitingForMembers},
		{name: "surge member before establishment", specs: []Spec{spec("g", "w:1")}, pods: []*v1.Pod{pod("g", "w", 0)}, candidate: pod("g", "w", 1, surge), wantReason: ReasonWaitingEstablished},
		{name: "surge member of an established gang", specs: []Spec{spec("g", "w:1")}, pods: []*v1.Pod{pod("g", "w", 0, bound)}, establish: []string{"g"}, candidate: pod("g", "w", 1, surge), wantOK: true},
		{name: "scaled gang without base", specs: []Spec{spec("s", "w:1")}, candidate: pod("s", "w", 0, base("b")), wantReason: ReasonWaitingForBase},
		{name: "scaled gang, base not established", specs: []Spec{spec("b", "w:1"), spec("s", "w:1")}, pods: []*v1.Pod{pod("b", "w", 0)}, candidate: pod("s", "w", 0, base("b")), wantReason: ReasonWaitingForBase},
		{name: "scaled gang, base established", specs: []Spec{spec("b", "w:1"), spec("s", "w:1")}, pods: []*v1.Pod{pod("b", "w", 0, bound)}, establish: []string{"b"}, candidate: pod("s", "w", 0, base("b")), wantOK: true},
		{name: "pod in no podgroup", specs: []Spec{spec("g", "a:1", "b:1")}, candidate: pod("g", "other", 0), wantReason: ReasonNotInPodGroup},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newTestStore()
			for _, sp := range tc.specs {
				s.SetSpec(sp)
			}
			for _, p := range tc.pods {
				s.UpsertPod(p)
				if p.Spec.NodeName != "" {
					s.MarkBound(p, p.Spec.NodeName)
				}
			}
			for _, g := range tc.establish {
				if !s.Established(key(g)) {
					t.Fatalf("setup: gang %s not established", g)
				}
			}
			ok, w := admit(s, tc.candidate)
			if ok != tc.wantOK || w.Reason != tc.wantReason {
				t.Errorf("Admit = %v %q (%s), want %v %q", ok, w.Reason, w.Message, tc.wantOK, tc.wantReason)
			}
			if !ok && w.Message == "" {
				t.Errorf("a refusal must say what the pod waits for")
			}
		})
	}
}

// Rule 3: established when the quorum first binds, sticky while any member is bound, lost
// when all members are gone; recreated members form a sub-gang.
func TestEstablishedLifecycle(t *testing.T) {
	s, _ := newTestStore()
	s.SetSpec(spec("g", "a:1", "b:2"))
	a0, b0, b1 := pod("g", "a", 0), pod("g", "b", 0), pod("g", "b", 1)
	for _, p := range []*v1.Pod{a0, b0, b1} {
		s.UpsertPod(p)
	}
	for _, p := range []*v1.Pod{a0, b0, b1} {
		s.Assume(p, "n1")
	}
	if s.Established(key("g")) {
		t.Fatal("established before any bind")
	}
	if !s.Binding(key("g")) {
		t.Fatal("a quorum met with assumed members is binding")
	}
	if s.MarkBound(a0, "n1") || s.MarkBound(b0, "n1") {
		t.Fatal("established before the quorum bound")
	}
	if !s.Binding(key("g")) {
		t.Fatal("still binding with one member of b assumed")
	}
	if !s.MarkBound(b1, "n2") {
		t.Fatal("the bind completing the quorum must establish the gang")
	}
	if s.Binding(key("g")) {
		t.Fatal("an established gang is not binding")
	}
	if !s.Established(key("g")) || !s.QuorumBound(key("g")) {
		t.Fatal("not established after the quorum bound")
	}
	if s.MarkBound(b1, "n2") {
		t.Fatal("established reported twice")
	}

	// An update deletes b0 and recreates it: the gang stays established below quorum.
	s.DeletePod(b0)
	if !s.Established(key("g")) {
		t.Fatal("established must be sticky while members are bound")
	}
	if s.QuorumMet(key("g")) {
		t.Fatal("quorum cannot be met with b at 1/2")
	}
	b0new := pod("g", "b", 0)
	b0new.UID = "recreated"
	if ok, w := admit(s, b0new); !ok {
		t.Fatalf("recreated member refused: %s", w.Message)
	}
	if need, n := s.PendingNeed(key("g")); n != 1 || need.GPU != 4 {
		t.Fatalf("PendingNeed = %d pods, %+v; want the deficit only: 1 pod, 4 GPUs", n, need)
	}
	s.Assume(b0new, "n3")
	if !s.QuorumMet(key("g")) {
		t.Fatal("the sub-gang (deficit of b) completes the quorum")
	}

	// All members gone: formed again from scratch.
	for _, p := range []*v1.Pod{a0, b0new, b1} {
		s.DeletePod(p)
	}
	if s.Established(key("g")) {
		t.Fatal("a gang without members cannot stay established")
	}
}

// A quorum bound as the informer reports it is still binding until Establish runs: a status
// writer reading the gang between the two would write it "waiting for its quorum" once more
// (the status read with the counts, not by a second call that may see a later bind).
// A gang whose object records it established (Scheduled=True), read before its pods (a
// restart): established at its first bound member, which ReadBackEstablished reports once, so
// that its waiting members are woken; never for a gang this store established itself.
func TestReadBackEstablished(t *testing.T) {
	s, _ := newTestStore()
	sp := spec("g", "w:3")
	sp.Scheduled = true
	s.SetSpec(sp)
	s.UpsertPod(pod("g", "w", 9)) // a pending replacement, read first
	if s.ReadBackEstablished(key("g")) || s.Established(key("g")) {
		t.Fatal("established with no member bound")
	}
	s.UpsertPod(pod("g", "w", 0, bound))
	if !s.Established(key("g")) || !s.ReadBackEstablished(key("g")) {
		t.Fatal("the first bound member of a gang recorded Scheduled: not reported established")
	}
	s.UpsertPod(pod("g", "w", 1, bound))
	if s.ReadBackEstablished(key("g")) {
		t.Error("reported twice")
	}
	s.SetSpec(spec("own", "w:1"))
	s.UpsertPod(pod("own", "w", 0, bound))
	if !s.Establish(key("own")) || s.ReadBackEstablished(key("own")) {
		t.Error("a gang this store established is reported as read back")
	}
}

func TestBindingUntilEstablished(t *testing.T) {
	s, _ := newTestStore()
	s.SetSpec(spec("g", "w:2"))
	p1 := pod("g", "w", 1)
	s.UpsertPod(pod("g", "w", 0, bound))
	s.UpsertPod(p1)
	binding := func(want bool, when string) {
		t.Helper()
		if got := s.Binding(key("g")); got != want {
			t.Errorf("%s: Binding = %v, want %v", when, got, want)
		}
		if got := s.Status(key("g")).Binding; got != want {
			t.Errorf("%s: Status().Binding = %v, want %v", when, got, want)
		}
	}
	binding(false, "one of two bound, the other pending")
	s.Assume(p1, "n1")
	binding(true, "the last member assumed")
	s.UpsertPod(pod("g", "w", 1, bound)) // the informer's bind event, before Establish
	binding(true, "the quorum bound, not established yet")
	if !s.Establish(key("g")) {
		t.Fatal("Establish after the quorum bound")
	}
	binding(false, "established")

	// Members bound before their gang object: binding from the spec's arrival to Establish.
	s.UpsertPod(pod("late", "w", 0, bound))
	if s.Binding(key("late")) {
		t.Error("a gang without an object is not binding")
	}
	s.SetSpec(spec("late", "w:1"))
	if !s.Binding(key("late")) || !s.Establish(key("late")) || s.Binding(key("late")) {
		t.Error("a quorum found bound by the spec is binding until established")
	}

	// A minimum of 0 is met with nothing bound and never establishes: never binding.
	s.SetSpec(spec("none", "w:0"))
	s.UpsertPod(pod("none", "w", 0))
	if s.Binding(key("none")) || s.Status(key("none")).Binding {
		t.Error("a gang of minimum 0 with nothing bound is binding: its status would never be written")
	}
}

// Rule 3 across restarts: a Scheduled=True condition on the object plus a bound member means
// established; the condition alone does not.
func TestEstablishedFromObjectStatus(t *testing.T) {
	s, _ := newTestStore()
	sp := spec("g", "w:2")
	sp.Scheduled = true
	s.SetSpec(sp)
	s.UpsertPod(pod("g", "w", 0))
	if s.Established(key("g")) {
		t.Fatal("Scheduled=True without a bound member")
	}
	s.UpsertPod(pod("g", "w", 1, bound))
	if !s.Established(key("g")) {
		t.Fatal("Scheduled=True with a bound member must be established")
	}
}

// Terminating pods leave their gang; assumed marks survive informer updates of unbound pods.
func TestPodLifecycle(t *testing.T) {
	s, _ := newTestStore()
	s.SetSpec(spec("g", "w:2"))
	p0, p1 := pod("g", "w", 0), pod("g", "w", 1)
	s.UpsertPod(p0)
	s.UpsertPod(p1)
	s.Assume(p0, "n1")
	s.UpsertPod(p0.DeepCopy()) // an informer update of the still unbound pod
	s.Assume(p1, "n1")
	if !s.QuorumMet(key("g")) {
		t.Fatal("assumed mark lost on update")
	}
	s.Forget(p1)
	if s.QuorumMet(key("g")) || s.Binding(key("g")) {
		t.Fatal("Forget must drop the assumed mark")
	}
	// A stale event from before a bind never takes a pod off its node.
	b0 := p0.DeepCopy()
	b0.Spec.NodeName = "n1"
	s.UpsertPod(b0)
	s.UpsertPod(p0.DeepCopy())
	if st := s.Status(key("g")); st.Bound != 1 {
		t.Fatalf("stale update unbound a member: %d bound", st.Bound)
	}
	term := p1.DeepCopy()
	now := metav1.Now()
	term.DeletionTimestamp = &now
	s.UpsertPod(term)
	if st := s.Status(key("g")); st.Members != 1 {
		t.Fatalf("terminating pod still a member: %d members", st.Members)
	}
}

// Back-off starts once, reports what is left, and ends.
func TestBackoff(t *testing.T) {
	s, c := newTestStore()
	s.SetSpec(spec("g", "w:1"))
	if !s.StartBackoff(key("g"), 5*time.Second, "member failed") {
		t.Fatal("back-off not started")
	}
	if s.StartBackoff(key("g"), 5*time.Second, "again") {
		t.Fatal("back-off restarted while running")
	}
	c.t = c.t.Add(2 * time.Second)
	if left, why := s.Backoff(key("g")); left != 3*time.Second || why != "member failed" {
		t.Fatalf("Backoff = %s %q", left, why)
	}
	c.t = c.t.Add(3 * time.Second)
	if left, _ := s.Backoff(key("g")); left != 0 {
		t.Fatalf("back-off not over: %s", left)
	}
}

// Rule 5: gang creation time, gang name, member index.
func TestSortKey(t *testing.T) {
	s, _ := newTestStore()
	early, late := spec("late-name", "w:1"), spec("early-name", "w:1")
	early.CreatedAt, late.CreatedAt = time.Unix(100, 0), time.Unix(200, 0)
	s.SetSpec(early)
	s.SetSpec(late)
	q1, _ := s.SortKey(pod("late-name", "w", 1))
	q2, _ := s.SortKey(pod("early-name", "w", 0))
	t1, n1, i1 := q1.Created, q1.Name, q1.Index
	t2, n2, i2 := q2.Created, q2.Name, q2.Index
	if !t1.Before(t2) || n1 != "late-name" || n2 != "early-name" || i1 != 1 || i2 != 0 {
		t.Fatalf("sort keys (%s %s %d) (%s %s %d)", t1, n1, i1, t2, n2, i2)
	}
	if _, ok := s.SortKey(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "plain"}}); ok {
		t.Fatal("a pod without a gang has no gang sort key")
	}
}

// The planner's deficit and the queue's minimum are the same members, twins (pods without an
// index, or with the same one) included: the planner placed one twin while the queue treated
// the other as the minimum and let it go ahead of the quorum.
func TestDeficitPodsAgreeWithQueueKeys(t *testing.T) {
	for try := 0; try < 20; try++ {
		s, _ := newTestStore()
		s.SetSpec(spec("twins", "w:2"))
		var pods []*v1.Pod
		for _, name := range []string{"twins-e", "twins-b", "twins-d", "twins-a", "twins-c"} {
			p := pod("twins", "w", 0)
			p.Name, p.UID = name, types.UID(name)
			s.UpsertPod(p)
			pods = append(pods, p)
		}
		deficit := map[string]bool{}
		for _, p := range s.DeficitPods(key("twins")) {
			deficit[p.Name] = true
		}
		if len(deficit) != 2 || !deficit["twins-a"] || !deficit["twins-b"] {
			t.Fatalf("deficit %v, want twins-a and twins-b (index, then name)", deficit)
		}
		for _, p := range pods {
			q, _ := s.SortKey(p)
			if q.Extra == deficit[p.Name] {
				t.Fatalf("%s: queue extra %v, planner's deficit %v", p.Name, q.Extra, deficit[p.Name])
			}
		}
		sortKeysAgree(t, s, pods)
	}
}

// sortKeysAgree fails t unless SortKeys (one read, ranks kept across the pods) gives each pod
// the key SortKey gives it alone.
func sortKeysAgree(t *testing.T, s *Store, pods []*v1.Pod) {
	t.Helper()
	keys, oks := s.SortKeys(pods)
	for i, p := range pods {
		q, ok := s.SortKey(p)
		if ok != oks[i] || q.Extra != keys[i].Extra || q.Index != keys[i].Index || q.Name != keys[i].Name || q.Priority != keys[i].Priority || !q.Created.Equal(keys[i].Created) {
			t.Errorf("%s: SortKeys %+v %v, SortKey %+v %v", p.Name, keys[i], oks[i], q, ok)
		}
	}
}

// Minimums before extras: the members an established gang has above its podgroups'
// minReplicas (and surge members) are extras; the members a gang needs for its minimum (first
// placement, or an established gang's deficit) are not, nor are pods of a fresh gang below
// minReplicas.
func TestQueueKeyExtra(t *testing.T) {
	s, _ := newTestStore()
	base := spec("base", "w:2")
	base.Scheduled = true
	s.SetSpec(base)
	for i := 0; i < 5; i++ {
		p := pod("base", "w", i)
		if i < 2 {
			p.Spec.NodeName = fmt.Sprintf("node-%d", i)
		}
		s.UpsertPod(p)
	}
	s.SetSpec(spec("scaled", "w:2"))
	for i := 0; i < 3; i++ {
		s.UpsertPod(pod("scaled", "w", i))
	}
	extra := func(p *v1.Pod) bool {
		q, ok := s.SortKey(p)
		if !ok {
			t.Fatalf("no sort key for %s", p.Name)
		}
		return q.Extra
	}
	for i := 2; i < 5; i++ {
		if !extra(pod("base", "w", i)) {
			t.Errorf("base-w-%d, above the minimum of an established gang, is not an extra", i)
		}
	}
	var all []*v1.Pod
	for i := 0; i < 5; i++ {
		all = append(all, pod("base", "w", i))
	}
	for i := 0; i < 3; i++ {
		all = append(all, pod("scaled", "w", i))
	}
	sortKeysAgree(t, s, append(all, &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "plain"}}))
	for i, want := range []bool{false, false, true} {
		if got := extra(pod("scaled", "w", i)); got != want {
			t.Errorf("scaled-w-%d of a gang not yet placed: extra %v, want %v", i, got, want)
		}
	}
	if !extra(pod("base", "w", 7, surge)) {
		t.Error("a surge member is not an extra")
	}
	// One of the placed minimum is deleted: the established gang lacks one member, and the
	// lowest pending one is needed again; the two others stay extras (counted as needed, all
	// three went ahead of other gangs' minimums, and two of them took capacity for nothing).
	gone := pod("base", "w", 1)
	gone.Spec.NodeName = "node-1"
	s.DeletePod(gone)
	for i, want := range map[int]bool{2: false, 3: true, 4: true} {
		if got := extra(pod("base", "w", i)); got != want {
			t.Errorf("base-w-%d of an established gang lacking one member: extra %v, want %v", i, got, want)
		}
	}
	sortKeysAgree(t, s, append(all, pod("base", "w", 7, surge)))
	// A scaled member is assumed: the fresh gang lacks one more, its next pending member.
	s.Assume(pod("scaled", "w", 0), "node-9")
	for i, want := range []bool{false, false, true} {
		if got := extra(pod("scaled", "w", i)); got != want {
			t.Errorf("scaled-w-%d with scaled-w-0 assumed: extra %v, want %v", i, got, want)
		}
	}
	sortKeysAgree(t, s, all)
}

// The gang's phase follows establishment and running members.
func TestStatusPhase(t *testing.T) {
	s, _ := newTestStore()
	s.SetSpec(spec("g", "w:2"))
	p0, p1 := pod("g", "w", 0), pod("g", "w", 1)
	s.UpsertPod(p0)
	s.UpsertPod(p1)
	if st := s.Status(key("g")); st.Phase != PhasePending {
		t.Fatalf("phase %s, want Pending", st.Phase)
	}
	s.MarkBound(p0, "n1")
	s.MarkBound(p1, "n1")
	if st := s.Status(key("g")); st.Phase != PhaseStarting || !st.Established || st.Nodes != 1 {
		t.Fatalf("status %+v, want Starting and established on 1 node", st)
	}
	for _, p := range []*v1.Pod{p0, p1} {
		r := p.DeepCopy()
		r.Spec.NodeName = "n1"
		r.Status.Phase = v1.PodRunning
		s.UpsertPod(r)
	}
	if st := s.Status(key("g")); st.Phase != PhaseRunning {
		t.Fatalf("phase %s, want Running", st.Phase)
	}
}

func TestResourcesShortfall(t *testing.T) {
	free := Resources{MilliCPU: 1000, Memory: 1 << 30, GPU: 3}
	if got := free.Shortfall(Resources{GPU: 4}); got != "needs 4 nvidia.com/gpu, 3 free" {
		t.Errorf("Shortfall = %q", got)
	}
	if got := free.Shortfall(Resources{MilliCPU: 2000}); got != "needs 2000m cpu, 1000m free" {
		t.Errorf("Shortfall = %q", got)
	}
	if got := free.Shortfall(Resources{GPU: 3}); got != "" {
		t.Errorf("Shortfall of a fitting need = %q", got)
	}
}

// Binds the scheduler learns of through its informer (another instance, a restart, an event
// that overtook PostBind) establish the gang too.
func TestEstablishFromObservedBinds(t *testing.T) {
	s, _ := newTestStore()
	s.SetSpec(spec("g", "w:2"))
	s.UpsertPod(pod("g", "w", 0, bound))
	if s.Establish(key("g")) {
		t.Fatal("established with 1 of 2 bound")
	}
	s.UpsertPod(pod("g", "w", 1, bound))
	if !s.Establish(key("g")) || !s.Established(key("g")) {
		t.Fatal("quorum bound but not established")
	}
	if s.Establish(key("g")) {
		t.Fatal("established twice")
	}
}

// A PodGroup's minResources is the floor of what the group needs before it is attempted.
func TestPendingNeedMinResourcesFloor(t *testing.T) {
	s, _ := newTestStore()
	sp := spec("g", "w:2")
	sp.MinResources = &Resources{GPU: 16}
	s.SetSpec(sp)
	s.UpsertPod(pod("g", "w", 0))
	s.UpsertPod(pod("g", "w", 1))
	if need, n := s.PendingNeed(key("g")); n != 2 || need.GPU != 16 {
		t.Fatalf("PendingNeed = %+v for %d pods, want 16 GPUs (minResources) for 2", need, n)
	}
	s.Assume(pod("g", "w", 0), "n1")
	s.Assume(pod("g", "w", 1), "n1")
	if need, n := s.PendingNeed(key("g")); n != 0 || need.GPU != 0 {
		t.Fatalf("PendingNeed after the quorum = %+v for %d pods, want nothing", need, n)
	}
}

// A gang object deleted while its members remain (ReplicaRecreate deletes and recreates the
// gangs of a replica): every query answers without the spec instead of failing.
func TestDeletedSpecWithMembers(t *testing.T) {
	s, _ := newTestStore()
	s.SetSpec(spec("g", "w:2"))
	s.UpsertPod(pod("g", "w", 0))
	s.UpsertPod(pod("g", "w", 1, bound))
	s.DeleteSpec(key("g"), true)
	if need, n := s.PendingNeed(key("g")); n != 0 || need != (Resources{}) {
		t.Errorf("PendingNeed = %v, %d", need, n)
	}
	if s.MembersPresent(key("g")) || s.QuorumMet(key("g")) || s.Established(key("g")) {
		t.Error("a gang without its object counts as present, at quorum or established")
	}
	if ok, w := admit(s, pod("g", "w", 0)); ok || w.Message == "" {
		t.Errorf("Admit = %v, %+v", ok, w)
	}
	_ = s.PendingRequests(key("g"))
	_ = s.Status(key("g"))
	if holds := s.HoldsOn("node-g-w-1", Key{}); len(holds) != 0 {
		t.Errorf("holds %v", holds)
	}
}

// A reservation holds capacity on each node until the replacements bind, on those nodes or
// elsewhere, or until the hold duration passes.
func TestReservationHolds(t *testing.T) {
	s, clk := newTestStore()
	s.SetReservationHold(2 * time.Minute)
	sp := spec("g", "w:2")
	sp.Reservation = &Reservation{Since: clk.t, Nodes: map[string]Resources{"node-a": {GPU: 4}, "node-b": {GPU: 4}}}
	s.SetSpec(sp)
	if h := s.HoldsOn("node-a", Key{}); len(h) != 1 || h[0].Reserved.GPU != 4 || !h[0].Until.Equal(clk.t.Add(2*time.Minute)) {
		t.Fatalf("holds on node-a = %+v", h)
	}
	if h := s.HoldsOn("node-a", key("g")); len(h) != 0 {
		t.Errorf("the gang's own pods see its hold: %+v", h)
	}
	if !s.HasActiveHolds() || s.ActiveHolds() != 1 {
		t.Error("the hold is not active")
	}
	// One replacement bound elsewhere: still held (4 of 8 GPUs back).
	p0 := pod("g", "w", 0)
	p0.Spec.NodeName = "node-c"
	s.UpsertPod(p0)
	if h := s.HoldsOn("node-a", Key{}); len(h) != 1 {
		t.Errorf("hold released with half the replacements bound: %+v", h)
	}
	// Both bound (elsewhere): the gang has taken back what it reserved.
	p1 := pod("g", "w", 1)
	p1.Spec.NodeName = "node-d"
	s.UpsertPod(p1)
	if h := s.HoldsOn("node-a", Key{}); len(h) != 0 {
		t.Errorf("hold kept after every replacement bound: %+v", h)
	}
	// A fresh reservation on another gang ends with time.
	sp2 := spec("h", "w:1")
	sp2.Reservation = &Reservation{Since: clk.t, Nodes: map[string]Resources{"node-a": {GPU: 8}}}
	s.SetSpec(sp2)
	if len(s.HoldsOn("node-a", Key{})) != 1 {
		t.Fatal("no hold for gang h")
	}
	clk.t = clk.t.Add(2*time.Minute + time.Second)
	if len(s.HoldsOn("node-a", Key{})) != 0 || s.HasActiveHolds() {
		t.Error("hold kept after its duration")
	}
}

// A gang object deleted to be created again (a recreated replica) leaves its active hold in
// place, also after its old pods are gone, until the new object arrives (its own reservation
// governs) or the window closes; an expired hold of a deleted gang leaves nothing behind.
func TestHoldOutlivesRecreatedGangObject(t *testing.T) {
	s, clk := newTestStore()
	s.SetReservationHold(2 * time.Minute)
	sp := spec("g", "w:1")
	sp.Reservation = &Reservation{Since: clk.t, Nodes: map[string]Resources{"node-a": {GPU: 8}}}
	s.SetSpec(sp)
	old := pod("g", "w", 0)
	s.UpsertPod(old)
	s.DeleteSpec(key("g"), true)
	s.DeletePod(old)
	if h := s.HoldsOn("node-a", Key{}); len(h) != 1 || h[0].Gang != key("g") {
		t.Fatalf("between the deletion and the creation of the gang object, holds on node-a = %+v; want g's", h)
	}
	if h := s.HoldsOn("node-a", key("g")); len(h) != 0 {
		t.Errorf("the gang's own replacements see its lingering hold: %+v", h)
	}
	// Created again without a reservation: the hold ends with the new object.
	s.SetSpec(spec("g", "w:1"))
	if s.HasActiveHolds() {
		t.Error("the lingering hold outlived the new gang object")
	}
	// A deleted gang whose hold ran out is forgotten.
	s.SetSpec(sp)
	s.DeleteSpec(key("g"), true)
	clk.t = clk.t.Add(2*time.Minute + time.Second)
	s.SetSpec(spec("other", "w:1")) // any write prunes
	if s.HasActiveHolds() || s.gangs[key("g")] != nil || s.reserving[key("g")] {
		t.Error("an expired hold of a deleted gang is still there")
	}
}

// A gang that names another in ReuseFrom (spec.reuseReservationRef, set by another
// operator) reserves what that gang held: its bound members and those that left it within the
// hold window, also after its object and pods are gone. Its own pods see the node as it is;
// the replaced gang's pods still on a node count as taken back; the hold ends when the
// replacements bind, and a reference seen after the window finds nothing.
func TestReuseReservationRef(t *testing.T) {
	s, clk := newTestStore()
	s.SetReservationHold(2 * time.Minute)
	s.SetSpec(spec("old", "w:2"))
	bound := func(g string, i int, node string) *v1.Pod {
		p := pod(g, "w", i)
		p.Spec.NodeName = node
		s.UpsertPod(p)
		return p
	}
	o0, o1 := bound("old", 0, "node-a"), bound("old", 1, "node-b")
	// The operator deletes the old gang (pods, then object) and creates its replacement.
	terminating := o0.DeepCopy()
	terminating.DeletionTimestamp = &metav1.Time{Time: clk.t}
	s.UpsertPod(terminating)
	s.DeletePod(o0)
	s.DeletePod(o1)
	s.DeleteSpec(key("old"), true)
	if s.gangs[key("old")] == nil || !s.leaving[key("old")] {
		t.Fatal("the replaced gang's footprint was forgotten with its last pod")
	}
	clk.t = clk.t.Add(30 * time.Second)
	sp := spec("new", "w:2")
	sp.ReuseFrom = key("old")
	s.SetSpec(sp)
	for _, node := range []string{"node-a", "node-b"} {
		h := s.HoldsOn(node, Key{})
		if len(h) != 1 || h[0].Gang != key("new") || h[0].Reserved.GPU != 4 || h[0].Replaces != key("old") || !h[0].Until.Equal(clk.t.Add(2*time.Minute)) {
			t.Fatalf("holds on %s = %+v; want new's 4 GPUs until %v, replacing old", node, h, clk.t.Add(2*time.Minute))
		}
		if h := s.HoldsOn(node, key("new")); len(h) != 0 {
			t.Errorf("the replacement's own pods see its hold on %s: %+v", node, h)
		}
	}
	bound("new", 0, "node-a")
	if !s.ReservationActive(key("new")) {
		t.Error("the hold ended with one of two replacements bound")
	}
	bound("new", 1, "node-c")
	if s.ReservationActive(key("new")) {
		t.Error("the hold outlived the replacements' binds")
	}
	// A reference the store sees after the window finds no footprint.
	clk.t = clk.t.Add(2 * time.Minute)
	late := spec("late", "w:2")
	late.ReuseFrom = key("old")
	s.SetSpec(late)
	if s.ReservationActive(key("late")) || s.gangs[key("old")] != nil {
		t.Errorf("a stale footprint was reserved (active %v) or kept (%v)", s.ReservationActive(key("late")), s.gangs[key("old")] != nil)
	}
	// With holds off, nothing is recorded.
	off, _ := newTestStore()
	p := pod("x", "w", 0)
	p.Spec.NodeName = "node-a"
	off.UpsertPod(p)
	off.DeletePod(p)
	if off.gangs[key("x")] != nil {
		t.Error("holds off, yet the departure kept the entry")
	}
}

// spec.reuseReservationRef is read within the gang's namespace only.
func TestReuseReservationRefNamespace(t *testing.T) {
	pg := &schedv1.PodGang{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "new"}}
	pg.Spec.ReuseReservationRef = &schedv1.NamespacedName{Namespace: "a", Name: "old"}
	if got := SpecFromPodGang(pg).ReuseFrom; got != (Key{Kind: KindPodGang, Namespace: "a", Name: "old"}) {
		t.Errorf("same namespace: ReuseFrom %v", got)
	}
	pg.Spec.ReuseReservationRef = &schedv1.NamespacedName{Namespace: "b", Name: "old"}
	if got := SpecFromPodGang(pg).ReuseFrom; got != (Key{}) {
		t.Errorf("another namespace's gang was taken over: %v", got)
	}
}

// The informer's handler wakes a member's siblings once per arrival or ungating, whoever
// recorded the pod first (PreEnqueue often does); status updates of a member and repeated
// gang objects wake nobody.
func TestObservePodWakesOnce(t *testing.T) {
	s, _ := newTestStore()
	p := pod("g", "w", 0)
	p.ResourceVersion = "1"
	s.UpsertPod(p) // PreEnqueue's copy first
	if _, _, wake := s.ObservePod(p); !wake {
		t.Error("the informer's first delivery of a new ungated member does not wake its siblings")
	}
	if _, _, wake := s.ObservePod(p); wake {
		t.Error("the same object again wakes the siblings")
	}
	status := p.DeepCopy()
	status.ResourceVersion = "2"
	status.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: "Unschedulable"}}
	if _, _, wake := s.ObservePod(status); wake {
		t.Error("a status write of the member wakes its siblings")
	}
	gated := pod("g", "w", 1)
	gated.ResourceVersion = "3"
	gated.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "grove.io/podgang-pending-creation"}}
	if _, _, wake := s.ObservePod(gated); wake {
		t.Error("a gated member wakes its siblings")
	}
	ungated := gated.DeepCopy()
	ungated.ResourceVersion = "4"
	ungated.Spec.SchedulingGates = nil
	s.UpsertPod(ungated) // PreEnqueue saw the ungating first
	if _, _, wake := s.ObservePod(ungated); !wake {
		t.Error("the ungated member does not wake its siblings")
	}
	// The queue's older copy (still gated) arrives after the informer's newer one: it must not
	// put the gate back (PreEnqueue then held the member, and nothing woke it again).
	s.UpsertPod(gated)
	if g := s.gangs[key("g")].members[gated.Name].pod.Spec.SchedulingGates; len(g) != 0 {
		t.Errorf("an older copy of the member undid its ungating: gates %v", g)
	}
	replaced := pod("g", "w", 0)
	replaced.UID, replaced.ResourceVersion = "new-uid", "5"
	if _, _, wake := s.ObservePod(replaced); !wake {
		t.Error("a pod replacing one of its name does not wake its siblings")
	}
	if !s.SetSpec(spec("g", "w:2")) {
		t.Error("a new gang object is not a change")
	}
	if s.SetSpec(spec("g", "w:2")) {
		t.Error("the same gang object again is a change")
	}
	sp := spec("g", "w:2")
	sp.Scheduled = true
	if !s.SetSpec(sp) {
		t.Error("Scheduled=True (a base gang established) is not a change")
	}
}

// Rule 10: a gang is served once a member for this scheduler has been seen, and stays served
// when its members finish or are deleted (a Finished PodGroup is still ours to report).
func TestServed(t *testing.T) {
	s, _ := newTestStore()
	s.SetSpec(spec("g", "w:1"))
	if s.Status(key("g")).Served {
		t.Fatal("a gang object without a member of ours is served")
	}
	p := pod("g", "w", 0)
	s.UpsertPod(p)
	if !s.Status(key("g")).Served {
		t.Fatal("a gang with a member of ours is not served")
	}
	done := p.DeepCopy()
	done.Status.Phase = v1.PodSucceeded
	s.UpsertPod(done)
	if st := s.Status(key("g")); !st.Served || st.Members != 0 {
		t.Fatalf("after its member succeeded: served %v, members %d; want served, 0", st.Served, st.Members)
	}
}

// admit is what PreEnqueue does: record the pod, then decide.
func admit(s *Store, p *v1.Pod) (bool, Wait) {
	s.UpsertPod(p)
	return s.Admissible(p)
}

// A coherent slice's member (phalanx.dev/coherent-slice) belongs to its slice gang, with no base
// gang and not as a surge member; when the label goes (the slice landed) it moves, bound, to its
// regular gang: MovedPod forgets it in the slice gang without counting it as a departure, so a
// gang that would name the slice gang in ReuseFrom finds nothing held for it, and the regular
// gang is established by the bound member that joined it.
func TestSliceMemberMovesToItsGang(t *testing.T) {
	s, _ := newTestStore()
	s.SetReservationHold(2 * time.Minute)
	s.SetSpec(spec("pd-0", "w:1"))
	s.SetSpec(spec("pd-0-slice-0", "w:1"))
	p := pod("pd-0", "w", 0, base("pd-base"), func(p *v1.Pod) { p.Labels[grovev1.LabelCoherentSlice] = "pd-0-slice-0" })
	inSurgeSlice := p.DeepCopy()
	surge(inSurgeSlice)
	p.Spec.NodeName = "node-a"
	k, _ := s.UpsertPod(p)
	if k != key("pd-0-slice-0") {
		t.Fatalf("member of %v, want its slice gang", k)
	}
	if _, ok := s.membership.BaseOf(p); ok || s.membership.IsSurge(inSurgeSlice) {
		t.Error("a slice member has a base gang or counts as a surge member")
	}
	if !s.Establish(key("pd-0-slice-0")) {
		t.Error("the slice gang is not established by its bound member")
	}
	landed := p.DeepCopy()
	delete(landed.Labels, grovev1.LabelCoherentSlice)
	s.MovedPod(p)
	if k, _ := s.UpsertPod(landed); k != key("pd-0") {
		t.Fatalf("landed member of %v, want pd-0", k)
	}
	if !s.Establish(key("pd-0")) {
		t.Error("the regular gang is not established by the landed member")
	}
	if fp := s.footprintLocked(key("pd-0-slice-0")); fp != nil {
		t.Errorf("the slice gang holds %v after its member moved (a departure was recorded)", fp.Nodes)
	}
}

// A reservation whose replacements took it back is done: members that leave the gang later
// (its PodCliqueSet deleted right after an update, a scale-in) do not bring the hold back, also
// not as the lingering hold of its deleted object; it held capacity for nobody until its window
// ran out (found with `make run`: a PodCliqueSet deleted after the demo's update kept 8 GPUs
// from the next one for two minutes). A new reservation of the gang holds again.
func TestReservationDoneStaysDone(t *testing.T) {
	s, clk := newTestStore()
	s.SetReservationHold(2 * time.Minute)
	withReservation := func() Spec {
		sp := spec("g", "w:1")
		sp.Reservation = &Reservation{Since: clk.t, Nodes: map[string]Resources{"node-a": {GPU: 4}}}
		return sp
	}
	s.SetSpec(withReservation())
	old := pod("g", "w", 0)
	old.Spec.NodeName = "node-a"
	s.UpsertPod(old)
	if len(s.HoldsOn("node-a", Key{})) != 0 {
		t.Fatal("a hold while the old member still runs")
	}
	s.DeletePod(old) // replaced
	if len(s.HoldsOn("node-a", Key{})) != 1 {
		t.Fatal("no hold for the replacement of the deleted member")
	}
	repl := pod("g", "w", 0)
	repl.UID = "replacement"
	repl.Spec.NodeName = "node-a"
	s.UpsertPod(repl)
	if len(s.HoldsOn("node-a", Key{})) != 0 {
		t.Fatal("the hold outlived the replacement's bind")
	}
	// The PodCliqueSet is deleted: the replacement goes, then the gang object.
	s.DeletePod(repl)
	if h := s.HoldsOn("node-a", Key{}); len(h) != 0 {
		t.Errorf("the hold came back for nobody when the replacement left: %+v", h)
	}
	s.DeleteSpec(key("g"), true)
	if h := s.HoldsOn("node-a", Key{}); len(h) != 0 {
		t.Errorf("the deleted gang's lingering hold is active: %+v", h)
	}
	// The gang made again with a new reservation holds again.
	clk.t = clk.t.Add(time.Second)
	s.SetSpec(withReservation())
	if len(s.HoldsOn("node-a", Key{})) != 1 {
		t.Error("a new reservation of the gang does not hold")
	}
}

// A gang made with a reservation (a coherent slice gang: its old members were in other gangs)
// is done with it once its replacements bind: when its members leave it afterwards (the slice
// landed and its pods return to their regular gangs, before the controller's release of the
// annotation reaches the scheduler) the hold does not come back and keep the next slice off
// the capacity.
func TestReservationOfANewGangDoneWhenItsMembersLeave(t *testing.T) {
	s, clk := newTestStore()
	s.SetReservationHold(2 * time.Minute)
	sp := spec("slice", "w:1")
	sp.Reservation = &Reservation{Since: clk.t, Nodes: map[string]Resources{"node-a": {GPU: 4}}}
	s.SetSpec(sp)
	if len(s.HoldsOn("node-a", Key{})) != 1 {
		t.Fatal("no hold for the slice's replacement")
	}
	repl := pod("slice", "w", 0)
	s.UpsertPod(repl) // created, waiting to bind
	if len(s.HoldsOn("node-a", Key{})) != 1 {
		t.Fatal("the hold ended before the replacement bound")
	}
	bound := repl.DeepCopy()
	bound.Spec.NodeName = "node-a"
	s.UpsertPod(bound)
	if h := s.HoldsOn("node-a", Key{}); len(h) != 0 {
		t.Fatalf("the hold outlived the replacement's bind: %+v", h)
	}
	s.DeletePod(bound) // the pod leaves the slice gang (its label removed)
	if h := s.HoldsOn("node-a", Key{}); len(h) != 0 {
		t.Errorf("the hold came back when the slice's members left it: %+v", h)
	}
	s.SetSpec(sp) // a status write changes nothing
	if h := s.HoldsOn("node-a", Key{}); len(h) != 0 {
		t.Errorf("the hold came back on a rewrite of the spec: %+v", h)
	}
}

// BenchmarkUpsertPodRecorded: PreFilter's record of a member whose version the informer has
// recorded already (the common case), 1,000 gangs of 5 in the store.
func BenchmarkUpsertPodRecorded(b *testing.B) {
	s, _ := newTestStore()
	var pods []*v1.Pod
	for g := 0; g < 1000; g++ {
		name := fmt.Sprintf("g%d", g)
		s.SetSpec(spec(name, "w:5"))
		for i := 0; i < 5; i++ {
			p := pod(name, "w", i)
			p.ResourceVersion = "7"
			s.ObservePod(p)
			pods = append(pods, p)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.UpsertPod(pods[i%len(pods)])
	}
}

// A gang's status carries a wait for its object or for its members only while it holds: the
// informers deliver the members one by one (and pods before gang objects), so every gang of a
// workload created before the scheduler starts records such a wait for an instant, and its
// status must not say members are missing once none is. The recorded wait is left to the
// members' next attempt.
func TestStatusDropsWaitsThatNoLongerHold(t *testing.T) {
	s, _ := newTestStore()
	p0, p1 := pod("g", "w", 0), pod("g", "w", 1)
	s.UpsertPod(p0)
	if admitted, w, _ := s.Gate(p0); admitted || w.Reason != ReasonGangNotFound {
		t.Fatalf("a member before its PodGang: admitted %v, wait %+v; want %s", admitted, w, ReasonGangNotFound)
	}
	if got := s.Status(key("g")).Wait.Reason; got != ReasonGangNotFound {
		t.Errorf("status wait %q before the PodGang, want %s", got, ReasonGangNotFound)
	}
	s.SetSpec(spec("g", "w:2"))
	if admitted, w, _ := s.Gate(p0); admitted || w.Reason != ReasonWaitingForMembers {
		t.Fatalf("one member of two: admitted %v, wait %+v; want %s", admitted, w, ReasonWaitingForMembers)
	}
	if got := s.Status(key("g")).Wait.Reason; got != ReasonWaitingForMembers {
		t.Errorf("status wait %q with a member missing, want %s", got, ReasonWaitingForMembers)
	}
	s.UpsertPod(p1)
	if got := s.Status(key("g")).Wait; got != (Wait{}) {
		t.Errorf("status wait %+v with every member here, want none", got)
	}
	s.SetWait(key("g"), Wait{Reason: ReasonInsufficient, Message: "2× Insufficient nvidia.com/gpu"})
	if got := s.Status(key("g")).Wait.Reason; got != ReasonInsufficient {
		t.Errorf("status wait %q, want %s: a wait that still holds is kept", got, ReasonInsufficient)
	}
}
