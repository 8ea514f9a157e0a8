// Command etcdhistory prints what one namespace went through, write by write, from the etcd
// data of a local control plane that a failed test run kept (test/framework keeps the run
// directory of a failed package: "the local control plane's logs are kept in DIR/logs"). For
// each write of a pod: its UID, node, phase, deletion, gang and slice labels, image and
// PodScheduled condition; for PodGangs, PodCliqueSets and their children: the object as JSON.
// It reads a copy of the data (the run directory is left as it was) with bin/etcd, and sees the
// history that kube-apiserver's compaction (every 5 minutes) has not removed yet.
//
//	go run ./hack/etcdhistory -dir /tmp/phalanx-it-123 -namespace t-abcdef
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
)

func main() {
	dir := flag.String("dir", "", "run directory of the local control plane (it holds etcd-data)")
	ns := flag.String("namespace", "", "namespace whose history to print")
	maxJSON := flag.Int("max-json", 600, "characters of each non-pod object to print")
	flag.Parse()
	if *dir == "" || *ns == "" {
		fmt.Fprintln(os.Stderr, "usage: etcdhistory -dir RUN_DIR -namespace NS")
		os.Exit(2)
	}
	if err := run(*dir, *ns, *maxJSON); err != nil {
		fmt.Fprintln(os.Stderr, "etcdhistory:", err)
		os.Exit(1)
	}
}

func run(dir, ns string, maxJSON int) error {
	root, err := localcluster.RepoRoot()
	if err != nil {
		return err
	}
	data := filepath.Join(dir, "etcd-data")
	if _, err := os.Stat(data); err != nil {
		return fmt.Errorf("no etcd data in %s: %w", dir, err)
	}
	work, err := os.MkdirTemp("", "etcdhistory-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(work) }()
	// A copy: etcd rewrites its data dir when it starts.
	if out, err := exec.Command("cp", "-a", data, filepath.Join(work, "etcd-data")).CombinedOutput(); err != nil {
		return fmt.Errorf("copying %s: %v: %s", data, err, out)
	}
	client, peer, err := twoPorts()
	if err != nil {
		return err
	}
	url := fmt.Sprintf("http://127.0.0.1:%d", client)
	etcd := exec.Command(filepath.Join(root, "bin", "etcd"), "--data-dir="+filepath.Join(work, "etcd-data"),
		"--listen-client-urls="+url, "--advertise-client-urls="+url,
		fmt.Sprintf("--listen-peer-urls=http://127.0.0.1:%d", peer), "--log-level=error")
	etcd.Stderr = os.Stderr
	if err := etcd.Start(); err != nil {
		return fmt.Errorf("starting bin/etcd (make tools builds it): %w", err)
	}
	defer func() { _ = etcd.Process.Kill(); _ = etcd.Wait() }()
	if err := waitHealthy(url + "/health"); err != nil {
		return err
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{url}, DialTimeout: 5 * time.Second})
	if err != nil {
		return err
	}
	defer func() { _ = cli.Close() }()
	return printHistory(cli, ns, maxJSON)
}

// printHistory replays every write under /registry/ kept since the last compaction and prints
// those of namespace ns.
func printHistory(cli *clientv3.Client, ns string, maxJSON int) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	now, err := cli.Get(ctx, "/registry/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return err
	}
	last := now.Header.Revision
	pods := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	marker := "/" + ns + "/"
	return replayFrom(ctx, cli, 1, last, marker, pods, maxJSON)
}

// replayFrom prints the namespace's events from revision from to last; when the history
// before from was compacted, from the oldest revision kept.
func replayFrom(ctx context.Context, cli *clientv3.Client, from, last int64, marker string, pods *protobuf.Serializer, maxJSON int) error {
	for resp := range cli.Watch(ctx, "/registry/", clientv3.WithPrefix(), clientv3.WithRev(from), clientv3.WithPrevKV()) {
		if err := resp.Err(); err != nil {
			if resp.CompactRevision > from {
				fmt.Printf("# history before revision %d was compacted\n", resp.CompactRevision)
				return replayFrom(ctx, cli, resp.CompactRevision, last, marker, pods, maxJSON)
			}
			return err
		}
		if done := printEvents(resp.Events, last, marker, pods, maxJSON); done {
			return nil
		}
	}
	return errors.New("the watch ended before the last revision")
}

// printEvents prints the events of the namespace; true once the last revision was reached.
func printEvents(events []*clientv3.Event, last int64, marker string, pods *protobuf.Serializer, maxJSON int) bool {
	for _, ev := range events {
		key := string(ev.Kv.Key)
		if strings.Contains(key, marker) {
			val := ev.Kv.Value
			if ev.Type == clientv3.EventTypeDelete && ev.PrevKv != nil {
				val = ev.PrevKv.Value
			}
			fmt.Printf("rev=%d %s %s %s\n", ev.Kv.ModRevision, ev.Type, strings.TrimPrefix(key, "/registry/"), describe(key, val, pods, maxJSON))
		}
		if ev.Kv.ModRevision >= last {
			return true
		}
	}
	return false
}

// describe is one line about a stored object: the fields of a pod that tell its scheduling
// story, or the start of any other object's JSON (CRDs are stored as JSON; built-in kinds
// other than pods are left out).
func describe(key string, val []byte, pods *protobuf.Serializer, maxJSON int) string {
	if strings.HasPrefix(key, "/registry/pods/") {
		obj, _, err := pods.Decode(val, nil, nil)
		if err != nil {
			return "(undecodable: " + err.Error() + ")"
		}
		p, ok := obj.(*corev1.Pod)
		if !ok {
			return ""
		}
		var b strings.Builder
		fmt.Fprintf(&b, "uid=%s node=%q phase=%s", p.UID, p.Spec.NodeName, p.Status.Phase)
		if p.DeletionTimestamp != nil {
			fmt.Fprintf(&b, " deleting(since %s)", p.DeletionTimestamp.UTC().Format(time.TimeOnly))
		}
		fmt.Fprintf(&b, " gates=%d gang=%q slice=%q", len(p.Spec.SchedulingGates), p.Labels["grove.io/podgang"], p.Labels["phalanx.dev/coherent-slice"])
		if len(p.Spec.Containers) > 0 {
			fmt.Fprintf(&b, " image=%s", p.Spec.Containers[0].Image)
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled {
				fmt.Fprintf(&b, " scheduled=%s %s %s", c.Status, c.Reason, c.Message)
			}
		}
		return b.String()
	}
	if len(val) == 0 || val[0] != '{' {
		return ""
	}
	s := string(val)
	if len(s) > maxJSON {
		s = s[:maxJSON] + "..."
	}
	return strings.TrimSpace(s)
}

func twoPorts() (int, int, error) {
	a, err := localcluster.FreePort()
	if err != nil {
		return 0, 0, err
	}
	for {
		b, err := localcluster.FreePort()
		if err != nil || b != a {
			return a, b, err
		}
	}
}

func waitHealthy(url string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("etcd not healthy at %s after 30s", url)
}
