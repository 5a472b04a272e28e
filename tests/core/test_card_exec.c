/* test_card_exec.c: exec cards (a program we did not write): good cards, bad cards and their
   exact messages (the table runner is card_cases.c, shared with test_card.c). */
#include "card_cases.h"
#include "sc_test.h"

static const card_case exec_cases[] = {
    /* exec: a program and its arguments as a list, no shell; a bare name is found on PATH
       when the run is planned (test_workloads), a relative path never. */
    {"good exec card",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [/usr/bin/dd, if=/dev/zero, count=1]\n"
          "  memory_node: 0\n  env:\n    LC_ALL: C\n",
     {NULL}},
    {"exec card with a name on PATH",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [dd]\n",
     {NULL}},
    {"exec without command",
     HEAD "  workload: exec\n  cpu_list: 0\n",
     {"card.yaml: command: missing (valid: a list, the program then its arguments: "
      "[/usr/bin/dd, if=/dev/zero, of=/dev/null])"}},
    {"exec relative path",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [./bench, -n, 3]\n",
     {"card.yaml:5: command: \"./bench\" is a relative path (valid: an absolute path, or a name "
      "found on PATH such as \"bench\")"}},
    {"exec command as one text",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: /usr/bin/dd if=/dev/zero\n",
     {"card.yaml:5: command: expected a list, got a single value"}},
    {"exec empty program",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [\"\", x]\n",
     {"card.yaml:5: command: the program is empty (valid: an absolute path, or a name found on "
      "PATH)"}},
    {"exec command with a NUL",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [/usr/bin/dd, \"a\\0b\"]\n",
     {"command: an entry contains a NUL byte"}},
    /* exec's figures: a list of metrics, each a pattern with one capture group. */
    {"exec with metrics",
     HEAD
     "  workload: exec\n  cpu_list: 0\n  command: [dd]\n  metrics:\n"
     "    - {name: rate, pattern: '([0-9.]+) GB/s', unit: GB/s, better: higher, primary: true}\n"
     "    - {name: secs, pattern: 'copied, ([0-9.]+) s', unit: s, better: lower}\n"
     "  validate_pattern: 'records out$'\n",
     {NULL}},
    {"metric pattern does not compile",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [dd]\n  metrics:\n"
          "    - {name: rate, pattern: '([0-9.]+ GB/s', unit: GB/s, better: higher}\n",
     {"card.yaml:7: metrics: rate: pattern \"([0-9.]+ GB/s\": Unmatched ( or \\( (valid: a POSIX "
      "extended regex with one capture group, the figure)"}},
    {"metric pattern without a capture group",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [dd]\n  metrics:\n"
          "    - {name: rate, pattern: '[0-9.]+ GB/s', unit: GB/s, better: higher}\n",
     {"card.yaml:7: metrics: rate: pattern \"[0-9.]+ GB/s\": 0 capture groups, not 1"}},
    {"metric pattern with a back reference",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [dd]\n  metrics:\n"
          "    - {name: rate, pattern: '(a*)*\\1', unit: x, better: higher}\n",
     {"a back reference (\\1) is not allowed"}},
    {"metric pattern with a large interval",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [dd]\n  metrics:\n"
          "    - {name: rate, pattern: '((a{1,1000}){1,1000})', unit: x, better: higher}\n",
     {"an interval above {100}"}},
    {"two primary metrics",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [dd]\n  metrics:\n"
          "    - {name: a, pattern: 'a=([0-9]+)', unit: x, better: higher, primary: true}\n"
          "    - {name: b, pattern: 'b=([0-9]+)', unit: x, better: lower, primary: true}\n",
     {"card.yaml: metrics: 2 are primary: true (valid: at most one)"}},
    {"metric declared twice",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [dd]\n  metrics:\n"
          "    - {name: a, pattern: 'a=([0-9]+)', unit: x, better: higher}\n"
          "    - {name: a, pattern: 'b=([0-9]+)', unit: x, better: lower}\n",
     {"card.yaml:8: metrics: a is declared twice (first on line 7)"}},
    {"metric without unit, with a bad better and an unknown key",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [dd]\n  metrics:\n"
          "    - {name: a, pattern: 'a=([0-9]+)', better: up, colour: red}\n",
     {"card.yaml:7: metrics: better: \"up\" is not allowed (valid: higher, lower)",
      "card.yaml:7: metrics: unknown key \"colour\" (valid: name, pattern or from: marker, unit, "
      "better, primary)",
      "card.yaml:7: metrics: an entry without unit"}},
    /* from: marker: the figure the program reports with sc_marker_figure, by its name. */
    {"metric from the marker library",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [dd]\n  metrics:\n"
          "    - {name: lat, from: marker, unit: us, better: lower, primary: true}\n",
     {NULL}},
    {"metric with a pattern and from: marker",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [dd]\n  metrics:\n"
          "    - {name: lat, pattern: 'l=([0-9]+)', from: marker, unit: us, better: lower}\n",
     {"card.yaml:7: metrics: an entry with both pattern and from: marker (valid: one of them: "
      "the figure is read one way)"}},
    {"metric with neither a pattern nor from: marker",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [dd]\n  metrics:\n"
          "    - {name: lat, unit: us, better: lower}\n",
     {"card.yaml:7: metrics: an entry without pattern or from: marker (valid: a pattern that "
      "reads the figure from the log, or from: marker for the one the program reports with "
      "sc_marker_figure)"}},
    {"metric from something else",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [dd]\n  metrics:\n"
          "    - {name: lat, from: log, unit: us, better: lower}\n",
     {"card.yaml:7: metrics: from: \"log\" is not allowed (valid: marker)"}},
    {"metrics as one text",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [dd]\n  metrics: rate\n",
     {"card.yaml:6: metrics: expected a list of metrics ({name, pattern, unit, better}), got a "
      "single value"}},
    {"validate_pattern does not compile",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [dd]\n  validate_pattern: 'ok[('\n",
     {"card.yaml:6: validate_pattern: \"ok[(\": "}},
    {"exec with phase patterns",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [dd]\n  begin_pattern: '^loop begins$'\n"
          "  end_pattern: '^loop ends'\n",
     {NULL}},
    /* exec with ranks: an MPI program, one rank per CPU, under mpi-pingpong's launcher. */
    {"exec MPI program",
     HEAD "  workload: exec\n  cpu_list: 0-1\n  command: [prog]\n  ranks: 2\n  expect:\n"
          "    transport: shm\n",
     {NULL}},
    {"exec MPI program of one rank",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [prog]\n  ranks: 1\n",
     {NULL}},
    {"exec one rank expects a transport",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [prog]\n  ranks: 1\n  expect:\n"
          "    transport: shm\n",
     {"card.yaml:8: expect: transport: ranks: 1 sends nothing between ranks (valid: ranks: 2 or "
      "more, or no expect: transport)"}},
    {"exec no ranks",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [prog]\n  ranks: 0\n",
     {"card.yaml:6: ranks: "}},
    {"mpi-pingpong keeps two ranks at least",
     HEAD "  workload: mpi-pingpong\n  cpu_list: 0-1\n  ranks: 1\n",
     {"card.yaml:5: ranks: 1 rank has no partner to ping-pong with (valid: 2, or with pairs: all "
      "one per node, 2 to 4096)"}},
    {"mpi-pingpong link matrix of one rank",
     HEAD "  workload: mpi-pingpong\n  cpu_list: 0\n  pairs: all\n  ranks: 1\n",
     {"card.yaml:6: ranks: 1 rank has no partner to ping-pong with (valid: 2, or with pairs: all "
      "one per node, 2 to 4096)"}},
    {"exec ranks above its CPUs",
     HEAD "  workload: exec\n  cpu_list: 0-1\n  command: [prog]\n  ranks: 3\n",
     {"card.yaml:6: ranks: 3 ranks are more than the 2 CPU(s) of cpu_list 0-1 (valid: at most 2 "
      "ranks, one per CPU, or a longer cpu_list)"}},
    {"exec ranks with a memory node",
     HEAD "  workload: exec\n  cpu_list: 0-1\n  command: [prog]\n  ranks: 2\n  memory_node: 0\n",
     {"card.yaml:7: memory_node: not for MPI ranks (valid: no memory_node with ranks:, or no "
      "ranks:)"}},
    {"exec expects a transport without ranks",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [prog]\n  expect:\n    transport: shm\n",
     {"card.yaml:7: expect: transport: only for an MPI program (valid: ranks: 2 or more, or no "
      "expect: transport)"}},
    /* expect: interface: the share of every counted interface's bytes (the payload of a
       program we did not write is unknown), for an MPI program only. */
    {"exec MPI program expects an interface",
     HEAD "  workload: exec\n  cpu_list: 0-1\n  command: [prog]\n  ranks: 2\n  expect:\n"
          "    interface: lo\n",
     {NULL}},
    {"exec expects an interface without ranks",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [prog]\n  expect:\n    interface: lo\n",
     {"card.yaml:7: expect: interface: only for an MPI program (valid: ranks: 2 or more, or no "
      "expect: interface)"}},
    {"exec one rank expects an interface",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [prog]\n  ranks: 1\n  expect:\n"
          "    interface: eth0\n",
     {"card.yaml:8: expect: interface: ranks: 1 sends nothing between ranks (valid: ranks: 2 or "
      "more, or no expect: interface)"}},
    {"stream expects no interface",
     HEAD "  workload: stream\n  cpu_list: 0\n  expect:\n    interface: lo\n",
     {"card.yaml:6: interface: not used by workload stream (valid only for mpi-pingpong or exec; "
      "remove it)"}},
    {"begin_pattern without end_pattern",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [dd]\n  begin_pattern: '^go$'\n",
     {"card.yaml:6: begin_pattern without end_pattern (valid: both, the program's lines that "
      "begin and end its main loop, or neither: the whole process)"}},
    {"end_pattern with a back reference",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [dd]\n  begin_pattern: go\n"
          "  end_pattern: '(x)\\1'\n",
     {"card.yaml:7: end_pattern: \"(x)\\1\": a back reference (\\1) is not allowed (valid: a "
      "POSIX extended regex)"}},
    {"metrics of another workload",
     HEAD "  workload: stream\n  cpu_list: 0\n  metrics:\n"
          "    - {name: a, pattern: 'a=([0-9]+)', unit: x, better: higher}\n",
     {"card.yaml:5: metrics: not used by workload stream (valid only for exec; remove it)"}},
    {"command of another workload",
     HEAD "  workload: stream\n  cpu_list: 0\n  command: [/usr/bin/dd]\n",
     {"card.yaml:5: command: not used by workload stream (valid only for exec; remove it)"}},
    {"exec takes no iterations",
     HEAD "  workload: exec\n  cpu_list: 0\n  command: [/bin/true]\n  iterations: 3\n",
     {"card.yaml:6: iterations: not used by workload exec (valid only for stream or ipsearch or "
      "mpi-pingpong; remove it)"}},
};

static void test_exec_cases(void)
{
    int failures = card_cases_run(exec_cases, sizeof(exec_cases) / sizeof(exec_cases[0]));

    SC_CHECK_MSG(failures == 0, "%d of the cases failed (see above)", failures);
}

int main(void)
{
    SC_TEST_RUN(test_exec_cases);
    return SC_TEST_RESULT();
}
