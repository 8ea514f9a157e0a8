package admission

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/klog/v2"

	grovev1 "github.com/phalanx-sched/phalanx/pkg/apis/grove/v1alpha1"
)

// Paths the webhooks are served on.
const (
	MutatePath   = "/mutate-grove-io-v1alpha1-podcliqueset"
	ValidatePath = "/validate-grove-io-v1alpha1-podcliqueset"
)

// maxRequestBytes bounds an AdmissionReview body (the API server sends at most ~3 MiB objects).
const maxRequestBytes = 8 << 20

var pcsKind = schema.GroupKind{Group: grovev1.SchemeGroupVersion.Group, Kind: "PodCliqueSet"}

// Handler serves the defaulting and validating webhooks of PodCliqueSets (admission.k8s.io/v1).
func Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(MutatePath, func(w http.ResponseWriter, r *http.Request) { serve(w, r, mutate) })
	mux.HandleFunc(ValidatePath, func(w http.ResponseWriter, r *http.Request) { serve(w, r, validate) })
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	return mux
}

type reviewFunc func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse

// serve decodes an AdmissionReview, answers it with fn and encodes the answer. A request that
// is not an AdmissionReview gets HTTP 400, which the API server turns into a rejection
// (failurePolicy Fail).
func serve(w http.ResponseWriter, r *http.Request, fn reviewFunc) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST an admission.k8s.io/v1 AdmissionReview", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes))
	if err != nil {
		http.Error(w, "reading the request: "+err.Error(), http.StatusBadRequest)
		return
	}
	review := &admissionv1.AdmissionReview{}
	if err := json.Unmarshal(body, review); err != nil || review.Request == nil {
		http.Error(w, fmt.Sprintf("the body is not an admission.k8s.io/v1 AdmissionReview with a request: %v", err), http.StatusBadRequest)
		return
	}
	resp := fn(review.Request)
	resp.UID = review.Request.UID
	out := admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Response: resp}
	raw, err := json.Marshal(out)
	if err != nil {
		http.Error(w, "encoding the response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(raw)
}

func decode(raw []byte) (*grovev1.PodCliqueSet, error) {
	pcs := &grovev1.PodCliqueSet{}
	if err := json.Unmarshal(raw, pcs); err != nil {
		return nil, fmt.Errorf("decoding the PodCliqueSet: %w", err)
	}
	return pcs, nil
}

// oldWithSameSpec decodes an update's old object and reports whether the update leaves the
// spec as it was (labels, annotations, finalizers, owner references alone): such an update is
// neither defaulted nor validated.
func oldWithSameSpec(req *admissionv1.AdmissionRequest, pcs *grovev1.PodCliqueSet) (*grovev1.PodCliqueSet, bool, error) {
	old, err := decode(req.OldObject.Raw)
	if err != nil {
		return nil, false, fmt.Errorf("old object: %w", err)
	}
	return old, apiequality.Semantic.DeepEqual(old.Spec, pcs.Spec), nil
}

// answerUnchanged is the answer to an update oldWithSameSpec found unchanged (or could not read).
func answerUnchanged(err error) *admissionv1.AdmissionResponse {
	if err != nil {
		return denied(http.StatusBadRequest, err.Error())
	}
	return &admissionv1.AdmissionResponse{Allowed: true}
}

func denied(code int32, msg string) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Allowed: false, Result: &metav1.Status{Status: metav1.StatusFailure, Code: code, Message: msg}}
}

// mutate applies Default and answers with one JSON patch that replaces the spec when
// defaulting changed it. The object the API server sends is already pruned to the schema, so
// the typed round trip loses nothing. An update that leaves the spec as it was (labels,
// annotations, finalizers, another controller's relabelling) is not defaulted: filling in a
// spec nobody changed would raise metadata.generation, which operators read as a new
// revision (a PodCliqueSet Grove's operator made, adopted by Phalanx and handed back, would be
// rolled out anew by Grove for nothing).
func mutate(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	pcs, err := decode(req.Object.Raw)
	if err != nil {
		return denied(http.StatusBadRequest, err.Error())
	}
	if req.Operation == admissionv1.Update {
		if _, same, err := oldWithSameSpec(req, pcs); err != nil || same {
			return answerUnchanged(err)
		}
	}
	before := pcs.Spec.DeepCopy()
	Default(pcs)
	if apiequality.Semantic.DeepEqual(before, &pcs.Spec) {
		return &admissionv1.AdmissionResponse{Allowed: true}
	}
	patch, err := json.Marshal([]map[string]any{{"op": "replace", "path": "/spec", "value": pcs.Spec}})
	if err != nil {
		return denied(http.StatusInternalServerError, "encoding the defaulting patch: "+err.Error())
	}
	pt := admissionv1.PatchTypeJSONPatch
	return &admissionv1.AdmissionResponse{Allowed: true, Patch: patch, PatchType: &pt}
}

// validate answers with the validation errors as a 422 Invalid status (kubectl prints each
// field path and reason). An update that leaves the spec unchanged (labels, finalizers,
// owner references) is always allowed, so that an object stored before a rule existed can
// still be deleted and garbage-collected.
func validate(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	pcs, err := decode(req.Object.Raw)
	if err != nil {
		return denied(http.StatusBadRequest, err.Error())
	}
	var errs field.ErrorList
	switch req.Operation {
	case admissionv1.Create:
		errs = ValidatePodCliqueSet(pcs)
	case admissionv1.Update:
		old, same, err := oldWithSameSpec(req, pcs)
		if err != nil || same {
			return answerUnchanged(err)
		}
		errs = ValidatePodCliqueSetUpdate(pcs, old)
	default:
		return &admissionv1.AdmissionResponse{Allowed: true}
	}
	if len(errs) == 0 {
		return &admissionv1.AdmissionResponse{Allowed: true}
	}
	name := pcs.Name
	if name == "" {
		name = pcs.GenerateName
	}
	klog.V(2).InfoS("Refused PodCliqueSet", "namespace", req.Namespace, "name", name, "operation", req.Operation, "errors", len(errs))
	st := apierrors.NewInvalid(pcsKind, name, errs).ErrStatus
	return &admissionv1.AdmissionResponse{Allowed: false, Result: &st}
}
