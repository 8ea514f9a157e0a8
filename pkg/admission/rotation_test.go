package admission

import (
	"bytes"
	"context"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// A replica that sees a renewed certificate makes the webhook configurations trust the new
// bundle at once but keeps serving its current certificate (trusted by old and new bundle)
// for caSettle, the time the API servers take to apply the new bundle; then it serves the
// renewed one.
func TestRotatorServesRenewedCertificateAfterTheBundleSettled(t *testing.T) {
	ctx := context.Background()
	kube := rotationCluster()
	clock := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	r := testRotator(kube, &clock)
	if wait, err := r.sync(ctx); err != nil || wait != 0 {
		t.Fatalf("first sync: wait %v, %v", wait, err)
	}
	first := r.served.CertPEM
	if !verifies(t, first, webhookBundle(t, kube), clock) {
		t.Fatal("the served certificate is not trusted by the webhook configuration")
	}

	clock = clock.Add(340 * 24 * time.Hour) // 25 days left: this replica renews
	wait, err := r.sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	renewed := secretCert(t, kube)
	if bytes.Equal(renewed, first) {
		t.Fatal("the certificate was not renewed")
	}
	bundle := webhookBundle(t, kube)
	if !verifies(t, renewed, bundle, clock) || !verifies(t, first, bundle, clock) {
		t.Fatal("the webhook configuration must trust the renewed and the served certificate at once")
	}
	if wait != time.Minute || !bytes.Equal(r.served.CertPEM, first) {
		t.Fatalf("right after the bundle changed: wait %v, serving the renewed certificate %v; want 1m, the old one", wait, bytes.Equal(r.served.CertPEM, renewed))
	}

	clock = clock.Add(40 * time.Second)
	if wait, err := r.sync(ctx); err != nil || wait != 20*time.Second || !bytes.Equal(r.served.CertPEM, first) {
		t.Fatalf("40 s later: wait %v (%v), want 20s and still the old certificate", wait, err)
	}
	clock = clock.Add(20 * time.Second)
	if wait, err := r.sync(ctx); err != nil || wait != 0 {
		t.Fatalf("after caSettle: wait %v, %v", wait, err)
	}
	if !bytes.Equal(r.served.CertPEM, renewed) {
		t.Error("after caSettle the renewed certificate is not served")
	}
}

// A Secret replaced by one whose bundle no longer trusts the served certificate (put in by
// hand) is served at once: holding the old certificate would only prolong the refusals.
func TestRotatorServesAtOnceWhenTheBundleDroppedTheServedCA(t *testing.T) {
	ctx := context.Background()
	kube := rotationCluster()
	clock := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	r := testRotator(kube, &clock)
	if _, err := r.sync(ctx); err != nil {
		t.Fatal(err)
	}
	foreign, err := GenerateServingCert(r.hosts, clock)
	if err != nil {
		t.Fatal(err)
	}
	sec, err := kube.CoreV1().Secrets("ns").Get(ctx, "tls", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sec.Data = certSecret("ns", "tls", foreign).Data
	if _, err := kube.CoreV1().Secrets("ns").Update(ctx, sec, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if wait, err := r.sync(ctx); err != nil || wait != 0 {
		t.Fatalf("wait %v, %v; want the new certificate served at once", wait, err)
	}
	if !bytes.Equal(r.served.CertPEM, foreign.CertPEM) || !bytes.Equal(webhookBundle(t, kube), foreign.CAPEM) {
		t.Error("the replaced certificate and bundle are not in use")
	}
}

func testRotator(kube *fake.Clientset, clock *time.Time) *certRotator {
	return &certRotator{
		kube: kube, namespace: "ns", name: "tls", hosts: []string{"phalanx-webhook.ns.svc"}, configuration: "phalanx",
		renewBefore: certRenewBefore, checkEvery: time.Hour, caSettle: time.Minute,
		now: func() time.Time { return *clock }, kick: make(chan struct{}, 1),
	}
}

func rotationCluster() *fake.Clientset {
	cc := admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "phalanx-webhook"}}
	return fake.NewClientset(
		&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "phalanx"},
			Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "default.podcliquesets.grove.io", ClientConfig: cc}}},
		&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "phalanx"},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "validate.podcliquesets.grove.io", ClientConfig: cc}}},
	)
}

// webhookBundle is the validating configuration's bundle, after checking the mutating one
// holds the same.
func webhookBundle(t *testing.T, kube *fake.Clientset) []byte {
	t.Helper()
	ctx := context.Background()
	m, err := kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, "phalanx", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, "phalanx", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(m.Webhooks[0].ClientConfig.CABundle, v.Webhooks[0].ClientConfig.CABundle) {
		t.Fatal("the mutating and validating configurations trust different bundles")
	}
	return v.Webhooks[0].ClientConfig.CABundle
}

func secretCert(t *testing.T, kube *fake.Clientset) []byte {
	t.Helper()
	sec, err := kube.CoreV1().Secrets("ns").Get(context.Background(), "tls", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return sec.Data[corev1.TLSCertKey]
}
