#!/bin/sh
# run-static.sh: static analysis of the project's C files, as built in BUILD_DIR.
# Usage: tests/static/run-static.sh BUILD_DIR        (ctest -L static runs it)
#
# Every C file of the source tree that BUILD_DIR compiles (its compile_commands.json: new
# files are covered as soon as CMake builds them) goes through
#   clang-tidy  with the checks of .clang-tidy (tests/.clang-tidy for test code), and
#   cppcheck    --enable=warning,performance,portability, suppressions in cppcheck.supp
#               and inline "// cppcheck-suppress ID" comments that say why.
# Any finding of either fails (exit 1) and is printed as file:line: message [check].
# C files of the tree that this build does not compile are listed, not checked.
# Needs clang-tidy, cppcheck and python3 (Debian: clang-tidy cppcheck python3).
set -eu
if [ $# -ne 1 ]; then
    echo "usage: $0 BUILD_DIR" >&2
    exit 2
fi
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
db=$build/compile_commands.json
jobs=$(nproc)
for tool in clang-tidy cppcheck python3; do
    command -v "$tool" >/dev/null 2>&1 ||
        { echo "run-static.sh: $tool is missing (Debian: apt-get install clang-tidy cppcheck python3)" >&2; exit 1; }
done
[ -f "$db" ] || { echo "run-static.sh: $db is missing (configure with CMAKE_EXPORT_COMPILE_COMMANDS=ON)" >&2; exit 1; }
out=$build/static
mkdir -p "$out"

# The project's C files in the compilation database (not generated ones in build trees).
python3 - "$db" "$src" "$build" >"$out/files" <<'PY'
import json, os, sys
db, src, build = sys.argv[1:]
files = set()
for entry in json.load(open(db)):
    f = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
    if f.endswith(".c") and f.startswith(src + "/") and not f.startswith(build + "/"):
        files.add(f)
print("\n".join(sorted(files)))
PY
nfiles=$(wc -l <"$out/files")
# Every *.c of the tree outside build directories (build*/, anything with a CMakeCache).
find "$src" -name '*.c' -not -path "$src/.git/*" -not -path "$src/build*/*" -not -path "$src/out/*" |
    sort >"$out/tree"
skipped=$(comm -23 "$out/tree" "$out/files")
if [ -n "$skipped" ]; then
    echo "run-static.sh: not compiled in $build, not checked:"
    echo "$skipped" | sed "s|^$src/|  |"
fi

# clang-tidy: headers of the tree are checked with the files that include them; a finding
# in a header is reported once. The static analyzer explores at most 75000 nodes per
# function (its "shallow" budget; the default is 225000): the functions that reach the
# limit cost most of this stage's time (mpi/transport_parse.c's four parsers took 3.3 s
# each; the stage took 434 s on a 2-vCPU Zen 3 VM with the default, 182 s with this one,
# with no finding either way). (clang-tidy 14 does not pass a
# "clang-analyzer-max-nodes" check option on: the analyzer reads its configuration before
# clang-tidy sets it, so it goes as a compiler argument.)
xargs -P "$jobs" -n 4 clang-tidy -p "$build" --quiet \
    --extra-arg=-Xclang --extra-arg=-analyzer-config --extra-arg=-Xclang \
    --extra-arg=max-nodes=75000 \
    --header-filter="^$src/(common|core|wrapper|spank|kernels|marker|mpi|tests)/" \
    --extra-arg=-Wno-unknown-warning-option <"$out/files" >"$out/clang-tidy.log" 2>&1 || true
grep -E '^/[^:]+:[0-9]+:[0-9]+: (warning|error):' "$out/clang-tidy.log" | sort -u >"$out/clang-tidy.findings" || true

# cppcheck over the same compilation database (its include paths and defines per file).
mkdir -p "$out/cppcheck-cache"
cppcheck --project="$db" --enable=warning,performance,portability --library=posix \
    --library=gnu --inline-suppr --suppressions-list="$src/tests/static/cppcheck.supp" \
    --suppress=missingIncludeSystem --suppress="*:$build/*" --suppress='*:/usr/*' \
    --cppcheck-build-dir="$out/cppcheck-cache" -j "$jobs" --quiet \
    --template='{file}:{line}: {severity}: {message} [{id}]' >"$out/cppcheck.log" 2>&1 || true
grep -E '^[^ ]+:[0-9]+: ' "$out/cppcheck.log" | sort -u >"$out/cppcheck.findings" || true

tidy=$(wc -l <"$out/clang-tidy.findings")
cpp=$(wc -l <"$out/cppcheck.findings")
if grep -qE 'error: (unable to|cannot|no such)|Error while processing' "$out/clang-tidy.log"; then
    echo "run-static.sh: clang-tidy could not process some files:" >&2
    grep -E 'error: (unable to|cannot|no such)|Error while processing' "$out/clang-tidy.log" | sort -u >&2
    tidy=$((tidy + 1))
fi
sed "s|^$src/||" "$out/clang-tidy.findings"
sed "s|^$src/||" "$out/cppcheck.findings"
echo "run-static.sh: $nfiles files: clang-tidy $tidy findings, cppcheck $cpp findings"
[ "$tidy" -eq 0 ] && [ "$cpp" -eq 0 ]
