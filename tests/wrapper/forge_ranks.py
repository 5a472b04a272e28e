"""forge_ranks.py BUNDLE HOST,HOST,...: a forger's copy of a real 2-rank mpi-pingpong run
(tests/wrapper/health.sh) made into a run of one rank per named host, consistent wherever
verify looks: rank r (r >= 2) repeats rank 1's lines and records of stream.log, run.conf,
results.json and build.json, renumbered; rank r's host is HOST r (so each rank has its own
CPU of its own host); the card's ranks, its hash and the counts follow. The caller writes
the matrix and reseals. What the forger cannot make is a signed statement of each node:
this is the tests' stand-in for a partition of several hosts on one machine."""
import hashlib, json, re, sys

path, hosts = sys.argv[1], sys.argv[2].split(",")
n = len(hosts)
RANKED = re.compile(r"(\brank=|source=rank)(\d+)\b")


def with_host(line):
    m = RANKED.search(line)
    return re.sub(r"host=[^ ]+", "host=" + hosts[int(m.group(2))], line) if m else line


def expand_lines(lines):
    """After each run of per-rank lines, rank 1's lines again for ranks 2..n-1."""
    out, k = [], 0
    while k < len(lines):
        if not RANKED.search(lines[k]):
            out.append(lines[k])
            k += 1
            continue
        run = []
        while k < len(lines) and RANKED.search(lines[k]):
            run.append(lines[k])
            k += 1
        out.extend(run)
        ones = [l for l in run if RANKED.search(l).group(2) == "1"]
        for rank in range(2, n):
            out.extend(RANKED.sub(lambda m: m.group(1) + str(rank), l, count=1) for l in ones)
    return [with_host(l) for l in out]


def rank_of(item):
    if isinstance(item, dict):
        if item.get("rank") in (0, 1):
            return item["rank"]
        if item.get("source") in ("rank0", "rank1"):
            return int(item["source"][4])
    return None


def expand_json(o):
    """Lists of per-rank records: rank 1's again for ranks 2..n-1, each on its own host."""
    if isinstance(o, dict):
        return {k: expand_json(v) for k, v in o.items()}
    if not isinstance(o, list):
        return o
    o = [expand_json(v) for v in o]
    if not any(rank_of(v) == 1 for v in o):
        return o
    out = list(o)
    for rank in range(2, n):
        for v in o:
            if rank_of(v) == 1:
                c = json.loads(json.dumps(v))
                if "rank" in c:
                    c["rank"] = rank
                if str(c.get("source", "")).startswith("rank"):
                    c["source"] = "rank%d" % rank
                out.append(c)
    for v in out:
        r = v.get("rank", None) if isinstance(v, dict) else None
        if isinstance(v, dict) and isinstance(v.get("source"), str) and v["source"].startswith("rank"):
            r = int(v["source"][4:])
        if isinstance(r, int) and "host" in v:
            v["host"] = hosts[r]
    return out


log = open(path + "/stream.log").read().split("\n")
log = [re.sub(r"^(Number of Ranks (requested|counted) = )2$", r"\g<1>%d" % n, l) for l in log]
log = [re.sub(r"^# #processes = 2$", "# #processes = %d" % n, l) for l in log]
open(path + "/stream.log", "w").write("\n".join(expand_lines(log)))
card = open(path + "/card.yaml").read().replace("  ranks: 2\n", "  ranks: %d\n" % n)
open(path + "/card.yaml", "w").write(card)
sha = hashlib.sha256(card.encode()).hexdigest()
conf = open(path + "/run.conf").read().split("\n")
conf = ["ranks=%d" % n if l == "ranks=2" else re.sub(r"^card_sha256=.*", "card_sha256=" + sha, l)
        for l in conf]
open(path + "/run.conf", "w").write("\n".join(expand_lines(conf)))
for name in ("results.json", "build.json"):
    j = expand_json(json.load(open(path + "/" + name)))
    if name == "results.json":
        j["card_sha256"], j["ranks"] = sha, n
    json.dump(j, open(path + "/" + name, "w"), indent=2)
