package ledger

// ReadCalls streams the rows of a Parquet calls table (X.calls.parquet,
// written beside an episode table by export) to fn, validating each as
// ReadEpisodes validates the table beside the episodes. It does not check
// that the episodes exist: ReadEpisodes on the episode table does. fn may
// keep the *Call.
func ReadCalls(path string, opt ReadOptions, fn func(*Call) error) error {
	return readSibling(path, CallColumns, "calls", &opt, func(rds []reader, plan []pqCol, r int, add func(Problem)) func() error {
		c := new(Call)
		for i, pc := range plan {
			if msg := rds[i].set(r, c.ref(pc.dst)); msg != "" {
				add(Problem{Field: pc.name, Msg: msg})
			}
		}
		validateCall(c, add)
		return func() error { return fn(c) }
	})
}

// ReadEffects is ReadCalls for a Parquet effects table.
func ReadEffects(path string, opt ReadOptions, fn func(*Effect) error) error {
	return readSibling(path, EffectColumns, "effects", &opt, func(rds []reader, plan []pqCol, r int, add func(Problem)) func() error {
		x := new(Effect)
		for i, pc := range plan {
			if msg := rds[i].set(r, x.ref(pc.dst)); msg != "" {
				add(Problem{Field: pc.name, Msg: msg})
			}
		}
		validateEffect(x, add)
		return func() error { return fn(x) }
	})
}

// readSibling scans a calls or effects table; row decodes and checks one
// row and returns what to do with it when it has no error (nil: nothing).
func readSibling(path string, cols []Column, table string, opt *ReadOptions, row func(rds []reader, plan []pqCol, r int, add func(Problem)) func() error) error {
	p, err := openPQ(path)
	if err != nil {
		return err
	}
	defer p.close()
	plan, _, err := p.plan(cols, func(int) bool { return true }, false, table)
	if err != nil {
		return err
	}
	rep := newReporter(path, opt)
	rep.rows = true
	return p.scan(plan, func(n, r int, rds []reader) error {
		var ps []Problem
		emit := row(rds, plan, r, func(p Problem) { ps = append(ps, p) })
		if bad, err := rep.row(n, ps); err != nil || bad {
			return err
		}
		if emit == nil {
			return nil
		}
		return rep.locate(n, emit())
	})
}
