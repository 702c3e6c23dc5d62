#!/usr/bin/env bash
# The Debian package, as an administrator gets it: contrib/package.sh
# builds it from the tree (a copy of it, -j2, without the unit tests),
# lintian finds no error and no warning but the allowed ones, apt-get
# installs it (the profd user, its directories, the service enabled the
# Debian way), the installed profd runs as that user with the shipped
# config on a private socket and the installed profctl pushes a fixture
# and prints its top, as go tool pprof does; the service, started by a
# systemd of the test's own under the unit's sandbox, serves its TCP
# listener over TLS and reaches its fleet URL (issue 40: the unit once
# allowed AF_UNIX only, in a private network); removing it keeps the
# data and the config, purging it leaves nothing: no file of the
# package, no user, no /etc/profd, no data directory, no stat override,
# no trace of the service.
# Root only (it installs a package; CI runs as root on Debian 12).  It
# runs in a world of its own that it makes, whatever the machine holds:
# a mount namespace whose / is an overlay of the machine's (every write
# lands in the test's directory, removed at exit; the tree and the build
# are seen where they are, /tmp included) with /run empty, and from
# which any profd the machine has is taken first: an installed package
# purged, the demo's root-owned store and spool, a user or group profd.  So neither contrib/demo.sh's daemon nor an
# installed profd makes it skip, and the machine's own files are never
# touched.  In that world, the demo's state comes back first (a profd run
# as root on its local defaults, as contrib/demo.sh starts it, with a
# profile stored, still running): the package must take its store over.
# 4 to 7 minutes on 2 cores, nearly all of it the build.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/systemd-lib.sh"
REPO=$(cd "$TESTS_DIR/.." && pwd)

missing=()
for t in dpkg-buildpackage dh lintian apt-get setpriv unshare chroot openssl; do
	command -v "$t" >/dev/null || missing+=("$t")
done
[ "${#missing[@]}" -eq 0 ] || {
	echo "skip: no ${missing[*]} (apt-get install dpkg-dev debhelper lintian)"
	exit 77
}
[ "$(id -u)" = 0 ] || { echo "skip: not root (the test installs a package)"; exit 77; }
# The package is built without sanitizers: the plain run tests it.
if grep -qx 'PROFD_SANITIZE:BOOL=ON' "${BUILD_DIR:-/nonexistent}/CMakeCache.txt" \
    2>/dev/null; then
	echo "skip: a sanitizer build (the package is tested by the plain run)"
	exit 77
fi

case ${PROFD_TEST_NS:-} in
'')	# The mount namespace (its mounts vanish with it).
	rm -rf "$T"
	exec env PROFD_TEST_NS=1 unshare --mount --propagation private \
	    bash "$0" "$@" ;;
1)	# The overlay and what goes in it, then this script again inside.
	ROOT=$T/root
	mkdir -p "$T/upper" "$T/work" "$ROOT"
	mount -t overlay profd-test -o "lowerdir=/,upperdir=$T/upper,workdir=$T/work" \
	    "$ROOT" || fail "cannot mount an overlay of / (a kernel without overlayfs?)"
	mount -t proc proc "$ROOT/proc"
	mount --rbind /dev "$ROOT/dev"
	mount --rbind /sys "$ROOT/sys"
	mount -t tmpfs -o mode=0755 profd-test "$ROOT/run"
	# Unmounted before $T is removed: never a removal through the
	# overlay into /dev or /proc.
	trap 'umount -R "$ROOT" 2>/dev/null || umount -R -l "$ROOT" 2>/dev/null
	    if ! mountpoint -q "$ROOT"; then rm -rf --one-file-system "$T"; fi' EXIT
	rc=0
	chroot "$ROOT" env PROFD_TEST_NS=2 TMPDIR=/tmp bash "$0" "$@" || rc=$?
	exit "$rc" ;;
esac

# The world: no profd of the machine's.  All of this is in the overlay.
st=$(dpkg-query -W -f='${db:Status-Status}' profd 2>/dev/null) || st=not-installed
if [ "$st" != not-installed ]; then
	dpkg --purge profd >"$T/world.log" 2>&1 ||
		fail "purging the machine's profd in the overlay: $(cat "$T/world.log")"
	echo "note: the machine's profd package purged (in the overlay only)"
fi
getent passwd profd >/dev/null && userdel profd
getent group profd >/dev/null && groupdel profd
rm -rf /etc/profd /var/lib/profd /var/spool/profd \
    /etc/systemd/system/multi-user.target.wants/profd.service \
    /etc/systemd/system/sockets.target.wants/profd.socket \
    /var/lib/systemd/deb-systemd-helper-enabled/*profd* \
    /var/lib/systemd/deb-systemd-helper-masked/*profd*
for p in /usr/sbin/profd /usr/bin/profctl; do
	[ ! -e "$p" ] || fail "$p is there without a package (a make install?)"
done

export DEBIAN_FRONTEND=noninteractive
# Another apt or dpkg at work (unattended upgrades): wait for it.
APT=(apt-get -y -qq -o DPkg::Lock::Timeout=300 --no-install-recommends)
# What the package installs goes with the overlay: only the daemons this
# test started are stopped at exit.
DEMO_PID=
trap '[ -z "$DEMO_PID" ] || kill -9 "$DEMO_PID" 2>/dev/null; sd_halt; cleanup' EXIT

# The demo's world (contrib/demo.sh as the README runs it, as root): the
# built profd detached on its local defaults, a profile stored, left
# running.
"$PROFD" >"$T/demo.log" 2>&1 || fail "the demo's profd did not start: $(cat "$T/demo.log")"
DEMO_PID=$(curl -sf --unix-socket /run/profd/profd.sock http://localhost/v1/status |
    json 'j["pid"]') || fail "the demo's profd does not answer on /run/profd/profd.sock"
"$PROFCTL" --socket /run/profd/profd.sock push "$FIXTURES/cpu.pprof" \
    --scope demo >"$T/demo.out" 2>&1 || fail "the demo's push: $(cat "$T/demo.out")"
[ "$(stat -c %U /var/lib/profd/profd.db)" = root ] ||
	fail "the demo's store: $(stat -c %U /var/lib/profd/profd.db)"
ok "the demo's profd (pid $DEMO_PID, root) runs on /run/profd/profd.sock with a profile in its root-owned /var/lib/profd/profd.db"

# 1. Build.  The copy and its build go under $T, removed at exit.
t0=$SECONDS
TMPDIR=$T DEB_BUILD_OPTIONS="noautodbgsym" bash "$REPO/contrib/package.sh" \
    --out "$T/dist" --jobs 2 --nocheck >"$T/package.log" 2>&1 ||
	fail "contrib/package.sh: $(tail -n 40 "$T/package.log")"
version=$(sed -n 's/^project(profd VERSION \([0-9.]*\).*/\1/p' \
    "$REPO/CMakeLists.txt")
arch=$(dpkg --print-architecture)
DEB=$T/dist/profd_${version}_${arch}.deb
[ -f "$DEB" ] || fail "no $DEB: $(ls "$T/dist")"
ok "contrib/package.sh built ${DEB##*/} in $((SECONDS - t0)) s"

[ "$(dpkg-deb -f "$DEB" Version)" = "$version" ] ||
	fail "the package's version: $(dpkg-deb -f "$DEB" Version), not $version"
deps=$(dpkg-deb -f "$DEB" Depends)
for lib in libc6 libevent-2.1-7 libsqlite3-0 libjansson4 libre2-9 libssl3 \
    libsystemd0 zlib1g; do
	tr ',|' '\n\n' <<<"$deps" | sed "s/^ *//; s/[ (].*//" | has -x "$lib" ||
		fail "Depends has no $lib (shlibs): $deps"
done
dpkg-deb -c "$DEB" | awk '{ print substr($6, 2) }' | sed 's|/$||' \
    >"$T/contents"
for f in /usr/sbin/profd /usr/bin/profctl /usr/share/man/man8/profd.8.gz \
    /usr/share/man/man1/profctl.1.gz /lib/systemd/system/profd.service \
    /lib/systemd/system/profd.socket /usr/lib/sysusers.d/profd.conf \
    /usr/lib/tmpfiles.d/profd.conf /etc/profd/profd.conf \
    /usr/share/bash-completion/completions/profctl \
    /usr/share/doc/profd/copyright; do
	grep -qx "$f" "$T/contents" || fail "the package has no $f"
done
# The documentation, compressed or not (dh_compress leaves small files).
for d in README.md API.md SQL.md FORMATS.md SPOOL.md INTAKE.md TIME.md \
    FLEET.md GRAFANA.md SECURITY.md PACKAGING.md profd.conf.example; do
	grep -qx -e "/usr/share/doc/profd/$d" -e "/usr/share/doc/profd/$d.gz" \
	    "$T/contents" || fail "the package has no /usr/share/doc/profd/$d"
done
ok "version $version, Depends from shlibs ($deps), every file there"

# 2. lintian: no error; a warning only if README.md's "Debian package"
# section justifies it (and it is named here).
allowed_warnings=()
lintian --display-level '>=warning' "$DEB" >"$T/lintian.out" 2>&1 || true
grep -v '^N: ' "$T/lintian.out" | grep -v '^$' | grep -v \
    'running with root privileges' >"$T/lintian.tags" || true
if grep '^E: ' "$T/lintian.tags"; then
	fail "lintian errors: $(cat "$T/lintian.tags")"
fi
while read -r level _ tag _; do
	[ "$level" = W: ] || continue
	ok_tag=0
	for a in "${allowed_warnings[@]}"; do [ "$tag" != "$a" ] || ok_tag=1; done
	[ "$ok_tag" = 1 ] || fail "lintian warns $tag: $(cat "$T/lintian.tags")"
done <"$T/lintian.tags"
ok "lintian: no error, no unexpected warning ($(grep -c '^W: ' "$T/lintian.tags" || true) warnings)"

# 3. Install, as the README says (apt resolves the libraries), over the
# demo's running profd and its store.
"${APT[@]}" -s install "$DEB" >"$T/sim.out" 2>&1 ||
	fail "apt-get -s install: $(tail -n 5 "$T/sim.out")"
mapfile -t extra < <(awk '$1 == "Inst" && $2 != "profd" { print $2 }' "$T/sim.out")
"${APT[@]}" install "$DEB" >"$T/install.log" 2>&1 ||
	fail "apt-get install: $(tail -n 20 "$T/install.log")"
[ "$(dpkg-query -W -f='${db:Status-Abbrev}' profd)" = "ii " ] ||
	fail "profd not installed: $(dpkg-query -W -f='${db:Status-Abbrev}' profd)"
ok "apt-get install ./${DEB##*/}${extra[*]:+ (and ${extra[*]})}"

IFS=: read -r _ _ uid gid _ home shell < <(getent passwd profd) ||
	fail "no user profd after the install"
[ "$uid" -lt 1000 ] || fail "profd's uid $uid is not a system uid"
[ "$home" = /var/lib/profd ] || fail "profd's home: $home"
case $shell in */nologin | /bin/false) ;; *) fail "profd's shell: $shell" ;; esac
[ "$(getent group profd | cut -d: -f3)" = "$gid" ] || fail "no group profd"
[ "$(stat -c '%U:%G %a' /var/lib/profd)" = "profd:profd 750" ] ||
	fail "/var/lib/profd: $(stat -c '%U:%G %a' /var/lib/profd)"
[ "$(stat -c '%U:%G %a' /var/spool/profd)" = "profd:profd 2770" ] ||
	fail "/var/spool/profd: $(stat -c '%U:%G %a' /var/spool/profd)"
dpkg-query -W -f='${Conffiles}\n' profd | grep -q '^ /etc/profd/profd.conf ' ||
	fail "/etc/profd/profd.conf is not a conffile"
# Where the TCP listener's credentials go: the service's group reads it,
# other users do not, and dpkg keeps it so (a stat override).
[ "$(stat -c '%U:%G %a' /etc/profd/profd.conf)" = "root:profd 640" ] ||
	fail "/etc/profd/profd.conf: $(stat -c '%U:%G %a' /etc/profd/profd.conf)"
[ "$(dpkg-statoverride --list /etc/profd/profd.conf)" = \
    "root profd 640 /etc/profd/profd.conf" ] ||
	fail "the config's stat override: $(dpkg-statoverride --list /etc/profd/profd.conf)"
ok "the system user profd ($uid:$gid, $shell), /var/lib/profd, /var/spool/profd, the conffile (0640 root:profd)"
# The demo's store taken over: every file of /var/lib/profd is the user
# profd's now (profd.tmpfiles' Z line: StateDirectory= would re-own it
# only where the directory itself is not profd's already, and
# systemd-tmpfiles' d line has made it so), the demo's profd still
# running beside it.
left=$(find /var/lib/profd ! -user profd -printf '%p (%u) ')
[ -z "$left" ] || fail "not the user profd's after the install: $left"
kill -0 "$DEMO_PID" || fail "the demo's profd died in the install"
ok "the demo's store re-owned: $(find /var/lib/profd -type f -printf '%f ')"

# Enabled the Debian way: deb-systemd-helper's links and state, whether or
# not systemd runs here.  Started only where systemd is PID 1 and no
# policy-rc.d forbids it (a container's does).
for l in multi-user.target.wants/profd.service sockets.target.wants/profd.socket; do
	[ -L "/etc/systemd/system/$l" ] || fail "no /etc/systemd/system/$l"
	[ -e "/var/lib/systemd/deb-systemd-helper-enabled/$l" ] ||
		fail "deb-systemd-helper has no state for $l"
done
for u in profd.service profd.socket; do
	e=$(systemctl is-enabled "$u" 2>&1) || fail "systemctl is-enabled $u: $e"
	[ "$e" = enabled ] || fail "systemctl is-enabled $u: $e"
done
policy=0
[ ! -x /usr/sbin/policy-rc.d ] || /usr/sbin/policy-rc.d profd.service start \
    >/dev/null 2>&1 || policy=$?
if [ -d /run/systemd/system ] && { [ "$policy" = 0 ] || [ "$policy" = 104 ]; }; then
	systemctl is-active --quiet profd.socket ||
		fail "systemd runs, but profd.socket is not active"
	PROFD_SOCKET=/run/profd/profd.sock /usr/bin/profctl scopes \
	    >"$T/service.out" 2>&1 ||
		fail "profctl against the service: $(cat "$T/service.out")"
	ok "enabled; the service answers on /run/profd/profd.sock"
elif [ -d /run/systemd/system ]; then
	ok "enabled; not started: policy-rc.d forbids it here"
else
	ok "enabled; not started: systemd is not running here (deb-systemd-invoke does nothing)"
fi

# 4. The installed binaries.
v=$(/usr/sbin/profd --version) || fail "/usr/sbin/profd --version"
[ "$v" = "profd $version" ] || fail "/usr/sbin/profd --version: $v"
if [ -x "$PROFD" ]; then
	[ "$v" = "$("$PROFD" --version)" ] ||
		fail "installed $v, built $("$PROFD" --version)"
fi
/usr/sbin/profd --config /etc/profd/profd.conf --print-config \
    >"$T/print-config" 2>&1 ||
	fail "the shipped config: $(cat "$T/print-config")"
ok "/usr/sbin/profd --version: $v; the shipped config loads"

# As the service runs it: the user profd, the shipped config, the service's
# store (the demo's, its profd still running on it), but a private socket.
PROFD=/usr/sbin/profd
PROFCTL=/usr/bin/profctl
chmod 0711 "$T"
install -d -o profd -g profd -m 0750 "$T/run"
SOCK=$T/run/profd.sock
export PROFD_SOCKET=$SOCK
DB=/var/lib/profd/profd.db
STATE_DIRECTORY=/var/lib/profd setpriv --reuid=profd --regid=profd \
    --init-groups -- "$PROFD" --foreground --config /etc/profd/profd.conf \
    --socket "$SOCK" --db "$DB" --uploads-dir "$T/run/uploads" \
    --spool none >>"$T/profd.log" 2>&1 &
PROFD_PID=$!
wait_health "$SOCK"
out=$("$PROFCTL" push "$FIXTURES/cpu.pprof" --scope pkg) ||
	fail "profctl push: $out"
case $out in *"stored as profile 2 "*) ;; *) fail "push printed: $out" ;; esac
"$PROFCTL" scopes >"$T/scopes.txt" || fail "profctl scopes"
has -w demo "$T/scopes.txt" || fail "the demo's scope not found: $(cat "$T/scopes.txt")"
"$PROFCTL" top --scope pkg --metric cpu >"$T/top.txt" || fail "profctl top"
sed -n '/^Showing nodes/,$p' "$FIXTURES/expected/cpu.cpu.top" >"$T/want.txt"
sed -n '/^Showing nodes/,$p' "$T/top.txt" >"$T/got.txt"
[ -s "$T/want.txt" ] || fail "no table in expected/cpu.cpu.top"
diff -u "$T/want.txt" "$T/got.txt" ||
	fail "the installed profctl's top differs from go tool pprof -top"
stop_profd
[ "$(stat -c '%U %a' "$DB")" = "profd 600" ] ||
	fail "$DB: $(stat -c '%U %a' "$DB")"
ok "the installed profd as the user profd on the demo's store: its scope there, a push, and top as go tool pprof prints it ($(wc -l <"$T/got.txt") lines)"
# The demo's profd, SIGTERM: it ends as it would for an administrator
# who stops it once the service has taken over.
kill -TERM "$DEMO_PID"
while kill -0 "$DEMO_PID" 2>/dev/null; do sleep 0.05; done
DEMO_PID=
# Its runtime directory, which the package never made, goes as at a reboot.
rm -rf /run/profd

# 4b. The service as systemd runs it, set up as docs/GRAFANA.md says: a
# TLS listener with a writer's and a reader's token, and a fleet URL.
# The unit must let it use the network (issue 40: PrivateNetwork=yes and
# AF_UNIX only made listen-tcp fail to start and the fleet unreachable)
# and keep the rest of its sandbox.
UNIT=/lib/systemd/system/profd.service
! grep -q '^PrivateNetwork=' "$UNIT" || fail "$UNIT: $(grep '^PrivateNetwork=' "$UNIT")"
grep -qx 'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6' "$UNIT" ||
	fail "$UNIT: $(grep '^RestrictAddressFamilies=' "$UNIT")"
for d in ProtectSystem=strict NoNewPrivileges=yes CapabilityBoundingSet= \
    PrivateTmp=yes PrivateDevices=yes SystemCallFilter=@system-service; do
	grep -qx "$d" "$UNIT" || fail "$UNIT lost $d"
done
ok "$UNIT: the host's network, AF_UNIX AF_INET AF_INET6, the rest of the sandbox kept"

. "$(dirname "$0")/tls-lib.sh"
tls_self_signed srv
install -d -m 0750 -g profd /etc/profd/tls
install -m 0644 "$TLS/srv.pem" /etc/profd/tls/profd.crt
install -m 0640 -g profd "$TLS/srv.key" /etc/profd/tls/profd.key
# ClickHouse's stand-in: it notes each request line; that one arrives
# is what shows the sandbox let profd connect.
python3 "$TESTS_DIR/tools/badserver.py" silent "$T/ch.port" "$T/ch.conns" &
CH_PID=$!
wait_until "the stand-in's port" test -s "$T/ch.port"
WTOKEN=writer-token-0123456789abcdef
RTOKEN=reader-token-0123456789abcdef
cat >>/etc/profd/profd.conf <<EOF
listen-tcp = 127.0.0.1:0
tls-cert = /etc/profd/tls/profd.crt
tls-key = /etc/profd/tls/profd.key
tcp-auth-token = $WTOKEN
tcp-read-token = $RTOKEN
[fleet]
url = http://127.0.0.1:$(cat "$T/ch.port")
EOF
if ! sd_boot sockets.target; then
	echo "note: the service not started under systemd here: $SD_WHY"
else
	svc() {	# svc PATH [curl args]: a call on the service's socket
		sd_in curl -s --unix-socket /run/profd/profd.sock \
		    "http://localhost$1" "${@:2}"
	}
	# What systemd makes of the unit (it sorts the families).
	for p in PrivateNetwork=no "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX" \
	    ProtectSystem=strict PrivateDevices=yes; do
		v=$(sd_in systemctl show -p "${p%%=*}" --value profd.service)
		[ "$v" = "${p#*=}" ] || fail "systemctl show profd.service: ${p%%=*}=$v"
	done
	sd_in systemctl is-active --quiet profd.socket ||
		fail "profd.socket is not active: $(sd_in systemctl status profd.socket 2>&1)"
	# The first call starts the service (socket activation).
	svc /v1/status -f >"$T/svc-status.json" ||
		fail "the service does not answer: $(sd_in journalctl -u profd.service --no-pager 2>&1 | tail -n 20)"
	MAINPID=$(sd_in systemctl show -p MainPID --value profd.service)
	[ "$MAINPID" = "$(json 'j["pid"]' <"$T/svc-status.json")" ] ||
		fail "/v1/status is not the service's"
	# Under the sandbox: the user profd, no capability, no new
	# privileges, a seccomp filter.
	sd_in cat "/proc/$MAINPID/status" >"$T/svc-proc"
	for l in "Uid:	$uid	$uid	$uid	$uid" "CapEff:	0000000000000000" \
	    "NoNewPrivs:	1" "Seccomp:	2"; do
		has -Fx "$l" "$T/svc-proc" || fail "the service's $l: $(cat "$T/svc-proc")"
	done
	PORT=$(json 'j["tcp"]["listen"].rsplit(":", 1)[1]' <"$T/svc-status.json")
	URL=https://127.0.0.1:$PORT
	r=$(curl -s --cacert "$TLS/srv.pem" -w '\n%{http_code}\n' -H "Authorization: Bearer $WTOKEN" \
	    --data-binary @"$FIXTURES/cpu.pprof" "$URL/ingest?name=svc.cpu&format=pprof")
	[ "$(status_of "$r")" = 200 ] || fail "a push over TLS: $r"
	r=$(curl -s --cacert "$TLS/srv.pem" -w '\n%{http_code}\n' -H "Authorization: Bearer $RTOKEN" \
	    -H 'Content-Type: application/json' -d '{}' \
	    "$URL/querier.v1.QuerierService/ProfileTypes")
	[ "$(status_of "$r")" = 200 ] || fail "ProfileTypes over TLS: $r"
	has -F '"ID":"process_cpu:cpu:nanoseconds:cpu:nanoseconds"' <<<"$r" ||
		fail "ProfileTypes: $r"
	ok "the service on $URL over TLS: an agent's push (writer token), Grafana's ProfileTypes (reader token)"
	wait_until "the service's request to the fleet URL" has '^POST ' "$T/ch.conns"
	ok "the service reached its fleet URL: $(head -n 1 "$T/ch.conns" | cut -c1-60)"

	# The config holds the tokens: 0640 is not warned about, 0644 is,
	# in the journal and /v1/status, once reloaded.
	[ "$(svc /v1/status | json 'j["secrets"]["warnings"]')" = "[]" ] ||
		fail "warned about: $(svc /v1/status | json 'j["secrets"]')"
	chmod 0644 /etc/profd/profd.conf
	sd_in systemctl reload profd.service
	secrets_warned() {
		[ "$(svc /v1/status | json 'j["secrets"]["warnings"]')" = \
		    '[{"file": "/etc/profd/profd.conf", "mode": "0644", "holds": ["tcp-auth-token", "tcp-read-token"]}]' ]
	}
	wait_until "the service's warning of a config others may read" secrets_warned
	sd_in journalctl -u profd.service --no-pager | has -F \
	    '/etc/profd/profd.conf holds tcp-auth-token, tcp-read-token and every user of this host may read it (mode 0644)' ||
		fail "no warning in the journal: $(sd_in journalctl -u profd.service --no-pager | tail -n 20)"
	chmod 0640 /etc/profd/profd.conf
	ok "/etc/profd/profd.conf made 0644: the service warns in the journal and /v1/status"

	# The sandbox is systemd's, not a formality: with AF_UNIX only (the
	# unit as it was) the same service does not start.
	sd_in mkdir -p /run/systemd/system/profd.service.d
	sd_in sh -c 'printf "[Service]\nRestrictAddressFamilies=\nRestrictAddressFamilies=AF_UNIX\n" \
	    >/run/systemd/system/profd.service.d/narrow.conf'
	sd_in systemctl daemon-reload
	! sd_in systemctl restart profd.service 2>/dev/null ||
		fail "profd started with AF_UNIX only: $(sd_in systemctl show -p DropInPaths -p RestrictAddressFamilies profd.service)"
	sd_in journalctl -u profd.service --no-pager | has -F \
	    "listen-tcp 127.0.0.1:0: Address family not supported by protocol" ||
		fail "why it did not start: $(sd_in journalctl -u profd.service --no-pager | tail -n 5)"
	ok "with the old RestrictAddressFamilies=AF_UNIX the service does not start (listen-tcp: Address family not supported)"
	sd_in systemctl stop profd.socket profd.service
	sd_halt
fi
kill "$CH_PID"
wait "$CH_PID" 2>/dev/null || true
CH_PID=
# The certificate was the administrator's, not the package's: dpkg
# leaves it (and so /etc/profd) at the purge.
rm -r /etc/profd/tls

# 5. Remove: the programs go, the config and the data stay.
"${APT[@]}" remove profd >"$T/remove.log" 2>&1 ||
	fail "apt-get remove: $(tail -n 20 "$T/remove.log")"
[ ! -e /usr/sbin/profd ] && [ ! -e /usr/bin/profctl ] ||
	fail "the binaries are still there after remove"
[ -f /etc/profd/profd.conf ] || fail "remove took /etc/profd/profd.conf"
[ -f "$DB" ] || fail "remove took the store $DB"
getent passwd profd >/dev/null || fail "remove took the user profd"
ok "apt-get remove: binaries gone; config, store and user kept"

# 6. Purge: nothing left.
"${APT[@]}" purge profd >"$T/purge.log" 2>&1 ||
	fail "apt-get purge: $(tail -n 20 "$T/purge.log")"
st=$(dpkg-query -W -f='${db:Status-Status}' profd 2>/dev/null) || st=not-installed
[ "$st" = not-installed ] || fail "dpkg says profd is $st after the purge"
while read -r f; do
	[ -n "$f" ] || continue
	# Directories others share (/usr/bin, /etc; /lib is a link to
	# usr/lib on a merged /usr) stay; the package's own go.
	if [ -d "$f" ]; then
		case $f in /etc/profd | /usr/share/doc/profd)
			fail "$f is left after the purge" ;; esac
		continue
	fi
	[ ! -e "$f" ] && [ ! -L "$f" ] || fail "$f is left after the purge"
done <"$T/contents"
for p in /etc/profd /var/lib/profd /var/spool/profd /run/profd \
    /etc/systemd/system/multi-user.target.wants/profd.service \
    /etc/systemd/system/sockets.target.wants/profd.socket; do
	[ ! -e "$p" ] && [ ! -L "$p" ] || fail "$p is left after the purge"
done
if ls /var/lib/systemd/deb-systemd-helper-enabled/ 2>/dev/null | grep -q profd ||
    find /var/lib/systemd/deb-systemd-helper-enabled -name '*profd*' 2>/dev/null |
    grep -q .; then
	fail "deb-systemd-helper still knows profd"
fi
! getent passwd profd >/dev/null || fail "the user profd is left after the purge"
! getent group profd >/dev/null || fail "the group profd is left after the purge"
[ -z "$(dpkg-statoverride --list '*profd*')" ] ||
	fail "a stat override is left after the purge: $(dpkg-statoverride --list '*profd*')"
ok "apt-get purge: no file, user, group, config, data or unit state left"
