package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// Peak RSS needs a small parent. Linux carries a process's RSS high-water
// mark across execve, and a child that Go starts (clone with CLONE_VM,
// then execve) takes its parent's: a command started by the harness would
// report at least the harness's own peak, which holds reference outputs
// of hundreds of MiB. So every timed run goes through a launcher, this
// program re-run as `benchrun launch SPEC`: a fresh process that stays a
// few MiB, starts the pipeline, times it and sends the rusage figures back
// on file descriptor 3. Its own start-up is outside the timing. The report
// prints the launcher's floor (what /bin/true measures through it).

// wireStage is a stage as the launcher receives it.
type wireStage struct {
	Path    string   `json:"path"`
	Args    []string `json:"args,omitempty"`
	Dir     string   `json:"dir,omitempty"`
	Env     []string `json:"env,omitempty"`
	OkCodes []int    `json:"ok_codes,omitempty"`
	Stdin   string   `json:"stdin,omitempty"`
}

// wireSample is what the launcher sends back.
type wireSample struct {
	WallNs int64  `json:"wall_ns"`
	UserNs int64  `json:"user_ns"`
	SysNs  int64  `json:"sys_ns"`
	MaxRSS int64  `json:"max_rss"`
	Err    string `json:"err,omitempty"`
}

// launchMain is `benchrun launch SPEC`: it runs the pipeline SPEC (JSON)
// with its output on standard output and reports on fd 3.
func launchMain(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: benchrun launch SPEC (file descriptor 3: where the figures go)")
		return 2
	}
	var ws []wireStage
	if err := json.Unmarshal([]byte(args[0]), &ws); err != nil || len(ws) == 0 {
		fmt.Fprintf(os.Stderr, "benchrun launch: spec %q: want a JSON list of stages (%v)\n", cut(args[0], 200), err)
		return 2
	}
	report := os.NewFile(3, "report")
	p := make(pipeline, len(ws))
	for i, w := range ws {
		p[i] = stage{path: w.Path, args: w.Args, dir: w.Dir, env: w.Env, okCodes: w.OkCodes, stdin: w.Stdin}
	}
	s, err := p.run(context.Background(), os.Stdout)
	out := wireSample{WallNs: int64(s.wall), UserNs: int64(s.user), SysNs: int64(s.sys), MaxRSS: s.maxRSS}
	if err != nil {
		out.Err = err.Error()
	}
	if err := json.NewEncoder(report).Encode(out); err != nil {
		fmt.Fprintf(os.Stderr, "benchrun launch: report: %v\n", err)
		return 1
	}
	return 0
}

// launch runs p through the launcher at self, output to out.
func (p pipeline) launch(ctx context.Context, self string, out io.Writer) (sample, error) {
	ws := make([]wireStage, len(p))
	for i, s := range p {
		ws[i] = wireStage{Path: s.path, Args: s.args, Dir: s.dir, Env: s.env, OkCodes: s.okCodes, Stdin: s.stdin}
	}
	spec, err := json.Marshal(ws)
	if err != nil {
		return sample{}, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return sample{}, err
	}
	defer r.Close()
	c := exec.CommandContext(ctx, self, "launch", string(spec))
	counter := &countWriter{w: out}
	c.Stdout = counter
	c.Stderr = os.Stderr
	c.ExtraFiles = []*os.File{w}
	ownGroup(c) // on cancel the launcher's children die with it
	if err := c.Start(); err != nil {
		w.Close()
		return sample{}, fmt.Errorf("start the launcher %s: %w", self, err)
	}
	w.Close()
	var got wireSample
	derr := json.NewDecoder(r).Decode(&got)
	werr := c.Wait()
	if ctx.Err() != nil {
		return sample{}, ctx.Err()
	}
	if derr != nil || werr != nil {
		return sample{}, fmt.Errorf("the launcher failed (%v, %v) running %s", werr, derr, p)
	}
	s := sample{wall: time.Duration(got.WallNs), user: time.Duration(got.UserNs), sys: time.Duration(got.SysNs),
		maxRSS: got.MaxRSS, outBytes: counter.n}
	if got.Err != "" {
		return s, fmt.Errorf("%s", got.Err)
	}
	return s, nil
}
