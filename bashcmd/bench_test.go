package bashcmd_test

import (
	"strings"
	"testing"

	"github.com/agentsh/agentsh/bashcmd"
	"github.com/agentsh/agentsh/bashcmd/bashcmdtest"
)

func BenchmarkParse(b *testing.B) {
	for name, cmd := range map[string]string{
		"short":    `ls -la`,
		"pipeline": `git status --short | grep -v '^??' | wc -l && echo "$(date +%s) done in $HOME"`,
		"wrappers": `sudo -u root env FOO=1 timeout 5 bash -c 'rm -rf "$d"/x; find . -name "*.o" -exec rm {} +' > /tmp/log 2>&1`,
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bashcmd.Parse(cmd)
			}
		})
	}
}

// BenchmarkParseHostile is the cost of the command lines built to exhaust
// the analysis: a pipeline and nested substitutions of 1 MiB (refused by
// their size), every hostile shape at MaxLength (refused by their
// nesting), a;a;... of MaxLength bytes (refused by the number of its
// commands), and the most the analysis reads in full: MaxCommands
// commands, each with a redirection.
func BenchmarkParseHostile(b *testing.B) {
	cases := []bashcmdtest.HostileCase{}
	for _, c := range bashcmdtest.Hostile(1 << 20) {
		if c.Name == "pipeline" || c.Name == "substitutions" {
			cases = append(cases, bashcmdtest.HostileCase{Name: c.Name + "-1MiB", Cmd: c.Cmd})
		}
	}
	for _, c := range bashcmdtest.Hostile(bashcmd.MaxLength - 64) {
		cases = append(cases, bashcmdtest.HostileCase{Name: c.Name + "-max", Cmd: c.Cmd})
	}
	cases = append(cases, bashcmdtest.HostileCase{Name: "flat-max", Cmd: strings.Repeat("a;", bashcmd.MaxLength/2)},
		bashcmdtest.HostileCase{Name: "commands-read", Cmd: strings.Repeat("rm -f x >y;", bashcmd.MaxCommands)})
	for _, c := range cases {
		b.Run(c.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bashcmd.Parse(c.Cmd)
			}
		})
	}
}

// BenchmarkClassify is the cost of Classify over the same command lines
// as BenchmarkParse (the analysis included), with the sandbox's secret
// files, and over the most the analysis reads in full: MaxCommands
// commands, each with a redirection and options to read.
func BenchmarkClassify(b *testing.B) {
	where := bashcmd.Where{Workdir: "/home/u/project", Home: "/home/u",
		Secrets: []string{".env", ".env.*", "!.env.example", "*.pem", "*.key", "id_rsa*", ".ssh/", ".aws/"}}
	for name, cmd := range map[string]string{
		"short":         `ls -la`,
		"pipeline":      `git status --short | grep -v '^??' | wc -l && echo "$(date +%s) done in $HOME"`,
		"wrappers":      `sudo -u root env FOO=1 timeout 5 bash -c 'rm -rf "$d"/x; find . -name "*.o" -exec rm {} +' > /tmp/log 2>&1`,
		"options":       `sort -uoFILE --compress=gzip -k2 data && curl -sSLo /tmp/x --output-dir y https://x && go test -race -count=1 -run X ./... -exec ./e`,
		"commands-read": strings.Repeat("sort -rnk2 -o x y >z;", bashcmd.MaxCommands),
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bashcmd.Classify(cmd, where)
			}
		})
	}
}
