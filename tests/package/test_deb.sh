#!/usr/bin/env bash
# The Debian package as an admin uses it: its contents and Depends (dpkg-deb), then on this
# machine `apt-get install ./streamcard_*.deb`, `streamcard --version`, a --dry-run of an
# installed card as the job's user, the card check's account, `man -l` on every page, the
# installed plugin loaded by the local cluster running a card job whose bundle verifies,
# and `apt-get purge` leaving none of the package's files. Needs root (skipped otherwise); a streamcard package
# installed before the test is left alone (skipped). One such test at a time per machine.
# Usage: test_deb.sh REPO_ROOT DEB_DIR   (DEB_DIR: where package.build made the .deb)
# shellcheck source=../cluster/common.sh
source "$(dirname "$0")/../cluster/common.sh" "$1"
DEB_DIR=$2
PLUGINDIR=/usr/lib/x86_64-linux-gnu/slurm-wlm
shopt -s nullglob
debs=("$DEB_DIR"/streamcard_*.deb)
((${#debs[@]} == 1)) || fail "expected one package in $DEB_DIR (test package.build makes it): ${debs[*]}"
for tool in dpkg-deb dpkg-query apt-get man readelf ldd; do
	command -v "$tool" >/dev/null || fail "$tool is missing (contrib/install-deps)"
done
make_workdir
DEB=$WORK/${debs[0]##*/} # where apt's sandbox user can read it
cp "${debs[0]}" "$DEB"
chmod 0644 "$DEB"

# ---------------------------------------------------------------- the package's files
dpkg-deb -c "$DEB" >"$WORK/listing" || fail "dpkg-deb -c $DEB"
awk '{print $6}' "$WORK/listing" | sed 's|^\./|/|; s|/$||' | grep -v '^/\?$' >"$WORK/paths"
for f in /usr/bin/streamcard /usr/libexec/streamcard/streamcard-stream \
	/usr/libexec/streamcard/streamcard-ipsearch /usr/libexec/streamcard/streamcard-pingpong \
	"$PLUGINDIR/spank_streamcard.so" "$PLUGINDIR/spank_streamcard_epilog.so" \
	/usr/share/man/man1/streamcard.1.gz /usr/share/man/man5/streamcard-card.5.gz \
	/usr/share/man/man8/spank_streamcard.8.gz /usr/share/streamcard/cli_filter.lua \
	/usr/share/streamcard/streamcard.nhc /usr/share/streamcard/streamcard.rules.yml \
	/usr/share/streamcard/plugstack.conf \
	/usr/share/streamcard/cards/stream-copy.yaml /usr/share/doc/streamcard/copyright \
	/usr/share/doc/streamcard/changelog.gz; do
	grep -qxF "$f" "$WORK/paths" || fail "the package lacks $f: $(cat "$WORK/paths")"
done
outside=$(grep -v '^/usr\(/\|$\)' "$WORK/paths" || true)
[[ -z $outside ]] || fail "the package installs outside /usr: $outside"
grep -q '/usr/local\|/build' "$WORK/paths" && fail "the package holds a build or /usr/local path"
# Every file root's, and none writable by others (root loads the plugin).
bad=$(awk '$2 != "root/root" || substr($1, 9, 1) == "w"' "$WORK/listing")
[[ -z $bad ]] || fail "files not root's or writable by others: $bad"
dpkg-deb -x "$DEB" "$WORK/x"
# The plugstack example names the plugin where the package puts it, and is disabled.
grep -qxF "#required $PLUGINDIR/spank_streamcard.so allow=none require_exclusive=yes" \
	"$WORK/x/usr/share/streamcard/plugstack.conf" || fail "plugstack.conf example does not name $PLUGINDIR"
grep -v '^#' "$WORK/x/usr/share/streamcard/plugstack.conf" | grep . >/dev/null &&
	fail "the plugstack.conf example enables something: $(grep -v '^#' "$WORK/x/usr/share/streamcard/plugstack.conf")"
grep -qF 'STREAMCARD_BIN_DEFAULT or "/usr/bin/streamcard"' "$WORK/x/usr/share/streamcard/cli_filter.lua" ||
	fail "the packaged cli_filter.lua does not call /usr/bin/streamcard"

# ---------------------------------------------------------------- Depends
# dep_names: the package names of a Depends field on stdin (alternatives included).
dep_names() { tr ',|' '\n' | sed 's/(.*//; s/[[:space:]]//g' | grep . | sort -u; }
depends=$(dpkg-deb -f "$DEB" Depends)
names=$(dep_names <<<"$depends")
grep -qx man-db <<<"$names" || fail "Depends lacks man-db: $depends"
# libcrypto.so.3 is dlopen'd for signatures: libssl3, named once (lintian.sh checks that).
grep -qx libssl3 <<<"$names" || fail "Depends lacks libssl3: $depends"
grep -qx libsqlite3-0 <<<"$names" || fail "Depends lacks libsqlite3-0 (the history store dlopen's libsqlite3.so.0): $depends"
grep -qx adduser <<<"$names" || fail "Depends lacks adduser (postinst makes the card check's account): $depends"
dpkg-deb -I "$DEB" postinst >/dev/null || fail "the package has no postinst (the card check's account)"
# The Slurm series: the bounds hold the whole series of the installed slurmd (the one the
# plugin was built against here) and nothing of the next one.
slurmd_version=$(dpkg-query -W -f '${Version}' slurmd)
series=$(cut -d. -f1-2 <<<"$slurmd_version")
lower=$(grep -o 'slurmd (>= [^)]*)' <<<"$depends" | sed 's/slurmd (>= \(.*\))/\1/')
upper=$(grep -o 'slurmd (<< [^)]*)' <<<"$depends" | sed 's/slurmd (<< \(.*\))/\1/')
[[ -n $lower && -n $upper ]] || fail "Depends lacks the slurmd series bounds: $depends"
[[ $lower == "$series" ]] || fail "Depends' lower bound $lower is not slurmd $slurmd_version's series $series"
dpkg --compare-versions "$slurmd_version" lt "$upper" && dpkg --compare-versions "$series.99" lt "$upper" ||
	fail "Depends' upper bound $upper cuts into the series $series"
next=$(printf '%s.%02d' "${series%.*}" $((10#${series#*.} + 1)))
dpkg --compare-versions "$upper" le "$next" || fail "Depends' upper bound $upper admits the next series $next"
# Every library an installed program or plugin links directly comes from a package named in
# Depends (or from one a Depends package depends on: libopenblas0 -> libopenblas0-pthread).
while read -r elf; do
	for soname in $(readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		lib=$(ldd "$elf" | awk -v s="$soname" '$1 == s {print $3}')
		[[ -n $lib ]] || fail "$elf: $soname not found on this machine"
		real=$(readlink -f "$lib")
		# The package of this very file (its path as dpkg recorded it, before or after the
		# /usr merge), never another architecture's copy of the same name (an arm64 cross
		# build's libgomp1-arm64-cross owns a libgomp.so.1 too).
		owner=
		for p in "$real" "$lib" "${real#/usr}" "${lib#/usr}"; do
			owner=$(dpkg -S "$p" 2>/dev/null | head -n1 | cut -d: -f1) || owner=
			[[ -z $owner ]] || break
		done
		[[ -n $owner ]] || fail "no package owns $real ($soname of $elf)"
		grep -qx "$owner" <<<"$names" && continue
		found=0
		for d in $names; do
			if dpkg-query -W -f '${Depends}' "$d" 2>/dev/null | dep_names | grep -x "$owner" >/dev/null; then found=1; fi
		done
		((found)) || fail "Depends does not cover $owner ($soname of ${elf#"$WORK"/x}): $depends"
	done
done < <(find "$WORK/x" -type f \( -path '*/bin/*' -o -path '*/libexec/*' -o -name '*.so' \))

# ---------------------------------------------------------------- install
mkdir -p /run/lock # (a fresh /run, e.g. a chroot's tmpfs, may not have it yet)
exec 8>/run/lock/streamcard-package-test.lock
flock -w 600 8 || fail "another package test holds /run/lock/streamcard-package-test.lock"
if dpkg-query -W -f '${Status}' streamcard 2>/dev/null | grep 'install ok installed' >/dev/null; then
	skip "a streamcard package is installed on this machine already: not replacing it"
fi
installed=0
test_cleanup() {
	if ((installed)) && dpkg-query -W -f '${Status}' streamcard 2>/dev/null | grep 'ok installed' >/dev/null; then
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -q -o DPkg::Lock::Timeout=300 streamcard >/dev/null 2>&1
	fi
}
installed=1
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	-o DPkg::Lock::Timeout=300 "$DEB" >"$WORK/install.log" 2>&1 ||
	{ cat "$WORK/install.log" >&2; fail "apt-get install $DEB failed"; }
dpkg-query -W -f '${Status}' streamcard | grep 'install ok installed' >/dev/null || fail "not installed after apt-get install"
# The card check's account, made by postinst (or left as it was when it existed before):
# a system account, no home, no login.
IFS=: read -r _ _ check_uid _ _ check_home check_shell < <(getent passwd streamcard-check) ||
	fail "no account streamcard-check after installing the package"
((check_uid > 0 && check_uid < 1000)) && [[ $check_home == /nonexistent && $check_shell == /usr/sbin/nologin ]] ||
	fail "streamcard-check is not a system account without home and login: $(getent passwd streamcard-check)"

version=$(dpkg-deb -f "$DEB" Version)
[[ $(/usr/bin/streamcard --version) == "streamcard $version" ]] ||
	fail "streamcard --version: '$(/usr/bin/streamcard --version)', not 'streamcard $version'"
# A --dry-run of the packaged card, as the job's user: the installed kernel is the one planned.
as_user /usr/bin/streamcard run /usr/share/streamcard/cards/stream-copy.yaml --dry-run >"$WORK/dry.out" 2>&1 ||
	fail "--dry-run of the packaged card: $(cat "$WORK/dry.out")"
grep -q 'binary: */usr/libexec/streamcard/streamcard-stream$' "$WORK/dry.out" ||
	fail "the dry run does not plan /usr/libexec/streamcard/streamcard-stream: $(cat "$WORK/dry.out")"
# Every man page of the package reads with man (man-db, a dependency).
for page in $(grep '^/usr/share/man/man[0-9]/.*\.gz$' "$WORK/paths"); do
	name=${page##*/}
	name=${name%.gz}
	LC_ALL=C.UTF-8 MANWIDTH=80 MANPAGER=cat man -l "$page" >"$WORK/man.out" 2>"$WORK/man.err" ||
		fail "man -l $page: $(cat "$WORK/man.err")"
	[[ ! -s $WORK/man.err ]] || fail "man -l $page warns: $(cat "$WORK/man.err")"
	grep -q "^NAME" "$WORK/man.out" && grep -qi "^${name%.*}(${name##*.})" "$WORK/man.out" ||
		fail "man -l $page does not show the page ${name%.*}(${name##*.}): $(head -n 5 "$WORK/man.out")"
done

# ---------------------------------------------------------------- the plugin on a cluster
# shellcheck disable=SC2034 # plugin_lib.sh and its helpers use both
PLUGIN=$PLUGINDIR/spank_streamcard.so SC=/usr/bin/streamcard
# shellcheck source=../cluster/plugin_lib.sh
source "$(dirname "$0")/../cluster/plugin_lib.sh"
plugin_up ""
grep -q "^required $PLUGIN\( \|$\)" "$CDIR/etc/plugstack.conf" || # its arguments follow
	fail "the cluster does not load the installed plugin: $(cat "$CDIR/etc/plugstack.conf")"
grep -qxF 'STREAMCARD_BIN_DEFAULT = "/usr/bin/streamcard"' "$CDIR/etc/cli_filter.lua" ||
	fail "the cluster's cli_filter does not call /usr/bin/streamcard"
write_card card.yaml '  cpu_list: 0' '  threads: 1' '  memory_node: 0'
write_job job.sh
job=$(submit card.yaml job.sh) || fail "sbatch refused a good card"
wait_completed "$job"
B=$(job_bundle "$job")
grep -qx "verdict=ok" "$B/run.conf" || fail "verdict not ok: $(cat "$WORK/$job.out")"
[[ -s $B/platform/before.txt ]] || fail "the plugin's platform/before.txt is missing: the plugin did not run"
grep -q '/usr/libexec/streamcard/streamcard-stream' "$B/build.json" || fail "the job did not run the installed kernel"
as_user /usr/bin/streamcard verify "$B" >/dev/null || fail "streamcard verify rejects the job's bundle"
cluster_down >/dev/null

# ---------------------------------------------------------------- removal
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q -o DPkg::Lock::Timeout=300 streamcard \
	>"$WORK/purge.log" 2>&1 || { cat "$WORK/purge.log" >&2; fail "apt-get purge streamcard failed"; }
installed=0
if dpkg-query -W -f '${Status}' streamcard 2>/dev/null | grep 'installed' >/dev/null; then
	fail "streamcard is still installed: $(dpkg-query -W -f '${Status}' streamcard)"
fi
left=$(while read -r p; do if [[ -e $p && ! -d $p ]]; then echo "$p"; fi; done <"$WORK/paths")
[[ -z $left ]] || fail "apt-get purge left files: $left"
for d in /usr/share/streamcard /usr/libexec/streamcard /usr/share/doc/streamcard; do
	[[ ! -e $d ]] || fail "apt-get purge left $d"
done
echo "ok: the .deb installs, runs a card job with its plugin, and purges cleanly"
