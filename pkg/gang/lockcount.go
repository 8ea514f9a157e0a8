package gang

import (
	"sync"
	"sync/atomic"
)

// countedRWMutex is the store's lock, counting how often it is taken (LockCounts): the cost of
// a gang's cycle in store calls is a figure the benchmarks report per member. Counting adds
// one atomic add beside the mutex's own.
type countedRWMutex struct {
	sync.RWMutex
	reads, writes atomic.Uint64
}

func (m *countedRWMutex) Lock() {
	m.writes.Add(1)
	m.RWMutex.Lock()
}

func (m *countedRWMutex) RLock() {
	m.reads.Add(1)
	m.RWMutex.RLock()
}

// LockCounts is how many times the store's lock was taken for reading and for writing since
// the store was made.
func (s *Store) LockCounts() (reads, writes uint64) {
	return s.mu.reads.Load(), s.mu.writes.Load()
}
