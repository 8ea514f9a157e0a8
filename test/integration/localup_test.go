package integration

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/phalanx-sched/phalanx/hack/localcluster"
)

// hack/local-up.sh up --dir <relative path>: the kubeconfig it writes names its certificates
// by absolute paths, so that it works from any directory.
func TestLocalControlPlaneRelativeDir(t *testing.T) {
	root, err := localcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := os.Getenv("PHALANX_BIN_DIR")
	if bin == "" {
		bin = filepath.Join(root, "bin")
	}
	work := t.TempDir()
	t.Chdir(work)
	c, err := localcluster.Start(context.Background(), localcluster.Options{Dir: "relative-run", BinDir: bin, NoKwok: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	t.Chdir(t.TempDir()) // elsewhere: what a user does after `export KUBECONFIG=...`
	kubeconfig := filepath.Join(work, "relative-run", "kubeconfig")
	raw, err := os.ReadFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), ": relative-run") {
		t.Errorf("the kubeconfig names relative paths:\n%s", raw)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kube.CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Fatalf("the kubeconfig does not work from another directory: %v", err)
	}
}
