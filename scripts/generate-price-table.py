#!/usr/bin/env python3
"""Writes src/catalog/builtin_prices.cc: the TPU price table built into tputrain, which it uses
(and says it uses) when the Cloud Billing Catalog API cannot be read, and which the emulator's
Billing Catalog serves until a test sets its own prices.

The prices come from one of:
- the Catalog API, read by tputrain itself so that one set of SKU rules serves both:
  `tputrain prices --all-regions --refresh-prices --format json`, with tputrain's credentials
  (Application Default Credentials, or an API key in TPUTRAIN_BILLING_API_KEY) and endpoint
  (CLOUDSDK_API_ENDPOINT_OVERRIDES_CLOUDBILLING). A reply whose origin is not the API (tputrain
  fell back to a cache or to the built-in table) is refused: the table is never regenerated from
  itself.
- --from-json FILE: a saved reply of that command (the same shape), keeping its source and date.
- --from-skypilot-csv FILE --csv-commit SHA: SkyPilot's published GCP catalog
  (skypilot-org/skypilot-catalog catalogs/v7/gcp/vms.csv, which SkyPilot builds from the same
  API), for when no Google credential is at hand. Its TPU rows price whole slices per zone: this
  script divides by the slice's chips and keeps, per generation and region, the highest
  per-chip price any zone or slice size gives (they agree unless the catalog changed mid-fetch).
  A row whose Spot price equals its on-demand price is a placeholder for "no SKU found" (the
  catalog writes 700.0 for both) and is skipped. Commitments are not in that catalog.

The file written states the source and the date of the prices.

Usage: scripts/generate-price-table.py [--tputrain BIN | --from-json FILE |
         --from-skypilot-csv FILE --csv-commit SHA [--as-of YYYY-MM-DD]] [--output FILE]
"""
import argparse
import csv
import datetime
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KINDS = {
    "on_demand": "PriceKind::kOnDemand",
    "spot": "PriceKind::kSpot",
    "commit_1y": "PriceKind::kCommit1Yr",
    "commit_3y": "PriceKind::kCommit3Yr",
}


def fail(message):
    print("generate-price-table: " + message, file=sys.stderr)
    sys.exit(1)


def read_from_api(tputrain):
    command = [tputrain, "prices", "--all-regions", "--refresh-prices", "--format", "json"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        fail("'%s' failed (exit %d): %s" % (" ".join(command), result.returncode, result.stderr.strip()))
    reply = json.loads(result.stdout)
    if reply.get("origin") != "catalog-api":
        fail("tputrain did not read the Catalog API (origin %r): %s" % (reply.get("origin"), result.stderr.strip()))
    return reply


# SkyPilot's accelerator names for TPU slices, and how many chips a slice of size N has: v4, v5p
# (like v2 and v3) count TensorCores, two per chip; v5e ("v5litepod") and v6e count chips.
SKYPILOT_TPU = {"v4": ("v4", 2), "v5litepod": ("v5e", 1), "v5p": ("v5p", 2), "v6e": ("v6e", 1)}


def read_skypilot_csv(path, commit, as_of):
    highest = {}  # (generation, region, kind) -> per-chip price
    spread = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            name = row.get("AcceleratorName") or ""
            parts = name.split("-")
            if row.get("InstanceType") or len(parts) != 3 or parts[0] != "tpu" or parts[1] not in SKYPILOT_TPU:
                continue
            generation, cores_per_chip = SKYPILOT_TPU[parts[1]]
            try:
                size = int(parts[2])
            except ValueError:
                fail("%s: %r: expected tpu-<generation>-<size>" % (path, name))
            chips = size // cores_per_chip
            if chips <= 0 or size % cores_per_chip:
                fail("%s: %r: a size that is not a whole number of chips" % (path, name))
            on_demand = float(row["Price"]) if row.get("Price") else None
            spot = float(row["SpotPrice"]) if row.get("SpotPrice") else None
            if on_demand is not None and on_demand == spot:
                continue  # the placeholder, not a price
            for kind, price in (("on_demand", on_demand), ("spot", spot)):
                if price is None:
                    continue
                key = (generation, row["Region"], kind)
                per_chip = round(price / chips, 6)
                low, high = spread.get(key, (per_chip, per_chip))
                spread[key] = (min(low, per_chip), max(high, per_chip))
                highest[key] = max(highest.get(key, 0.0), per_chip)
    for key, (low, high) in sorted(spread.items()):
        if high > low * 1.005:
            print("generate-price-table: %s %s %s: zones or sizes differ (%g..%g per chip-hour); kept %g" %
                  (key + (low, high, high)), file=sys.stderr)
    rows = {}
    for (generation, region, kind), price in highest.items():
        rows.setdefault((generation, region), {})[kind] = price
    return {
        "currency": "USD",
        "source": "SkyPilot's GCP catalog (skypilot-org/skypilot-catalog catalogs/v7/gcp/vms.csv at %s, built by "
                  "SkyPilot from the Cloud Billing Catalog API): TPU slice prices divided by their chips, by "
                  "scripts/generate-price-table.py" % commit,
        "as_of": as_of + "T00:00:00.000Z",
        "prices": [{"generation": g, "region": r, "per_chip_hour": kinds} for (g, r), kinds in rows.items()],
    }


def cpp_string(text):
    return json.dumps(text, ensure_ascii=True)  # a JSON string of ASCII is a valid C++ literal


def render(reply):
    for key in ("currency", "source", "as_of", "prices"):
        if key not in reply:
            fail("the reply has no '%s'" % key)
    rows = []
    for row in sorted(reply["prices"], key=lambda r: (r["generation"], r["region"])):
        for kind, value in sorted(row["per_chip_hour"].items(), key=lambda item: list(KINDS).index(item[0])):
            if kind not in KINDS:
                fail("unknown price kind %r" % kind)
            rows.append("          {%s, %s, %s, %r}," % (cpp_string(row["generation"]), cpp_string(row["region"]),
                                                     KINDS[kind], float(value)))
    if not rows:
        fail("the reply holds no price")
    return "\n".join([
        "// Generated by scripts/generate-price-table.py: do not edit; run the script again.",
        "//",
        "// Source: " + reply["source"],
        "//",
        "// Prices as of: " + reply["as_of"],
        "//",
        "// " + reply["currency"] + " per chip-hour: list prices, before discounts, credits and taxes.",
        '#include "tputrain/catalog/prices.h"',
        "",
        "namespace tputrain::catalog {",
        "",
        "const PriceTable& BuiltinPrices() {",
        "  static const PriceTable table{",
        "      %s," % cpp_string(reply["currency"]),
        "      %s," % cpp_string(reply["source"]),
        "      %s," % cpp_string(reply["as_of"]),
        "      {",
        "          // clang-format off",
    ] + rows + [
        "          // clang-format on",
        "      }};",
        "  return table;",
        "}",
        "",
        "}  // namespace tputrain::catalog",
        "",
    ])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tputrain", default=os.path.join(ROOT, "build", "tputrain"))
    parser.add_argument("--from-json", help="a saved 'tputrain prices --format json' reply")
    parser.add_argument("--from-skypilot-csv", help="SkyPilot's catalogs/v7/gcp/vms.csv (or its TPU rows)")
    parser.add_argument("--csv-commit", help="the skypilot-catalog commit the CSV was taken from")
    parser.add_argument("--as-of", default=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
                        help="the day the CSV was read (default: today, UTC)")
    parser.add_argument("--output", default=os.path.join(ROOT, "src", "catalog", "builtin_prices.cc"))
    args = parser.parse_args()
    if args.from_skypilot_csv:
        if not args.csv_commit or not all(c in "0123456789abcdef" for c in args.csv_commit):
            fail("--from-skypilot-csv needs --csv-commit: the catalog commit (hex) the file came from")
        if not (len(args.as_of) == 10 and datetime.date.fromisoformat(args.as_of)):
            fail("--as-of: expected YYYY-MM-DD")
        reply = read_skypilot_csv(args.from_skypilot_csv, args.csv_commit, args.as_of)
    elif args.from_json:
        with open(args.from_json) as f:
            reply = json.load(f)
    else:
        reply = read_from_api(args.tputrain)
    text = render(reply)
    temp = args.output + ".tmp"
    with open(temp, "w") as f:
        f.write(text)
    os.replace(temp, args.output)
    if shutil.which("clang-format"):
        subprocess.run(["clang-format", "-i", "--style=file", args.output], check=True, cwd=ROOT)
    print("generate-price-table: wrote %s (%s, as of %s)" % (args.output, reply["source"], reply["as_of"]))


if __name__ == "__main__":
    main()
