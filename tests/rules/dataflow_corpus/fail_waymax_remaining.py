# https://github.com/waymo-research/waymax/issues/14 (range(state.remaining_timesteps) under jax.jit, a property of a traced struct)
import jax
import jax.numpy as jnp
from flax import struct


@struct.dataclass
class SimulatorState:
    timestep: jax.Array
    num_timesteps: int

    @property
    def remaining_timesteps(self) -> int:
        return self.num_timesteps - 1 - self.timestep

    def update_by_log(self, num_steps):
        return self.replace(timestep=self.timestep + num_steps)


@jax.jit
def benchmark(state):
    for _ in range(state.remaining_timesteps):
        state = state.update_by_log(num_steps=1)
    return state


def main():
    return benchmark(SimulatorState(jnp.array(0), 5))
