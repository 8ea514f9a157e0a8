package controller

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/phalanx-sched/phalanx/pkg/metrics"
	"github.com/phalanx-sched/phalanx/pkg/update"
)

// Reconcile brings one PodCliqueSet's children to the desired world and writes statuses.
func (c *Controller) Reconcile(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	passStart := c.now()
	stepEvent, stepped := c.steps.take(key)
	applied := false
	defer func() {
		if stepped && !applied {
			// A pass that stopped before applying (waiting for its own writes to show, an
			// error) did not take the step: the next pass that applies is timed from it.
			c.steps.note(key, stepEvent)
		}
	}()
	pcs, err := c.sets.PodCliqueSets(ns).Get(name)
	if apierrors.IsNotFound(err) {
		c.trackUpdate(key, updateState{})
		c.expect.forget(key)
		c.own.forget(key)
		c.forgetDesired(key)
		c.forgetWarnings(key)
		stepped = false
		c.steps.forget(key)
		return nil // owner references let the garbage collector remove the children
	}
	if err != nil {
		return err
	}
	if pcs.DeletionTimestamp != nil {
		return nil
	}
	if stop, err := c.adoptForeign(ctx, pcs); err != nil || stop {
		return err
	}
	obs, err := c.observe(pcs)
	if err != nil {
		return err
	}
	// The cache must show this controller's own pod writes before a pass plans from it.
	awaited, expired := c.expect.awaited(key, pcs.UID, obs.pods)
	if len(expired) > 0 {
		klog.FromContext(ctx).Info("Gave up waiting for the pod cache to show earlier writes; planning without them", "podCliqueSet", key, "pods", expired, "after", update.ExpectationsTTL)
	}
	if len(awaited) > 0 {
		if v := klog.FromContext(ctx).V(4); v.Enabled() {
			v.Info("Waiting for the pod cache to show this controller's writes", "podCliqueSet", key, "pods", awaited, "cache", cacheView(obs, awaited))
		}
		// Their watch events enqueue the set; the delay covers an event that never comes.
		c.queue.AddAfter(key, time.Second)
		return nil
	}
	if err := c.replaceFinished(ctx, pcs, obs); err != nil {
		return err
	}
	releaseIn, err := c.releaseLost(ctx, pcs, obs)
	if err != nil {
		return err
	}
	if releaseIn > 0 {
		// No event marks the deadline of a member on a lost node: look again then.
		c.queue.AddAfter(key, releaseIn)
	}
	in, err := c.rolloutInputs(pcs, obs)
	if err != nil {
		return err
	}
	ro, err := planRollout(pcs, obs, nil, in)
	if err != nil {
		return fmt.Errorf("planning the update of %s: %w", key, err)
	}
	terminated, recheck, err := c.terminateGangs(ctx, pcs, obs, ro.revision)
	if err != nil {
		return err
	}
	if recheck > 0 {
		// No event marks the end of a breach's terminationDelay: look again then.
		c.queue.AddAfter(key, recheck)
	}
	if terminated > 0 {
		return nil // the deletions' events bring the pass that recreates the members
	}
	if pcs, err = c.clearRollback(ctx, pcs, ro.revision); err != nil {
		return err
	}
	if rolled, err := c.maybeRollBack(ctx, pcs, obs, ro); err != nil || rolled {
		return err // rolled back: the PodCliqueSet's update event brings the next pass
	}
	if c.admitter != nil {
		blocked, err := c.admitSurges(ctx, pcs, obs, ro)
		if err != nil {
			return err
		}
		if len(blocked) > 0 {
			if ro, err = planRollout(pcs, obs, blocked, in); err != nil {
				return fmt.Errorf("planning the update of %s: %w", key, err)
			}
		}
	}
	if c.OnPlan != nil {
		c.OnPlan(pcs, ro.plan)
	}
	klog.FromContext(ctx).V(5).Info("Planned", "podCliqueSet", key, "actions", len(ro.plan.Actions))
	// The template's revision is recorded before any member is made from it, so that the
	// history holds every template a member ever ran.
	if _, err := c.syncHistory(ctx, pcs, ro.revision, pcs.Status.CompleteRevision); err != nil {
		return err
	}
	want := c.desiredOf(key).Desired(pcs, ro.observed(obs))
	a := &applier{c: c, ctx: ctx, pcs: pcs}
	if err := a.apply(obs, want, ro); err != nil {
		return err
	}
	applied = true
	if stepped && !a.firstWrite.IsZero() {
		c.observeStep(ctx, key, stepEvent, passStart, a.firstWrite)
	}
	if pcs.Status.CurrentRevision != "" {
		// An update (not the creation): count its steps.
		strategy := strategyOf(pcs)
		for _, act := range ro.plan.Actions {
			metrics.UpdateSteps.WithLabelValues(strategy, strings.ToLower(string(act.Type)), strconv.FormatBool(act.Surge)).Inc()
		}
	}
	// a.pcs is the latest the applier knows (it may have written its annotations).
	if c.statuses == nil {
		if err := c.writeStatus(ctx, a.pcs, obs, want, ro); err != nil {
			return err
		}
	} else {
		// Off the step's critical path (statuswriter.go): the pass hands over what it saw
		// and planned, and does not touch it again.
		written := a.pcs
		c.statuses.submit(ctx, key, func(ctx context.Context) error {
			base, ok := c.freshBase(key, written, obs)
			if !ok {
				return nil
			}
			return c.writeStatus(ctx, base, obs, want, ro)
		}, len(ro.plan.SurgeBlocked) > 0 || surgeBlockedNow(pcs))
	}
	if !ro.plan.Done {
		// An update in progress is looked at again even without events, so that a stall
		// turns into ProgressDeadlineExceeded on time.
		c.queue.AddAfter(key, 5*time.Second)
	}
	return nil
}

// cacheView says what the pod cache shows of each name (for the expectations log line).
func cacheView(obs *observed, names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		p := obs.pods[n]
		switch {
		case p == nil:
			out = append(out, n+": absent")
		case p.DeletionTimestamp != nil:
			out = append(out, n+": terminating uid "+string(p.UID))
		default:
			out = append(out, n+": present uid "+string(p.UID))
		}
	}
	return out
}
