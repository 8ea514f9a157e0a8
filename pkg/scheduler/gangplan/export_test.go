package gangplan

// SetFilterMemo turns the pass's Filter memo (filterMemo) on or off, for comparisons.
func (pl *Planner) SetFilterMemo(on bool) { pl.memo = on }

// FilterMemo reports whether the pass keeps Filter verdicts (the profile allows it).
func (pl *Planner) FilterMemo() bool { return pl.memo }

// FilterRuns is how many times the passes ran the profile's Filter on a node.
func (pl *Planner) FilterRuns() int64 { return pl.filterRuns.Load() }

// SetScoreMemo turns the pass's Score memo (scoreMemo) on or off, for comparisons.
func (pl *Planner) SetScoreMemo(on bool) { pl.scoreMemo = on }

// ScoredNodes is how many nodes the passes ran the profile's Score plugins on.
func (pl *Planner) ScoredNodes() int64 { return pl.scoredNodes.Load() }

// ForgetKept drops what passes kept for the passes after them (passMemo), as a restart does.
func (pl *Planner) ForgetKept() {
	pl.kept.byKey, pl.kept.scores = nil, nil
	pl.keptAlone.byKey, pl.keptAlone.scores = nil, nil
}

// OwnNormalizer reports whether the passes total kept scores themselves (normalizer) rather
// than through the framework's NormalizeScores.
func (pl *Planner) OwnNormalizer() bool { return pl.norm != nil }
