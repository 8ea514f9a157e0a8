// Package leadership tells the parts of phalanx-scheduler that write to the API server on
// behalf of the scheduler (the PodGang and PodGroup status writers) when this process became
// the leader. A follower keeps its caches warm but writes nothing, so two instances never
// fight over a status. One process runs one scheduler, so the signal is process-wide.
package leadership

import "sync"

var (
	once    sync.Once
	elected = make(chan struct{})
)

// Elected is closed once this process leads (at once when leader election is off).
func Elected() <-chan struct{} { return elected }

// MarkLeading records that this process leads. It is safe to call more than once.
func MarkLeading() { once.Do(func() { close(elected) }) }
