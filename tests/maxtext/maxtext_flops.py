"""MaxText's own per-device training TFLOPs and tokens for a set of key=value overrides, as one
JSON line on stdout. Run with the MaxText venv's python; the C++ test compares tputrain's
catalog arithmetic with these numbers."""
import json
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")

from maxtext.configs import pyconfig  # noqa: E402
from maxtext.utils import maxtext_utils  # noqa: E402

config = pyconfig.initialize([""] + sys.argv[1:])
total, learnable, attention = maxtext_utils.calculate_tflops_training_per_device(config, log=False)
tokens = maxtext_utils.calculate_tokens_training_per_device(config)
sys.stdout.write(json.dumps({"total_tflops": total, "learnable_tflops": learnable,
                             "attention_tflops": attention, "tokens": tokens}) + "\n")
