package bashcmd

import "strings"

// go, and the package managers: builds and tests run in the sandbox;
// what downloads needs the network.

// goBuild are the flags of go build, test, run, install, vet and list
// (Go's flag package: one or two dashes, whole names).
const goBuild = `C=:dir a n p= race msan asan cover covermode= coverpkg= v work x asmflags= buildmode= buildvcs[=]
	compiler= gccgoflags= gcflags= installsuffix= ldflags= linkshared mod= modcacherw modfile=:read
	overlay=:read pgo= pkgdir=:writedir tags= trimpath toolexec=:run json`

// goTest are go test's own flags, also spelled -test.NAME.
const goTest = `run= bench= benchtime= benchmem count= cpu= failfast fullpath fuzz= fuzztime= fuzzminimizetime=
	list= parallel= short shuffle= skip= timeout= vet= exec=:run c o=:write coverprofile=:write
	cpuprofile=:write memprofile=:write memprofilerate= blockprofile=:write blockprofilerate= mutexprofile=:write
	mutexprofilefraction= trace=:write outputdir=:writedir args:stop`

func goSpec(decl string, permute bool, does *nature, ops opKind) *spec {
	return &spec{opts: options(decl), style: golang, strict: !permute, does: does, operands: ops}
}

func addGo(add func(*spec, ...string)) {
	build := &nature{Sandbox, KindProgram, "builds Go code, which runs the compiler and the code's generators"}
	testN := &nature{Sandbox, KindProgram, "builds and runs Go tests"}
	testFlags := []string{"test.v", "test.json", "test.paniconexit0", "test.testlogfile=:write", "test.gocoverdir=:writedir"}
	for _, f := range strings.Fields(goTest) {
		name, rest := f, ""
		if i := strings.IndexAny(f, "=:"); i >= 0 {
			name, rest = f[:i], f[i:]
		}
		if name == "o" || name == "c" || name == "exec" || name == "vet" || name == "args" {
			testFlags = append(testFlags, f) // go test's own, not the test binary's
			continue
		}
		testFlags = append(testFlags, name+"|test."+name+rest)
	}
	subs := map[string]*spec{
		"":        {safe: true},
		"*":       {does: &nature{Sandbox, KindProgram, "runs a go command that is not on the list of known-safe commands"}},
		"version": {safe: true, opts: options(`m v json`), style: golang, operands: opNames},
		"env":     {safe: true, opts: options(`json changed u w`), style: golang, operands: opText, check: goEnv},
		"list": {safe: true, opts: options(goBuild + ` e f= find deps test m u:net versions:net retracted reuse=:read
			compiled:run export:run`), style: golang, strict: true, operands: opText},
		"doc":   {safe: true, opts: options(`all c cmd short src u http=:net`), style: golang, operands: opText},
		"help":  {safe: true, operands: opText},
		"build": goSpec(goBuild+" o=:write", false, build, opText),
		"install": goSpec(goBuild, false, build, opText).with(func(sp *spec) {
			sp.check = func(k *check) {
				for _, w := range k.p.operands {
					if strings.Contains(w.Text, "@") {
						k.leaves(KindNetwork, "downloads %s", w.Text)
						return
					}
				}
				k.leaves(KindOutside, "installs into GOBIN or GOPATH/bin, outside the working directory")
			}
		}),
		"run":      goSpec(goBuild+" exec=:run", false, &nature{Sandbox, KindProgram, "builds and runs a Go program"}, opText),
		"test":     goSpec(goBuild+" "+strings.Join(testFlags, " "), true, testN, opText),
		"vet":      goSpec(goBuild+" vettool=:run", true, &nature{Sandbox, KindProgram, "runs the Go analyzers"}, opText),
		"generate": program("runs the commands of //go:generate lines"),
		"fmt":      {opts: options(`n x mod= modfile=:read`), style: golang, operands: opWriteAll, does: &nature{Sandbox, KindWrites, "rewrites Go files"}},
		"fix":      program("rewrites Go files"),
		"tool":     program("runs a Go tool"),
		"work":     program("edits go.work"),
		"get":      leaving(KindNetwork, "downloads modules"),
		"clean": {opts: options(goBuild + ` i r cache:deletes testcache:deletes modcache:deletes fuzzcache:deletes`),
			style: golang, strict: true, operands: opText, does: &nature{Sandbox, KindDeletes, "deletes build outputs"},
			check: func(k *check) {
				if k.p.has(fxDeletes) {
					k.leaves(KindOutside, "deletes Go's caches, outside the working directory")
				}
			}},
		"mod": {subs: map[string]*spec{
			"":         {safe: true},
			"*":        program("runs a go mod command that is not on the list of known-safe commands"),
			"download": leaving(KindNetwork, "downloads modules"),
			"tidy":     program("updates go.mod and go.sum, and may download modules"),
			"vendor":   program("copies modules into vendor"),
			"verify":   program("checks the module cache"),
			"why":      program("explains why modules are needed"),
			"graph":    program("prints the module graph, and may download modules"),
			"init":     program("makes a go.mod"),
			"edit":     program("edits go.mod"),
		}},
	}
	add(&spec{safe: true, subs: subs}, "go")
	add(&spec{safe: true, subs: map[string]*spec{
		"":        {safe: true},
		"*":       program("runs a cargo command (or a plugin) that is not on the list of known-safe commands"),
		"install": leaving(KindNetwork, "downloads and installs a crate"),
		"publish": leaving(KindNetwork, "publishes a crate"),
		"fetch":   leaving(KindNetwork, "downloads dependencies"),
		"update":  leaving(KindNetwork, "updates dependencies from the network"),
		"search":  leaving(KindNetwork, "searches crates.io"),
		"add":     leaving(KindNetwork, "adds a dependency from crates.io"),
		"login":   leaving(KindNetwork, "logs in to a registry"),
		"owner":   leaving(KindNetwork, "changes a crate's owners"),
		"yank":    leaving(KindNetwork, "yanks a published crate"),
	}}, "cargo")
	js := func(cmd string, network ...string) *spec {
		subs := map[string]*spec{"*": program("runs " + cmd + " scripts or commands")}
		for _, n := range network {
			subs[n] = leaving(KindNetwork, "downloads or publishes packages")
		}
		return &spec{safe: true, subs: subs}
	}
	add(js("npm", "install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "add", "ci",
		"clean-install", "ic", "install-clean", "install-ci-test", "cit", "install-test", "it", "update", "up",
		"upgrade", "udpate", "publish", "unpublish", "login", "logout", "adduser", "add-user", "whoami", "view",
		"info", "show", "v", "search", "find", "s", "se", "outdated", "audit", "deprecate", "dist-tag", "owner",
		"access", "token", "ping", "doctor", "exec", "x", "create", "init", "innit", "pack", "star", "unstar",
		"stars", "team", "hook", "org", "profile", "fund", "repo", "docs", "bugs", "home", "link", "ln",
		"uninstall", "remove", "rm", "r", "un", "unlink", "dedupe", "ddp", "prune", "rebuild", "rb"), "npm")
	add(js("pnpm", "install", "i", "add", "update", "up", "upgrade", "remove", "rm", "uninstall", "un", "publish",
		"dlx", "create", "fetch", "install-test", "it", "outdated", "audit", "login", "logout", "view", "info",
		"link", "ln", "unlink", "import", "rebuild", "rb", "prune", "dedupe", "env", "setup", "self-update"), "pnpm")
	yarn := js("yarn", "", "install", "add", "upgrade", "up", "upgrade-interactive", "remove", "publish", "dlx",
		"create", "npm", "login", "logout", "info", "outdated", "audit", "link", "unlink", "import", "global",
		"set", "plugin", "why", "dedupe", "autoclean")
	add(yarn, "yarn")
	add(js("bun", "install", "i", "add", "a", "update", "remove", "rm", "x", "create", "c", "publish", "link",
		"unlink", "pm", "upgrade", "outdated"), "bun")
	add(leaving(KindNetwork, "downloads and runs a package"), "npx", "pnpx", "bunx", "uvx", "pipx")
	pip := &spec{safe: true, subs: map[string]*spec{
		"":         {safe: true},
		"*":        program("runs a pip command that is not on the list of known-safe commands"),
		"install":  leaving(KindNetwork, "downloads and installs packages"),
		"download": leaving(KindNetwork, "downloads packages"),
		"wheel":    leaving(KindNetwork, "builds wheels, downloading what they need"),
		"index":    leaving(KindNetwork, "asks the package index"),
		"search":   leaving(KindNetwork, "asks the package index"),
		"uninstall": {does: &nature{Leaves, KindOutside,
			"uninstalls packages from the Python installation, outside the working directory"}},
	}}
	add(pip, "pip", "pip3")
	familyTable["pip3."] = pip
	add(&spec{safe: true, subs: map[string]*spec{
		"*":       program("runs a uv command that is not on the list of known-safe commands"),
		"add":     leaving(KindNetwork, "adds packages from the index"),
		"sync":    leaving(KindNetwork, "installs packages from the index"),
		"lock":    leaving(KindNetwork, "resolves packages from the index"),
		"pip":     pip,
		"tool":    leaving(KindNetwork, "downloads and runs tools"),
		"python":  leaving(KindNetwork, "downloads Python"),
		"publish": leaving(KindNetwork, "publishes a package"),
		"self":    leaving(KindNetwork, "updates uv"),
	}}, "uv")
	add(&spec{safe: true, subs: map[string]*spec{
		"*":       program("runs a poetry command that is not on the list of known-safe commands"),
		"add":     leaving(KindNetwork, "adds packages from the index"),
		"install": leaving(KindNetwork, "installs packages from the index"),
		"update":  leaving(KindNetwork, "updates packages from the index"),
		"lock":    leaving(KindNetwork, "resolves packages from the index"),
		"publish": leaving(KindNetwork, "publishes a package"),
		"self":    leaving(KindNetwork, "updates poetry"),
	}}, "poetry")
	add(&spec{safe: true, subs: map[string]*spec{
		"*":       program("runs a gem command that is not on the list of known-safe commands"),
		"install": leaving(KindNetwork, "downloads and installs gems"),
		"update":  leaving(KindNetwork, "downloads gems"),
		"push":    leaving(KindNetwork, "publishes a gem"),
		"fetch":   leaving(KindNetwork, "downloads gems"),
	}}, "gem")
	add(&spec{safe: true, subs: map[string]*spec{
		"":        leaving(KindNetwork, "installs gems"),
		"*":       program("runs a bundler command that is not on the list of known-safe commands"),
		"install": leaving(KindNetwork, "installs gems"),
		"update":  leaving(KindNetwork, "updates gems"),
		"add":     leaving(KindNetwork, "adds a gem"),
	}}, "bundle", "bundler")
}

// goEnv: go env -w and -u write Go's configuration file, outside the
// working directory.
func goEnv(k *check) {
	if k.p.given("-w", "-u") {
		k.leaves(KindOutside, "changes Go's configuration file, outside the working directory")
	}
}
