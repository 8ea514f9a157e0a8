package admission

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

// WebhookOptions configure the webhook server of phalanx-scheduler.
type WebhookOptions struct {
	// BindAddress and Port are where the server listens (TLS). Port 0 disables the webhooks.
	BindAddress string
	Port        int
	// CertDir, when set, holds tls.crt and tls.key (a cert-manager or hand-made Secret mounted
	// as a volume); they are read again when they change, and the server does not manage
	// certificates or CA bundles itself.
	CertDir string
	// Secret (namespace/name) keeps the self-managed serving certificate when CertDir is empty.
	Secret string
	// Service (namespace/name) is the Service in front of the server; its DNS names go into the
	// self-managed certificate.
	Service string
	// Configuration is the name of the Mutating- and ValidatingWebhookConfiguration whose CA
	// bundle the server keeps current (self-managed certificate only).
	Configuration string
	// URL, when set, makes the server register both configurations itself with this base URL
	// instead of a Service (for a local control plane, where the API server reaches the process
	// directly, e.g. https://127.0.0.1:9443).
	URL string
	// NamespaceSelector, with URL, limits the registered webhooks to matching namespaces
	// (tests that share a control plane with other tests).
	NamespaceSelector *metav1.LabelSelector
	// CertRenewBefore is how long before its expiry the self-managed certificate is renewed
	// (default 30 days); CertCheckInterval how often that is checked when the Secret did not
	// change (default 1 h). A change of the Secret is picked up at once.
	CertRenewBefore, CertCheckInterval time.Duration
	// CASettle is how long a replica keeps serving its current certificate after the CA
	// bundle changed before it serves a renewed one (default 5 s): the time the API servers
	// are given to apply the new bundle.
	CASettle time.Duration
}

// hosts are the names the serving certificate must carry.
func (o WebhookOptions) hosts() ([]string, error) {
	if o.URL != "" {
		u, err := url.Parse(o.URL)
		if err != nil || u.Hostname() == "" {
			return nil, fmt.Errorf("--webhook-url %q is not an https URL with a host", o.URL)
		}
		return []string{u.Hostname()}, nil
	}
	ns, name, ok := strings.Cut(o.Service, "/")
	if !ok || ns == "" || name == "" {
		return nil, fmt.Errorf("--webhook-service %q is not namespace/name", o.Service)
	}
	return []string{name + "." + ns + ".svc", name + "." + ns + ".svc.cluster.local"}, nil
}

// MissingPrerequisite reports whether err from RunWebhooks means the cluster lacks what the
// webhooks need from manifests/ (the Secret's namespace, the webhook configurations, or the
// RBAC to use them), as opposed to a broken configuration of this process. The scheduler can
// run without its webhooks; the API server calls none that is not registered.
func MissingPrerequisite(err error) bool {
	return apierrors.IsNotFound(err) || apierrors.IsForbidden(err)
}

// RunWebhooksWhenReady runs the webhooks as RunWebhooks does. When the cluster lacks a
// prerequisite (MissingPrerequisite), it says what is missing and how to provide it, returns
// nil so that the scheduler starts, and keeps trying every retry in the background until the
// webhooks are served or ctx ends. Any other error is returned.
func RunWebhooksWhenReady(ctx context.Context, kube kubernetes.Interface, o WebhookOptions, retry time.Duration) error {
	err := RunWebhooks(ctx, kube, o)
	if err == nil || !MissingPrerequisite(err) {
		return err
	}
	logger := klog.FromContext(ctx).WithName("webhooks")
	logger.Error(err, "PodCliqueSet webhooks are not served: the cluster lacks what they need; the scheduler runs without them and retries",
		"retryEvery", retry, "fix", "apply manifests/ (namespace "+namespaceOf(o.Secret)+", Secret RBAC, webhook configuration "+o.Configuration+
			"), or run with --webhook-port=0 where another component validates PodCliqueSets")
	go func() {
		t := time.NewTicker(retry)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			err := RunWebhooks(ctx, kube, o)
			switch {
			case err == nil:
				logger.Info("PodCliqueSet webhooks served after their prerequisites appeared")
				return
			case !MissingPrerequisite(err):
				logger.Error(err, "PodCliqueSet webhooks could not start")
				return
			default:
				logger.V(2).Info("Webhook prerequisites still missing", "err", err)
			}
		}
	}()
	return nil
}

func namespaceOf(secret string) string {
	ns, _, _ := strings.Cut(secret, "/")
	return ns
}

// RunWebhooks serves the PodCliqueSet webhooks until ctx ends. With a self-managed
// certificate it first makes sure the certificate exists in the Secret and that the webhook
// configurations trust it (or registers them, with URL). It returns once the listener is up;
// serving errors are logged.
func RunWebhooks(ctx context.Context, kube kubernetes.Interface, o WebhookOptions) error {
	if o.Port == 0 {
		return nil
	}
	logger := klog.FromContext(ctx).WithName("webhooks")
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.CertDir != "" {
		loader := &fileCert{dir: o.CertDir}
		if _, err := loader.get(nil); err != nil {
			return err
		}
		cfg.GetCertificate = loader.get
	} else {
		hosts, err := o.hosts()
		if err != nil {
			return err
		}
		ns, name, ok := strings.Cut(o.Secret, "/")
		if !ok {
			return fmt.Errorf("--webhook-secret %q is not namespace/name", o.Secret)
		}
		r := &certRotator{
			kube: kube, namespace: ns, name: name, hosts: hosts, configuration: o.Configuration,
			renewBefore: cmp.Or(o.CertRenewBefore, certRenewBefore), checkEvery: cmp.Or(o.CertCheckInterval, defaultCertCheckInterval),
			caSettle: cmp.Or(o.CASettle, defaultCASettle), now: time.Now,
			kick: make(chan struct{}, 1),
		}
		if o.URL != "" {
			// The configurations are this process's to register; the rotator then keeps
			// their CA bundle as it does for the shipped ones.
			sc, err := ensureServingCert(ctx, kube, ns, name, hosts, time.Now(), r.renewBefore)
			if err != nil {
				return err
			}
			if err := Register(ctx, kube, o.Configuration, admissionregistrationv1.WebhookClientConfig{URL: ptr.To(strings.TrimSuffix(o.URL, "/"))}, sc.CAPEM, o.NamespaceSelector); err != nil {
				return fmt.Errorf("webhook configuration: %w", err)
			}
		}
		if _, err := r.sync(ctx); err != nil {
			return err
		}
		cfg.GetCertificate = r.certificate
		go r.run(ctx)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(o.BindAddress, strconv.Itoa(o.Port)))
	if err != nil {
		return fmt.Errorf("webhook server: %w", err)
	}
	srv := &http.Server{Handler: Handler(), TLSConfig: cfg, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	go func() {
		if err := srv.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error(err, "Webhook server stopped")
		}
	}()
	logger.Info("Serving PodCliqueSet webhooks", "address", ln.Addr().String(), "selfManagedCert", o.CertDir == "")
	return nil
}

// fileCert reads tls.crt and tls.key from a directory, again whenever they change (a mounted
// Secret is updated in place by the kubelet).
type fileCert struct {
	mu      sync.Mutex
	dir     string
	modTime time.Time
	cert    *tls.Certificate
}

func (f *fileCert) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	crt, key := filepath.Join(f.dir, "tls.crt"), filepath.Join(f.dir, "tls.key")
	st, err := os.Stat(crt)
	if err != nil {
		return nil, fmt.Errorf("webhook certificate: %w", err)
	}
	if f.cert != nil && st.ModTime().Equal(f.modTime) {
		return f.cert, nil
	}
	c, err := tls.LoadX509KeyPair(crt, key)
	if err != nil {
		return nil, fmt.Errorf("webhook certificate in %s: %w", f.dir, err)
	}
	f.cert, f.modTime = &c, st.ModTime()
	return f.cert, nil
}

// Configurations are the webhook configurations of Phalanx, named name, calling base (a
// Service or a URL, without path) and trusting ca. manifests/deploy/webhook.yaml ships the
// same with a Service; a test keeps them equal.
func Configurations(name string, base admissionregistrationv1.WebhookClientConfig, ca []byte, namespaces *metav1.LabelSelector) (*admissionregistrationv1.MutatingWebhookConfiguration, *admissionregistrationv1.ValidatingWebhookConfiguration) {
	at := func(path string) admissionregistrationv1.WebhookClientConfig {
		c := *base.DeepCopy()
		c.CABundle = ca
		if c.URL != nil {
			c.URL = ptr.To(*c.URL + path)
		}
		if c.Service != nil {
			c.Service.Path = ptr.To(path)
		}
		return c
	}
	rules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{"grove.io"}, APIVersions: []string{"v1alpha1"},
			Resources: []string{"podcliquesets"}, Scope: ptr.To(admissionregistrationv1.NamespacedScope)},
	}}
	fail, none := admissionregistrationv1.Fail, admissionregistrationv1.SideEffectClassNone
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: "default.podcliquesets.grove.io", ClientConfig: at(MutatePath), Rules: rules,
			FailurePolicy: &fail, SideEffects: &none, AdmissionReviewVersions: []string{"v1"}, TimeoutSeconds: ptr.To[int32](10),
			ReinvocationPolicy: ptr.To(admissionregistrationv1.NeverReinvocationPolicy), NamespaceSelector: namespaces,
		}},
	}
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "validate.podcliquesets.grove.io", ClientConfig: at(ValidatePath), Rules: rules,
			FailurePolicy: &fail, SideEffects: &none, AdmissionReviewVersions: []string{"v1"}, TimeoutSeconds: ptr.To[int32](10),
			NamespaceSelector: namespaces,
		}},
	}
	return mwc, vwc
}

// Register creates or updates both webhook configurations (see Configurations).
func Register(ctx context.Context, kube kubernetes.Interface, name string, base admissionregistrationv1.WebhookClientConfig, ca []byte, namespaces *metav1.LabelSelector) error {
	mwc, vwc := Configurations(name, base, ca, namespaces)
	mc := kube.AdmissionregistrationV1().MutatingWebhookConfigurations()
	// Replicas register and rotate concurrently: a conflict is retried on the fresh object.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := mc.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			if _, err := mc.Create(ctx, mwc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("creating MutatingWebhookConfiguration %s: %w", name, err)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading MutatingWebhookConfiguration %s: %w", name, err)
		}
		cur.Webhooks = mwc.Webhooks
		_, err = mc.Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("updating MutatingWebhookConfiguration %s: %w", name, err)
	}
	vc := kube.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := vc.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			if _, err := vc.Create(ctx, vwc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("creating ValidatingWebhookConfiguration %s: %w", name, err)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading ValidatingWebhookConfiguration %s: %w", name, err)
		}
		cur.Webhooks = vwc.Webhooks
		_, err = vc.Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("updating ValidatingWebhookConfiguration %s: %w", name, err)
	}
	return nil
}
