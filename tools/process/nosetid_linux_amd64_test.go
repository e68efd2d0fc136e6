package process

import "golang.org/x/sys/unix"

// legacyCalls are the verdicts on the calls only amd64 has.
func legacyCalls(allow, eperm uint32) []filterCall {
	return []filterCall{
		{"chmod 0755", unix.SYS_CHMOD, []uint64{0, 0o755}, allow},
		{"chmod 04755", unix.SYS_CHMOD, []uint64{0, 0o4755}, eperm},
		{"open create 02755", unix.SYS_OPEN, []uint64{0, unix.O_CREAT | unix.O_WRONLY, 0o2755}, eperm},
		{"open read, stray mode", unix.SYS_OPEN, []uint64{0, unix.O_RDONLY, 0o4755}, allow},
		{"creat 0644", unix.SYS_CREAT, []uint64{0, 0o644}, allow},
		{"creat 04755", unix.SYS_CREAT, []uint64{0, 0o4755}, eperm},
		{"mknod char device", unix.SYS_MKNOD, []uint64{0, unix.S_IFCHR | 0o666, unix.Mkdev(1, 3)}, eperm},
		{"mknod fifo", unix.SYS_MKNOD, []uint64{0, unix.S_IFIFO | 0o644, 0}, allow},
	}
}
