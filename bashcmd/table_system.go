package bashcmd

import "strings"

// Interpreters, builds, the network, the system, and the commands that
// only destroy.

// interpreters are the names (and prefixes of versioned names: python3.12)
// of the programs that run code.
var interpreters = []string{"python", "python2", "python3", "pypy", "pypy3", "perl", "ruby", "node", "nodejs",
	"deno", "php", "lua", "luajit", "tclsh", "wish", "Rscript", "R", "osascript", "pwsh", "powershell", "irb",
	"ipython", "jshell", "groovy", "scala", "kotlin", "julia", "guile", "racket", "sbcl", "ghci", "runghc",
	"elixir", "erl", "escript", "swift", "dotnet", "java", "awk", "gawk", "mawk", "nawk"}

// interpreter runs code; python -m pip install needs the network, and
// an interpreter that reads what a download pipes into it runs that.
var interpreter = &spec{does: &nature{Sandbox, KindProgram, "runs code"}, operands: opText, check: func(k *check) {
	k.fetched()
	args := k.cmd.Args[1:]
	for i := 0; i+2 < len(args); i++ {
		if args[i].Static && args[i].Text == "-m" && args[i+1].Static && args[i+1].Text == "pip" {
			if sp := table["pip"].subs[args[i+2].Text]; sp != nil && sp.does != nil && sp.does.class == Leaves {
				k.leaves(sp.does.kind, "pip %s %s", args[i+2].Text, sp.does.reason)
			}
			return
		}
	}
}}

func addSystem(add func(*spec, ...string)) {
	add(&spec{opts: options(`C|directory=:dir f|file|makefile=:read B|always-make d debug[=] e|environment-overrides
		E|eval= i|ignore-errors I|include-dir= j|jobs[=] k|keep-going l|load-average|max-load[=] L|check-symlink-times
		n|just-print|dry-run|recon o|old-file|assume-old= O|output-sync[=] p|print-data-base q|question
		r|no-builtin-rules R|no-builtin-variables s|silent|quiet no-silent S|no-keep-going|stop t|touch trace
		v|version w|print-directory no-print-directory W|what-if|new-file|assume-new= warn-undefined-variables
		shuffle[=] h|help`), operands: opText, does: &nature{Sandbox, KindProgram, "runs the rules of a Makefile"}},
		"make", "gmake")
	for _, name := range []string{"cmake", "ninja", "bazel", "bazelisk", "gradle", "gradlew", "mvn", "ant", "meson",
		"scons", "rake", "tox", "nox", "pytest", "py.test", "jest", "vitest", "mocha", "tsc", "eslint", "prettier",
		"black", "ruff", "mypy", "flake8", "pylint", "gofmt", "goimports", "golangci-lint", "staticcheck",
		"rustc", "rustfmt", "clippy-driver", "javac", "kotlinc", "ld", "as", "ar", "strip", "objcopy", "objdump",
		"nm", "ldd", "gdb", "lldb", "strace", "ltrace", "valgrind", "perf", "xxd", "less", "more", "most", "man",
		"info", "vi", "vim", "nvim", "view", "nano", "emacs", "ed", "ex", "pico", "watchexec", "entr",
		"history", "bind", "mktemp", "mkfifo", "mknod", "ps", "top", "htop", "pkill", "killall", "pgrep", "lsof",
		"chattr", "setfacl", "getfacl", "csplit", "shuf", "envsubst", "iconv", "sqlite3", "openssl", "ssh-keygen",
		"gpg", "gpg2", "age", "base58", "tmux", "screen", "direnv"} {
		add(program("runs "+name+", which is not on the list of known-safe commands"), name)
	}
	cc := &spec{opts: nil, operands: opText, does: &nature{Sandbox, KindProgram, "compiles code"}, check: func(k *check) {
		args := k.cmd.Args[1:]
		for i, w := range args {
			switch {
			case w.Static && w.Text == "-o" && i+1 < len(args):
				k.write(args[i+1])
			case w.Static && strings.HasPrefix(w.Text, "-o") && len(w.Text) > 2:
				k.write(Word{Text: w.Text[2:], Static: true})
			}
		}
	}}
	add(cc, "cc", "gcc", "g++", "c++", "clang", "clang++", "tcc", "zig")
	add(&spec{operands: opText, does: &nature{Sandbox, KindProgram, "signals processes"}, check: killCheck}, "kill")
	add(&spec{operands: opText, does: &nature{Leaves, KindSystem, "controls the system's services"}, check: func(k *check) {
		for _, w := range k.cmd.Args[1:] {
			switch w.Text {
			case "poweroff", "reboot", "halt", "kexec", "emergency", "rescue", "suspend", "hibernate", "hybrid-sleep", "soft-reboot":
				k.destroys("%s stops the machine", w.Text)
				return
			}
		}
	}}, "systemctl")
	add(destroying("stops or restarts the machine"), "shutdown", "reboot", "halt", "poweroff", "telinit", "init", "kexec")
	add(destroying("kills every process"), "killall5")
	add(destroying("formats or partitions a disk"), "mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "cfdisk",
		"sgdisk", "gdisk", "parted", "blkdiscard", "mkdosfs", "mkntfs", "cryptsetup", "badblocks", "hdparm")

	net := func(reason string, names ...string) {
		add(leaving(KindNetwork, reason), names...)
	}
	net("reaches another machine over the network", "ssh", "sftp", "mosh", "telnet", "ftp", "lftp", "nc", "ncat",
		"netcat", "socat", "websocat", "ping", "ping6", "traceroute", "tracepath", "mtr", "dig", "nslookup",
		"host", "whois", "http", "https", "xh", "httpie", "aria2c", "axel", "rclone", "s3cmd", "gsutil", "mail",
		"sendmail", "mutt", "irssi", "weechat", "nmap", "wscat", "grpcurl")
	net("talks to a cloud service over the network", "gh", "glab", "aws", "gcloud", "az", "doctl", "heroku",
		"vercel", "netlify", "fly", "flyctl", "wrangler", "firebase", "terraform", "tofu", "pulumi", "ansible",
		"ansible-playbook", "vagrant")
	add(&spec{operands: opRead, does: &nature{Leaves, KindNetwork, "copies files to or from another machine"},
		check: scpCheck}, "scp")
	add(&spec{opts: options(curlOptions), operands: opText, does: &nature{Leaves, KindNetwork, "reaches the network"},
		check: func(k *check) {
			if k.p.given("-O", "--remote-name-all") && !k.p.given("--output-dir") {
				k.here(KindWrites, "writes the files it downloads")
			}
		}}, "curl")
	add(&spec{opts: options(wgetOptions), operands: opText, does: &nature{Leaves, KindNetwork, "downloads from the network"},
		check: func(k *check) {
			if !k.p.given("-O", "-P", "--spider") {
				k.here(KindWrites, "writes the files it downloads")
			}
		}}, "wget")
	add(&spec{opts: options(rsyncOptions), operands: opText, does: &nature{Sandbox, KindWrites, "copies files"},
		check: rsyncCheck}, "rsync")
	sys := func(reason string, names ...string) {
		add(leaving(KindSystem, reason), names...)
	}
	sys("talks to a service outside the sandbox", "docker", "podman", "nerdctl", "kubectl", "helm", "minikube",
		"kind", "k3d", "crictl", "ctr", "lxc", "virsh", "qemu-system-x86_64", "dbus-send", "busctl",
		"xdg-open", "open", "notify-send", "osascript-open", "service", "launchctl", "initctl", "loginctl")
	sys("schedules commands to run later, outside the sandbox", "crontab", "at", "batch", "atrm")
	sys("installs or removes the system's packages", "apt", "apt-get", "aptitude", "dpkg", "dnf", "yum", "zypper",
		"pacman", "apk", "brew", "port", "snap", "flatpak", "nix-env", "emerge", "rpm")
	sys("changes the system", "mount", "umount", "swapon", "swapoff", "modprobe", "insmod", "rmmod", "iptables",
		"ip6tables", "nft", "ufw", "firewall-cmd", "route", "ifconfig", "ip", "useradd", "userdel", "usermod",
		"groupadd", "groupdel", "passwd", "chpasswd", "chsh", "chfn", "visudo", "setcap", "timedatectl",
		"hostnamectl", "localectl", "update-alternatives", "ldconfig", "sysctl", "journalctl", "dmesg", "chvt",
		"setenforce", "auditctl")
}

// killCheck: kill -1 (as a process, after the signal) and kill 1 kill
// every process, or init.
func killCheck(k *check) {
	args := k.cmd.Args[1:]
	signal := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.Static {
			continue
		}
		v := w.Text
		switch {
		case v == "-s" || v == "-n" || v == "--signal":
			i++
			signal = true
		case v == "-l" || v == "-L" || v == "--list" || v == "--table":
			return // lists the signals
		case v == "--":
			for _, x := range args[i+1:] {
				if x.Static && (x.Text == "-1" || x.Text == "1") {
					k.destroys("%s kills every process it may", x.Text)
					return
				}
			}
			return
		case strings.HasPrefix(v, "-") && !signal:
			signal = true // -9, -KILL, -SIGKILL
		case v == "-1" || v == "1":
			k.destroys("%s kills every process it may, or init", v)
			return
		}
	}
}

// scpCheck: the last operand is where scp copies to; a local one is
// written.
func scpCheck(k *check) {
	ops := k.p.operands
	var local []Word
	for _, w := range ops {
		if w.Static && strings.HasPrefix(w.Text, "-") {
			continue
		}
		local = append(local, w)
	}
	if n := len(local); n > 1 && !remotePath(local[n-1].Text) {
		k.write(local[n-1])
	}
}

// remotePath reports whether an rsync or scp operand names another
// machine: host:path, user@host:path, rsync://, a :: module.
func remotePath(p string) bool {
	if strings.Contains(p, "://") || strings.Contains(p, "::") {
		return true
	}
	colon := strings.IndexByte(p, ':')
	slash := strings.IndexByte(p, '/')
	return colon > 0 && (slash < 0 || colon < slash)
}

// rsyncCheck: rsync between local paths copies into the last one (and
// with --delete deletes there what the sources do not have); a remote
// one needs the network.
func rsyncCheck(k *check) {
	ops := k.p.operands
	remote := k.p.given("-e")
	for _, w := range ops {
		if remotePath(w.Text) {
			remote = true
		}
	}
	if remote {
		k.leaves(KindNetwork, "copies files to or from another machine")
	}
	if len(ops) < 2 {
		return
	}
	dest := ops[len(ops)-1]
	k.reads(ops[:len(ops)-1])
	if remotePath(dest.Text) {
		return
	}
	k.write(Word{Text: strings.TrimSuffix(dest.Text, "/") + "/", Static: dest.Static})
	if k.p.has(fxDeletes) {
		k.removeAt(dest.Text, k.where(shapeOf(dest)), true)
	}
}

const curlOptions = `o|output=:write O|remote-name remote-name-all output-dir=:writedir create-dirs
	D|dump-header=:write c|cookie-jar=:write b|cookie= trace=:write trace-ascii=:write stderr=:write
	libcurl=:write K|config=:run d|data=:data data-ascii=:data data-binary=:data data-raw= data-urlencode=:data
	F|form=:data form-string= T|upload-file=:read json=:data s|silent S|show-error L|location f|fail
	fail-with-body i|include I|head X|request= H|header=:data A|user-agent= e|referer= u|user= k|insecure
	v|verbose q|disable m|max-time= connect-timeout= retry= retry-delay= retry-max-time= retry-all-errors
	compressed G|get w|write-out= x|proxy= 4|ipv4 6|ipv6 n|netrc netrc-file=:read netrc-optional
	E|cert= key=:read cacert= capath= r|range= C|continue-at= Z|parallel parallel-max= z|time-cond=
	Y|speed-limit= y|speed-time= limit-rate= max-filesize= max-redirs= location-trusted http1.0 http1.1 http2
	http3 tlsv1.2 tlsv1.3 no-progress-meter progress-bar no-buffer N url= resolve=
	connect-to= unix-socket= abstract-unix-socket= oauth2-bearer= basic digest ntlm negotiate anyauth
	U|proxy-user= noproxy= socks5= socks5-hostname= tcp-nodelay keepalive-time= no-keepalive
	fail-early styled-output no-styled-output variable= expand-url= url-query= etag-save=:write
	etag-compare=:read hsts= alt-svc= raw tr-encoding ignore-content-length path-as-is globoff|g M|manual
	V|version h|help`

const wgetOptions = `O|output-document=:write o|output-file=:write a|append-output=:write
	P|directory-prefix=:writedir i|input-file=:read post-file=:read body-file=:read post-data= body-data=
	e|execute=:run use-askpass=:run q|quiet v|verbose d|debug c|continue N|timestamping S|server-response
	spider T|timeout= t|tries= w|wait= random-wait U|user-agent= header= user= password= http-user=
	http-password= no-check-certificate r|recursive l|level= no-parent k|convert-links p|page-requisites
	m|mirror no-directories no-host-directories x|force-directories cut-dirs= no-clobber
	A|accept= R|reject= D|domains= exclude-domains= L|relative H|span-hosts 4|inet4-only 6|inet6-only
	limit-rate= Q|quota= no-verbose content-disposition trust-server-names max-redirect= method=
	load-cookies=:read save-cookies=:write keep-session-cookies B|base= F|force-html show-progress
	progress= no-config config=:run V|version h|help`

const rsyncOptions = `v|verbose q|quiet a|archive r|recursive R|relative b|backup backup-dir= suffix= u|update
	l|links L|copy-links copy-unsafe-links safe-links H|hard-links K|keep-dirlinks p|perms E|executability
	A|acls X|xattrs o|owner g|group D devices specials t|times O|omit-dir-times J|omit-link-times
	S|sparse n|dry-run W|whole-file x|one-file-system B|block-size= e|rsh=:run rsync-path=:run existing
	ignore-existing remove-source-files:deletes del:deletes delete:deletes delete-before:deletes
	delete-during:deletes delete-delay:deletes delete-after:deletes delete-excluded:deletes ignore-errors
	force max-delete= max-size= min-size= partial partial-dir= delay-updates m|prune-empty-dirs
	numeric-ids timeout= contimeout= I|ignore-times size-only modify-window= T|temp-dir= y|fuzzy
	compare-dest= copy-dest= link-dest= z|compress compress-level= C|cvs-exclude f|filter= F exclude=
	exclude-from=:read include= include-from=:read files-from=:read 0|from0 s|protect-args
	address= port= sockopts= blocking-io stats 8|8-bit-output h|human-readable progress P i|itemize-changes
	out-format= log-file=:write log-file-format= password-file=:read list-only bwlimit= write-batch=:write
	only-write-batch=:write read-batch=:read protocol= iconv= checksum|c 4|ipv4 6|ipv6 version help
	info= debug= mkpath chown= chmod= open-noatime no-implied-dirs append append-verify inplace
	copy-dirlinks k`
