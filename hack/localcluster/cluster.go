// Package localcluster runs a real Kubernetes control plane on 127.0.0.1 without containers:
// etcd, kube-apiserver and KWOK (which turns Node objects into Ready fake nodes and bound pods
// into Running ones). It serves `hack/local-up.sh`, `make run` and the integration and e2e
// tests, so that all of them exercise the same set-up.
//
// Every process writes a PID file and a log under the run directory; Start checks that each
// process is still alive while it waits for it and tears everything down when a step fails.
package localcluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Options configure a local control plane.
type Options struct {
	// Dir holds certificates, etcd data, logs, PID files and the kubeconfig.
	Dir string
	// BinDir holds etcd, kube-apiserver, kwok and podreaper.
	BinDir string
	// KwokStages is the KWOK stages file (hack/kwok/stages.yaml).
	KwokStages string
	// EtcdPort, EtcdPeerPort and APIServerPort: 0 picks a free port (tests); make run uses fixed ones.
	EtcdPort, EtcdPeerPort, APIServerPort int
	// StartTimeout bounds the wait for each process to become healthy.
	StartTimeout time.Duration
	// CRDDir, when set, holds CRDs installed before the controller manager starts (its
	// garbage collector then knows the kinds at once instead of after its next discovery,
	// about 30 s later).
	CRDDir string
	// ControllerManager also runs kube-controller-manager with the controllers that Jobs,
	// Deployments and namespace deletion need (bin/kube-controller-manager, `make
	// bin/kube-controller-manager`).
	ControllerManager bool
	// Detach starts the processes in their own session so that they outlive this program
	// (hack/local-up.sh); otherwise Stop (or the end of the test binary) ends them.
	Detach bool
	// NoKwok leaves KWOK out: nodes are plain Node objects and pods never run (the perf
	// harness measures scheduling alone).
	NoKwok bool
	// APIServerArgs are added to kube-apiserver's flags (feature gates, runtime config).
	APIServerArgs []string
	// WorkloadAPI serves the upstream Workload API (scheduling.k8s.io/v1beta1 Workload and
	// PodGroup; its gate is off by default in 1.37): see WorkloadAPIArgs.
	WorkloadAPI bool
}

// WorkloadAPIArgs are the kube-apiserver flags that serve scheduling.k8s.io/v1beta1, with the
// PodGroup fields of its alpha gates that Phalanx reads (schedulingConstraints.topology,
// preemptionPolicy: without their gates the API server drops them).
var WorkloadAPIArgs = []string{"--feature-gates=GenericWorkload=true,TopologyAwareWorkloadScheduling=true,PodGroupPreemptionPolicy=true",
	"--runtime-config=scheduling.k8s.io/v1beta1=true"}

// Cluster is a running local control plane.
type Cluster struct {
	Dir        string
	Kubeconfig string
	// Config is an admin client configuration for the apiserver.
	Config *rest.Config
	procs  []*process
	// apiserver is how kube-apiserver was started, for RestartAPIServer.
	apiserver struct {
		opts      Options
		args      []string
		readyz    string
		tlsConfig *tls.Config
	}
}

type process struct {
	name    string
	cmd     *exec.Cmd
	pidFile string
	exited  chan struct{}
	err     error
}

// Start brings up etcd, kube-apiserver and KWOK and waits until the apiserver is ready and
// KWOK runs. On failure it stops what it started and returns an error that names the failed
// process and the tail of its log.
//
// Ports left at 0 are picked here; when etcd or kube-apiserver finds its port taken in the
// moment between the pick and its bind (another test binary took it), Start picks new ports
// and tries again, up to three times.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	pick := o.EtcdPort == 0 && o.EtcdPeerPort == 0 && o.APIServerPort == 0
	for attempt := 1; ; attempt++ {
		c, err := start(ctx, o)
		if err == nil || !pick || attempt == 3 || !errors.Is(err, errPortTaken) {
			return c, err
		}
		// The failed attempt's etcd may have written its data dir; the next one starts afresh.
		_ = os.RemoveAll(filepath.Join(o.Dir, "etcd-data"))
	}
}

func start(ctx context.Context, o Options) (_ *Cluster, err error) {
	// Every path written into the kubeconfig and the processes' flags is absolute, so that
	// the kubeconfig works from any directory (a relative --dir would not).
	for _, p := range []*string{&o.Dir, &o.BinDir, &o.KwokStages} {
		if *p != "" {
			if *p, err = filepath.Abs(*p); err != nil {
				return nil, fmt.Errorf("local control plane: %w", err)
			}
		}
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 90 * time.Second
	}
	bins := []string{"etcd", "kube-apiserver"}
	if !o.NoKwok {
		bins = append(bins, "kwok", "podreaper")
	}
	if o.ControllerManager {
		bins = append(bins, "kube-controller-manager")
	}
	for _, bin := range bins {
		if !fileExists(filepath.Join(o.BinDir, bin)) {
			return nil, fmt.Errorf("%s not found in %s: run `make tools` first", bin, o.BinDir)
		}
	}
	if err := os.MkdirAll(filepath.Join(o.Dir, "logs"), 0o755); err != nil {
		return nil, err
	}
	for _, p := range []*int{&o.EtcdPort, &o.EtcdPeerPort, &o.APIServerPort} {
		if *p == 0 {
			if *p, err = FreePort(); err != nil {
				return nil, err
			}
		}
	}
	certs, err := ensurePKI(filepath.Join(o.Dir, "pki"))
	if err != nil {
		return nil, fmt.Errorf("writing certificates: %w", err)
	}
	c := &Cluster{Dir: o.Dir, Kubeconfig: filepath.Join(o.Dir, "kubeconfig")}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()

	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", o.EtcdPort)
	etcd, err := c.spawn(o, "etcd",
		"--name=phalanx-local",
		"--data-dir="+filepath.Join(o.Dir, "etcd-data"),
		"--listen-client-urls="+etcdURL,
		"--advertise-client-urls="+etcdURL,
		fmt.Sprintf("--listen-peer-urls=http://127.0.0.1:%d", o.EtcdPeerPort),
		fmt.Sprintf("--initial-advertise-peer-urls=http://127.0.0.1:%d", o.EtcdPeerPort),
		fmt.Sprintf("--initial-cluster=phalanx-local=http://127.0.0.1:%d", o.EtcdPeerPort),
		"--unsafe-no-fsync",
		"--quota-backend-bytes=4294967296",
		"--log-level=warn",
	)
	if err != nil {
		return nil, err
	}
	if err := waitHealthy(ctx, etcd, o.StartTimeout, etcdURL+"/health", nil); err != nil {
		return nil, err
	}

	apiURL := fmt.Sprintf("https://127.0.0.1:%d", o.APIServerPort)
	apiArgs := append([]string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(o.APIServerPort),
		"--tls-cert-file=" + certs.ServingCert,
		"--tls-private-key-file=" + certs.ServingKey,
		"--client-ca-file=" + certs.CACert,
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + certs.SAPub,
		"--service-account-signing-key-file=" + certs.SAKey,
		"--service-cluster-ip-range=10.0.0.0/24",
		"--authorization-mode=Node,RBAC",
		// No controller-manager: no default ServiceAccount, and nothing would lift the
		// not-ready taint that TaintNodesByCondition puts on new nodes.
		"--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
		"--endpoint-reconciler-type=none",
		"--allow-privileged=true",
		"--v=1",
	}, o.APIServerArgs...)
	if o.WorkloadAPI {
		apiArgs = append(apiArgs, WorkloadAPIArgs...)
	}
	api, err := c.spawn(o, "kube-apiserver", apiArgs...)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	caPEM, err := os.ReadFile(certs.CACert)
	if err != nil {
		return nil, err
	}
	pool.AppendCertsFromPEM(caPEM)
	admin, err := tls.LoadX509KeyPair(certs.AdminCert, certs.AdminKey)
	if err != nil {
		return nil, err
	}
	tlsCfg := &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{admin}, MinVersion: tls.VersionTLS12}
	if err := waitHealthy(ctx, api, o.StartTimeout, apiURL+"/readyz", tlsCfg); err != nil {
		return nil, err
	}
	c.apiserver.opts, c.apiserver.args, c.apiserver.readyz, c.apiserver.tlsConfig = o, apiArgs, apiURL+"/readyz", tlsCfg
	if err := writeKubeconfig(c.Kubeconfig, apiURL, certs); err != nil {
		return nil, err
	}
	if c.Config, err = clientcmd.BuildConfigFromFlags("", c.Kubeconfig); err != nil {
		return nil, err
	}
	c.Config.QPS, c.Config.Burst = 500, 1000

	if o.CRDDir != "" {
		if err := InstallCRDs(ctx, c.Config, o.CRDDir); err != nil {
			return nil, fmt.Errorf("installing CRDs: %w", err)
		}
	}
	if o.ControllerManager {
		// resourcequota-controller: a ResourceQuota refuses pods only once its usage is computed.
		// resourceclaim-controller: a pod's claims from ResourceClaimTemplates are made, and
		// released when the pod is gone.
		// persistentvolume-binder-controller (and the protection controllers, which remove the
		// finalizers the API server's admission puts on claims and volumes): a claim of a
		// WaitForFirstConsumer class is bound to the volume the scheduler picked.
		controllers := "deployment-controller,replicaset-controller,statefulset-controller,job-controller,garbage-collector-controller,namespace-controller,pod-garbage-collector-controller,resourcequota-controller,resourceclaim-controller," +
			"persistentvolume-binder-controller,persistentvolume-protection-controller,persistentvolumeclaim-protection-controller"
		kcmArgs := []string{"--kubeconfig=" + c.Kubeconfig, "--leader-elect=false", "--secure-port=0",
			"--use-service-account-credentials=false", "--root-ca-file=" + certs.CACert, "--v=1"}
		if o.WorkloadAPI {
			// PodGroups carry the scheduling.k8s.io/podgroup-protection finalizer, which only
			// this controller removes (with the gate on in kube-controller-manager too).
			controllers += ",podgroup-protection-controller"
			kcmArgs = append(kcmArgs, "--feature-gates=GenericWorkload=true")
		}
		kcm, err := c.spawn(o, "kube-controller-manager", append(kcmArgs, "--controllers="+controllers)...)
		if err != nil {
			return nil, err
		}
		select {
		case <-kcm.exited:
			return nil, kcm.failure()
		case <-time.After(200 * time.Millisecond):
		}
	}
	if o.NoKwok {
		return c, nil
	}
	kwokPort, err := FreePort()
	if err != nil {
		return nil, err
	}
	kwok, err := c.spawn(o, "kwok",
		"--kubeconfig="+c.Kubeconfig,
		"--config="+o.KwokStages,
		"--manage-all-nodes=true",
		"--cidr=10.244.0.1/16",
		"--node-ip=127.0.0.1",
		"--node-lease-duration-seconds=40",
		fmt.Sprintf("--server-address=127.0.0.1:%d", kwokPort),
	)
	if err != nil {
		return nil, err
	}
	// podreaper confirms pod deletions as kubelets do, with the pod's UID as precondition
	// (KWOK's own pod-delete stage deletes by name and took newer pods of the same name).
	reaper, err := c.spawn(o, "podreaper", "--kubeconfig="+c.Kubeconfig)
	if err != nil {
		return nil, err
	}
	// KWOK has no readiness endpoint that covers its informers; a short liveness window
	// catches configuration errors (it exits at once on a bad stages file).
	select {
	case <-kwok.exited:
		return nil, kwok.failure()
	case <-reaper.exited:
		return nil, reaper.failure()
	case <-time.After(500 * time.Millisecond):
	}
	return c, nil
}

// Attach returns the cluster described by dir/kubeconfig when its apiserver answers /readyz.
// It is how tests reuse a control plane started by hack/local-up.sh.
func Attach(ctx context.Context, dir string) (*Cluster, error) {
	kubeconfig := filepath.Join(dir, "kubeconfig")
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("no local control plane in %s: %w", dir, err)
	}
	cfg.QPS, cfg.Burst = 500, 1000
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx); err != nil {
		return nil, fmt.Errorf("local control plane in %s is not ready: %w", dir, err)
	}
	return &Cluster{Dir: dir, Kubeconfig: kubeconfig, Config: cfg}, nil
}

// Stop ends the processes this Cluster started, newest first, and waits for them.
func (c *Cluster) Stop() {
	for i := len(c.procs) - 1; i >= 0; i-- {
		p := c.procs[i]
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
		_ = os.Remove(p.pidFile)
	}
	c.procs = nil
}

// RestartAPIServer kills kube-apiserver at once (SIGKILL: no graceful drain, watches cut
// mid-stream, as a crash or the loss of its node does), starts it again with the same flags
// on the same port and waits until it is ready. etcd keeps the data. The log of the killed
// process is kept as kube-apiserver.log.1. Only for a cluster this program started.
func (c *Cluster) RestartAPIServer(ctx context.Context) error {
	return c.RestartAPIServerWith(ctx)
}

// RestartAPIServerWith is RestartAPIServer with args added to kube-apiserver's flags from now
// on (WorkloadAPIArgs turns the Workload API on in a running cluster).
func (c *Cluster) RestartAPIServerWith(ctx context.Context, args ...string) error {
	at := slices.IndexFunc(c.procs, func(p *process) bool { return p.name == "kube-apiserver" })
	if at < 0 || c.apiserver.args == nil {
		return errors.New("restarting kube-apiserver: this cluster did not start it")
	}
	c.apiserver.args = append(c.apiserver.args, args...)
	old := c.procs[at]
	_ = old.cmd.Process.Kill()
	<-old.exited
	_ = os.Rename(old.logPath(), old.logPath()+".1")
	c.procs = slices.Delete(c.procs, at, at+1)
	api, err := c.spawn(c.apiserver.opts, "kube-apiserver", c.apiserver.args...)
	if err != nil {
		return err
	}
	return waitHealthy(ctx, api, c.apiserver.opts.StartTimeout, c.apiserver.readyz, c.apiserver.tlsConfig)
}

// StopDetached ends the processes recorded in the PID files under dir (hack/local-up.sh down)
// and removes the etcd data, so that the next start begins from an empty cluster.
func StopDetached(dir string) error {
	defer func() { _ = os.RemoveAll(filepath.Join(dir, "etcd-data")) }()
	var errs []error
	for _, name := range []string{"podreaper", "kwok", "kube-controller-manager", "kube-apiserver", "etcd"} {
		pidFile := filepath.Join(dir, name+".pid")
		raw, err := os.ReadFile(pidFile)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: bad PID file: %w", pidFile, err))
			continue
		}
		if err := terminate(pid); err != nil {
			errs = append(errs, fmt.Errorf("stopping %s (pid %d): %w", name, pid, err))
		}
		_ = os.Remove(pidFile)
	}
	return errors.Join(errs...)
}

func terminate(pid int) error {
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return nil
		}
		return err
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if syscall.Kill(pid, 0) != nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return syscall.Kill(pid, syscall.SIGKILL)
}

func (c *Cluster) spawn(o Options, name string, args ...string) (*process, error) {
	logPath := filepath.Join(o.Dir, "logs", name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(filepath.Join(o.BinDir, name), args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Setpgid keeps terminal signals (Ctrl-C on make run) from reaching the children
	// directly; Setsid additionally detaches them from this program's session.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: !o.Detach, Setsid: o.Detach}
	if !o.Detach {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
	}
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, pidFile: filepath.Join(o.Dir, name+".pid"), exited: make(chan struct{})}
	if err := os.WriteFile(p.pidFile, []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		_ = cmd.Process.Kill()
		return nil, err
	}
	go func() {
		p.err = cmd.Wait()
		_ = logFile.Close()
		close(p.exited)
	}()
	c.procs = append(c.procs, p)
	return p, nil
}

// errPortTaken marks a process that exited because its listen address was in use.
var errPortTaken = errors.New("port taken")

func (p *process) failure() error {
	log := tail(p.logPath(), 15)
	if strings.Contains(log, "address already in use") {
		return fmt.Errorf("%s exited (%v, %w); last lines of its log:\n%s", p.name, p.err, errPortTaken, log)
	}
	return fmt.Errorf("%s exited (%v); last lines of its log:\n%s", p.name, p.err, log)
}

func (p *process) logPath() string {
	return filepath.Join(filepath.Dir(p.pidFile), "logs", p.name+".log")
}

// waitHealthy polls url until it answers 200, the process exits, or the timeout passes.
func waitHealthy(ctx context.Context, p *process, timeout time.Duration, url string, tlsCfg *tls.Config) error {
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsCfg}}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last string
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := client.Do(req)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		select {
		case <-p.exited:
			return p.failure()
		case <-ctx.Done():
			return fmt.Errorf("%s not healthy at %s after %s (last: %s); log tail:\n%s", p.name, url, timeout, last, tail(p.logPath(), 15))
		case <-tick.C:
		}
	}
}

func writeKubeconfig(path, server string, p *pki) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["phalanx-local"] = &clientcmdapi.Cluster{Server: server, CertificateAuthority: p.CACert}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificate: p.AdminCert, ClientKey: p.AdminKey}
	cfg.Contexts["phalanx-local"] = &clientcmdapi.Context{Cluster: "phalanx-local", AuthInfo: "admin", Namespace: "default"}
	cfg.CurrentContext = "phalanx-local"
	return clientcmd.WriteToFile(*cfg, path)
}

// FreePort returns a TCP port on 127.0.0.1 that nothing listens on now, chosen below the
// kernel's ephemeral range when it can: a port from that range (what ":0" gives) is also the
// kernel's pick for the source port of outgoing connections, and with several test binaries
// talking to their API servers one such connection took the port before kube-apiserver
// bound it. Another process can still bind the port first; Start retries on that.
func FreePort() (int, error) {
	low := ephemeralLow()
	const floor = 10000
	if low-floor >= 1000 {
		for range 50 {
			port := floor + rand.IntN(low-floor)
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
			if err != nil {
				continue
			}
			_ = l.Close()
			return port, nil
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ephemeralLow is the first port of the kernel's ephemeral range (Linux default 32768).
func ephemeralLow() int {
	raw, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	fields := strings.Fields(string(raw))
	if len(fields) == 0 {
		return 32768
	}
	low, err := strconv.Atoi(fields[0])
	if err != nil {
		return 32768
	}
	return low
}

func tail(path string, n int) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
