package controller

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
	"github.com/phalanx-sched/phalanx/pkg/admission"
	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// Two replicas serve the webhooks from one shared Secret. Replica A renews the certificate
// (it is within A's renewal window), minting a new CA. Replica B, which was serving the old
// certificate, must never serve one the webhook configuration does not trust, and must move
// to the new one; the API server's calls to B keep succeeding throughout.
func TestWebhookCertRotationAcrossReplicas(t *testing.T) {
	env := framework.Shared(t)
	ctx := framework.Context(t)
	const (
		label         = "phalanx.test/rotation-webhooks"
		secretNS      = "kube-system"
		secretName    = "phalanx-rotation-tls"
		configuration = "phalanx-rotation"
	)
	ns := env.NewNamespace(t)
	if _, err := env.Kube.CoreV1().Namespaces().Patch(ctx, ns, types.MergePatchType, []byte(fmt.Sprintf(`{"metadata":{"labels":{%q:"true"}}}`, label)), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		bg := context.Background()
		_ = env.Kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(bg, configuration, metav1.DeleteOptions{})
		_ = env.Kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(bg, configuration, metav1.DeleteOptions{})
		_ = env.Kube.CoreV1().Secrets(secretNS).Delete(bg, secretName, metav1.DeleteOptions{})
	})

	// The stored certificate has 10 days left: inside a 30-day renewal window, outside a 1-day one.
	old, err := admission.GenerateServingCert([]string{"127.0.0.1"}, time.Now().Add(-355*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Kube.CoreV1().Secrets(secretNS).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: secretNS, Name: secretName},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: old.CertPEM, corev1.TLSPrivateKeyKey: old.KeyPEM, admission.SecretCAKey: old.CAPEM},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// The API server reaches the replicas through a load balancer; it sends to B.
	portA, portB := freePort(t), freePort(t)
	lb := newForwarder(t)
	lb.target.Store(fmt.Sprintf("127.0.0.1:%d", portB))
	replica := func(port int, renewBefore time.Duration) {
		rctx, cancel := context.WithCancel(ctx)
		t.Cleanup(cancel)
		if err := admission.RunWebhooks(rctx, env.Kube, admission.WebhookOptions{
			BindAddress: "127.0.0.1", Port: port, URL: "https://" + lb.addr,
			Secret: secretNS + "/" + secretName, Configuration: configuration,
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{label: "true"}},
			CertRenewBefore:   renewBefore,
		}); err != nil {
			t.Fatalf("replica on port %d: %v", port, err)
		}
	}
	replica(portB, 24*time.Hour)
	if got := served(t, portB, nil); !bytes.Equal(got, firstCert(t, old.CertPEM)) {
		t.Fatal("replica B does not serve the stored certificate")
	}
	createDefaulted(t, env, ns, "before")

	replica(portA, 0) // the default 30-day window: A renews at start
	sec, err := env.Kube.CoreV1().Secrets(secretNS).Get(ctx, secretName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	renewed := sec.Data[corev1.TLSCertKey]
	if bytes.Equal(renewed, old.CertPEM) {
		t.Fatal("replica A did not renew the certificate")
	}
	if n := countCerts(sec.Data[admission.SecretCAKey]); n != 2 {
		t.Errorf("renewed %s holds %d CAs, want 2 (the new CA and the replaced one)", admission.SecretCAKey, n)
	}

	// At every look, what each replica serves is trusted by the configuration's current
	// bundle; B ends on the renewed certificate.
	framework.Eventually(t, 30*time.Second, "replica B serves the renewed certificate", func(ctx context.Context) (bool, error) {
		vwc, err := env.Kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, configuration, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		bundle := vwc.Webhooks[0].ClientConfig.CABundle
		for name, port := range map[string]int{"A": portA, "B": portB} {
			if _, err := dial(port, bundle); err != nil {
				return false, framework.Terminal(fmt.Errorf("replica %s serves a certificate the webhook configuration does not trust: %w", name, err))
			}
		}
		return bytes.Equal(served(t, portB, nil), firstCert(t, renewed)), nil
	})
	createDefaulted(t, env, ns, "after")
}

// createDefaulted creates a PodCliqueSet without an update strategy through the API server
// and checks that the webhooks defaulted it (so they were called and answered).
func createDefaulted(t *testing.T, env *framework.Env, ns, name string) {
	t.Helper()
	pcs := framework.Workers(ns, name, 1, 0, 600)
	pcs.Spec.UpdateStrategy = nil
	got := createPCS(t, env, pcs)
	if got.Spec.UpdateStrategy == nil || got.Spec.UpdateStrategy.Type != grovev1.RollingUpdateStrategyType {
		t.Errorf("PodCliqueSet %s was not defaulted by the webhooks: updateStrategy %+v", name, got.Spec.UpdateStrategy)
	}
}

// dial connects to a replica as the API server does, trusting bundle, and returns the leaf.
func dial(port int, bundle []byte) ([]byte, error) {
	cfg := &tls.Config{ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	if bundle == nil {
		cfg.InsecureSkipVerify = true //nolint:gosec // only reads which certificate is served
	} else {
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(bundle) {
			return nil, fmt.Errorf("empty CA bundle")
		}
	}
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", fmt.Sprintf("127.0.0.1:%d", port), cfg)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.ConnectionState().PeerCertificates[0].Raw, nil
}

func served(t *testing.T, port int, bundle []byte) []byte {
	t.Helper()
	der, err := dial(port, bundle)
	if err != nil {
		t.Fatalf("reading the certificate served on port %d: %v", port, err)
	}
	return der
}

func firstCert(t *testing.T, p []byte) []byte {
	t.Helper()
	b, _ := pem.Decode(p)
	if b == nil {
		t.Fatal("no PEM certificate")
	}
	return b.Bytes
}

func countCerts(p []byte) int {
	n := 0
	for b, rest := pem.Decode(p); b != nil; b, rest = pem.Decode(rest) {
		n++
	}
	return n
}

func freePort(t *testing.T) int {
	t.Helper()
	p, err := localcluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// forwarder is a TCP load balancer with one backend at a time (target).
type forwarder struct {
	addr   string
	target atomic.Value // string
}

func newForwarder(t *testing.T) *forwarder {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &forwarder{addr: ln.Addr().String()}
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", f.target.Load().(string))
			if err != nil {
				_ = in.Close()
				continue
			}
			go func() { _, _ = io.Copy(out, in); _ = out.Close() }()
			go func() { _, _ = io.Copy(in, out); _ = in.Close() }()
		}
	}()
	return f
}
