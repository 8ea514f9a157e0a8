// Command testserver is the container of the real-cluster (kind) tests' pods: a small static
// HTTP server whose readiness and termination a test controls, so that kubelet's readiness
// probes and termination grace periods act as they do on serving pods.
//
//	/healthz  200 while the process runs (liveness)
//	/readyz   200 once --ready-after has passed since start, 503 before that and from SIGTERM on
//	/         the pod's name, version and the GPUs kubelet gave it (PHALANX_FAKE_GPUS)
//
// On SIGTERM it stops being ready, waits --termination-delay (the time a model server takes to
// drain) and exits 0, so a pod holds its GPUs through that part of its grace period.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	addr := flag.String("listen", ":8080", "address to serve on")
	readyAfter := flag.Duration("ready-after", 0, "time after start before /readyz answers 200")
	termDelay := flag.Duration("termination-delay", 0, "time between SIGTERM and exit")
	version := flag.String("version", "v1", "version string served on /")
	flag.Parse()
	if *readyAfter < 0 || *termDelay < 0 {
		log.Fatalf("--ready-after (%s) and --termination-delay (%s) must not be negative", *readyAfter, *termDelay)
	}

	start := time.Now()
	var terminating atomic.Bool
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		switch {
		case terminating.Load():
			http.Error(w, "terminating", http.StatusServiceUnavailable)
		case time.Since(start) < *readyAfter:
			http.Error(w, "warming up", http.StatusServiceUnavailable)
		default:
			_, _ = fmt.Fprintln(w, "ready")
		}
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = fmt.Fprintf(w, "pod=%s version=%s gpus=%s\n", os.Getenv("POD_NAME"), *version, os.Getenv("PHALANX_FAKE_GPUS"))
	})
	srv := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		sig := <-sigs
		terminating.Store(true)
		log.Printf("%s: not ready; exiting in %s", sig, *termDelay)
		time.Sleep(*termDelay)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}()

	log.Printf("serving on %s (version %s, ready after %s, gpus %q)", *addr, *version, *readyAfter, os.Getenv("PHALANX_FAKE_GPUS"))
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatalf("serving: %v", err)
	}
	log.Printf("exited after termination delay")
}
