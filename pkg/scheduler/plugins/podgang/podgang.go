// Package podgang is the PodGang scheduler plugin: gangs are scheduler.grove.io PodGangs,
// their pods labelled grove.io/podgang. The hooks come from gangplugin; this package adds the
// PodGang informer and status, and the queue order of the whole profile.
package podgang

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	schedv1 "github.com/phalanx-sched/phalanx/pkg/apis/scheduler/v1alpha1"
	"github.com/phalanx-sched/phalanx/pkg/client/clientset/versioned"
	"github.com/phalanx-sched/phalanx/pkg/client/informers/externalversions"
	"github.com/phalanx-sched/phalanx/pkg/gang"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/apis/config"
	"github.com/phalanx-sched/phalanx/pkg/scheduler/plugins/gangplugin"
)

// Name is the plugin name in scheduler profiles.
const Name = "PodGang"

// Event is the framework's name for PodGang events (served by its dynamic informer).
const Event fwk.EventResource = "podgangs.v1alpha1.scheduler.grove.io"

// Plugin is the PodGang plugin.
type Plugin struct {
	*gangplugin.Adapter
	queued  *queueKeys
	reorder *reorder
	// checking are the PodGangs being read after a departure (confirmDepartures); again, those
	// that lost another member meanwhile, to be read once more (the read in flight may predate
	// the reservation written for that member).
	checkMu         sync.Mutex
	checking, again map[gang.Key]bool
}

var (
	_ fwk.PreEnqueuePlugin  = &Plugin{}
	_ fwk.QueueSortPlugin   = &Plugin{}
	_ fwk.PreFilterPlugin   = &Plugin{}
	_ fwk.FilterPlugin      = &Plugin{}
	_ fwk.PostFilterPlugin  = &Plugin{}
	_ fwk.PreScorePlugin    = &Plugin{}
	_ fwk.ScorePlugin       = &Plugin{}
	_ fwk.ReservePlugin     = &Plugin{}
	_ fwk.PermitPlugin      = &Plugin{}
	_ fwk.PostBindPlugin    = &Plugin{}
	_ fwk.EnqueueExtensions = &Plugin{}
	_ fwk.SignPlugin        = &Plugin{}
)

// New returns the plugin's factory for the scheduler whose gang plugins share rt. The factory
// validates the args, starts a PodGang informer and hooks the scheduler's pod informer into
// the profile's gang store.
func New(rt *gangplugin.Runtime) func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) {
	return func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		return newPlugin(ctx, obj, h, rt)
	}
}

func newPlugin(ctx context.Context, obj runtime.Object, h fwk.Handle, rt *gangplugin.Runtime) (fwk.Plugin, error) {
	args, err := decodeArgs(obj)
	if err != nil {
		return nil, err
	}
	store, err := rt.SharedStore(ctx, h, gang.Membership{SurgeLabel: args.SurgeLabelKey})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	client, err := rt.GangClient(h)
	if err != nil {
		return nil, fmt.Errorf("%s: creating the PodGang client: %w", Name, err)
	}
	factory := externalversions.NewSharedInformerFactory(client, 0)
	gangs := factory.Scheduler().V1alpha1().PodGangs()
	p := &Plugin{Adapter: gangplugin.NewAdapter(h, store, gangplugin.Options{Runtime: rt,
		Name: Name, Kind: gang.KindPodGang, PermitTimeout: args.PermitWaitingTime(), Backoff: args.Backoff(),
		GangEvent: Event, ToSpec: toSpec,
	}), queued: newQueueKeys(), reorder: newReorder(), checking: map[gang.Key]bool{}, again: map[gang.Key]bool{}}
	// The profile's queue order is this plugin's Less: the feed tells it of changed gangs,
	// whose queued members it re-sorts in the scheduler's queue (reorder.go).
	rt.SetQueueOrder(h, p)
	go p.runReorder(ctx, rt.Resorter)
	// A bound member that leaves while no reservation of its gang holds keeps its capacity
	// held until the gang object, read from the API server, shows that no reservation is
	// on its way (the PodGang watch may deliver it after the member's deletion).
	store.SetDepartureCheck(gang.KindPodGang, func(k gang.Key) { p.confirmDepartures(ctx, client, k) })
	if f := h.SharedInformerFactory(); f != nil {
		// A pod bound or deleted leaves the queue for good: its queue key goes with it.
		if _, err := f.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
			UpdateFunc: func(_, obj any) {
				if pod, ok := obj.(*v1.Pod); ok && pod.Spec.NodeName != "" {
					p.queued.forget(pod.UID)
				}
			},
			DeleteFunc: func(obj any) {
				if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
					obj = d.Obj
				}
				if pod, ok := obj.(*v1.Pod); ok {
					p.queued.forget(pod.UID)
				}
			},
		}); err != nil {
			return nil, fmt.Errorf("%s: watching pods for the queue keys: %w", Name, err)
		}
	}
	kaiEvents := slices.Contains(args.KAIEventProfiles, h.ProfileName())
	if kaiEvents {
		rt.SetKAIEvents(h)
	}
	store.SetReservationHold(args.ReservationHold())
	store.SetExtraHold(args.ExtraHold())
	status := newStatusWriter(client, gangs.Lister(), store, h.EventRecorder())
	p.SetStatusSink(status)
	if err := p.Start(ctx, factory, gangs.Informer(), status.StatusQueue); err != nil {
		return nil, err
	}
	klog.FromContext(ctx).Info("PodGang plugin ready", "permitTimeout", args.PermitWaitingTime(), "backoff", args.Backoff(), "surgeLabel", args.SurgeLabelKey, "reservationHold", args.ReservationHold(), "extraHold", args.ExtraHold(), "kaiEvents", kaiEvents)
	return p, nil
}

// confirmDepartures reads PodGang k (confirmDeparture) in the background, one read per gang at
// a time: a departure while a read is in flight has it read once more afterwards, so that many
// members leaving one gang (a deleted workload) cost a read or two, not one each.
func (p *Plugin) confirmDepartures(ctx context.Context, client versioned.Interface, k gang.Key) {
	p.checkMu.Lock()
	defer p.checkMu.Unlock()
	if p.checking[k] {
		p.again[k] = true
		return
	}
	p.checking[k] = true
	go func() {
		for {
			p.confirmDeparture(ctx, client, k)
			p.checkMu.Lock()
			if !p.again[k] {
				delete(p.checking, k)
				p.checkMu.Unlock()
				return
			}
			delete(p.again, k)
			p.checkMu.Unlock()
		}
	}()
}

// confirmDeparture reads PodGang k from the API server after a bound member left it while
// none of its reservations held, and tells the store which reservation the object carries
// (gang.Store.ConfirmDeparture). When it cannot be read, the capacity stays held until
// gang.UnconfirmedWindow closes.
func (p *Plugin) confirmDeparture(ctx context.Context, client versioned.Interface, k gang.Key) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var since time.Time
	pg, err := client.SchedulerV1alpha1().PodGangs(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		klog.FromContext(ctx).V(2).Info("Could not read a PodGang a member left; its capacity stays held until the window closes",
			"podGang", klog.KRef(k.Namespace, k.Name), "window", gang.UnconfirmedWindow, "err", err)
		return
	default:
		if r := gang.ReservationFromPodGang(pg); r != nil {
			since = r.Since
		}
	}
	p.ConfirmDeparture(k, since)
}

func decodeArgs(obj runtime.Object) (config.PodGangArgs, error) {
	return config.DecodeArgs[config.PodGangArgs](Name, obj, config.SetDefaultsPodGangArgs)
}

// Name returns the plugin name.
func (p *Plugin) Name() string { return Name }

// PreFilter is the gang plugins' PreFilter (gangplugin.Adapter.PreFilter); the pod has left
// the queue (popped, or taken by the gang's cycle), so its queue key goes: a failed attempt
// queues it again with a new key, and the key of a pod out of the queue is not re-sorted.
func (p *Plugin) PreFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	p.queued.forget(pod.UID)
	return p.Adapter.PreFilter(ctx, state, pod, nodes)
}

// Reserve is the gang plugins' Reserve (gangplugin.Adapter.Reserve). The pod's queue key goes
// again: a member the gang's cycle takes runs PreFilter while it still sits in the queue, and
// the queue's comparisons until it is taken out give it a key anew, which the re-sort check
// would read at every event of its gang until the member is bound.
func (p *Plugin) Reserve(ctx context.Context, state fwk.CycleState, pod *v1.Pod, node string) *fwk.Status {
	p.queued.forget(pod.UID)
	return p.Adapter.Reserve(ctx, state, pod, node)
}

// Filter keeps pods off capacity held for the replacements of another PodGang's members
// (annotation phalanx.dev/reservation, for reservationHoldSeconds).
func (p *Plugin) Filter(_ context.Context, _ fwk.CycleState, pod *v1.Pod, n fwk.NodeInfo) *fwk.Status {
	return p.FilterHolds(pod, n)
}

// Less orders the queue of the whole profile by priority (a gang's own when its object sets
// one, see gang.Store.PriorityOf), then members a gang needs for its
// minimum before members above any minimum (gang.QueueKey.Extra), then gang creation time, gang
// name and member index, so that the members of one gang (PodGang or PodGroup) are popped
// together. Pods without a gang use their queue time and name in place of the gang's, and
// count as needed (a pod of no gang has no minimum to exceed). A pod's key is fixed from its
// first comparison after it was queued until it is queued again (queuekeys.go).
func (p *Plugin) Less(a, b fwk.QueuedEntityInfo) bool {
	podA, podB := podOf(a), podOf(b)
	pa, pb := a.GetPriority(), b.GetPriority()
	if podA == nil || podB == nil {
		if pa != pb {
			return pa > pb
		}
		return a.GetTimestamp().Before(b.GetTimestamp())
	}
	// Two pods of no gang compare as their keys would (queueKey: their own priority and queue
	// time, no minimum to exceed), without the queue keys' lock: the gang machinery costs
	// plain pods nothing in the queue.
	membership := p.Store().Membership()
	if _, inA := membership.KeyOf(podA); !inA {
		if _, inB := membership.KeyOf(podB); !inB {
			ta, tb := a.GetTimestamp(), b.GetTimestamp()
			switch {
			case pa != pb:
				return pa > pb
			case !ta.Equal(tb):
				return ta.Before(tb)
			case podA.Namespace != podB.Namespace:
				return podA.Namespace < podB.Namespace
			}
			return podA.Name < podB.Name
		}
	}
	// The pods' own priorities decide without a look at their gangs while no gang object sets
	// a priority of its own.
	if pa != pb && !p.Store().GangPriorities() {
		return pa > pb
	}
	ka, kb := p.queueKey(a, podA), p.queueKey(b, podB)
	switch {
	case ka.Priority != kb.Priority:
		return ka.Priority > kb.Priority
	case ka.Extra != kb.Extra:
		return kb.Extra
	case !ka.Created.Equal(kb.Created):
		return ka.Created.Before(kb.Created)
	case podA.Namespace != podB.Namespace:
		return podA.Namespace < podB.Namespace
	case ka.Name != kb.Name:
		return ka.Name < kb.Name
	}
	return ka.Index < kb.Index
}

func (p *Plugin) queueKey(e fwk.QueuedEntityInfo, pod *v1.Pod) gang.QueueKey {
	if q, ok := p.queued.get(pod, e.GetTimestamp(), func() (gang.QueueKey, bool) { return p.Store().SortKey(pod) }); ok {
		return q
	}
	return gang.QueueKey{Priority: e.GetPriority(), Created: e.GetTimestamp(), Name: pod.Name}
}

func podOf(e fwk.QueuedEntityInfo) *v1.Pod {
	if pi, ok := e.(interface{ GetPodInfo() fwk.PodInfo }); ok && pi.GetPodInfo() != nil {
		return pi.GetPodInfo().GetPod()
	}
	return nil
}

// toSpec accepts the typed object of the plugin's informer and the unstructured object of
// the framework's dynamic informer.
func toSpec(obj any) (gang.Spec, bool) {
	switch o := obj.(type) {
	case *schedv1.PodGang:
		return gang.SpecFromPodGang(o), true
	case *unstructured.Unstructured:
		pg := &schedv1.PodGang{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, pg); err != nil {
			return gang.Spec{}, false
		}
		return gang.SpecFromPodGang(pg), true
	}
	return gang.Spec{}, false
}
