# shellcheck shell=bash
# netns_lib.sh: own_netns CMD... runs CMD in a network namespace of its own with only
# loopback up, so that what other processes send over loopback meanwhile is not counted in
# an MPI run's interface bytes (tests/mpi/test_pingpong_cli.sh, tests/wrapper/mpi.sh); as
# it is when no namespace can be made (the bytes are then the machine's).
own_netns() {
    local u
    for u in "unshare -n" "unshare -rn"; do
        # shellcheck disable=SC2086
        if $u true 2>/dev/null; then
            # shellcheck disable=SC2016
            $u sh -c 'ip link set lo up 2>/dev/null; exec "$@"' sh "$@"
            return
        fi
    done
    "$@"
}
