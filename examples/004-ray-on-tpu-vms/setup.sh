#!/bin/bash
# What every host of the slice runs at boot, before Ray starts: JAX for TPUs, which the job imports.
set -euo pipefail
pip install -U 'jax[tpu]'
