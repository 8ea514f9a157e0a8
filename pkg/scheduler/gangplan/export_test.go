package gangplan

// SetFilterMemo turns the pass's Filter memo (filterMemo) on or off, for comparisons.
func (pl *Planner) SetFilterMemo(on bool) { pl.memo = on }
