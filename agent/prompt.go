package agent

import "context"

// SubmitPrompt runs the user_prompt hooks on a prompt that another agent
// received, without a model or a turn: it returns the prompt as the hooks
// left it, or the error of the hook that refused it.
func (a *Agent) SubmitPrompt(ctx context.Context, prompt string) (string, error) {
	d := &LifecycleData{Event: UserPrompt, Prompt: prompt}
	if err := a.fire(ctx, d); err != nil {
		return prompt, err
	}
	return d.Prompt, nil
}
