"""Stands in for MaxText's trainer in the summary test: takes MaxText's key=value arguments and
prints start-up noise and step lines in MaxText 0.2.5's formats, with step times the test chose
(fake_step_seconds=a,b,...) and the per-step TFLOPs it passes (fake_tflops=...). With
fake_workers=N each step line comes once per worker, behind Ray's worker prefix, as a
multi-host JaxTrainer run prints them with RAY_DEDUP_LOGS=0."""
import sys

args = dict(a.split("=", 1) for a in sys.argv[1:] if "=" in a)
seconds = [float(s) for s in args["fake_step_seconds"].split(",")]
tflops = float(args["fake_tflops"])
workers = int(args.get("fake_workers", "1"))
tokens = float(args["per_device_batch_size"]) * int(args["max_target_length"])
devices = int(args.get("ici_fsdp_parallelism", "1")) * int(args.get("ici_tensor_parallelism", "1"))

for key in sorted(args):
    print(f"I1122 12:49:00.000000 140 pyconfig.py:500] Config param {key}: {args[key]}", file=sys.stderr)
print(f"I1122 12:49:01.000000 140 maxtext_utils.py:2098] Num_devices: {devices}, shape (1, {devices})", file=sys.stderr)
print("Per train step:\n", f"Total TFLOPs: {tflops:.2f} \n", "split as 93.32% learnable weight flops and 6.68% attention flops")
print("I1122 12:49:02.000000 140 metric_logger.py:425] number parameters: 8.030 billion", file=sys.stderr, flush=True)
for step, t in enumerate(seconds):
    body = (f"completed step: {step}, seconds: {t:.3f}, TFLOP/s/device: {tflops / t:.3f}, "
            f"Tokens/s/device: {tokens / t:.3f}, total_weights: {int(tokens) * devices}, loss: {10.0 - step:.3f}, "
            f"lm_loss: {10.0 - step:.3f}, perplexity: 1.000")
    for worker in range(workers):
        prefix = f"(RayTrainWorker pid={1000 + worker}, ip=10.0.0.{worker + 1}) " if workers > 1 else ""
        print(f"{prefix}I1122 12:49:{10 + step:02d}.000000 140 metric_logger.py:265] {body}", file=sys.stderr, flush=True)
