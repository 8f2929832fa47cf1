"""`ssdlab/FspPlacement-v0` and `ssdlab/SlcCache-v0`: Gymnasium's checker passes, episodes run to
the end with verify's final scan passed, the reward is the sum of its parts, replaying the
built-in RL-SLC agent's steps gives its own run, and configs without the decision point and bad
actions are refused with reasons."""

from __future__ import annotations

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env
from test_gym import trajectory

import ssdlab
import ssdlab.gym
from ssdlab.errors import ActionError, ConfigError
from ssdlab.gym.bench import WORKLOADS

#: The FSP paper's QLC drive cut small (2 channels of 64 blocks of 256 pages, 1 MiB buffer), mixed
#: 16 KiB reads and writes; and the RL-SLC drive cut small (256 blocks of 256 pages), a step
#: every 2 SLC blocks of writes, mixed 64 KiB reads and writes: `ssdlab bench --env`'s workloads,
#: verify on.
FSP = ("verify=true", *WORKLOADS["ssdlab/FspPlacement-v0"]["overrides"])
SLC = ("verify=true", *WORKLOADS["ssdlab/SlcCache-v0"]["overrides"])

ENVS = {"ssdlab/FspPlacement-v0": FSP, "ssdlab/SlcCache-v0": SLC}

#: Requests per episode: RL-FSP rewards a page one episode (1,000 programmed pages) later, so
#: its episodes must program a few thousand pages to earn any.
REQUESTS = {"ssdlab/FspPlacement-v0": 8000, "ssdlab/SlcCache-v0": 3000}


def make(env_id: str, requests: int | None = None, overrides: tuple[str, ...] = ()) -> gym.Env:
    return gym.make(env_id, overrides=[*ENVS[env_id], *overrides], requests=requests or REQUESTS[env_id])


@pytest.mark.parametrize("env_id", ENVS)
def test_registered_and_gymnasiums_checker_passes(env_id):
    assert env_id in gym.registry
    env = make(env_id).unwrapped
    check_env(env, skip_render_check=True)
    assert len(env.features) == 5 and all(f["doc"] for f in env.features)


@pytest.mark.parametrize("env_id", ENVS)
def test_a_random_episode_runs_to_the_end_with_the_data_intact(env_id):
    env = make(env_id)
    obs, info = env.reset(seed=3)
    env.action_space.seed(3)
    steps, rewarded, total, parts = 0, 0, 0.0, 0.0
    terminated = False
    while not terminated:
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample(info["action_mask"]))
        assert not truncated and env.observation_space.contains(obs)
        assert reward == pytest.approx(sum(info["reward_parts"].values()))
        total += reward
        parts += sum(info["reward_parts"].values())
        rewarded += reward != 0.0
        steps += 1
    report = env.unwrapped.report()
    assert steps > 100 and report["verify"]["final_scan_passed"] and report["verify"]["reads_checked"] > 0
    # Rewards arrived (SLC: +-1 a step, whose sum may well be 0; FSP: one episode late).
    assert total == pytest.approx(parts) and rewarded > 10
    with pytest.raises(gym.error.ResetNeeded):
        env.step(0)


def test_page_types_are_asked_for_every_dirty_page_before_any_event_can_evict_it():
    env = make("ssdlab/FspPlacement-v0")
    env.reset(seed=1)
    steps, terminated = 0, False
    while not terminated:
        _, _, terminated, _, _ = env.step(3)  # every page MSB
        steps += 1
    eviction = env.unwrapped.report()["policies"]["eviction_report"]
    outside = eviction["outside_agent"]
    # One decision per page asked (the first comes from reset); the Q-table stands in for
    # pages dirtied and evicted within one event only.
    assert outside["classes_asked"] == steps
    assert outside["classes_fallback"] * 100 <= steps
    # All MSB: every unit substitutes its other three types.
    assert eviction["substitutions"] >= 3 * eviction["units"] - 12


def test_replaying_the_builtin_slc_agent_gives_the_run_it_gives_alone():
    env = make("ssdlab/SlcCache-v0", requests=2000)
    _, info = env.reset(seed=5)
    steps, terminated = 0, False
    while not terminated:
        _, _, terminated, _, info = env.step(info["builtin_action"])
        steps += 1
    driven = env.unwrapped.report()
    alone = ssdlab.run(
        preset="yoo-hybrid-qlc", overrides=["slc.policy=rl", *SLC, "workload.count=2000", "seed=5"]
    )
    assert driven.raw == alone.raw
    assert steps == alone["policies"]["region_report"]["steps"] > 100


def test_the_same_seed_gives_the_same_slc_trajectory():
    def slc() -> gym.Env:
        return make("ssdlab/SlcCache-v0", requests=1500)

    assert trajectory(slc(), 7) == trajectory(slc(), 7)
    assert trajectory(slc(), 7) != trajectory(slc(), 8)


def test_bad_actions_and_configs_are_refused_with_reasons():
    env = make("ssdlab/FspPlacement-v0")
    env.reset(seed=1)
    with pytest.raises(ActionError, match=r"ssdlab/FspPlacement-v0: action 4 is out of range"):
        env.step(4)
    env.step(0)
    with pytest.raises(ConfigError, match="`lru` has no decision point"):
        make("ssdlab/FspPlacement-v0", overrides=("cache.eviction=lru",))
    with pytest.raises(ConfigError, match="no write buffer"):
        make("ssdlab/FspPlacement-v0", overrides=("cache.capacity=0", "ftl.placement=dynamic"))
    with pytest.raises(ConfigError, match="`dwa` has no decision point"):
        make("ssdlab/SlcCache-v0", overrides=("slc.policy=dwa",))
    slc = make("ssdlab/SlcCache-v0")
    slc.reset(seed=1)
    with pytest.raises(ActionError, match=r"ssdlab/SlcCache-v0: action 9 is out of range"):
        slc.step(9)
