#!/usr/bin/env bash
# Real-browser test of `limbo-analyze view`: simulate the paper's ledger
# (25,930 episodes), build the viewer site, and drive Debian's chromium with
# playwright-core: open the site from file://, apply filters and check the
# count and events against `limbo-analyze rates`, open a duplicated episode
# and check its calls and effects against the raw ledger, step with the
# keyboard, and time opening, filtering and showing an episode (each under
# VIEW_MAX_MS, 2000 ms by default). Screenshots go to $VIEW_SHOTS if set.
# Then the same site served (view --serve): it loads from its own origin,
# and a page of another origin cannot read its data (served.mjs).
# Installs chromium (apt) and playwright-core (npm, into a temporary folder)
# when missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
served=
trap '[ -n "$served" ] && kill "$served" 2>/dev/null; rm -rf "$tmp"' EXIT

if [ ! -x /usr/bin/chromium ]; then
	echo "installing chromium (apt)"
	apt-get install -y chromium >/dev/null || { apt-get update >/dev/null && apt-get install -y chromium >/dev/null; }
fi
(cd "$tmp" && npm install --silent --no-audit --no-fund playwright-core >/dev/null)
cp scripts/browser/check.mjs scripts/browser/served.mjs scripts/browser/escape.mjs "$tmp/"

go build -o "$tmp/limbo-analyze" ./cmd/limbo-analyze
la="$tmp/limbo-analyze"
"$la" simulate --out "$tmp/paper.jsonl"
"$la" view "$tmp/paper.jsonl" --out "$tmp/site"

# The filter the browser applies, and what rates says of it.
model=gpt-4.1
fault=timeout_late
"$la" rates --in "$tmp/paper.jsonl" --outcome duplicated \
	--where "model == \"$model\" && fault_mode == \"$fault\"" --format json > "$tmp/rates.json"

shots=${VIEW_SHOTS:-$tmp/shots}
mkdir -p "$shots"
(cd "$tmp" && node check.mjs "$tmp/site" "$tmp/paper.jsonl" "$tmp/rates.json" "$model" "$fault" "$shots")

# Text from the ledger is shown escaped: a call whose arguments (JSON)
# hold a newline, and whose key holds an OSC escape sequence ended by BEL.
python3 - "$tmp/esc.jsonl" <<'PY'
import json, sys
line = json.loads(open("testdata/ledger/sample.jsonl").readline())
line["calls"][0]["args"] = '{"text": "a",\n"n": 1}'
line["calls"][0]["idempotency_key"] = "k\u001b]0;pwned\u0007"
open(sys.argv[1], "w").write(json.dumps(line) + "\n")
PY
"$la" view "$tmp/esc.jsonl" --out "$tmp/esc-site"
(cd "$tmp" && node escape.mjs "$tmp/esc-site" "$shots/escape.png")

# Served: the address is on view's stderr ("serving N episodes at URL").
"$la" view "$tmp/paper.jsonl" --serve 127.0.0.1:0 2> "$tmp/serve.log" &
served=$!
for _ in $(seq 600); do
	url=$(sed -n 's/^serving .* at \(http:[^ ]*\) .*/\1/p' "$tmp/serve.log")
	[ -n "$url" ] && break
	kill -0 "$served" 2>/dev/null || { cat "$tmp/serve.log"; exit 1; }
	sleep 0.1
done
[ -n "$url" ] || { echo "view --serve did not start"; cat "$tmp/serve.log"; exit 1; }
(cd "$tmp" && node served.mjs "$url" 25930)
