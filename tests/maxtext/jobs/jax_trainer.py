"""Seed 001's shape of driver for the tests: Ray Train's JaxTrainer runs MaxText's trainer in a
worker, with the key=value arguments it was given. CPU only (use_tpu=False, one worker)."""
import sys

from ray.train.v2.api.config import RunConfig, ScalingConfig
from ray.train.v2.jax import JaxTrainer


def train_loop_per_worker(config):
    from maxtext.trainers.pre_train import train
    train.main(config["argv"])


def main(argv):
    output = dict(a.split("=", 1) for a in argv if "=" in a).get("base_output_directory", "/tmp")
    trainer = JaxTrainer(
        train_loop_per_worker=train_loop_per_worker,
        train_loop_config={"argv": [""] + argv},
        scaling_config=ScalingConfig(num_workers=1, use_tpu=False),
        run_config=RunConfig(name="maxtext_jaxtrainer_test", storage_path=output + "/ray_results",
                             worker_runtime_env={"env_vars": {"JAX_PLATFORMS": "cpu"}}),
    )
    trainer.fit()
    print("Training complete!")


if __name__ == "__main__":
    main(sys.argv[1:])
