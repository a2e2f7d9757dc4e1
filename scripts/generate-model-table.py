#!/usr/bin/env python3
"""Writes src/catalog/maxtext_models.cc: the table of models tputrain knows by name, read from the
pinned MaxText's own model configs. Facts only: names and dimensions; tputrain computes the
parameter counts from them (src/catalog/parameters.cc).

Read from the maxtext package (MaxText 0.2.5 from PyPI, which scripts/peers/maxtext.sh installs
into the test peers' venv):
- configs/models/<name>.yml over configs/base.yml, as MaxText's pyconfig merges them: a key the
  model's file leaves out has base.yml's value;
- the names MaxText's model_name accepts (the ModelName literal in configs/types.py). A name
  ending in -Instruct uses the config of the name without it, as pyconfig does. A config file
  whose name model_name refuses, and a name without a config file, are left out and listed in the
  table's header;
- the Hugging Face repo MaxText loads each model's tokenizer from (HF_IDS in utils/globals.py),
  kept where it is the model's own checkpoint (see TOKENIZER_ONLY);
- for Gemma 4, how often a layer attends globally, which its model code fixes
  (global_attention_every below).

The output names this script and the MaxText version it read. CI runs the script again on the
pinned MaxText and compares (tests/scripts/model_table_test.sh): a stale table fails.

Usage: scripts/generate-model-table.py [--maxtext DIR] [--output FILE]
  DIR: the maxtext package directory (default: the test peers' venv's site-packages/maxtext).
"""
import argparse
import ast
import glob
import os
import re
import sys
import textwrap

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = "scripts/generate-model-table.py"

# MaxText's decoder_block values (common/common_types.py DecoderBlockType) → tputrain's enum.
DECODER_BLOCKS = {
    "llama2": "kLlama2", "mistral": "kMistral", "mixtral": "kMixtral", "deepseek": "kDeepSeek",
    "deepseek4": "kDeepSeek4", "gemma": "kGemma", "gemma2": "kGemma2", "gemma3": "kGemma3", "gemma4": "kGemma4",
    "gemma4_small": "kGemma4Small", "qwen2": "kQwen2", "qwen3": "kQwen3", "qwen3_moe": "kQwen3Moe",
    "qwen3_custom_moe": "kQwen3CustomMoe", "qwen3_next": "kQwen3Next", "qwen3_5": "kQwen35", "gpt3": "kGpt3",
    "gpt_oss": "kGptOss", "llama4": "kLlama4", "olmo3": "kOlmo3", "envy": "kEnvy",
}
ATTENTION_TYPES = {
    "global": "kGlobal", "local_sliding": "kLocalSliding", "chunk": "kChunk", "full": "kFull", "mla": "kMla",
    "compressed": "kCompressed",
}

# (C++ field, MaxText key, kind), in ModelShape's declaration order (designated initializers
# must follow it). Kinds: int (a whole number), bool, count (a list's length), and the enums.
FIELDS = [
    ("decoder_block", "decoder_block", "decoder_block"),
    ("emb_dim", "base_emb_dim", "int"),
    ("num_decoder_layers", "base_num_decoder_layers", "int"),
    ("num_query_heads", "base_num_query_heads", "int"),
    ("num_kv_heads", "base_num_kv_heads", "int"),
    ("head_dim", "head_dim", "int"),
    ("mlp_dim", "base_mlp_dim", "int"),
    ("vocab_size", "vocab_size", "int"),
    ("mlp_activations", "mlp_activations", "count"),
    ("logits_via_embedding", "logits_via_embedding", "bool"),
    ("attention_type", "attention_type", "attention_type"),
    ("attention_bias", "attention_bias", "bool"),
    ("mlp_bias", "mlp_bias", "bool"),
    ("num_experts", "num_experts", "int"),
    ("num_experts_per_tok", "num_experts_per_tok", "int"),
    ("moe_mlp_dim", "base_moe_mlp_dim", "int"),
    ("shared_experts", "shared_experts", "int"),
    ("routed_bias", "routed_bias", "bool"),
    ("first_num_dense_layers", "first_num_dense_layers", "int"),
    ("interleave_moe_layer_step", "interleave_moe_layer_step", "int"),
    ("attention_output_dim", "attention_output_dim", "int"),
    ("moe_expert_input_dim", "moe_expert_input_dim", "int"),
    ("q_lora_rank", "q_lora_rank", "int"),
    ("kv_lora_rank", "kv_lora_rank", "int"),
    ("qk_nope_head_dim", "qk_nope_head_dim", "int"),
    ("qk_rope_head_dim", "qk_rope_head_dim", "int"),
    ("v_head_dim", "v_head_dim", "int"),
    ("use_indexer", "use_indexer", "bool"),
    ("indexer_n_heads", "indexer_n_heads", "int"),
    ("indexer_head_dim", "indexer_head_dim", "int"),
    ("inhomogeneous_layer_cycle_interval", "inhomogeneous_layer_cycle_interval", "int"),
    ("gdn_num_key_heads", "gdn_num_key_heads", "int"),
    ("gdn_num_value_heads", "gdn_num_value_heads", "int"),
    ("gdn_key_head_dim", "gdn_key_head_dim", "int"),
    ("gdn_value_head_dim", "gdn_value_head_dim", "int"),
    ("gdn_conv_kernel_dim", "gdn_conv_kernel_dim", "int"),
    ("global_head_dim", "global_head_dim", "int"),
    ("global_num_kv_heads", "global_num_kv_heads", "int"),
    ("share_kv_projections", "share_kv_projections", "bool"),
    ("global_attention_every", "global_attention_every", "int"),
    ("hidden_size_per_layer_input", "hidden_size_per_layer_input", "int"),
    ("vocab_size_per_layer_input", "vocab_size_per_layer_input", "int"),
    ("num_kv_shared_layers", "num_kv_shared_layers", "int"),
    ("use_double_wide_mlp", "use_double_wide_mlp", "bool"),
    ("trainable_position_size", "trainable_position_size", "int"),
    ("max_target_length", "max_target_length", "int"),
]

# HF_IDS entries that name a tokenizer to borrow, not the model's checkpoint: weaver-mini and
# weaver-max have Qwen3 dense shapes (4B-class and 32B-class) but load a Qwen3-VL tokenizer.
TOKENIZER_ONLY = {"weaver-mini", "weaver-max"}


def fail(message):
    print("generate-model-table: " + message, file=sys.stderr)
    sys.exit(1)


def default_maxtext_dir():
    cache = os.environ.get("TPUTRAIN_TEST_CACHE", os.path.expanduser("~/.cache/tputrain-test"))
    found = sorted(glob.glob(os.path.join(cache, "maxtext", "lib", "python3*", "site-packages", "maxtext")))
    return found[-1] if found else None


def module_assignment(path, name):
    """The value node assigned to `name` at the top level of the Python file at `path`."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets) and node.value is not None:
            return node.value
    fail("%s: no top-level %s" % (path, name))


def read_version(maxtext):
    value = module_assignment(os.path.join(maxtext, "version.py"), "__version__")
    if not isinstance(value, ast.Constant) or not isinstance(value.value, str):
        fail("version.py: __version__ is not a string")
    return value.value


def read_model_names(maxtext):
    value = module_assignment(os.path.join(maxtext, "configs", "types.py"), "ModelName")
    if not (isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Tuple)):
        fail("configs/types.py: ModelName is not a Literal[...]")
    names = [e.value for e in value.slice.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    if len(names) != len(value.slice.elts):
        fail("configs/types.py: ModelName holds something other than strings")
    return names


def read_hf_ids(maxtext):
    value = module_assignment(os.path.join(maxtext, "utils", "globals.py"), "HF_IDS")
    if not isinstance(value, ast.Dict):
        fail("utils/globals.py: HF_IDS is not a dict")
    ids = {}
    for key, item in zip(value.keys, value.values):
        # "default" maps to a path computed at run time: not a repo, and not a model here.
        if isinstance(key, ast.Constant) and isinstance(item, ast.Constant) and isinstance(item.value, str):
            ids[key.value] = item.value
    return ids


def global_attention_every(maxtext, name, block):
    """Gemma 4's layers attend globally once per period of a pattern its model code fixes (not its
    config): models/gemma4.py's GEMMA4_ATTENTION_PATTERN; for the small ones the E2B pattern for
    gemma4-e2b and the E4B one otherwise (models/gemma4_small.py's get_attention_pattern). The
    pattern's length, its last entry the global layer; 0 for every other model."""
    if block not in ("gemma4", "gemma4_small"):
        return 0
    if block == "gemma4":
        path, constant = "gemma4.py", "GEMMA4_ATTENTION_PATTERN"
    else:
        path = "gemma4_small.py"
        constant = "GEMMA4_E2B_ATTENTION_PATTERN" if name == "gemma4-e2b" else "GEMMA4_E4B_ATTENTION_PATTERN"
    value = module_assignment(os.path.join(maxtext, "models", path), constant)
    kinds = [getattr(e, "attr", None) for e in getattr(value, "elts", [])]
    if not kinds or kinds[-1] != "GLOBAL" or kinds.count("GLOBAL") != 1:
        fail("models/%s: %s is not a run of local layers ending in one global layer" % (path, constant))
    return len(kinds)


def load_yaml(path):
    with open(path) as f:
        data = yaml.safe_load(f)
    if not isinstance(data, dict):
        fail("%s: not a mapping" % path)
    return data


def field_value(model, key, kind, raw):
    where = "%s: %s" % (model, key)
    if kind == "decoder_block":
        if raw not in DECODER_BLOCKS:
            fail("%s: decoder_block %r is new to tputrain; add it to DECODER_BLOCKS and to src/catalog" % (where, raw))
        return "DecoderBlock::" + DECODER_BLOCKS[raw]
    if kind == "attention_type":
        if raw not in ATTENTION_TYPES:
            fail("%s: attention_type %r is new to tputrain; add it to ATTENTION_TYPES and to src/catalog" % (where, raw))
        return "AttentionType::" + ATTENTION_TYPES[raw]
    if kind == "bool":
        if not isinstance(raw, bool):
            fail("%s: expected true or false, got %r" % (where, raw))
        return "true" if raw else "false"
    if kind == "count":
        if isinstance(raw, str):  # "[silu, linear]" as a command line would give it
            raw = [part for part in raw.strip("[]").split(",") if part.strip()]
        if not isinstance(raw, list) or not raw:
            fail("%s: expected a non-empty list, got %r" % (where, raw))
        return str(len(raw))
    if not isinstance(raw, int) or isinstance(raw, bool):
        fail("%s: expected a whole number, got %r" % (where, raw))
    return str(raw)


def cpp_string(text):
    if not re.fullmatch(r"[A-Za-z0-9._/-]*", text):
        fail("%r: unexpected characters for a model name or repo id" % text)
    return '"%s"' % text


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--maxtext", default=default_maxtext_dir(),
                        help="the maxtext package directory (default: the test peers' venv's)")
    parser.add_argument("--output", default=os.path.join(ROOT, "src", "catalog", "maxtext_models.cc"))
    args = parser.parse_args()
    if not args.maxtext or not os.path.isfile(os.path.join(args.maxtext, "configs", "base.yml")):
        fail("--maxtext: no maxtext package at %r (scripts/peers/maxtext.sh installs the pinned one)" % args.maxtext)

    version = read_version(args.maxtext)
    base = load_yaml(os.path.join(args.maxtext, "configs", "base.yml"))
    models_dir = os.path.join(args.maxtext, "configs", "models")
    files = {os.path.basename(p)[:-4] for p in glob.glob(os.path.join(models_dir, "*.yml"))}
    accepted = read_model_names(args.maxtext)
    hf_ids = read_hf_ids(args.maxtext)

    rows = []
    no_config = []
    for name in accepted:
        if name == "default":
            continue
        config = name.replace("-Instruct", "")  # pyconfig's rule: same architecture as the base model
        if config not in files:
            no_config.append(name)
            continue
        merged = dict(base)
        merged.update(load_yaml(os.path.join(models_dir, config + ".yml")))
        merged["global_attention_every"] = global_attention_every(args.maxtext, name, merged.get("decoder_block"))
        values = []
        for field, key, kind in FIELDS:
            if key not in merged:
                fail("%s: %s is in neither the model's config nor base.yml" % (name, key))
            values.append(".%s = %s" % (field, field_value(name, key, kind, merged[key])))
        hf_repo = "" if name in TOKENIZER_ONLY else hf_ids.get(name, "")
        rows.append("      {%s, %s, %s, {%s}}," % (cpp_string(name), cpp_string(config), cpp_string(hf_repo),
                                                  ", ".join(values)))
    refused = sorted(files - {n.replace("-Instruct", "") for n in accepted})
    if not rows:
        fail("no model read from %s" % models_dir)

    source = ("MaxText %s (the maxtext package on PyPI): configs/models/*.yml over configs/base.yml, the names "
              "configs/types.py's ModelName accepts, and utils/globals.py's HF_IDS" % version)
    comment = [
        "Generated by %s from MaxText %s: do not edit; run the script again." % (SCRIPT, version),
        "",
        "Source: " + source + ". Facts only (names and dimensions); src/catalog/parameters.cc computes the "
        "parameter counts from them.",
        "",
        "Left out: config files that model_name does not accept (%s); accepted names without a config file (%s)."
        % (", ".join(refused) or "none", ", ".join(no_config) or "none"),
    ]
    header = []
    for paragraph in comment:
        header += ["//" + (" " + line if line else "") for line in textwrap.wrap(paragraph, 100)] or ["//"]
    header += [
        '#include "maxtext_models.h"',
        "",
        "namespace tputrain::catalog {",
        "",
        "// clang-format off",
        "std::string_view MaxTextModelsSource() {",
        '  return "%s, read by %s";' % (source, SCRIPT),
        "}",
        "",
        'std::string_view MaxTextVersion() { return "%s"; }' % version,
        "",
        "const std::vector<MaxTextModel>& MaxTextModels() {",
        "  static const std::vector<MaxTextModel> models = {",
    ]
    footer = [
        "  };",
        "  return models;",
        "}",
        "// clang-format on",
        "",
        "}  // namespace tputrain::catalog",
        "",
    ]
    text = "\n".join(header + rows + footer)
    temp = args.output + ".tmp"
    with open(temp, "w") as f:
        f.write(text)
    os.replace(temp, args.output)
    print("generate-model-table: wrote %s (%d models from MaxText %s)" % (args.output, len(rows), version))


if __name__ == "__main__":
    main()
