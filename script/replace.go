package script

import "github.com/agentsh/agentsh/core"

// SetReplaceTools makes tool definitions replace a tool of the same name
// instead of failing, as if every definition asked for replacement; note,
// when not nil, is called with the name of each tool replaced so. The
// REPL turns this on: redefining a tool while trying it out should just
// work. A nil note with on false turns it off again.
func (h *Host) SetReplaceTools(on bool, note func(name string)) {
	h.cfgMu.Lock()
	defer h.cfgMu.Unlock()
	h.replaceTools, h.replaceNote = on, note
}

// defineReplacing registers t, replacing a tool of its name, when
// SetReplaceTools is on; it reports whether it did.
func (h *Host) defineReplacing(t core.Tool) (bool, error) {
	h.cfgMu.Lock()
	on, note := h.replaceTools, h.replaceNote
	h.cfgMu.Unlock()
	if !on {
		return false, nil
	}
	reg := h.exec.Registry()
	existed := reg.GetTool(t.Name) != nil
	if err := reg.ReplaceTools(t); err != nil {
		return true, err
	}
	if existed && note != nil {
		note(t.Name)
	}
	return true, nil
}
