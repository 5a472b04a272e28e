# shellcheck shell=bash
# load_lib.sh: what the tests and benchmarks that load a CPU on purpose share: how busy the
# CPUs are now, and a busy loop that comes and goes (a host that drifts). Source it; it
# defines functions only.

# load_need_cpus N: skips (77) a test on a machine of fewer than N CPUs.
load_need_cpus() {
    [ "$(nproc)" -ge "$1" ] || { echo "SKIP: needs $1 CPUs"; exit 77; }
}

# cpu_busy_pct CPU...: the busiest of the CPUs over one second, in % (user, nice, system,
# irq, softirq, steal over every tick), as "<pct> cpu<N>".
cpu_busy_pct() {
    local pattern a b
    pattern="^cpu($(IFS='|'; echo "$*")) "
    a=$(grep -E "$pattern" /proc/stat)
    sleep 1
    b=$(grep -E "$pattern" /proc/stat)
    printf '%s\n%s\n' "$a" "$b" | awk '
        { busy = $2 + $3 + $4 + $7 + $8 + $9; total = busy + $5 + $6
          if ($1 in b0) { db = busy - b0[$1]; dt = total - t0[$1]
                          p = dt > 0 ? 100 * db / dt : 0
                          if (p >= worst) { worst = p; name = $1 } }
          else { b0[$1] = busy; t0[$1] = total } }
        END { printf "%.1f %s\n", worst, name }'
}

# drift_start DIR CPU ON OFF: a busy loop (named sc-busy, made in DIR) on CPU for ON seconds,
# then none for OFF seconds, again and again, until drift_stop; its pid in DRIFT_PID.
# Stopped, it ends its busy child first.
drift_start() {
    local dir=$1 cpu=$2 on=$3 off=$4
    [ -e "$dir/sc-busy" ] || ln -s "$(command -v sh)" "$dir/sc-busy"
    (
        child=""
        trap '[ -z "$child" ] || kill $child 2>/dev/null; exit 0' TERM
        while :; do
            taskset -c "$cpu" "$dir/sc-busy" -c 'while :; do :; done' &
            child=$!
            sleep "$on" &
            wait $!
            kill $child 2>/dev/null
            wait $child 2>/dev/null
            child=""
            sleep "$off" &
            wait $!
        done
    ) &
    DRIFT_PID=$!
}

drift_stop() {
    if [ -n "${DRIFT_PID:-}" ]; then
        kill "$DRIFT_PID" 2>/dev/null || true
        wait "$DRIFT_PID" 2>/dev/null || true
    fi
    DRIFT_PID=""
}
