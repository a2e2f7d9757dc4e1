#!/usr/bin/env python3
"""Writes src/emulator/data/discovery_subset.json: the request-body schemas the emulator
validates with, reduced to field names, types, formats, enums and required flags.

Input: Google discovery documents (default ../shared/schemas/discovery, see its SOURCES.md).
Documents not kept there (EXTRA_FILES) are read from an extra directory instead: the
DISCOVERY_EXTRA_DIR argument, else $TPUTRAIN_DISCOVERY_EXTRA_DIR, else /work/cache/discovery.
They are fetched by hand and never committed:
  cloudbuild.v1.json  cloudbuild:v1 revision 20260323, google/googleapis.dart
                      discovery/googleapis/cloudbuild__v1.json at
                      444fd6c828253578ee2e9a2e7fd2189453917973 (the snapshot the other documents
                      come from; last commit touching it de252e68517832d106e2521c33c884cfa43edea7),
                      sha256 99ee6cdbf6bf826a855595e069e5480e216b5f9607bbb36279d2063d95f15482.
                      (google-api-go-client's stored cloudbuild/v1/cloudbuild-api.json is a
                      2018-era revision without locations, failureInfo or options.logging.)
  compute.v1.json     compute:v1 revision 20261106, googleapiclient/discovery_cache/documents/
                      compute.v1.json in google-api-python-client 2.202.0 (the PyPI wheel),
                      sha256 6a776936c09fdec23f48bb54d6b746eec7d0085d592c1612887abc9881cda697.
                      (The snapshot above lists discovery/googleapis/compute__v1.json, blob
                      d1a3d7ed0721c2e3f4d9f9da6f7906b8a37c6149, but its 5 MB blob could not be had
                      here; the only stored copy was a 2019-era revision.)
  tpu.v2alpha1.json   tpu:v2alpha1 revision 20261001, googleapiclient/discovery_cache/documents/
                      tpu.v2alpha1.json in the same google-api-python-client 2.202.0 wheel,
                      sha256 d46d915249ec5a2fc7d45d7031fb6a1048dacadddabc228a8e0a11c1f686ce51.
                      gcloud's alpha track speaks it (`gcloud alpha compute tpus queued-resources
                      create --reservation R`); kept under the key "tpu.v2alpha1".
(The wheel is a test peer's dependency: MaxText's venv in ~/.cache/tputrain-test has it, so
DISCOVERY_EXTRA_DIR may be its googleapiclient/discovery_cache/documents directory.)
Only the schemas reachable from the request bodies the emulator accepts are kept, and no
descriptions. A property counts as required when the discovery document says so: storage
marks it with annotations.required (per method), the other APIs start its description with
"Required.".

A document found in neither directory keeps the entry the existing OUTPUT already has for it (its
recorded sha256 says which copy it came from), so one API's part can be regenerated without the
others' documents at hand; the script names each one it kept.

Usage: scripts/gen-discovery-subset.py [DISCOVERY_DIR] [OUTPUT] [DISCOVERY_EXTRA_DIR]
"""
import hashlib
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# API file -> request schemas whose closure the emulator validates.
REQUESTS = {
    "container.v1.json": ["CreateClusterRequest", "CreateNodePoolRequest"],
    # Node is also nodes.patch's body; GetGuestAttributesRequest is nodes.getGuestAttributes'
    # (tpu:v2 revision 20260127, the SOURCES.md snapshot).
    "tpu.v2.json": ["Node", "QueuedResource", "GetGuestAttributesRequest"],
    "storage.v1.json": ["Bucket", "Policy", "Object"],
    "iam.v1.json": ["CreateServiceAccountRequest", "SetIamPolicyRequest"],
    "cloudresourcemanager.v1.json": ["GetIamPolicyRequest", "SetIamPolicyRequest"],
    "serviceusage.v1.json": ["EnableServiceRequest", "BatchEnableServicesRequest"],
    "artifactregistry.v1.json": ["Repository"],
    "cloudbuild.v1.json": ["Build"],
    # firewalls.insert's body (gcloud compute firewall-rules create, tputrain's IAP rule) and
    # reservations.insert's (gcloud compute reservations create).
    "compute.v1.json": ["Firewall", "Reservation", "ResourcePolicy"],
    # The alpha track's queued resources: reservationName from --reservation, provisioningModel,
    # runDuration (tpu:v2alpha1 revision 20261001).
    "tpu.v2alpha1.json": ["QueuedResource"],
}

# The subset's key for a document when it is not the API's name (a second version of one API).
API_KEYS = {"tpu.v2alpha1.json": "tpu.v2alpha1"}

# Files read from the extra directory rather than DISCOVERY_DIR.
EXTRA_FILES = {"cloudbuild.v1.json", "compute.v1.json", "tpu.v2alpha1.json"}


def reduce_property(prop, method_required):
    out = {}
    for key in ("type", "format", "$ref"):
        if key in prop:
            out[key] = prop[key]
    if "enum" in prop:
        out["enum"] = prop["enum"]
    if prop.get("readOnly"):
        out["readOnly"] = True
    if "items" in prop:
        out["items"] = reduce_property(prop["items"], [])
    if isinstance(prop.get("additionalProperties"), dict):
        out["additionalProperties"] = reduce_property(prop["additionalProperties"], [])
    if "properties" in prop:  # inline object (storage uses these)
        out["properties"] = {k: reduce_property(v, required_for(v))
                             for k, v in sorted(prop["properties"].items())}
    if method_required:
        out["requiredFor"] = method_required
    return out


def required_for(prop):
    methods = prop.get("annotations", {}).get("required", [])
    if methods:
        return sorted(methods)
    if prop.get("description", "").lstrip().startswith("Required"):
        return ["*"]
    return []


def refs_of(node, found):
    if isinstance(node, dict):
        if "$ref" in node:
            found.add(node["$ref"])
        for value in node.values():
            refs_of(value, found)
    elif isinstance(node, list):
        for value in node:
            refs_of(value, found)


def subset(doc, roots):
    schemas = doc["schemas"]
    keep, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in keep:
            continue
        keep.add(name)
        found = set()
        refs_of(schemas[name], found)
        todo.extend(found - keep)
    out = {}
    for name in sorted(keep):
        schema = schemas[name]
        props = schema.get("properties", {})
        out[name] = {"type": schema.get("type", "object"),
                     "properties": {k: reduce_property(v, required_for(v)) for k, v in sorted(props.items())}}
    return out


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared", "schemas", "discovery")
    output = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "src", "emulator", "data",
                                                                 "discovery_subset.json")
    extra = (sys.argv[3] if len(sys.argv) > 3 else
             os.environ.get("TPUTRAIN_DISCOVERY_EXTRA_DIR", os.path.join("/work", "cache", "discovery")))
    result = {"_source": "Derived by scripts/gen-discovery-subset.py from Google API discovery documents "
                         "(google/googleapis.dart discovery/googleapis/<api>__<version>.json at "
                         "444fd6c828253578ee2e9a2e7fd2189453917973); names, types, formats, enums and "
                         "required flags only.",
              "apis": {}}
    previous = {}
    if os.path.exists(output):
        with open(output) as handle:
            previous = json.load(handle).get("apis", {})
    for file_name, roots in sorted(REQUESTS.items()):
        path = os.path.join(extra if file_name in EXTRA_FILES else source, file_name)
        key = API_KEYS.get(file_name, file_name.split(".")[0])
        if not os.path.exists(path) and key in previous:
            print(f"gen-discovery-subset: {path} not found; kept the existing {key} part "
                  f"(sha256 {previous[key].get('sha256', '?')})", file=sys.stderr)
            result["apis"][key] = previous[key]
            continue
        with open(path, "rb") as handle:
            raw = handle.read()
        doc = json.loads(raw)
        result["apis"][key] = {
                                       "name": doc["name"], "version": doc["version"],
                                       "revision": doc.get("revision", ""),
                                       "sha256": hashlib.sha256(raw).hexdigest(),
                                       "schemas": subset(doc, roots)}
    with open(output + ".tmp", "w") as handle:
        json.dump(result, handle, sort_keys=True, separators=(",", ":"))
        handle.write("\n")
    os.replace(output + ".tmp", output)


if __name__ == "__main__":
    main()
