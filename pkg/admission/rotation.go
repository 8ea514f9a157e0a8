package admission

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// defaultCertCheckInterval is how often a replica checks that the shared certificate is far
// enough from expiry when nothing changed the Secret.
const defaultCertCheckInterval = time.Hour

// defaultCASettle is how long a replica keeps serving its current certificate after the
// webhook configurations' CA bundle changed before it serves the new one: every API server
// applies a configuration change from its own watch, a moment after the write, and one still
// on the old bundle refuses a certificate of the new CA ("x509: certificate signed by unknown
// authority"). The current certificate is trusted by both bundles meanwhile.
const defaultCASettle = 5 * time.Second

// certRotator keeps one replica's self-managed serving certificate current with the shared
// Secret. Any replica may renew the Secret; every replica, on seeing the change, first makes
// the webhook configurations trust the Secret's bundle (new and replaced CAs), gives the API
// servers caSettle to apply it, and only then serves the new certificate, so that no replica
// serves a certificate an API server does not trust yet.
type certRotator struct {
	kube            kubernetes.Interface
	namespace, name string
	hosts           []string
	configuration   string
	renewBefore     time.Duration
	checkEvery      time.Duration
	caSettle        time.Duration
	now             func() time.Time
	serving         atomic.Pointer[tls.Certificate]
	// served is the certificate being served (nil before the first sync); trustedCA the
	// bundle this replica last made the webhook configurations trust, at trustedAt.
	served    *ServingCert
	trustedCA []byte
	trustedAt time.Time
	kick      chan struct{}
}

// certificate serves the current certificate to the TLS handshake.
func (r *certRotator) certificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	if c := r.serving.Load(); c != nil {
		return c, nil
	}
	return nil, fmt.Errorf("no webhook serving certificate loaded from Secret %s/%s", r.namespace, r.name)
}

// sync reads (renewing when due) the shared certificate, makes the webhook configurations
// trust its bundle, then serves it, or, when the bundle changed less than caSettle ago and the
// certificate being served is trusted by it, keeps serving that and returns how long to wait
// before syncing again. Called from one goroutine only.
func (r *certRotator) sync(ctx context.Context) (time.Duration, error) {
	now := r.now()
	sc, err := ensureServingCert(ctx, r.kube, r.namespace, r.name, r.hosts, now, r.renewBefore)
	if err != nil {
		return 0, err
	}
	if !bytes.Equal(sc.CAPEM, r.trustedCA) {
		if err := InjectCABundle(ctx, r.kube, r.configuration, sc.CAPEM); err != nil {
			return 0, fmt.Errorf("webhook configuration: %w", err)
		}
		r.trustedCA, r.trustedAt = sc.CAPEM, now
	}
	if r.served != nil && bytes.Equal(sc.CertPEM, r.served.CertPEM) {
		return 0, nil
	}
	if r.served != nil {
		current := &ServingCert{CertPEM: r.served.CertPEM, KeyPEM: r.served.KeyPEM, CAPEM: sc.CAPEM}
		if wait := r.trustedAt.Add(r.caSettle).Sub(now); wait > 0 && current.usable(r.hosts, now, 0) == "" {
			klog.FromContext(ctx).V(2).Info("Serving the current webhook certificate while the API servers apply the new CA bundle", "secret", klog.KRef(r.namespace, r.name), "for", wait)
			return wait, nil
		}
	}
	cert, err := sc.TLS()
	if err != nil {
		return 0, fmt.Errorf("loading the serving certificate from Secret %s/%s: %w", r.namespace, r.name, err)
	}
	first := r.served == nil
	r.serving.Store(&cert)
	r.served = sc
	if !first {
		klog.FromContext(ctx).Info("Serving the renewed webhook certificate", "secret", klog.KRef(r.namespace, r.name))
	}
	return 0, nil
}

// run re-syncs on every change of the Secret (a renewal by any replica), every checkEvery, and
// when a held certificate's caSettle is over, until ctx ends. A failed sync keeps the
// certificate being served and is retried.
func (r *certRotator) run(ctx context.Context) {
	logger := klog.FromContext(ctx)
	selector := fields.OneTermEqualSelector("metadata.name", r.name).String()
	secrets := r.kube.CoreV1().Secrets(r.namespace)
	informer := cache.NewSharedIndexInformer(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = selector
			return secrets.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = selector
			return secrets.Watch(ctx, o)
		},
	}, &corev1.Secret{}, 0, cache.Indexers{})
	kick := func(any) {
		select {
		case r.kick <- struct{}{}:
		default:
		}
	}
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: kick, UpdateFunc: func(_, o any) { kick(o) }, DeleteFunc: kick,
	}); err != nil {
		logger.Error(err, "Watching the webhook certificate Secret; renewals are picked up every check interval only", "interval", r.checkEvery)
	}
	go informer.RunWithContext(ctx)
	tick := time.NewTicker(r.checkEvery)
	defer tick.Stop()
	retry := time.NewTimer(0)
	<-retry.C
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.kick:
		case <-tick.C:
		case <-retry.C:
		}
		wait, err := r.sync(ctx)
		if err != nil {
			logger.Error(err, "Keeping the webhook certificate current; retrying", "secret", klog.KRef(r.namespace, r.name))
			wait = 5 * time.Second
		}
		if wait > 0 {
			retry.Reset(wait)
		}
	}
}
