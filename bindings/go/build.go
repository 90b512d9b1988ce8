package cudnnfe

// Contains says whether value is one the knob takes.
func (k KnobRange) Contains(value int64) bool {
	return value >= k.Min && value <= k.Max && (k.Stride <= 0 || (value-k.Min)%k.Stride == 0)
}

func optionalHandle(h *Handle) (uintptr, error) {
	if h == nil {
		return 0, nil
	}
	return h.pointer()
}
