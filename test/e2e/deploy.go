// Package e2e is the end-to-end suite: it deploys Phalanx from manifests/ and drives it as a
// user would, through the API only. Against a cluster that runs containers (kind, see
// hack/kind-up.sh) the Deployment runs Phalanx; against the local control plane, which has no
// kubelet, the suite applies the same manifests and runs the same binary as two local
// processes with the Deployment's ServiceAccount, configuration and flags, behind a local
// stand-in for the webhook Service.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
	"github.com/phalanx-sched/phalanx/test/framework"
)

// Namespace and names from manifests/.
const (
	systemNamespace = "phalanx-system"
	serviceAccount  = "phalanx-scheduler"
	deployment      = "phalanx-scheduler"
	configMap       = "phalanx-scheduler-config"
)

// Replica is one phalanx-scheduler process run by the suite (local mode).
type Replica struct {
	Name        string
	SecurePort  int
	WebhookPort int
	Log         string
	cmd         *exec.Cmd
	done        chan struct{}
}

// Kill stops the process at once (SIGKILL), as a node crash would.
func (r *Replica) Kill() {
	if r.cmd != nil && r.cmd.Process != nil {
		_ = r.cmd.Process.Signal(syscall.SIGKILL)
		<-r.done
	}
}

// Running reports whether the process is alive.
func (r *Replica) Running() bool {
	select {
	case <-r.done:
		return false
	default:
		return true
	}
}

// Get reads a path of the process's secure port (the suite lets /healthz, /readyz, /livez,
// /leader and /metrics through without credentials).
func (r *Replica) Get(ctx context.Context, path string) (string, error) {
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // the local replica's self-signed serving certificate
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("https://127.0.0.1:%d%s", r.SecurePort, path), nil)
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return string(body), err
}

// Leader asks the process whether it holds the lease (its /leader endpoint).
func (r *Replica) Leader(ctx context.Context) bool {
	body, err := r.Get(ctx, "/leader")
	return err == nil && strings.TrimSpace(body) == "true"
}

// Local runs Phalanx as the Deployment would, as local processes.
type Local struct {
	Root, Dir  string
	kubeconfig string // the ServiceAccount's
	config     string // the ConfigMap's configuration, with that kubeconfig
	proxyPort  int
	proxy      net.Listener

	// DryRun is the result of the server-side dry run of manifests/ (Go, and kubectl when
	// installed) made right after the real apply, before the replicas start: they register the
	// webhooks with a local URL, which the Service-based configuration in manifests/ then
	// conflicts with.
	DryRun, KubectlDryRun error
	// KubectlDryRunRan tells whether kubectl was there to run.
	KubectlDryRunRan bool

	mu       sync.Mutex
	Replicas []*Replica
}

// DeployLocal applies manifests/ (after a server-side dry run of all of it), scales the
// Deployment to 0 (the local control plane has no kubelet) and starts two replicas.
func DeployLocal(ctx context.Context, root string, cfg *rest.Config, kube kubernetes.Interface, kubeconfig string) (*Local, error) {
	objs, err := framework.RenderManifests(root)
	if err != nil {
		return nil, err
	}
	if err := framework.Apply(ctx, cfg, objs, false); err != nil {
		return nil, err
	}
	l := &Local{Root: root}
	l.DryRun = framework.Apply(ctx, cfg, objs, true)
	if kubectl, err := exec.LookPath("kubectl"); err == nil {
		l.KubectlDryRunRan = true
		rendered, err := exec.CommandContext(ctx, kubectl, "kustomize", filepath.Join(root, "manifests")).Output()
		if err != nil {
			l.KubectlDryRun = fmt.Errorf("kubectl kustomize manifests/: %w", err)
		} else {
			apply := exec.CommandContext(ctx, kubectl, "--kubeconfig", kubeconfig, "apply", "--dry-run=server", "-f", "-")
			apply.Stdin = bytes.NewReader(rendered)
			if out, err := apply.CombinedOutput(); err != nil {
				l.KubectlDryRun = fmt.Errorf("kubectl apply --dry-run=server: %w\n%s", err, out)
			}
		}
	}
	if _, err := kube.AppsV1().Deployments(systemNamespace).Patch(ctx, deployment, types.MergePatchType, []byte(`{"spec":{"replicas":0}}`), metav1.PatchOptions{}); err != nil {
		return nil, fmt.Errorf("scaling the Deployment to 0: %w", err)
	}
	dir, err := os.MkdirTemp("", "phalanx-e2e-")
	if err != nil {
		return nil, err
	}
	l.Dir = dir
	if err := l.writeKubeconfig(ctx, cfg, kube); err != nil {
		return nil, err
	}
	cm, err := kube.CoreV1().ConfigMaps(systemNamespace).Get(ctx, configMap, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	var sc map[string]any
	if err := yaml.Unmarshal([]byte(cm.Data["config.yaml"]), &sc); err != nil {
		return nil, fmt.Errorf("the ConfigMap's configuration: %w", err)
	}
	sc["clientConnection"] = map[string]any{"kubeconfig": l.kubeconfig}
	rendered, _ := yaml.Marshal(sc)
	l.config = filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(l.config, rendered, 0o600); err != nil {
		return nil, err
	}
	if err := l.startProxy(); err != nil {
		return nil, err
	}
	for i := 0; i < 2; i++ {
		if _, err := l.Start(fmt.Sprintf("replica-%d", i)); err != nil {
			l.Stop()
			return nil, err
		}
	}
	return l, nil
}

// writeKubeconfig makes a kubeconfig with a token of the Deployment's ServiceAccount, so the
// processes have exactly the RBAC of manifests/.
func (l *Local) writeKubeconfig(ctx context.Context, cfg *rest.Config, kube kubernetes.Interface) error {
	tr, err := kube.CoreV1().ServiceAccounts(systemNamespace).CreateToken(ctx, serviceAccount,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](24 * 3600)}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("a token for ServiceAccount %s/%s: %w", systemNamespace, serviceAccount, err)
	}
	ca := cfg.CAData
	if len(ca) == 0 && cfg.CAFile != "" {
		if ca, err = os.ReadFile(cfg.CAFile); err != nil {
			return err
		}
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["e2e"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: ca}
	kc.AuthInfos["phalanx-scheduler"] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	kc.Contexts["e2e"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: "phalanx-scheduler"}
	kc.CurrentContext = "e2e"
	l.kubeconfig = filepath.Join(l.Dir, "serviceaccount.kubeconfig")
	return clientcmd.WriteToFile(*kc, l.kubeconfig)
}

// startProxy stands in for the webhook Service: it forwards each connection to the first
// replica that accepts it, so the webhooks keep working while one replica is down.
func (l *Local) startProxy() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	l.proxy, l.proxyPort = ln, ln.Addr().(*net.TCPAddr).Port
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go l.forward(c)
		}
	}()
	return nil
}

func (l *Local) forward(c net.Conn) {
	defer func() { _ = c.Close() }()
	l.mu.Lock()
	replicas := append([]*Replica(nil), l.Replicas...)
	l.mu.Unlock()
	for _, r := range replicas {
		if !r.Running() {
			continue
		}
		up, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", r.WebhookPort), time.Second)
		if err != nil {
			continue
		}
		defer func() { _ = up.Close() }()
		go func() { _, _ = io.Copy(up, c) }()
		_, _ = io.Copy(c, up)
		return
	}
}

// Start runs one more replica and waits until it serves its health endpoint.
func (l *Local) Start(name string) (*Replica, error) {
	secure, err := localcluster.FreePort()
	if err != nil {
		return nil, err
	}
	webhook, err := localcluster.FreePort()
	if err != nil {
		return nil, err
	}
	r := &Replica{Name: name, SecurePort: secure, WebhookPort: webhook, Log: filepath.Join(l.Dir, name+".log"), done: make(chan struct{})}
	logFile, err := os.OpenFile(r.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(l.Root, "bin", "phalanx-scheduler")
	if d := os.Getenv("PHALANX_BIN_DIR"); d != "" {
		bin = filepath.Join(d, "phalanx-scheduler")
	}
	r.cmd = exec.Command(bin,
		"--config="+l.config, "--v=2",
		fmt.Sprintf("--secure-port=%d", secure), "--bind-address=127.0.0.1",
		"--authentication-kubeconfig="+l.kubeconfig, "--authorization-kubeconfig="+l.kubeconfig,
		"--authorization-always-allow-paths=/healthz,/readyz,/livez,/leader,/metrics",
		fmt.Sprintf("--webhook-port=%d", webhook), "--webhook-bind-address=127.0.0.1",
		fmt.Sprintf("--webhook-url=https://127.0.0.1:%d", l.proxyPort),
	)
	r.cmd.Stdout, r.cmd.Stderr = logFile, logFile
	if err := r.cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	go func() {
		_ = r.cmd.Wait()
		_ = logFile.Close()
		close(r.done)
	}()
	l.mu.Lock()
	l.Replicas = append(l.Replicas, r)
	l.mu.Unlock()
	err = wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		if !r.Running() {
			return false, fmt.Errorf("%s exited; its log:\n%s", name, tail(r.Log, 30))
		}
		_, err := r.Get(ctx, "/healthz")
		return err == nil, nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s did not become healthy: %w\n%s", name, err, tail(r.Log, 30))
	}
	return r, nil
}

// Leader returns the replica that holds the lease, waiting for one.
func (l *Local) Leader(ctx context.Context, timeout time.Duration) (*Replica, error) {
	var leader *Replica
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		l.mu.Lock()
		replicas := append([]*Replica(nil), l.Replicas...)
		l.mu.Unlock()
		for _, r := range replicas {
			if r.Running() && r.Leader(ctx) {
				leader = r
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return nil, errors.New("no replica took the lease")
	}
	return leader, nil
}

// RestartExited starts a new process for every replica that exited, as the kubelet restarts
// a Deployment's container (a replica exits when it loses its lease, e.g. while the API
// server is away). It returns the names of the replicas it replaced.
func (l *Local) RestartExited() ([]string, error) {
	l.mu.Lock()
	var exited []*Replica
	live := l.Replicas[:0]
	for _, r := range l.Replicas {
		if r.Running() {
			live = append(live, r)
		} else {
			exited = append(exited, r)
		}
	}
	l.Replicas = live
	l.mu.Unlock()
	var names []string
	for _, r := range exited {
		if _, err := l.Start(r.Name + "-restarted"); err != nil {
			return names, err
		}
		names = append(names, r.Name)
	}
	return names, nil
}

// Stop kills every replica and the proxy; the logs stay in Dir when PHALANX_E2E_KEEP is set.
func (l *Local) Stop() {
	l.mu.Lock()
	replicas := append([]*Replica(nil), l.Replicas...)
	l.mu.Unlock()
	for _, r := range replicas {
		if r.Running() {
			_ = r.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-r.done:
			case <-time.After(10 * time.Second):
				r.Kill()
			}
		}
	}
	if l.proxy != nil {
		_ = l.proxy.Close()
	}
	if os.Getenv("PHALANX_E2E_KEEP") == "" {
		_ = os.RemoveAll(l.Dir)
	}
}

func tail(path string, n int) string { return tailMatching(path, n, "") }

// tailMatching returns the last n lines of the file at path that contain needle ("": any).
func tailMatching(path string, n int, needle string) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer func() { _ = f.Close() }()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if !strings.Contains(sc.Text(), needle) {
			continue
		}
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, "\n")
}

// WaitDeploymentAvailable waits for the in-cluster Deployment (external mode).
func WaitDeploymentAvailable(ctx context.Context, kube kubernetes.Interface, timeout time.Duration) error {
	return wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		d, err := kube.AppsV1().Deployments(systemNamespace).Get(ctx, deployment, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		return d.Status.AvailableReplicas >= 1, nil
	})
}

// LinesAbout returns, for each replica, the last n lines of its log that contain needle (a
// namespace, a pod), for a failed test to show what the processes said about its objects.
func (l *Local) LinesAbout(needle string, n int) string {
	l.mu.Lock()
	replicas := append([]*Replica(nil), l.Replicas...)
	l.mu.Unlock()
	var b strings.Builder
	for _, r := range replicas {
		fmt.Fprintf(&b, "%s (%s), lines about %s:\n%s\n", r.Name, r.Log, needle, tailMatching(r.Log, n, needle))
	}
	return b.String()
}
