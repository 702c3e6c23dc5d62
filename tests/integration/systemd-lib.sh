# systemd-lib.sh: systemd as the init of a world of the test's own
# (sourced after lib.sh), so that a unit runs under its own directives,
# as systemd applies them, on a machine whose init is not systemd (a
# container, this project's CI VMs): a PID, mount and cgroup namespace
# whose PID 1 is /lib/systemd/systemd, with its own /run, /tmp and a
# cgroup2 tree (a child of the test's cgroup, removed by sd_halt), over
# the test's files and on the machine's network.  Meant for a test that
# has made / its own already (test_package's overlay): the units it
# starts write there.
#
#   sd_boot UNIT: boots it towards UNIT; 0 once systemd runs, 1 with why
#       in SD_WHY where the machine does not allow it (no systemd, no
#       cgroup2, no namespaces).
#   sd_in CMD...: runs CMD in that world (systemctl, journalctl, curl
#       on its /run).
#   sd_halt: ends the world (every process in it) and its cgroups.
SD_UNSHARE=
SD_PID=
SD_CG=
SD_WHY=

# sd_state: what systemctl says of the system; "gone" once systemd has
# exited.
sd_state() {
	kill -0 "$SD_UNSHARE" 2>/dev/null || { echo gone; return; }
	sd_in systemctl is-system-running 2>/dev/null || true
}

sd_in() {
	nsenter --target "$SD_PID" --pid --mount --cgroup --root --wd -- "$@"
}

sd_boot() {
	local cg base
	SD_WHY=
	[ -x /lib/systemd/systemd ] || { SD_WHY="no /lib/systemd/systemd"; return 1; }
	command -v nsenter >/dev/null || { SD_WHY="no nsenter"; return 1; }
	# The test's cgroup in the unified hierarchy: /sys/fs/cgroup itself
	# (cgroup2 only) or /sys/fs/cgroup/unified (hybrid).
	cg=$(sed -n 's/^0:://p' /proc/self/cgroup)
	if [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then
		base=/sys/fs/cgroup
	elif [ "$(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ]; then
		base=/sys/fs/cgroup/unified
	else
		SD_WHY="no cgroup2 hierarchy"
		return 1
	fi
	SD_CG=$base${cg%/}/profd-test.$$
	mkdir "$SD_CG" 2>"$T/sd-cgroup.err" ||
		{ SD_WHY="cannot make a cgroup: $(cat "$T/sd-cgroup.err")"; SD_CG=; return 1; }
	# In the new namespaces: systemd's own /run and /tmp (its
	# tmpfiles clean /tmp at boot), /proc of its PIDs, and a cgroup2
	# mount rooted at the new cgroup.  --kill-child: the world ends
	# with unshare.
	(
		echo "$BASHPID" >"$SD_CG/cgroup.procs"
		exec unshare --pid --mount --cgroup --fork --kill-child \
		    --propagation private -- bash -c '
			set -e
			mount -t tmpfs -o mode=0755 profd-test /run
			mount -t tmpfs -o mode=1777 profd-test /tmp
			mount -t proc proc /proc
			mount -t cgroup2 cgroup2 /sys/fs/cgroup
			exec env container=profd-test /lib/systemd/systemd \
			    --unit="$0"' "$1"
	) </dev/null >"$T/systemd.log" 2>&1 &
	SD_UNSHARE=$!
	wait_until "systemd in its namespace" sd_forked
	if [ -z "$SD_PID" ]; then
		SD_WHY="systemd did not start: $(tail -n 5 "$T/systemd.log")"
		sd_halt
		return 1
	fi
	wait_until "systemd to finish booting" sd_booted
	case $(sd_state) in
	running | degraded) return 0 ;;
	esac
	SD_WHY="systemd did not boot here ($(sd_state)): $(tail -n 5 "$T/systemd.log")"
	sd_halt
	return 1
}

# sd_forked: unshare's child, systemd, is there (SD_PID), or unshare
# has exited (SD_PID empty).
sd_forked() {
	SD_PID=$(pgrep -P "$SD_UNSHARE" -x systemd) && return 0
	kill -0 "$SD_UNSHARE" 2>/dev/null || { SD_PID=; return 0; }
	return 1
}

# sd_booted: systemd is done with the boot's jobs, or is gone.
sd_booted() {
	case $(sd_state) in
	running | degraded | gone) return 0 ;;
	esac
	return 1
}

# sd_gone: no process is left in the world's cgroups (dying ones count
# until they are gone: only then can the cgroups be removed).
sd_gone() {
	! kill -0 "$SD_UNSHARE" 2>/dev/null &&
	    grep -qx 'populated 0' "$SD_CG/cgroup.events"
}

sd_halt() {
	if [ -n "$SD_UNSHARE" ]; then
		kill -KILL "$SD_UNSHARE" 2>/dev/null || true
		wait "$SD_UNSHARE" 2>/dev/null || true
		[ -z "$SD_CG" ] || wait_until "the systemd world's processes to end" sd_gone
	fi
	[ -z "$SD_CG" ] || find "$SD_CG" -depth -type d -exec rmdir {} + ||
		fail "the systemd world's cgroups are left: $SD_CG"
	SD_UNSHARE= SD_PID= SD_CG=
}
