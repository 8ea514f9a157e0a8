package admission

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// Keys of the serving-certificate Secret (the kubernetes.io/tls layout plus the CA).
const (
	SecretCAKey = "ca.crt"
	// certValidity is the lifetime of a self-managed serving certificate; one is renewed at
	// start-up when less than certRenewBefore is left.
	certValidity    = 365 * 24 * time.Hour
	certRenewBefore = 30 * 24 * time.Hour
)

// ServingCert is a serving certificate and the CA bundle that trusts it, PEM-encoded. CAPEM
// holds the CA that signed CertPEM first and, after a renewal, the CAs it replaced (see
// renewedBundle): the other replicas serve a certificate of those until they have read the
// renewed Secret, and the webhook configurations must trust all of them meanwhile.
type ServingCert struct {
	CertPEM, KeyPEM, CAPEM []byte
}

// TLS returns the certificate for a tls.Config.
func (s *ServingCert) TLS() (tls.Certificate, error) {
	return tls.X509KeyPair(s.CertPEM, s.KeyPEM)
}

// GenerateServingCert makes a self-signed CA and a serving certificate for hosts (DNS names
// or IP addresses), valid from now for certValidity.
func GenerateServingCert(hosts []string, now time.Time) (*ServingCert, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating the CA key: %w", err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: "phalanx-webhook-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(10 * certValidity),
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, IsCA: true, BasicConstraintsValid: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("signing the CA: %w", err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating the serving key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: hosts[0]},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(certValidity),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("signing the serving certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return &ServingCert{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
		CAPEM:   pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
	}, nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	return n
}

// usable reports why a stored certificate cannot serve hosts from now for at least
// renewBefore ("" when it can).
func (s *ServingCert) usable(hosts []string, now time.Time, renewBefore time.Duration) string {
	c, err := s.TLS()
	if err != nil {
		return "unreadable: " + err.Error()
	}
	leaf, err := x509.ParseCertificate(c.Certificate[0])
	if err != nil {
		return "unreadable: " + err.Error()
	}
	if now.Add(renewBefore).After(leaf.NotAfter) {
		return "expires at " + leaf.NotAfter.Format(time.RFC3339)
	}
	for _, h := range hosts {
		if leaf.VerifyHostname(h) != nil {
			return "does not name " + h
		}
	}
	roots := x509.NewCertPool()
	if len(s.CAPEM) == 0 || !roots.AppendCertsFromPEM(s.CAPEM) {
		return "no CA"
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
		return "not signed by a CA in " + SecretCAKey + ": " + err.Error()
	}
	return ""
}

// maxBundleCAs is how many CAs a renewal's bundle keeps: the new CA and the two before it.
// A replica serves what the Secret held when it last read it, so right after two renewals in
// quick succession (a certificate put in by hand, then renewed by a replica because it expires
// soon) a replica may still serve the certificate of the CA two renewals back.
const maxBundleCAs = 3

// renewedBundle is the CA bundle of a renewal: the new CA, then the CAs of the replaced bundle
// still valid at now, in their order, up to maxBundleCAs in all (older ones are dropped).
func renewedBundle(newCA, oldBundle []byte, now time.Time) []byte {
	out := slices.Clone(newCA)
	kept := 1
	for block, rest := pem.Decode(oldBundle); block != nil && kept < maxBundleCAs; block, rest = pem.Decode(rest) {
		encoded := pem.EncodeToMemory(block)
		if block.Type != "CERTIFICATE" || bytes.Contains(out, encoded) {
			continue
		}
		if old, err := x509.ParseCertificate(block.Bytes); err == nil && now.Before(old.NotAfter) {
			out = append(out, encoded...)
			kept++
		}
	}
	return out
}

// EnsureServingCert returns the serving certificate kept in the Secret namespace/name, making
// (or renewing) it when it is missing, does not name every host, or expires within 30 days.
// Every replica of phalanx-scheduler serves the webhooks, so they share this one Secret; when
// two replicas race to create it, the loser reads the winner's. A renewal keeps the replaced
// CAs in the bundle (see renewedBundle).
func EnsureServingCert(ctx context.Context, kube kubernetes.Interface, namespace, name string, hosts []string, now time.Time) (*ServingCert, error) {
	return ensureServingCert(ctx, kube, namespace, name, hosts, now, certRenewBefore)
}

func ensureServingCert(ctx context.Context, kube kubernetes.Interface, namespace, name string, hosts []string, now time.Time, renewBefore time.Duration) (*ServingCert, error) {
	for attempt := 0; attempt < 5; attempt++ {
		sec, err := kube.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			cert, err := GenerateServingCert(hosts, now)
			if err != nil {
				return nil, err
			}
			_, err = kube.CoreV1().Secrets(namespace).Create(ctx, certSecret(namespace, name, cert), metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("creating the webhook serving certificate Secret %s/%s: %w", namespace, name, err)
			}
			return cert, nil
		case err != nil:
			return nil, fmt.Errorf("reading the webhook serving certificate Secret %s/%s: %w", namespace, name, err)
		}
		cert := servingCertOf(sec)
		if cert.usable(hosts, now, renewBefore) == "" {
			return cert, nil
		}
		fresh, err := GenerateServingCert(hosts, now)
		if err != nil {
			return nil, err
		}
		fresh.CAPEM = renewedBundle(fresh.CAPEM, cert.CAPEM, now)
		upd := sec.DeepCopy()
		upd.Data = certSecret(namespace, name, fresh).Data
		_, err = kube.CoreV1().Secrets(namespace).Update(ctx, upd, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("renewing the webhook serving certificate Secret %s/%s: %w", namespace, name, err)
		}
		return fresh, nil
	}
	return nil, fmt.Errorf("the webhook serving certificate Secret %s/%s kept changing under us", namespace, name)
}

func servingCertOf(sec *corev1.Secret) *ServingCert {
	return &ServingCert{CertPEM: sec.Data[corev1.TLSCertKey], KeyPEM: sec.Data[corev1.TLSPrivateKeyKey], CAPEM: sec.Data[SecretCAKey]}
}

func certSecret(namespace, name string, c *ServingCert) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{"app.kubernetes.io/name": "phalanx-scheduler"}},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: c.CertPEM, corev1.TLSPrivateKeyKey: c.KeyPEM, SecretCAKey: c.CAPEM},
	}
}

// InjectCABundle sets caBundle on every webhook of the MutatingWebhookConfiguration and the
// ValidatingWebhookConfiguration named name (shipped by manifests/ with an empty bundle). It
// returns an error naming what is missing when either configuration does not exist.
func InjectCABundle(ctx context.Context, kube kubernetes.Interface, name string, ca []byte) error {
	// Every replica keeps the bundle; a concurrent write by another replica is a conflict to
	// retry on the fresh object, not a failure.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		mwc, err := kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("reading MutatingWebhookConfiguration %s: %w", name, err)
		}
		changed := false
		for i := range mwc.Webhooks {
			if !bytes.Equal(mwc.Webhooks[i].ClientConfig.CABundle, ca) {
				mwc.Webhooks[i].ClientConfig.CABundle, changed = slices.Clone(ca), true
			}
		}
		if !changed {
			return nil
		}
		_, err = kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Update(ctx, mwc, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("setting the CA bundle of MutatingWebhookConfiguration %s: %w", name, err)
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		vwc, err := kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("reading ValidatingWebhookConfiguration %s: %w", name, err)
		}
		changed := false
		for i := range vwc.Webhooks {
			if !bytes.Equal(vwc.Webhooks[i].ClientConfig.CABundle, ca) {
				vwc.Webhooks[i].ClientConfig.CABundle, changed = slices.Clone(ca), true
			}
		}
		if !changed {
			return nil
		}
		_, err = kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Update(ctx, vwc, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("setting the CA bundle of ValidatingWebhookConfiguration %s: %w", name, err)
	}
	return nil
}
