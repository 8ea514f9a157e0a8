# phalanx-scheduler image: a static binary on distroless, running as non-root.
#   docker build -t phalanx-scheduler:dev .
# Dependencies are vendored: the build needs no network.
FROM golang:1.26 AS build
WORKDIR /src
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -mod=vendor -trimpath \
      -ldflags "-s -w -X github.com/phalanx-sched/phalanx/pkg/version.Version=${VERSION} \
        -X k8s.io/component-base/version.gitVersion=v1.37.2 -X k8s.io/component-base/version.gitMajor=1 \
        -X k8s.io/component-base/version.gitMinor=37 -X k8s.io/component-base/version.gitTreeState=clean" \
      -o /out/phalanx-scheduler ./cmd/phalanx-scheduler

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/phalanx-scheduler /usr/local/bin/phalanx-scheduler
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/phalanx-scheduler"]
