# Phalanx: a gang-aware secondary kube-scheduler for multi-node GPU inference.
# `make run` and `make test` do all set-up on a fresh machine with nothing but Go.

SHELL := /usr/bin/env bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build

ROOT      := $(abspath .)
BIN       := $(ROOT)/bin
GO        ?= go
# Tests and binaries compile with the same flags (static, -trimpath), so that the packages of
# phalanx-scheduler's build and of the test binaries share one Go build cache: a cold `make
# test` compiles Kubernetes' scheduler once, not once with cgo for the tests and once without.
GOFLAGS_M := -mod=vendor -trimpath
export CGO_ENABLED := 0
# The Kubernetes version has one source: the k8s.io/kubernetes requirement in go.mod
# (hack/Dockerfile reads it from there too; make verify checks hack/tools/go.mod agrees).
K8S_VERSION := $(shell awk '$$1 == "k8s.io/kubernetes" { print $$2; exit }' go.mod)
K8S_MINOR   := $(word 2,$(subst ., ,$(K8S_VERSION)))
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo v0.0.0-dev)
LDFLAGS   := -X github.com/phalanx-sched/phalanx/pkg/version.Version=$(VERSION) \
             -X k8s.io/component-base/version.gitVersion=$(K8S_VERSION) \
             -X k8s.io/component-base/version.gitMajor=1 \
             -X k8s.io/component-base/version.gitMinor=$(K8S_MINOR) \
             -X k8s.io/component-base/version.gitTreeState=clean
TOOLS_LDFLAGS := -X k8s.io/component-base/version.gitVersion=$(K8S_VERSION) \
             -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$(K8S_MINOR)

KWOK_VERSION           := v0.8.0
KIND_VERSION           := v0.33.0
REGISTRY_VERSION       := v0.22.1
CONTAINERD_VERSION     := v2.4.2
CONTROLLER_GEN_VERSION := v0.23.0
CODE_GENERATOR_VERSION := $(patsubst v1.%,v0.%,$(K8S_VERSION))

# Integration and e2e tests start their own control plane from bin/ unless
# PHALANX_LOCAL_DIR names a running one (hack/local-up.sh up).
TEST_TIMEOUT ?= 40m

export PHALANX_BIN_DIR := $(BIN)

# bin/<tool> on the command line means the same as $(BIN)/<tool>.
bin/%: FORCE ; @$(MAKE) --no-print-directory $(BIN)/$*

.PHONY: compat-tools test-compat image kind-binaries test-kind grove-suite build tools test test-unit test-integration test-e2e test-e2e-stress simulate perf perf-updates perf-topology perf-dra generate verify run down clean help

help: ## Show the targets.
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

build: $(BIN)/phalanx-scheduler $(BIN)/kubectl-phalanx ## Build bin/phalanx-scheduler and the kubectl plugin bin/kubectl-phalanx.

# The go command decides what is stale; FORCE makes make always ask it (a warm rebuild of both binaries is ~3 s).
$(BIN)/phalanx-scheduler: FORCE
	@echo ">> building phalanx-scheduler (a cold build compiles the kube-scheduler: ~6 min on 2 cores)"
	@hack/with-progress.sh phalanx-scheduler $(GO) build $(GOFLAGS_M) -ldflags "$(LDFLAGS)" -o $@ ./cmd/phalanx-scheduler

$(BIN)/kubectl-phalanx: FORCE
	@$(GO) build $(GOFLAGS_M) -ldflags "$(LDFLAGS)" -o $@ ./cmd/kubectl-phalanx

$(BIN)/localup: FORCE
	@$(GO) build $(GOFLAGS_M) -o $@ ./hack/localup

$(BIN)/demo: FORCE
	@$(GO) build $(GOFLAGS_M) -o $@ ./hack/demo

tools: $(BIN)/etcd $(BIN)/kube-apiserver $(BIN)/kube-controller-manager $(BIN)/kwok $(BIN)/podreaper ## Build the control-plane tools into bin/ (once).

# Confirms pod deletions on the local control plane as kubelets do (hack/podreaper).
$(BIN)/podreaper: FORCE
	@$(GO) build $(GOFLAGS_M) -o $@ ./hack/podreaper

$(BIN)/etcd: hack/tools/etcd/go.mod hack/tools/etcd/main.go
	@echo ">> building etcd (hack/tools/etcd, ~2 min cold)"
	@cd hack/tools/etcd && ../../with-progress.sh etcd $(GO) build -trimpath -o $@ .

$(BIN)/kube-apiserver: hack/tools/go.mod
	@echo ">> building kube-apiserver $(K8S_VERSION) (hack/tools, ~6-11 min cold on 2 cores)"
	@cd hack/tools && ../with-progress.sh kube-apiserver $(GO) build -trimpath -ldflags "$(TOOLS_LDFLAGS)" -o $@ k8s.io/kubernetes/cmd/kube-apiserver

$(BIN)/kube-controller-manager: hack/tools/go.mod
	@echo ">> building kube-controller-manager $(K8S_VERSION) (hack/tools)"
	@cd hack/tools && ../with-progress.sh kube-controller-manager $(GO) build -trimpath -ldflags "$(TOOLS_LDFLAGS)" -o $@ k8s.io/kubernetes/cmd/kube-controller-manager

# --- the compatibility matrix (make test-compat): the control plane of each older minor ------
# hack/tools/compat/<minor> pins that minor's latest patch; built once into bin/compat/<minor>.
COMPAT_MINORS := v1.34 v1.35 v1.36
COMPAT_TOOLS  := $(foreach m,$(COMPAT_MINORS),$(BIN)/compat/$(m)/kube-apiserver $(BIN)/compat/$(m)/kube-controller-manager)

compat-tools: $(COMPAT_TOOLS) ## Build kube-apiserver and kube-controller-manager of 1.34, 1.35 and 1.36 into bin/compat/ (once; ~4 min each cold).

$(BIN)/compat/%/kube-apiserver $(BIN)/compat/%/kube-controller-manager: hack/tools/compat/%/go.mod
	@v=$$(awk '$$1 == "require" && $$2 == "k8s.io/kubernetes" { print $$3 }' hack/tools/compat/$*/go.mod); \
	 minor=$$(echo $$v | cut -d. -f2); \
	 flags="-X k8s.io/component-base/version.gitVersion=$$v -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$$minor"; \
	 for cmd in kube-apiserver kube-controller-manager; do \
	   echo ">> building $$cmd $$v (hack/tools/compat/$*)"; \
	   (cd hack/tools/compat/$* && ../../../with-progress.sh "$$cmd $$v" $(GO) build -trimpath -ldflags "$$flags" -o $(BIN)/compat/$*/$$cmd k8s.io/kubernetes/cmd/$$cmd); \
	 done

test-compat: tools build compat-tools ## The compatibility suite against kube-apiserver 1.34, 1.35, 1.36 and 1.37 (docs/compatibility.md; not part of make test). COMPAT_VERSIONS narrows it.
	@hack/test-compat.sh

HELM_VERSION := $(shell awk '$$1 == "require" && $$2 == "helm.sh/helm/v4" { print $$3 }' hack/tools/helm/go.mod)

$(BIN)/helm: hack/tools/helm/go.mod
	@echo ">> building helm $(HELM_VERSION) (hack/tools/helm, ~2.5 min cold)"
	@cd hack/tools/helm && ../../with-progress.sh helm $(GO) build -trimpath -ldflags "-X helm.sh/helm/v4/internal/version.version=$(HELM_VERSION)" -o $@ helm.sh/helm/v4/cmd/helm

$(BIN)/kwok:
	@echo ">> building kwok $(KWOK_VERSION)"
	@GOBIN=$(BIN) GOFLAGS= $(GO) install sigs.k8s.io/kwok/cmd/kwok@$(KWOK_VERSION)

# --- the kind cluster (make test-kind): node binaries and images, all built here -------------
# Kubernetes node and control-plane binaries of the one version, from hack/tools.
KIND_NODE_K8S  := kubelet kubeadm kubectl kube-proxy kube-scheduler
KIND_NODE_CTRD := containerd containerd-shim-runc-v2 ctr
KIND_NODE_TEST := pause podnet fakegpu testserver

$(addprefix $(BIN)/node/,$(KIND_NODE_K8S)): $(BIN)/node/%: hack/tools/go.mod
	@echo ">> building $* $(K8S_VERSION) (hack/tools)"
	@cd hack/tools && ../with-progress.sh $* $(GO) build -trimpath -ldflags "$(TOOLS_LDFLAGS)" -o $@ k8s.io/kubernetes/cmd/$*

# containerd from its own module (its go.mod, not ours); runc and the CNI plugins come from
# Debian packages in the node image's rootfs.
$(addprefix $(BIN)/node/,$(KIND_NODE_CTRD)) &:
	@echo ">> building containerd $(CONTAINERD_VERSION)"
	@GOBIN=$(BIN)/node CGO_ENABLED=0 GOFLAGS= hack/with-progress.sh containerd $(GO) install -trimpath \
	  -tags "no_aufs no_zfs no_btrfs no_devmapper" $(foreach c,$(KIND_NODE_CTRD),github.com/containerd/containerd/v2/cmd/$(c)@$(CONTAINERD_VERSION))

# The kind cluster's own images: static, from this repository (test/images).
$(addprefix $(BIN)/node/,$(KIND_NODE_TEST)): $(BIN)/node/%: FORCE
	@$(GO) build $(GOFLAGS_M) -o $@ ./test/images/$*

kind-binaries: tools $(addprefix $(BIN)/node/,$(KIND_NODE_K8S) $(KIND_NODE_CTRD) $(KIND_NODE_TEST)) ## Everything hack/kind/node-image.sh puts in images.

$(BIN)/kind:
	@echo ">> building kind $(KIND_VERSION)"
	@GOBIN=$(BIN) GOFLAGS= $(GO) install sigs.k8s.io/kind@$(KIND_VERSION)

# A registry on localhost (go-containerregistry's, in memory): Grove's e2e suite pushes its
# test image to one (hack/grove-suite/run.sh).
$(BIN)/registry:
	@echo ">> building registry (go-containerregistry $(REGISTRY_VERSION))"
	@GOBIN=$(BIN) GOFLAGS= $(GO) install github.com/google/go-containerregistry/cmd/registry@$(REGISTRY_VERSION)

grove-suite: $(BIN)/kind $(BIN)/helm $(BIN)/registry ## Grove's own e2e suite with Phalanx as its gang scheduler, on the kind cluster of KIND_CLUSTER=grove hack/kind-up.sh --scheduler-only (GROVE_DIR, GROVE_OPERATOR_IMAGE, GROVE_INITC_IMAGE: docs/grove-suite.md). Not part of make test.
	@hack/grove-suite/run.sh $(ARGS)

IMAGE ?= ghcr.io/phalanx-sched/phalanx-scheduler:$(VERSION)
image: $(BIN)/phalanx-scheduler ## The phalanx-scheduler image (static binary on scratch, non-root), built with no registry: IMAGE=$(IMAGE).
	@hack/kind/docker.sh
	@# A build context of its own: two builds at once (two kind clusters) must not share one.
	@mkdir -p .run && ctx=$$(mktemp -d .run/image.XXXXXX) && mkdir -p $$ctx/etc/ssl/certs && \
	  cp $(BIN)/phalanx-scheduler $$ctx/ && cp /etc/ssl/certs/ca-certificates.crt $$ctx/etc/ssl/certs/ && \
	  { docker build -q -f hack/Dockerfile --build-arg VERSION=$(VERSION) -t $(IMAGE) $$ctx >/dev/null; rc=$$?; rm -rf $$ctx; exit $$rc; }
	@echo "$(IMAGE)"

test-kind: tools build $(BIN)/kind $(BIN)/helm ## A kind cluster (real kubelets, fake GPUs, Phalanx from its image) and the e2e suite on it; ARGS=--down removes it. Needs root for Docker.
	@hack/kind-up.sh $(ARGS)

$(BIN)/controller-gen:
	@GOBIN=$(BIN) GOFLAGS= $(GO) install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_GEN_VERSION)

CODEGEN_TOOLS := $(BIN)/client-gen $(BIN)/lister-gen $(BIN)/informer-gen
$(CODEGEN_TOOLS):
	@GOBIN=$(BIN) GOFLAGS= $(GO) install k8s.io/code-generator/cmd/$(notdir $@)@$(CODE_GENERATOR_VERSION)

generate: $(BIN)/controller-gen $(CODEGEN_TOOLS) ## Regenerate deepcopy, CRDs and typed clients.
	@hack/update-codegen.sh

verify: $(BIN)/controller-gen $(CODEGEN_TOOLS) ## Fail on stale generated code (checked in a copy), gofmt, go vet, vendor/, tracked binaries.
	@echo ">> verify"
	@hack/verify.sh

test: verify test-unit test-integration test-e2e ## All checks and tests: verify, unit, integration (real apiserver) and e2e.

test-unit: $(BIN)/helm ## Unit tests (no control plane; the Helm chart's checks use bin/helm).
	@echo ">> unit tests"
	@hack/test-summary.sh $(GO) test $(GOFLAGS_M) -count=1 $$($(GO) list $(GOFLAGS_M) ./... | grep -v -E '/test/(integration|e2e|perf)')

test-integration: tools build ## Integration tests against a real kube-apiserver, etcd and KWOK (and the built phalanx-scheduler binary).
	@echo ">> integration tests (real kube-apiserver, etcd and kwok; scheduler in process)"
	@hack/test-summary.sh $(GO) test $(GOFLAGS_M) -count=1 -timeout $(TEST_TIMEOUT) ./test/integration/...

test-e2e: tools build ## End-to-end: manifests/ applied, phalanx-scheduler as 2 processes (PHALANX_E2E_KUBECONFIG: any cluster).
	@echo ">> e2e tests (manifests/ applied; phalanx-scheduler as two separate processes with its ServiceAccount)"
	@hack/test-summary.sh $(GO) test $(GOFLAGS_M) -count=1 -timeout $(TEST_TIMEOUT) ./test/e2e/...

perf: tools build ## Performance report into docs/perf (default profile vs Phalanx vs in-tree gangs, and Phalanx on the in-tree's PodGroups; preemption vs DefaultPreemption; update costs). Not part of make test.
	@echo ">> perf harness (3 runs of 8 workloads x 3 configurations, 6 gang workloads x a 4th: about 50-80 minutes on 2 cores (36 and 64 min measured with 3 configurations), then preemption and updates; PERF_ARGS=-perf.repeat=1 for one run); report: docs/perf/README.md"
	@$(GO) test $(GOFLAGS_M) -count=1 -timeout 300m -run 'TestPerf$$' -v ./test/perf/ -perf.out=$(ROOT)/docs/perf $(PERF_ARGS) | grep --line-buffered -E '^\s+(report|update|preemption)_test|^(ok|FAIL|---)'

SIM_RUNS ?= 10000
perf-updates: tools build ## Only the report's update section (docs/perf): each strategy and the 1,000-pod bring-up 3 times (medians): about 13 minutes on 2 cores. Not part of make test.
	@$(GO) test $(GOFLAGS_M) -count=1 -timeout 120m -run 'TestPerfUpdates$$' -v ./test/perf/ -perf.out=$(ROOT)/docs/perf $(PERF_ARGS) | grep --line-buffered -E '^\s+(update|bringup)_test|^(ok|FAIL|---)'

perf-topology: tools build ## Only the report's stranded-GPU section (docs/perf): a stream of packed gangs on a 3-level topology, default profile and Phalanx: about 1 minute. Not part of make test.
	@PHALANX_PERF_TOPOLOGY=1 $(GO) test $(GOFLAGS_M) -count=1 -timeout 30m -run 'TestPerfTopology$$' -v ./test/perf/ -perf.out=$(ROOT)/docs/perf $(PERF_ARGS) | grep --line-buffered -E '^\s+topology_test|^(ok|FAIL|---)'

perf-dra: tools build ## Only the report's DRA section (docs/perf): gangs whose members take GPUs from ResourceClaims, every configuration 3 times (medians): about 10 minutes on 2 cores. Not part of make test.
	@PHALANX_PERF_DRA=1 $(GO) test $(GOFLAGS_M) -count=1 -timeout 60m -run 'TestPerfDRA$$' -v ./test/perf/ -perf.out=$(ROOT)/docs/perf $(PERF_ARGS) | grep --line-buffered -E '^\s+(dra|report)_test|^(ok|FAIL|---)'

simulate: ## The randomized update simulations, SIM_RUNS (10000) seeds each, crashes between any two actions: runs and violations.
	@$(GO) test $(GOFLAGS_M) -count=1 -run 'TestRandomized' -v ./pkg/update/ -update.sim-runs=$(SIM_RUNS) | grep -E 'invariant violations|^(ok|FAIL)|seed '

E2E_STRESS_COUNT ?= 10
test-e2e-stress: tools build ## The leader-kill (RollingUpdate, Coherent) and node-loss e2e tests, E2E_STRESS_COUNT (10) times in a row.
	@$(GO) test $(GOFLAGS_M) -count=$(E2E_STRESS_COUNT) -timeout 60m -run 'TestLeaderKilledMid(Coherent)?Update|TestNodeLostMidUpdate' ./test/e2e/...

run: tools build $(BIN)/localup $(BIN)/demo ## Local control plane with fake GPU nodes + phalanx-scheduler + a PodCliqueSet.
	@hack/run.sh $(ARGS)

down: $(BIN)/localup ## Stop the local control plane and the scheduler of `make run`.
	@hack/run.sh --down

clean: ## Stop everything and remove bin/ and run directories.
	-@[ -x $(BIN)/localup ] && hack/run.sh --down >/dev/null 2>&1 || true
	rm -rf $(BIN) .run phalanx-scheduler kubectl-phalanx

FORCE:
