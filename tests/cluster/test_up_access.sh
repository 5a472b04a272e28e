#!/usr/bin/env bash
# up refuses, before it starts anything, a plugin or a streamcard command that the job's
# user cannot reach (a clone in root's 0700 home): one line naming the path, what stops
# the user and the fix. The staged install, every user's to read, is accepted.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
cluster_down --purge >/dev/null 2>&1 || true
closed=$(mktemp -d /tmp/streamcard-closed.XXXXXX) # mode 0700, root's
CLEANUP+=("$closed")
mkdir -p "$closed/build/lib" "$closed/build/bin"
cp "$PLUGIN" "$closed/build/lib/"
cp "$SC" "$closed/build/bin/"

# refused WHAT PATH: up --plugin $closed/build/lib/spank_streamcard.so exits 1 with one line
# on stderr naming PATH and WHAT, and no daemon of the test cluster is left running.
refused() {
	local what=$1 path=$2 rc=0
	"$LC/up" --dir "$CDIR" --ctld-port "$CTLD_PORT" --slurmd-port "$SLURMD_PORT" \
		--plugin "$closed/build/lib/spank_streamcard.so" >"$closed.out" 2>"$closed.err" || rc=$?
	CLEANUP+=("$closed.out" "$closed.err")
	((rc == 1)) || fail "up exited $rc, not 1, for $path: $(cat "$closed.err")"
	[[ ! -s $closed.out ]] || fail "up printed on stdout: $(cat "$closed.out")"
	[[ $(wc -l <"$closed.err") == 1 ]] || fail "up's refusal is not one line: $(cat "$closed.err")"
	grep -qF "scuser cannot $what $path" "$closed.err" || fail "up does not name $path: $(cat "$closed.err")"
	grep -qF "cmake --install" "$closed.err" || fail "up does not name the fix: $(cat "$closed.err")"
	[[ ! -e $CDIR/run/munged.pid && ! -e $CDIR/run/slurmctld.pid ]] || fail "up started daemons before refusing"
}
refused read "$closed/build/lib/spank_streamcard.so"
grep -qF "$closed (mode 700" "$closed.err" || fail "up does not name the closed directory: $(cat "$closed.err")"
chmod 0755 "$closed"
chmod 0600 "$closed/build/lib/spank_streamcard.so"
refused read "$closed/build/lib/spank_streamcard.so"
chmod 0644 "$closed/build/lib/spank_streamcard.so"
chmod 0700 "$closed/build/bin/streamcard"
refused execute "$closed/build/bin/streamcard"

# The installed tree is accepted, and its command becomes the cli_filter's.
cluster_up --plugin "$PLUGIN"
# (up appends the node key it made: key=...)
grep -qE "^required $(readlink -f "$PLUGIN")( |$)" "$CDIR/etc/plugstack.conf" ||
	fail "plugstack.conf does not name the staged plugin: $(cat "$CDIR/etc/plugstack.conf")"
echo "ok: up refuses what scuser cannot reach, accepts the staged install"
