# A task on every host of the slice: Ray counts each host's TPU chips as the resource TPU, so a
# task asking for a host's four chips lands on a host of its own.
import ray

ray.init()


@ray.remote(resources={"TPU": 4})
def device_count():
    import jax

    return jax.device_count()


hosts = int(ray.available_resources()["TPU"]) // 4
print("devices seen by each host:", ray.get([device_count.remote() for _ in range(hosts)]))
