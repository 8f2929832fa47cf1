"""Layer: Python. What to simulate, as one value: a `Setup` holds the parameters every way of
running the simulator takes (the preset, a workload pattern, spec or file, a trace, overrides,
config files, the trace's format, and whether a trace may replay with a built-in workload's
other keys). The API (`Simulation`, `run`: their keyword arguments build one), the gym
environments, the sweep engine's jobs and grids and the experiments pass it on, each its own
settings beside it. Light: the configuration's layers are built (`config.raw_config`) only when
asked, and the core checks them."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ssdlab.errors import ConfigError

if TYPE_CHECKING:
    from ssdlab.config import Overrides, RawConfig


@dataclass(frozen=True)
class Setup:
    """What to simulate. `overrides`: `{"key": value}` (values as Python, written as TOML) or
    `"key=value"` strings; they go over the config files, which go over the workload and the
    preset. `trace_with_workload`: allow `trace` with a built-in `workload` pattern or spec,
    whose other keys (warm-up, request count) then shape the replay (refused otherwise).

    >>> Setup("tiny", "randwrite", overrides=("workload.count=1000",)).arguments()["workload"]
    'randwrite'
    """

    preset: str | None = "tiny"
    workload: str | Path | None = None
    trace: str | Path | None = None
    overrides: Overrides = ()
    config_files: tuple[str | Path, ...] = ()
    trace_format: str | None = None
    trace_with_workload: bool = False

    def __post_init__(self) -> None:
        # Any iterable of files is taken; kept as a tuple, so that the setup can be read twice.
        object.__setattr__(self, "config_files", tuple(self.config_files))

    def arguments(self) -> dict[str, Any]:
        """The keyword arguments of `ssdlab.run` and `ssdlab.resolve` for this setup."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def raw(self) -> RawConfig:
        """The configuration as the core takes it: (preset, layers, override strings)."""
        from ssdlab.config import raw_config

        return raw_config(**self.arguments())

    def resolve(self) -> str:
        """The fully resolved configuration as TOML (ConfigError listing every problem)."""
        from ssdlab.config import resolve

        return resolve(**self.arguments())

    def with_overrides(self, *more: str) -> Setup:
        """This setup with `more` (`key=value` strings) after its own overrides."""
        from ssdlab.config import override_strings

        return replace(self, overrides=(*override_strings(self.overrides), *more))


def setup_of(setup: Setup | None, **arguments: Any) -> Setup:
    """`setup`, or one built from the keyword arguments of `Simulation` and `run` (the convenience
    they keep); ConfigError if both are given (an argument left at its default or empty is not
    given)."""
    if setup is None:
        return Setup(**arguments)
    given = [k for k, v in arguments.items() if v and v != getattr(Setup, k)]
    if given:
        raise ConfigError(
            f"give a Setup or its arguments, not both: {', '.join(sorted(given))} beside setup="
        )
    return setup
