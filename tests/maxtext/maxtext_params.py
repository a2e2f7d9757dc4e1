"""MaxText's own parameter count of each model_name given: the model built abstractly (shapes
only, no weights: nnx.eval_shape), its nnx.Param leaves summed, as MaxText's own
max_utils.calculate_num_params_from_pytree sums them for its `number parameters` line. The
decoder alone (use_multimodal=false and use_audio=false, over a config that sets them: tputrain
counts no vision or audio encoder). One JSON line per model on stdout. Run with the MaxText
venv's python; the C++ test compares tputrain's count from the same config's dimensions."""
import json
import os
import sys
import tempfile

os.environ.setdefault("JAX_PLATFORMS", "cpu")

from flax import nnx  # noqa: E402
from maxtext.configs import pyconfig  # noqa: E402
from maxtext.utils import max_utils, model_creation_utils  # noqa: E402

# Settings some configs need before MaxText accepts them, none of which changes a weight: their
# sparse indexer or DeepSeek 4's attention needs dot_product attention on CPU; Gemma 4's small
# models share KV caches across layers, which scanned layers cannot.
RETRY = ["attention=dot_product", "scan_layers=false"]

output = tempfile.mkdtemp(prefix="maxtext-params-")


def count(name, extra):
    config = pyconfig.initialize(["", "model_name=" + name, "run_name=params", "base_output_directory=" + output,
                                  "hardware=cpu", "skip_jax_distributed_system=true", "per_device_batch_size=1",
                                  "enable_checkpointing=false", "dataset_type=synthetic", "log_config=false",
                                  "override_model_config=true", "use_multimodal=false", "use_audio=false"] + extra)
    _, model = model_creation_utils.create_nnx_abstract_model(config)
    return int(max_utils.calculate_num_params_from_pytree(nnx.state(model, nnx.Param)))


for name in sys.argv[1:]:
    try:
        try:
            result = {"model": name, "parameters": count(name, [])}
        except (ValueError, SystemExit):
            result = {"model": name, "parameters": count(name, RETRY), "settings": RETRY}
    except BaseException as error:  # noqa: BLE001 - one model's failure is reported, the others still counted
        result = {"model": name, "error": (type(error).__name__ + ": " + str(error))[:300]}
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
os._exit(0)  # jax may leave threads behind that keep the interpreter from exiting
