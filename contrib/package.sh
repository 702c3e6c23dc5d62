#!/usr/bin/env bash
# package.sh: build dist/profd_VERSION_ARCH.deb on Debian 12 with Debian's
# own tools: dpkg-buildpackage and debhelper over debian/, which uses
# CMake's install rules.  The build runs on a copy of the tree in a
# temporary directory (the files git tracks, plus the new ones it does not
# ignore; without git, everything but .git, build*/, dist/ and obj-*/), so
# the tree gets nothing but the .deb in dist/, and no build directory of it
# is reused.  The version is CMakeLists.txt's project() VERSION, which
# debian/changelog's newest entry must name (checked here).
#   contrib/package.sh [--out DIR] [--jobs N] [--nocheck] [--verbose]
# --nocheck skips the unit tests the build runs otherwise (as
# DEB_BUILD_OPTIONS=nocheck does; DEB_BUILD_OPTIONS is passed on).
# Needs dpkg-dev, debhelper and profd's build dependencies: as root,
# apt-get build-dep ./ installs what debian/control names.
set -euo pipefail
cd "$(dirname "$0")/.."
src_root=$PWD
out=dist
jobs=$(nproc)
verbose=0
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=${2:?--out needs a directory}; shift ;;
	--jobs|-j) jobs=${2:?--jobs needs a number}; shift ;;
	--nocheck) export DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-} nocheck" ;;
	--verbose) verbose=1 ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "package: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done
case $jobs in ''|*[!0-9]*) echo "package: --jobs $jobs: not a number" >&2; exit 2 ;; esac

missing=()
for t in dpkg-buildpackage dpkg-parsechangelog dpkg-architecture dh; do
	command -v "$t" >/dev/null || missing+=("$t")
done
if [ "${#missing[@]}" -gt 0 ]; then
	echo "package: missing ${missing[*]} (apt-get build-dep ./ installs them)" >&2
	exit 1
fi

version=$(sed -n 's/^project(profd VERSION \([0-9][0-9.]*\).*/\1/p' CMakeLists.txt)
[ -n "$version" ] || { echo "package: no project(profd VERSION ...) in CMakeLists.txt" >&2; exit 1; }
deb_version=$(dpkg-parsechangelog -l debian/changelog -S Version)
if [ "$deb_version" != "$version" ]; then
	echo "package: debian/changelog's newest entry is $deb_version but" \
	    "CMakeLists.txt says $version: add an entry for $version" >&2
	exit 1
fi
arch=$(dpkg-architecture -qDEB_HOST_ARCH)

work=$(mktemp -d "${TMPDIR:-/tmp}/profd-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=$work/profd-$version
mkdir "$src"
# What is built in the tree (build*/, bench/build*/ with its benchmarks'
# stores and servers, dist/, an in-tree dpkg-buildpackage's obj-*/ and
# debian/profd/) stays out of the copy.
skip='^(build[^/]*|dist|obj-[^/]*|bench/build[^/]*|debian/(profd|profd-dbgsym|\.debhelper|tmp))/'
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard |
	    while IFS= read -r -d '' f; do
		[ -e "$f" ] && ! [[ $f =~ $skip ]] && printf '%s\0' "$f"
	    done | tar --null -T - -cf - | tar -C "$src" -xf -
else
	tar --exclude=./.git --exclude='./build*' --exclude=./dist \
	    --exclude='./obj-*' --exclude='./bench/build*' \
	    --exclude=./debian/profd --exclude=./debian/.debhelper -cf - . |
	    tar -C "$src" -xf -
fi

echo "package: building profd $version for $arch in $work (-j$jobs${DEB_BUILD_OPTIONS:+, DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS# }})"
log=$work/build.log
build() {
	(cd "$src" && dpkg-buildpackage -b --no-sign -J"$jobs")
}
if [ "$verbose" = 1 ]; then
	build 2>&1 | tee "$log"
else
	build >"$log" 2>&1 || {
		tail -n 60 "$log" >&2
		echo "package: dpkg-buildpackage failed (the last lines above)" >&2
		exit 1
	}
fi

deb=profd_${version}_${arch}.deb
[ -f "$work/$deb" ] || { echo "package: no $deb was built" >&2; exit 1; }
mkdir -p "$out"
cp "$work/$deb" "$out/"
# The detached debug symbols, when built (not with noautodbgsym).
for f in "$work"/profd-dbgsym_"${version}"_"${arch}".*deb; do
	[ ! -f "$f" ] || cp "$f" "$out/"
done
case $out in /*) ;; *) out=$src_root/$out ;; esac
echo "package: $out/$deb"
