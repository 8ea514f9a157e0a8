// Command fakegpu is a kubelet device plugin that advertises fake GPUs (nvidia.com/gpu by
// default) on a kind node, so that kubelet allocates and accounts them as it does real ones:
// capacity and allocatable come from kubelet, a container that asks for GPUs is given device
// IDs through Allocate (as NVIDIA_VISIBLE_DEVICES), and a pod holds its GPUs until its
// containers exit.
//
// It runs as a privileged DaemonSet pod with /var/lib/kubelet/device-plugins mounted. Kubelet
// removes every plugin socket when it restarts; the plugin notices its socket is gone and
// serves and registers again, as real device plugins do.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"k8s.io/klog/v2"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"
)

func main() {
	resource := flag.String("resource", "nvidia.com/gpu", "extended resource name to advertise")
	count := flag.Int("count", 8, "number of devices to advertise")
	dir := flag.String("plugin-dir", pluginapi.DevicePluginPath, "kubelet's device plugin directory")
	socket := flag.String("socket", "phalanx-fake-gpu.sock", "socket file name in --plugin-dir")
	klog.InitFlags(nil)
	flag.Parse()
	if *count < 0 {
		klog.ErrorS(nil, "--count must not be negative", "count", *count)
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	p := &plugin{resource: *resource, devices: devices(*count), dir: *dir, socket: *socket}
	if err := p.run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		klog.ErrorS(err, "device plugin stopped")
		os.Exit(1)
	}
}

// devices returns count healthy devices named fake-gpu-0 … fake-gpu-(count-1).
func devices(count int) []*pluginapi.Device {
	out := make([]*pluginapi.Device, count)
	for i := range out {
		out[i] = &pluginapi.Device{ID: fmt.Sprintf("fake-gpu-%d", i), Health: pluginapi.Healthy}
	}
	return out
}

type plugin struct {
	pluginapi.UnimplementedDevicePluginServer
	resource string
	devices  []*pluginapi.Device
	dir      string
	socket   string
}

// run serves and registers until ctx ends, starting over whenever kubelet removes the socket
// (a kubelet restart) or registration fails.
func (p *plugin) run(ctx context.Context) error {
	for {
		err := p.serveOnce(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		klog.InfoS("serving again", "reason", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// serveOnce serves the plugin on a fresh socket, registers it with kubelet and returns when
// the socket disappears or ctx ends.
func (p *plugin) serveOnce(ctx context.Context) error {
	path := filepath.Join(p.dir, p.socket)
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("removing stale socket %s: %w", path, err)
	}
	lis, err := net.Listen("unix", path)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", path, err)
	}
	srv := grpc.NewServer()
	pluginapi.RegisterDevicePluginServer(srv, p)
	go func() { _ = srv.Serve(lis) }()
	defer srv.Stop()

	if err := p.register(ctx); err != nil {
		return err
	}
	klog.InfoS("registered with kubelet", "resource", p.resource, "devices", len(p.devices), "socket", path)

	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
			if _, err := os.Stat(path); err != nil {
				return fmt.Errorf("socket %s gone (kubelet restarted?): %w", path, err)
			}
		}
	}
}

// register tells kubelet where the plugin serves and which resource it advertises.
func (p *plugin) register(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := grpc.NewClient("unix://"+filepath.Join(p.dir, filepath.Base(pluginapi.KubeletSocket)),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return fmt.Errorf("dialing kubelet: %w", err)
	}
	defer func() { _ = conn.Close() }()
	_, err = pluginapi.NewRegistrationClient(conn).Register(ctx, &pluginapi.RegisterRequest{
		Version:      pluginapi.Version,
		Endpoint:     p.socket,
		ResourceName: p.resource,
	})
	if err != nil {
		return fmt.Errorf("registering %s with kubelet: %w", p.resource, err)
	}
	return nil
}

// GetDevicePluginOptions: no pre-start hook, no preferred allocation.
func (p *plugin) GetDevicePluginOptions(context.Context, *pluginapi.Empty) (*pluginapi.DevicePluginOptions, error) {
	return &pluginapi.DevicePluginOptions{}, nil
}

// ListAndWatch sends the device list once (fake devices never fail) and holds the stream open.
func (p *plugin) ListAndWatch(_ *pluginapi.Empty, stream grpc.ServerStreamingServer[pluginapi.ListAndWatchResponse]) error {
	if err := stream.Send(&pluginapi.ListAndWatchResponse{Devices: p.devices}); err != nil {
		return err
	}
	<-stream.Context().Done()
	return nil
}

// Allocate hands each container the IDs it was given, as NVIDIA_VISIBLE_DEVICES (what the
// NVIDIA plugin sets) and PHALANX_FAKE_GPUS, so a test can read which devices a pod holds.
func (p *plugin) Allocate(_ context.Context, req *pluginapi.AllocateRequest) (*pluginapi.AllocateResponse, error) {
	resp := &pluginapi.AllocateResponse{}
	known := make(map[string]bool, len(p.devices))
	for _, d := range p.devices {
		known[d.ID] = true
	}
	for _, c := range req.ContainerRequests {
		for _, id := range c.DevicesIds {
			if !known[id] {
				return nil, fmt.Errorf("allocate: unknown device %q", id)
			}
		}
		ids := strings.Join(c.DevicesIds, ",")
		resp.ContainerResponses = append(resp.ContainerResponses, &pluginapi.ContainerAllocateResponse{
			Envs: map[string]string{"NVIDIA_VISIBLE_DEVICES": ids, "PHALANX_FAKE_GPUS": ids},
		})
	}
	return resp, nil
}

// PreStartContainer is not requested (GetDevicePluginOptions) and does nothing.
func (p *plugin) PreStartContainer(context.Context, *pluginapi.PreStartContainerRequest) (*pluginapi.PreStartContainerResponse, error) {
	return &pluginapi.PreStartContainerResponse{}, nil
}
