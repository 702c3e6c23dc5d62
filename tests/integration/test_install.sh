# cmake --install into a staging directory: the binaries, the man pages
# (rendered without warnings, documenting every flag the binaries take),
# the bash completion (driven as bash drives it) and the documentation.
. "$(dirname "$0")/lib.sh"

: "${BUILD_DIR:?BUILD_DIR must name the build directory}"
command -v cmake >/dev/null 2>&1 || { echo "skip: no cmake"; exit 77; }

ROOT=$T/root
DESTDIR=$ROOT cmake --install "$BUILD_DIR" --prefix /usr >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log" >&2; fail "cmake --install"; }
ok "cmake --install --prefix /usr with DESTDIR"

# The tree.
[ -x "$ROOT/usr/bin/profctl" ] || fail "no usr/bin/profctl"
[ -x "$ROOT/usr/sbin/profd" ] || fail "no usr/sbin/profd"
page() {	# page SECTION NAME: the installed page, compressed or not
	local p=$ROOT/usr/share/man/man$1/$2.$1
	if [ -f "$p" ]; then echo "$p"; elif [ -f "$p.gz" ]; then echo "$p.gz"; fi
}
PROFD_8=$(page 8 profd)
PROFCTL_1=$(page 1 profctl)
[ -n "$PROFD_8" ] || fail "no usr/share/man/man8/profd.8"
[ -n "$PROFCTL_1" ] || fail "no usr/share/man/man1/profctl.1"
# The completion: where the build was told to put it, else the default.
compdir=$(sed -n 's/^PROFD_BASH_COMPLETION_DIR:[A-Z]*=//p' \
    "$BUILD_DIR/CMakeCache.txt" 2>/dev/null || true)
case "$compdir" in
'') compdir=usr/share/bash-completion/completions ;;
/*) compdir=${compdir#/} ;;
*) compdir=usr/$compdir ;;
esac
COMPLETION=$ROOT/$compdir/profctl
[ -f "$COMPLETION" ] || fail "no $compdir/profctl"
for d in README.md API.md SQL.md FORMATS.md SPOOL.md INTAKE.md TIME.md FLEET.md \
    GRAFANA.md SECURITY.md PACKAGING.md profd.conf.example; do
	[ -f "$ROOT/usr/share/doc/profd/$d" ] || fail "no usr/share/doc/profd/$d"
done
ok "tree: bin/profctl sbin/profd man8/profd.8 man1/profctl.1 $compdir/profctl doc/profd"

# The installed binaries run.
v=$("$ROOT/usr/sbin/profd" --version) || fail "installed profd --version"
[ "$v" = "$("$PROFD" --version)" ] || fail "installed profd --version: $v"
v=$("$ROOT/usr/bin/profctl" --version) || fail "installed profctl --version"
[ "$v" = "$("$PROFCTL" --version)" ] || fail "installed profctl --version: $v"
case "$v" in "profctl "[0-9]*) ;; *) fail "profctl --version: $v" ;; esac
ok "installed binaries: $v"

# The pages render without a warning, with every section.
render() {	# render PAGE: the text on stdout, warnings on stderr
	if command -v man >/dev/null 2>&1; then
		MANWIDTH=80 MANPAGER=cat PAGER=cat LC_ALL=C.UTF-8 \
		    man --warnings=w -E UTF-8 -l "$1"
	elif command -v groff >/dev/null 2>&1; then
		zcat -f "$1" | groff -ww -man -Tutf8
	else
		zcat -f "$1" | nroff -ww -man
	fi
}
if command -v man >/dev/null 2>&1 || command -v groff >/dev/null 2>&1 ||
    command -v nroff >/dev/null 2>&1; then
	for p in "$PROFD_8" "$PROFCTL_1"; do
		render "$p" >"$T/page.txt" 2>"$T/page.err" ||
			fail "rendering $p: $(cat "$T/page.err")"
		[ ! -s "$T/page.err" ] ||
			fail "warnings rendering ${p##*/}: $(cat "$T/page.err")"
		for s in NAME SYNOPSIS DESCRIPTION OPTIONS FILES "EXIT STATUS" \
		    ENVIRONMENT EXAMPLES "SEE ALSO"; do
			grep -q "^$s\$" "$T/page.txt" ||
				fail "${p##*/} has no $s section"
		done
	done
	grep -q PROFD_SOCKET "$T/page.txt" || fail "profctl.1 without PROFD_SOCKET"
	ok "man pages render without warnings, every section there"
else
	echo "skip: neither man, groff nor nroff to render the pages"
fi

# Every long flag the binaries print in their usage is in their page.
documented() {	# documented PAGE FLAG...
	local page=$1 f
	shift
	zcat -f "$page" | sed 's/\\-/-/g' >"$T/src.txt"
	for f in "$@"; do
		grep -q -e "$f\\b" "$T/src.txt" || fail "${page##*/} lacks $f"
	done
}
flags() { grep -o -e '--[a-z][a-z-]*[a-z]' | sort -u; }
documented "$PROFD_8" $("$PROFD" --help | flags)
cmds=$("$PROFCTL" --help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p; s/^  \([a-z][a-z]*\)$/\1/p')
[ -n "$cmds" ] || fail "no commands in profctl --help"
documented "$PROFCTL_1" $( { "$PROFCTL" --help
	for c in $cmds; do "$PROFCTL" "$c" --help; done; } | flags)
ok "every flag of profd --help and profctl [COMMAND] --help documented"

# The completion, as bash calls it: complete WORD... prints COMPREPLY.
cat >"$T/complete.sh" <<'EOF'
. "$COMPLETION"
complete -p profctl >/dev/null || exit 3
COMP_WORDS=(profctl "$@")
COMP_CWORD=$#
COMP_LINE="profctl $*"
COMP_POINT=${#COMP_LINE}
_profctl "$PROFCTL_BIN" "${COMP_WORDS[COMP_CWORD]}" \
    "${COMP_WORDS[COMP_CWORD - 1]}"
printf '%s\n' "${COMPREPLY[@]}"
EOF
complete() {
	COMPLETION=$COMPLETION PROFCTL_BIN=$ROOT/usr/bin/profctl \
	    bash --norc --noprofile "$T/complete.sh" "$@" 2>"$T/complete.err" ||
		fail "completing $*: $(cat "$T/complete.err")"
	[ ! -s "$T/complete.err" ] ||
		fail "completing $* wrote to stderr: $(cat "$T/complete.err")"
}
has() {	# has "WORD... [CURRENT]" EXPECTED...: each expected is a
	# completion; a trailing space makes the current word empty
	local got w words
	read -r -a words <<<"$1"
	case "$1" in '' | *' ') words+=("") ;; esac
	got=$(complete "${words[@]}")
	shift
	for w in "$@"; do
		# (not printf | grep -q: with pipefail, SIGPIPE fails it)
		grep -qx -e "$w" <<<"$got" ||
			fail "completing \"$*\": no $w in: ${got//$'\n'/ }"
	done
}
has "" $cmds
[ "$(complete "" | sort | tr '\n' ' ')" = \
    "$(printf '%s\n' $cmds | sort | tr '\n' ' ')" ] ||
	fail "commands completed: $(complete "" | tr '\n' ' ')"
[ "$(complete ti)" = timeline ] || fail "ti completed: $(complete ti)"
has "--" --socket --help --version
has "top --" --scope --metric --since --until --profile --label --focus \
    --ignore --hide --show --limit --cum --json --socket --help
has "push --" --scope --label --format --name --metric --kind --bucket
has "push --format " auto pprof perfetto folded
has "diff --base-" --base-scope --base-metric --base-since --base-until \
    --base-profile --base-label --base-focus --base-ignore --base-hide \
    --base-show
has "diff --" --normalize --limit --json
has "flamegraph --" --min-fraction --title --width --diff --output
has "tree --" --min-fraction --json --folded
has "export --" --output
has "query --" --json --csv --max-rows --timeout-ms
has "timeline --" --step --json
has "profiles --" --scope --json
has "scopes --" --json
# Each command's long flags (from its --help) are offered.
for c in $cmds; do
	for f in $("$PROFCTL" "$c" --help | flags); do
		case "$f" in --base-*) [ "$c" = diff ] || [ "$c" = flamegraph ] ||
			continue ;; esac
		has "$c --" "$f"
	done
done
ok "completion: commands and every command's flags"

# Files for push, -o/--output and flamegraph --diff.
mkdir "$T/files"
: >"$T/files/cpu.pprof"
: >"$T/files/base.json"
has "push $T/files/c" "$T/files/cpu.pprof"
has "export --scope x -o $T/files/c" "$T/files/cpu.pprof"
has "flamegraph --scope x --output $T/files/" "$T/files/cpu.pprof" \
    "$T/files/base.json"
has "flamegraph --scope x --diff $T/files/b" "$T/files/base.json"
ok "completion: files for push, -o and --diff"

# --scope: nothing, quietly, when no daemon answers; the scopes when one does.
[ -z "$(PROFD_SOCKET=$T/none.sock complete top --scope "")" ] ||
	fail "scopes completed with no daemon"
[ -z "$(complete --socket "$T/none.sock" top --scope "")" ] ||
	fail "scopes completed with no daemon (--socket)"
ok "completion: no scopes, and no noise, without a daemon"
if command -v curl >/dev/null 2>&1; then
	start_profd
	"$PROFCTL" push "$FIXTURES/cpu.pprof" --scope svc-compl >/dev/null ||
		fail "push"
	"$PROFCTL" push "$FIXTURES/heap.pprof" --scope other >/dev/null ||
		fail "push"
	has "top --scope " svc-compl other
	[ "$(complete top --scope sv)" = svc-compl ] ||
		fail "--scope sv completed: $(complete top --scope sv)"
	[ "$(complete diff --base-scope o)" = other ] ||
		fail "--base-scope o completed: $(complete diff --base-scope o)"
	[ "$(complete top --scope = sv)" = svc-compl ] ||
		fail "--scope=sv completed: $(complete top --scope = sv)"
	[ "$(PROFD_SOCKET=$T/none.sock complete --socket "$SOCK" top -s sv)" = \
	    svc-compl ] || fail "--socket given: scopes not completed"
	stop_profd
	ok "completion: --scope and --base-scope from profctl scopes"
else
	echo "skip: no curl to start profd for scope completion"
fi
