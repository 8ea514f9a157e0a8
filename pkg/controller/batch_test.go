package controller

import (
	"errors"
	"sync"
	"testing"
)

func TestSlowStart(t *testing.T) {
	var mu sync.Mutex
	calls := map[int]bool{}
	record := func(failAt int) func(int) error {
		return func(i int) error {
			mu.Lock()
			calls[i] = true
			mu.Unlock()
			if i == failAt {
				return errors.New("refused")
			}
			return nil
		}
	}
	if err := slowStart(10, 1, record(-1)); err != nil || len(calls) != 10 {
		t.Fatalf("all succeed: err %v, %d calls, want 10", err, len(calls))
	}
	// Batches 1, 2, 4, 3: a failure at index 4 (third batch: 3..6) stops before 7..9.
	calls = map[int]bool{}
	err := slowStart(10, 1, record(4))
	if err == nil {
		t.Fatal("a failure was not returned")
	}
	for i := 0; i < 7; i++ {
		if !calls[i] {
			t.Errorf("call %d of a batch up to the failing one was not made", i)
		}
	}
	for i := 7; i < 10; i++ {
		if calls[i] {
			t.Errorf("call %d after the failing batch was made", i)
		}
	}
	// The first call failing stops everything else.
	calls = map[int]bool{}
	if err := slowStart(10, 1, record(0)); err == nil || len(calls) != 1 {
		t.Errorf("first call refused: err %v, %d calls, want 1", err, len(calls))
	}
	// A first batch of 3 (one gang's members), then 6, then the last 1.
	calls = map[int]bool{}
	if err := slowStart(10, 3, record(2)); err == nil || len(calls) != 3 {
		t.Errorf("first gang refused: err %v, %d calls, want 3", err, len(calls))
	}
	calls = map[int]bool{}
	if err := slowStart(10, 3, record(8)); err == nil || len(calls) != 9 {
		t.Errorf("a failure in the second batch (3..8): err %v, %d calls, want 9", err, len(calls))
	}
}

func TestParallelMakesEveryCall(t *testing.T) {
	var mu sync.Mutex
	n := 0
	err := parallel(50, 8, func(i int) error {
		mu.Lock()
		n++
		mu.Unlock()
		if i%10 == 0 {
			return errors.New("x")
		}
		return nil
	})
	if n != 50 || err == nil {
		t.Errorf("%d calls, err %v; want 50 and the failures", n, err)
	}
}
