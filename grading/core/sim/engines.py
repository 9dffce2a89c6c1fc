"""Which step loop runs the fleet of engines: the compiled one (`engine_compiled.py`, numba) by default, or
the reference Python loop (`engine.py`); both give the same records (tests/core/test_sim_compiled_engine.py).

`SEVENBOX_SIM_ENGINE=python` chooses the reference loop for the whole process (about 6x slower on
bench/replay.py's hour). Nothing falls back on its own: without numba, or when the kernel fails to compile, a
replay raises and says why.
"""

from __future__ import annotations

import os
from typing import Any

from grading.core.sim.engine import simulate_engine_fleet
from grading.core.sim.queueing import FleetRun

ENGINE_ENV = "SEVENBOX_SIM_ENGINE"
ENGINES = ("compiled", "python")


def chosen_engine() -> str:
    """The engine named by SEVENBOX_SIM_ENGINE, `compiled` when unset."""
    name = os.environ.get(ENGINE_ENV, "") or "compiled"
    if name not in ENGINES:
        raise ValueError(f"{ENGINE_ENV}={name!r}: expected one of {', '.join(ENGINES)}")
    return name


def simulate_engines(*args: Any, engine: str | None = None, **kwargs: Any) -> FleetRun:
    """`engine.simulate_engine_fleet(*args, **kwargs)` on `engine`'s loop (`compiled` or `python`; None:
    `chosen_engine()`)."""
    engine = engine or chosen_engine()
    if engine == "python":
        return simulate_engine_fleet(*args, **kwargs)
    if engine != "compiled":
        raise ValueError(f"unknown engine {engine!r}; known: {', '.join(ENGINES)}")
    try:
        from grading.core.sim.engine_compiled import CompiledEngineFleet
    except ImportError as missing:
        raise RuntimeError(
            f"the compiled replay engine needs numba ({missing}); install requirements.lock, or set "
            f"{ENGINE_ENV}=python to run the reference loop"
        ) from missing
    kwargs["fleet_type"] = CompiledEngineFleet
    return simulate_engine_fleet(*args, **kwargs)
