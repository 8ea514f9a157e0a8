package controller

import (
	"errors"
	"sync"
)

// slowStart runs fn for 0..n-1 in batches, each batch in parallel, as ReplicaSet creates
// pods: the first batch has first calls (at least 1), and each later batch twice the size of
// the one before. A pass that can create every member does so in a few round trips, and one
// that cannot (a quota, an admission policy, RBAC) learns it from the first batch instead of
// n failed calls. It stops after the first batch with a failure and returns the failures of
// that batch joined; calls of later batches are not made.
//
// The controller's first batch is the first gang's missing members: a gang is scheduled only
// once all of them exist, so creating them one round trip after another delayed every step of
// an update by a round trip per doubling, and a refusal costs at most one gang's calls.
func slowStart(n, first int, fn func(i int) error) error {
	for start, batch := 0, max(first, 1); start < n; start, batch = start+batch, batch*2 {
		size := min(batch, n-start)
		if err := parallel(size, size, func(j int) error { return fn(start + j) }); err != nil {
			return err
		}
	}
	return nil
}

// parallel runs fn for 0..n-1 on at most workers goroutines and returns the failures joined
// (every call is made).
func parallel(n, workers int, fn func(i int) error) error {
	if n == 1 {
		return fn(0)
	}
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
		next = make(chan int)
	)
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := fn(i); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}
