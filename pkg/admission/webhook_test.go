package admission

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
)

func review(t *testing.T, path string, op admissionv1.Operation, obj, old *grovev1.PodCliqueSet) *admissionv1.AdmissionResponse {
	t.Helper()
	req := &admissionv1.AdmissionRequest{UID: types.UID("req-1"), Operation: op, Namespace: "default"}
	req.Object = runtime.RawExtension{Raw: mustJSON(t, obj)}
	if old != nil {
		req.OldObject = runtime.RawExtension{Raw: mustJSON(t, old)}
	}
	body := mustJSON(t, admissionv1.AdmissionReview{Request: req})
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body)))
	if rec.Code != http.StatusOK {
		t.Fatalf("HTTP %d: %s", rec.Code, rec.Body)
	}
	out := &admissionv1.AdmissionReview{}
	if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
		t.Fatal(err)
	}
	if out.Response == nil || out.Response.UID != "req-1" {
		t.Fatalf("response does not answer the request: %+v", out.Response)
	}
	return out.Response
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestMutatingWebhookPatchesDefaults(t *testing.T) {
	p := example()
	resp := review(t, MutatePath, admissionv1.Create, p, nil)
	if !resp.Allowed || resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
		t.Fatalf("response = %+v", resp)
	}
	patch, err := jsonpatch.DecodePatch(resp.Patch)
	if err != nil {
		t.Fatal(err)
	}
	patched, err := patch.Apply(mustJSON(t, p))
	if err != nil {
		t.Fatal(err)
	}
	got := &grovev1.PodCliqueSet{}
	if err := json.Unmarshal(patched, got); err != nil {
		t.Fatal(err)
	}
	want := example()
	Default(want)
	if !equalJSON(t, got, want) {
		t.Errorf("patched object differs from Default:\n%s\n%s", patched, mustJSON(t, want))
	}
	// An object that is already defaulted gets no patch.
	if resp := review(t, MutatePath, admissionv1.Update, want, want); !resp.Allowed || resp.Patch != nil {
		t.Errorf("defaulted object patched again: %+v", resp)
	}
	// An update of metadata alone leaves an undefaulted spec as it is (another operator's
	// object, relabelled on adoption: defaulting it would raise its generation).
	relabelled := example()
	relabelled.Annotations = map[string]string{"phalanx.dev/adopted-from": "grove-operator"}
	if resp := review(t, MutatePath, admissionv1.Update, relabelled, example()); !resp.Allowed || resp.Patch != nil {
		t.Errorf("metadata-only update got its spec defaulted: %+v", resp)
	}
	// A spec change on update is defaulted.
	changed := example()
	changed.Spec.Replicas++
	if resp := review(t, MutatePath, admissionv1.Update, changed, example()); !resp.Allowed || resp.Patch == nil {
		t.Errorf("spec change on update not defaulted: %+v", resp)
	}
}

func TestValidatingWebhookAnswers422WithFieldPaths(t *testing.T) {
	p := example()
	Default(p)
	if resp := review(t, ValidatePath, admissionv1.Create, p, nil); !resp.Allowed {
		t.Fatalf("valid object refused: %+v", resp.Result)
	}
	bad := p.DeepCopy()
	bad.Spec.Template.Cliques[0].UpdateStrategy = budget(0, 0)
	resp := review(t, ValidatePath, admissionv1.Create, bad, nil)
	if resp.Allowed || resp.Result.Code != 422 || resp.Result.Reason != "Invalid" {
		t.Fatalf("response = %+v", resp)
	}
	if want := `PodCliqueSet.grove.io "multinode-disaggregated-inference" is invalid: spec.template.cliques[0].updateStrategy: Invalid value: "maxSurge=0, maxUnavailable=0": maxSurge and maxUnavailable must not both be 0`; !strings.HasPrefix(resp.Result.Message, want) {
		t.Errorf("message = %q", resp.Result.Message)
	}
	if len(resp.Result.Details.Causes) != 1 || resp.Result.Details.Causes[0].Field != "spec.template.cliques[0].updateStrategy" {
		t.Errorf("causes = %+v", resp.Result.Details.Causes)
	}
	// Update: immutable fields are checked against the old object; a metadata-only update of
	// an object that no longer passes is allowed.
	upd := p.DeepCopy()
	upd.Spec.Template.Cliques[0].Spec.RoleName = "router"
	if resp := review(t, ValidatePath, admissionv1.Update, upd, p); resp.Allowed || !strings.Contains(resp.Result.Message, "roleName is immutable") {
		t.Errorf("roleName change: %+v", resp.Result)
	}
	labelled := bad.DeepCopy()
	labelled.Labels = map[string]string{"team": "a"}
	if resp := review(t, ValidatePath, admissionv1.Update, labelled, bad); !resp.Allowed {
		t.Errorf("metadata-only update refused: %+v", resp.Result)
	}
}

func TestWebhookRejectsGarbage(t *testing.T) {
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, ValidatePath, strings.NewReader(`{"kind":"Pod"}`)))
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "not an admission.k8s.io/v1 AdmissionReview") {
		t.Errorf("HTTP %d %s", rec.Code, rec.Body)
	}
}

func TestEnsureServingCertSharedAndRenewed(t *testing.T) {
	ctx := context.Background()
	kube := fake.NewClientset()
	hosts := []string{"phalanx-webhook.phalanx-system.svc", "phalanx-webhook.phalanx-system.svc.cluster.local"}
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	first, err := EnsureServingCert(ctx, kube, "phalanx-system", "phalanx-webhook-tls", hosts, now)
	if err != nil {
		t.Fatal(err)
	}
	if why := first.usable(hosts, now, certRenewBefore); why != "" {
		t.Fatalf("fresh certificate unusable: %s", why)
	}
	// A second replica reads the same certificate.
	second, err := EnsureServingCert(ctx, kube, "phalanx-system", "phalanx-webhook-tls", hosts, now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.CertPEM, second.CertPEM) {
		t.Error("second replica made its own certificate")
	}
	// Close to expiry, or for another host, it is renewed.
	late, err := EnsureServingCert(ctx, kube, "phalanx-system", "phalanx-webhook-tls", hosts, now.Add(340*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(first.CertPEM, late.CertPEM) {
		t.Error("certificate expiring in 25 days was not renewed")
	}
	if why := late.usable([]string{"127.0.0.1"}, now.Add(340*24*time.Hour), certRenewBefore); why != "does not name 127.0.0.1" {
		t.Errorf("usable for another host: %q", why)
	}
}

// A renewal keeps the CAs it replaced, two of them, so that replicas still serving the
// certificate of one of them stay trusted, also when two renewals come in quick succession;
// the third renewal drops the oldest.
func TestRenewalBundleOverlapsTwoRotations(t *testing.T) {
	ctx := context.Background()
	kube := fake.NewClientset()
	hosts := []string{"127.0.0.1"}
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	first, err := EnsureServingCert(ctx, kube, "ns", "tls", hosts, now)
	if err != nil {
		t.Fatal(err)
	}
	at := now.Add(340 * 24 * time.Hour)
	second, err := EnsureServingCert(ctx, kube, "ns", "tls", hosts, at)
	if err != nil {
		t.Fatal(err)
	}
	if !verifies(t, second.CertPEM, second.CAPEM, at) || !verifies(t, first.CertPEM, second.CAPEM, at) {
		t.Error("after one renewal the bundle must trust both the renewed and the replaced certificate")
	}
	at2 := at.Add(340 * 24 * time.Hour)
	third, err := EnsureServingCert(ctx, kube, "ns", "tls", hosts, at2)
	if err != nil {
		t.Fatal(err)
	}
	if !verifies(t, third.CertPEM, third.CAPEM, at2) || !verifies(t, second.CertPEM, third.CAPEM, at2) || !verifies(t, first.CertPEM, third.CAPEM, now) {
		t.Error("after a second renewal the bundle must trust the renewed certificate and both it replaced")
	}
	at3 := at2.Add(340 * 24 * time.Hour)
	fourth, err := EnsureServingCert(ctx, kube, "ns", "tls", hosts, at3)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(fourth.CAPEM), "BEGIN CERTIFICATE"); n != maxBundleCAs {
		t.Errorf("bundle after three renewals holds %d CAs, want %d", n, maxBundleCAs)
	}
	if verifies(t, first.CertPEM, fourth.CAPEM, now) {
		t.Error("the bundle still trusts the CA of three renewals ago")
	}
	if !verifies(t, second.CertPEM, fourth.CAPEM, at2) || !verifies(t, third.CertPEM, fourth.CAPEM, at3) {
		t.Error("after a third renewal the bundle must trust the two replaced certificates")
	}
	// A certificate whose CA is not in ca.crt is renewed, not served.
	fourth.CAPEM = first.CAPEM
	if why := fourth.usable(hosts, at3, certRenewBefore); !strings.HasPrefix(why, "not signed by a CA in ca.crt") {
		t.Errorf("usable with a foreign CA: %q", why)
	}
}

// verifies reports whether the bundle trusts the PEM certificate as a serving certificate at at.
func verifies(t *testing.T, certPEM, bundle []byte, at time.Time) bool {
	t.Helper()
	b, _ := pem.Decode(certPEM)
	leaf, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(bundle)
	_, err = leaf.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: at, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	return err == nil
}
