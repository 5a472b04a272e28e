# screenshot_lib.sh: the report pages seen as a person sees them. Source it after lib.sh.
#   shoot HTML PNG [HEIGHT [WIDTH]]: headless Chromium renders the page at half scale in a
#     window WIDTH px wide (default 1200; offline, no profile, no sandbox: root in CI); exits
#     the test with 77 (skipped) without chromium.
#   dump_dom HTML OUT: the page's DOM after Chromium ran it (scripts and event handlers
#     included, 2 s of virtual time), into OUT; 77 without chromium, as shoot.
#   png_pixels PNG RRGGBB...: prints the page's dark pixels, then the pixels of each colour,
#     one number a line (a tiny PNG decoder: zlib and the five row filters); with
#     PNG_EXTENT=1 each colour's line also gives the image's width and the rightmost column
#     holding that colour ("count width rightmost").

sc__chromium() {
    command -v chromium || command -v chromium-browser || {
        echo "skip: no chromium (Debian package chromium) to render the page" >&2
        exit 77
    }
}

shoot() {
    local chromium
    chromium=$(sc__chromium) || exit 77
    timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --no-first-run --disable-sync --user-data-dir="$WORK/profile" \
        --force-device-scale-factor=0.5 --window-size="${4:-1200}","${3:-6000}" --screenshot="$2" \
        "file://$1" \
        >"$WORK/chromium.out" 2>&1 || { cat "$WORK/chromium.out" >&2; fail "chromium failed"; }
}

dump_dom() {
    local chromium
    chromium=$(sc__chromium) || exit 77
    timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --no-first-run --disable-sync --user-data-dir="$WORK/profile" \
        --virtual-time-budget=2000 --dump-dom "file://$1" >"$2" 2>"$WORK/chromium.out" ||
        { cat "$WORK/chromium.out" >&2; fail "chromium failed"; }
}

png_pixels() {
    python3 - "$@" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6), (depth, ctype)
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
rows, prev, i = [], bytearray(stride), 0
for _ in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b, c = prev[x], prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
ink = sum(1 for r in rows for x in range(0, stride, bpp) if r[x] + r[x + 1] + r[x + 2] < 600)
print(ink)
import os
for colour in sys.argv[2:]:
    rgb = tuple(bytes.fromhex(colour))
    cols = [x // bpp for r in rows for x in range(0, stride, bpp) if tuple(r[x:x + 3]) == rgb]
    if os.environ.get("PNG_EXTENT") == "1":
        print(len(cols), w, max(cols) if cols else -1)
    else:
        print(len(cols))
PY
}
