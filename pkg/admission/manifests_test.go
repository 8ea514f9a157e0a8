package admission

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// manifests/deploy/webhook.yaml registers exactly what Configurations builds for the Service
// (the same rules, paths, failure policy and timeouts that the tests run with).
func TestShippedWebhookConfigurations(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "manifests", "deploy", "webhook.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var mwc *admissionregistrationv1.MutatingWebhookConfiguration
	var vwc *admissionregistrationv1.ValidatingWebhookConfiguration
	for _, doc := range bytes.Split(raw, []byte("\n---\n")) {
		var kind struct{ Kind string }
		if err := yaml.Unmarshal(doc, &kind); err != nil {
			t.Fatal(err)
		}
		switch kind.Kind {
		case "MutatingWebhookConfiguration":
			mwc = &admissionregistrationv1.MutatingWebhookConfiguration{}
			if err := yaml.UnmarshalStrict(doc, mwc); err != nil {
				t.Fatal(err)
			}
		case "ValidatingWebhookConfiguration":
			vwc = &admissionregistrationv1.ValidatingWebhookConfiguration{}
			if err := yaml.UnmarshalStrict(doc, vwc); err != nil {
				t.Fatal(err)
			}
		}
	}
	if mwc == nil || vwc == nil {
		t.Fatal("webhook.yaml lacks a webhook configuration")
	}
	wantM, wantV := Configurations("phalanx", admissionregistrationv1.WebhookClientConfig{
		Service: &admissionregistrationv1.ServiceReference{Namespace: "phalanx-system", Name: "phalanx-webhook"},
	}, nil, nil)
	// The API server defaults the port; the shipped YAML leaves it out.
	for i := range mwc.Webhooks {
		mwc.Webhooks[i].ClientConfig.Service.Port = nil
	}
	if !equality.Semantic.DeepEqual(mwc.Webhooks, wantM.Webhooks) {
		got, _ := yaml.Marshal(mwc.Webhooks)
		want, _ := yaml.Marshal(wantM.Webhooks)
		t.Errorf("shipped mutating webhooks:\n%s\nwant:\n%s", got, want)
	}
	if !equality.Semantic.DeepEqual(vwc.Webhooks, wantV.Webhooks) {
		got, _ := yaml.Marshal(vwc.Webhooks)
		want, _ := yaml.Marshal(wantV.Webhooks)
		t.Errorf("shipped validating webhooks:\n%s\nwant:\n%s", got, want)
	}
	if ptr.Deref(mwc.Webhooks[0].FailurePolicy, "") != admissionregistrationv1.Fail {
		t.Error("failurePolicy must be Fail")
	}
}
