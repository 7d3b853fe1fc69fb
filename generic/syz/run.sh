#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make syz [SYZ_MINUTES=N] [SYZKALLER=path] [SYZ_LEAK=1]: fuzzes /dev/NAME
# with syzkaller for N minutes (default 10) under TCG and prints what it
# did.  NAME is the interface (the one header of uapi/linux/).
#
#  1. syzkaller (env.sh here: SYZKALLER or a snapshot beside the project)
#     is built with dev_NAME.txt among its descriptions (SYZ_DESCRIPTION,
#     or what describe.sh here writes from the header): syz-manager,
#     syz-execprog, syz-executor.
#  2. The kernel: the debug kernel (../vm/debug-kernel.sh debug: KASAN,
#     lockdep, kmemleak, and syz.config's KCOV, disk and NIC); the module
#     is built against it, so it is instrumented too.
#  3. The guest: bookworm with sshd (../vm/fetch.sh syz-rootfs), the
#     module loaded by its init, made into a disk image each run.
#  4. syz-manager runs the VM for N minutes with only the module's calls
#     (and close) enabled, then stops; its -bench file and its /rawcover
#     and /modules pages say what it did.
#
# Prints programs executed, corpus size, signal, the coverage inside the
# module's own functions (the corpus's PCs in the module's .text, by
# function: syz-manager's own /funccover needs addr2line output this
# snapshot cannot parse for this kernel) and every crash title; the work dir
# ($NAME_BUILD/syz, default build/syz) keeps each crash's report and
# syzkaller's reproducer.  Ends with "N passed, N failed": a crash, an
# empty corpus or no coverage in the module fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
vm=$here/../vm
minutes=${SYZ_MINUTES:-10}
case $minutes in
'' | *[!0-9]* | 0) echo "SYZ_MINUTES must be a whole number of minutes, 1 or more: '$minutes'" >&2; exit 2 ;;
esac
passed=0
failed=0
step() { printf '>>> %s\n' "$*" >&2; }
ok() { echo "ok - $*"; passed=$((passed + 1)); }
notok() { echo "not ok - $*"; failed=$((failed + 1)); }
finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
	exit
}

"$vm/fetch.sh" deps syz
# $name, $CACHE, $tree, $desc, Go, syz_describe and syz_forget
. "$here/env.sh"
upper=$(echo "$name" | tr a-z A-Z)
build_var=${upper}_BUILD
BUILD=${!build_var:-$top/build}
work=$BUILD/syz

step "building syzkaller in $tree (about 6 minutes cold)"
mkdir -p "$BUILD"
syz_describe
trap syz_forget EXIT
if make -C "$tree" TARGETOS=linux TARGETARCH=amd64 manager execprog executor \
	>"$BUILD/syz-build.log" 2>&1; then
	ok "syzkaller built with dev_$name.txt ($(basename "$tree"))"
else
	notok "syzkaller does not build ($BUILD/syz-build.log):"
	grep -iE 'error|cannot' "$BUILD/syz-build.log" | head -n 20 | sed 's/^/#   /' || true
	finish
fi

step "the debug kernel, with KCOV (debug-kernel.sh debug)"
if ! read -r kver bzimage kdir < <("$vm/debug-kernel.sh" debug); then
	notok "the debug kernel does not build"
	finish
fi
grep -qx CONFIG_KCOV=y "$kdir/.config" || { notok "$kver has no KCOV"; finish; }
ok "kernel $kver with KCOV, KASAN, lockdep and kmemleak"

step "building the module against $kver"
rm -rf "$work"
mkdir -p "$work/src" "$work/obj"
for d in Kbuild module uapi generic; do
	[ -e "$top/$d" ] && cp -r "$top/$d" "$work/src/"
done
if ! make -s -C "$kdir" M="$work/src" modules >&2; then
	notok "the module does not build against $kver"
	finish
fi
cp "$work/src/module/$name.ko" "$work/obj/"
# Instrumented: every function of the module calls KCOV's hook.
if nm "$work/obj/$name.ko" | grep -c '__sanitizer_cov_trace_pc' >/dev/null; then
	ok "the module is built with KCOV's instrumentation"
else
	notok "the module has no KCOV instrumentation"
fi

step "the guest image"
rootfs=$("$vm/fetch.sh" syz-rootfs) || { notok "no guest tree"; finish; }
key=$CACHE/syz/id_ed25519
[ -e "$key" ] || ssh-keygen -q -t ed25519 -N '' -C "$name-syz" -f "$key"
img=$work/image
stage=$work/rootfs
cp -a "$rootfs" "$stage"
rm -f "$stage/.done"
mkdir -p "$stage/root/.ssh"
cp "$key.pub" "$stage/root/.ssh/authorized_keys"
chmod 700 "$stage/root/.ssh"
cp "$work/obj/$name.ko" "$stage/root/$name.ko"
cat >"$stage/sbin/syz-init" <<EOF
#!/bin/sh
# make syz's guest init: no systemd, just what syz-manager needs.
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -o remount,rw /
hostname $name-syz
ip link set lo up
ip link set eth0 up
ip addr add 10.0.2.15/24 dev eth0
ip route add default via 10.0.2.2
# No module autoloading: the guest has no /lib/modules for this kernel, and
# syz-executor's netdev ioctls would wait on a modprobe per device name.
echo >/proc/sys/kernel/modprobe
if insmod /root/$name.ko; then
	echo "=== $name: loaded ==="
else
	echo "=== $name: insmod failed ==="
fi
mkdir -p /run/sshd
exec /usr/sbin/sshd -D -e
EOF
chmod 755 "$stage/sbin/syz-init"
truncate -s 2G "$img"
mkfs.ext4 -q -F -L root -d "$stage" "$img"
rm -rf "$stage"

# syzkaller checks for leaks after every program when kmemleak is on: two
# scans of the guest's memory, which under TCG take longer than the
# programs.  So by default the guest boots with kmemleak=off (check-debug
# scans once, at its end); SYZ_LEAK=1 keeps it.
leak=" kmemleak=off"
[ "${SYZ_LEAK:-0}" = 1 ] && leak=
port=$((56000 + RANDOM % 4000))
calls="\"openat\$$name\", \"close\""
for c in $(sed 's/#.*//' "$desc/dev_$name.txt" | grep -oE '^(ioctl|read)\$[A-Za-z0-9_]+'); do
	calls="$calls, \"$c\""
done
cat >"$work/manager.cfg" <<EOF
{
	"target": "linux/amd64",
	"http": "127.0.0.1:$port",
	"workdir": "$work/workdir",
	"kernel_obj": "$kdir",
	"module_obj": ["$work/obj"],
	"image": "$img",
	"sshkey": "$key",
	"syzkaller": "$tree",
	"procs": 2,
	"type": "qemu",
	"sandbox": "none",
	"reproduce": true,
	"enable_syscalls": [$calls],
	"vm": {
		"count": 1,
		"cpu": 2,
		"mem": 2048,
		"kernel": "$bzimage",
		"cmdline": "net.ifnames=0 root=/dev/vda rw init=/sbin/syz-init$leak",
		"qemu_args": "-accel tcg -cpu max",
		"network_device": "virtio-net-pci",
		"image_device": "drive index=0,media=disk,if=virtio,format=raw,file="
	}
}
EOF

step "syz-manager: fuzzing for $minutes minutes under TCG (http://127.0.0.1:$port)"
log=$work/manager.log
"$tree/bin/syz-manager" -config "$work/manager.cfg" -bench "$work/bench.json" \
	>"$log" 2>&1 &
mpid=$!
end=$((SECONDS + minutes * 60))
while [ $SECONDS -lt $end ] && kill -0 $mpid 2>/dev/null; do
	sleep 30
	{ grep -E 'exec total=' "$log" || true; } | tail -n 1 | cut -c1-200 | sed 's/^/# /' >&2
done
if ! kill -0 $mpid 2>/dev/null; then
	notok "syz-manager stopped before its $minutes minutes:"
	tail -n 20 "$log" | sed 's/^/#   /'
fi
# What the corpus covers, and where the module was loaded.
curl -s --max-time 900 -o "$work/rawcover" "http://127.0.0.1:$port/rawcover" || true
curl -s --max-time 60 -o "$work/modules.json" "http://127.0.0.1:$port/modules?raw=1" || true
kill -INT $mpid 2>/dev/null || true
for _ in $(seq 60); do
	kill -0 $mpid 2>/dev/null || break
	sleep 1
done
kill -KILL $mpid 2>/dev/null || true
wait $mpid 2>/dev/null || true

# The last minute's numbers (syz-manager -bench), and the module's functions.
read -r executed corpus signal < <(python3 - "$work/bench.json" <<'EOF'
import json, sys
try:
	text = open(sys.argv[1]).read()
except OSError:
	text = ""
dec, pos, last = json.JSONDecoder(), 0, {}
while True:
	while pos < len(text) and text[pos].isspace():
		pos += 1
	if pos >= len(text):
		break
	last, pos = dec.raw_decode(text, pos)
print(last.get("exec total", 0), last.get("corpus", 0), last.get("signal", 0))
EOF
)
echo "# programs executed: $executed, corpus: $corpus programs, signal: $signal"
if [ "$executed" -gt 0 ]; then
	ok "syz-manager executed $executed programs"
else
	notok "syz-manager executed no program (see $log)"
	tail -n 20 "$log" | sed 's/^/#   /'
fi
if [ "$corpus" -gt 0 ]; then
	ok "the corpus has $corpus programs"
else
	notok "the corpus is empty"
fi
# The module's coverage: the PCs of the corpus (/rawcover) that fall in the
# module's .text, where the manager saw it loaded (/modules), mapped to the
# module's own functions with its symbol table.
read -r funcs covered < <(python3 - "$work/rawcover" "$work/modules.json" \
	"$work/obj/$name.ko" "$work/module-cover" "$name" <<'EOF'
import json, subprocess, sys
rawcover, modules, ko, out, name = sys.argv[1:6]
try:
	mods = json.load(open(modules)) or []
except (OSError, ValueError):
	mods = []
base = size = None
for m in mods:
	if m.get("Name") == name:
		base, size = m["Addr"], m["Size"]
if base is None:
	print(0, 0)
	sys.exit()
# .text's section index, then its functions (offset, size, name)
sections = subprocess.run(["readelf", "-SW", ko], capture_output=True,
			  text=True).stdout
text = None
for line in sections.splitlines():
	f = line.replace("[ ", "[").split()
	if len(f) > 2 and f[0].startswith("[") and f[1] == ".text":
		text = f[0].strip("[]")
syms = []
for line in subprocess.run(["readelf", "-sW", ko], capture_output=True,
			   text=True).stdout.splitlines():
	f = line.split()
	if len(f) == 8 and f[3] == "FUNC" and f[6] == text:
		syms.append((int(f[1], 16), int(f[2]), f[7]))
hits = {}
try:
	pcs = [int(l, 16) for l in open(rawcover) if l.startswith("0x")]
except (OSError, ValueError):
	pcs = []
for pc in pcs:
	if not base <= pc < base + size:
		continue
	off = pc - base
	name = "?"
	for start, length, sym in syms:
		if start <= off < start + max(length, 1):
			name = sym
	hits[name] = hits.get(name, 0) + 1
with open(out, "w") as f:
	for name in sorted(hits):
		f.write("%-40s %d\n" % (name, hits[name]))
print(len(hits), sum(hits.values()))
EOF
)
echo "# coverage inside module/: $covered PCs in $funcs functions of $name.ko"
sed 's/^/#   /' "$work/module-cover" 2>/dev/null | head -n 60 || true
if [ "$covered" -gt 0 ]; then
	ok "coverage inside the module's own functions: $covered PCs in $funcs functions"
else
	notok "no coverage inside the module's own functions ($work/rawcover, $work/modules.json)"
fi

crashes=0
for d in "$work"/workdir/crashes/*/; do
	[ -e "$d/description" ] || continue
	crashes=$((crashes + 1))
	echo "# crash: $(cat "$d/description")"
	echo "#   report: $d/report0"
	[ -e "$d/repro.prog" ] && echo "#   reproducer: $d/repro.prog"
	[ -e "$d/repro.cprog" ] && echo "#   C reproducer: $d/repro.cprog"
	sed -n '1,40p' "$d/report0" 2>/dev/null | sed 's/^/#     /'
done
if [ "$crashes" = 0 ]; then
	ok "no crash in $minutes minutes"
else
	notok "$crashes crashes (kept in $work/workdir/crashes)"
fi
finish
