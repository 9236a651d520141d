"""moreau.Env: a reset/step loop for control and learning on top of moreau.World.

Subclass and override the hooks (all optional but build()):

    build(self)                  -> World       make the world (called once per reset)
    randomize(self, world, rng)                 perturb the initial state (seeded numpy Generator)
    apply_action(self, world, action)           set forces, motor targets... before the steps
    observation(self, world)     -> array       what the agent sees (default: positions and velocities)
    reward(self, world, action)  -> float       default 0
    terminated(self, world)      -> bool        default False
    info(self, world)            -> dict        default the last step's statistics

step(action) applies the action, advances frame_skip world steps and returns
(observation, reward, terminated, truncated, info) as Gymnasium does; truncated
is True once max_steps env steps have been taken since reset. reset(seed) builds
a fresh world (the old one is closed), so two resets with the same seed give
bit-identical rollouts.
"""
import numpy as np


class Env:
    frame_skip = 1
    max_steps = 1000

    def __init__(self, seed=None, frame_skip=None, max_steps=None):
        if frame_skip is not None:
            self.frame_skip = int(frame_skip)
        if max_steps is not None:
            self.max_steps = int(max_steps)
        self.rng = np.random.default_rng(seed)
        self.world = None
        self.steps = 0

    # hooks
    def build(self):
        raise NotImplementedError("Env.build() must return a moreau.World")

    def randomize(self, world, rng):
        pass

    def apply_action(self, world, action):
        pass

    def observation(self, world):
        return np.concatenate([world.positions().ravel(), world.linear_velocities().ravel()])

    def reward(self, world, action):
        return 0.0

    def terminated(self, world):
        return False

    def info(self, world):
        return world.last_stats()

    # the loop
    def reset(self, seed=None):
        """A fresh world; returns (observation, info). seed reseeds the generator."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        if self.world is not None:
            self.world.close()
        self.world = self.build()
        self.randomize(self.world, self.rng)
        self.steps = 0
        return self.observation(self.world), {}

    def step(self, action=None):
        if self.world is None:
            raise RuntimeError("Env.step() before reset()")
        self.apply_action(self.world, action)
        self.world.step(self.frame_skip)
        self.steps += 1
        w = self.world
        return (self.observation(w), float(self.reward(w, action)), bool(self.terminated(w)),
                self.steps >= self.max_steps, self.info(w))

    def close(self):
        if self.world is not None:
            self.world.close()
            self.world = None
