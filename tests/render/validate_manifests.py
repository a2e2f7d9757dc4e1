#!/usr/bin/env python3
"""Validates rendered Kubernetes YAML the way an API server would, without one.

Custom resources (RayCluster, LeaderWorkerSet, JobSet, ...) are checked against the CRDs in
--crds: structural defaults applied first (as the API server does before validating), then
the openAPIV3Schema with jsonschema, the create-time x-kubernetes-validations rules with
cel-python, and a pruning check (a field the schema does not know would be dropped silently,
which for a template is a bug). Built-in kinds go to kubernetes-validate in strict mode.

Usage: validate_manifests.py --crds DIR [--kubernetes-version 1.31.0] FILE...
Prints one line per object; exit 0 when all are valid, 1 when any is not, 2 on bad usage.
"""

import argparse
import copy
import glob
import os
import re
import sys

import celpy
import jsonschema
import kubernetes_validate
import yaml

# The C loader reads the megabyte CRDs several times faster than the pure-Python one.
Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def load_crds(directory):
    schemas = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.yaml"))):
        with open(path, encoding="utf-8") as f:
            for crd in yaml.load_all(f, Loader=Loader):
                if not crd or crd.get("kind") != "CustomResourceDefinition":
                    continue
                group = crd["spec"]["group"]
                kind = crd["spec"]["names"]["kind"]
                for version in crd["spec"]["versions"]:
                    if version.get("served", True):
                        schemas[(f"{group}/{version['name']}", kind)] = version["schema"]["openAPIV3Schema"]
    return schemas


def apply_defaults(value, schema):
    """Structural defaulting: missing properties with a default get it, recursively."""
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for name, sub in properties.items():
            if name not in value and "default" in sub:
                value[name] = copy.deepcopy(sub["default"])
        extra = schema.get("additionalProperties")
        for name, item in value.items():
            if name in properties:
                apply_defaults(item, properties[name])
            elif isinstance(extra, dict):
                apply_defaults(item, extra)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for item in value:
            apply_defaults(item, schema["items"])


def unknown_fields(value, schema, path, out):
    if schema.get("x-kubernetes-preserve-unknown-fields"):
        return
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for name, item in value.items():
            if path == "" and name == "metadata":
                continue  # the object's own ObjectMeta is validated by the server, not the schema
            if name in properties:
                unknown_fields(item, properties[name], f"{path}.{name}", out)
            elif isinstance(extra, dict):
                unknown_fields(item, extra, f"{path}.{name}", out)
            elif extra is not True:
                out.append(f"{path}.{name}: unknown field (the API server would prune it)")
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            unknown_fields(item, schema["items"], f"{path}[{index}]", out)


def cel_rules(value, schema, path, out, env):
    """Evaluates create-time CEL rules (those without oldSelf) where the field is present."""
    for rule in schema.get("x-kubernetes-validations", []):
        if "oldSelf" in rule["rule"]:
            continue
        program = env.program(env.compile(rule["rule"]))
        result = program.evaluate({"self": celpy.json_to_cel(value)})
        if not bool(result):
            out.append(f"{path or '.'}: {rule.get('message', rule['rule'])}")
    if isinstance(value, dict):
        for name, sub in schema.get("properties", {}).items():
            if name in value:
                cel_rules(value[name], sub, f"{path}.{name}", out, env)
        if isinstance(schema.get("additionalProperties"), dict):
            for name, item in value.items():
                if name not in schema.get("properties", {}):
                    cel_rules(item, schema["additionalProperties"], f"{path}.{name}", out, env)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            cel_rules(item, schema["items"], f"{path}[{index}]", out, env)


def validate_custom(document, schema, env):
    errors = []
    defaulted = copy.deepcopy(document)
    apply_defaults(defaulted, schema)
    validator = jsonschema.Draft4Validator(schema)
    for error in sorted(validator.iter_errors(defaulted), key=lambda e: list(e.absolute_path)):
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        errors.append(f"{where or '.'}: {error.message}")
    unknown_fields(document, schema, "", errors)
    if not errors:
        cel_rules(defaulted, schema, "", errors, env)
    return errors


def validate_builtin(document, version):
    try:
        kubernetes_validate.validate(document, version, strict=True)
    except kubernetes_validate.ValidationError as error:
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.path)
        return [f"{where or '.'}: {error.message}"]
    except (kubernetes_validate.SchemaNotFoundError, kubernetes_validate.InvalidSchemaError) as error:
        return [f"no schema: {error}"]
    return []


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crds", required=True)
    parser.add_argument("--kubernetes-version", default="1.31.0")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    schemas = load_crds(args.crds)
    if not schemas:
        print(f"no CRDs in {args.crds}", file=sys.stderr)
        return 2
    env = celpy.Environment()
    failed = 0
    objects = 0
    for path in args.files:
        with open(path, encoding="utf-8") as f:
            documents = [d for d in yaml.load_all(f, Loader=Loader) if d is not None]
        for document in documents:
            objects += 1
            key = (document.get("apiVersion"), document.get("kind"))
            name = (document.get("metadata") or {}).get("name", "")
            label = f"{path}: {key[1]}/{name}"
            errors = []
            if not isinstance(name, str) or not NAME.match(name) or len(name) > 253:
                errors.append(f"metadata.name {name!r} is not a DNS subdomain name")
            if key in schemas:
                errors += validate_custom(document, schemas[key], env)
                how = "CRD " + key[0]
            elif "." in (key[0] or "").split("/")[0] and "/" in (key[0] or ""):
                errors.append(f"no CRD for {key[0]} {key[1]} in {args.crds}")
                how = "CRD (missing)"
            else:
                errors += validate_builtin(document, args.kubernetes_version)
                how = "kubernetes " + args.kubernetes_version
            if errors:
                failed += 1
                print(f"INVALID {label} ({how})")
                for error in errors:
                    print(f"  {error}")
            else:
                print(f"ok {label} ({how})")
    if objects == 0:
        print("no Kubernetes objects in the given files", file=sys.stderr)
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
