"""The run's budget: what has been spent, and whether a new task may start (``--max-cost``).

Spending is counted per task: live, call by call, for tasks running in this
process (:meth:`Budget.charge`, told by each task's exchanges), and settled at
the task's end from its outcome (:meth:`Budget.settle`; tasks run in other
processes are counted then). Tasks kept from an earlier session of the run
folder count too, so resuming a run does not reset its budget. A replayed run
spends nothing.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Any, Dict, Optional

from genotex.methods.base import TaskOutcome


@dataclass(frozen=True)
class BudgetState:
    """What the summary says about the budget."""

    max_cost_usd: Optional[float]
    spent_usd: float
    stopped: bool
    not_started: int

    def as_dict(self) -> Dict[str, Any]:
        """Plain values for ``resources.json``."""
        return {"max_cost_usd": self.max_cost_usd, "spent_usd": round(self.spent_usd, 6),
                "stopped": self.stopped, "not_started": self.not_started}

    def message(self) -> str:
        """One line for the summary ('' when the budget did not stop the run)."""
        if not self.stopped:
            return ""
        return (f"budget reached: {self.spent_usd:.4f} USD spent of --max-cost "
                f"{self.max_cost_usd:g} USD; {self.not_started} task(s) not started "
                "(run again with a larger --max-cost to do them)")


class Budget:
    """Spending of a run against an optional limit (thread-safe).

    Parameters
    ----------
    max_cost : float, optional
        US dollars; no new task starts once this much is spent (None: no limit).
    replay : bool
        A replayed run: nothing is spent.
    """

    def __init__(self, max_cost: Optional[float] = None, replay: bool = False) -> None:
        self.max_cost = max_cost
        self.replay = replay
        self._spent: Dict[str, float] = {}
        self._lock = threading.Lock()

    def charge(self, task: str, cost: float) -> None:
        """A call of a running task cost ``cost`` (NaN: unpriced, counted as 0)."""
        if self.replay or math.isnan(cost):
            return
        with self._lock:
            self._spent[task] = self._spent.get(task, 0.0) + cost

    def settle(self, outcome: TaskOutcome) -> None:
        """A task ended (or was kept from an earlier session): its cost is its outcome's."""
        cost = outcome.usage.cost
        with self._lock:
            self._spent[f"{outcome.kind}:{outcome.key}"] = \
                0.0 if self.replay or math.isnan(cost) else cost
            self._spent.pop(outcome.key, None)

    @property
    def spent(self) -> float:
        """US dollars spent so far."""
        with self._lock:
            return sum(self._spent.values())

    def exhausted(self) -> bool:
        """Whether no new task may start."""
        return self.max_cost is not None and self.spent >= self.max_cost

    def state(self, not_started: int) -> BudgetState:
        """The budget's summary, given how many tasks were never started."""
        return BudgetState(self.max_cost, self.spent, self.exhausted() and not_started > 0,
                           not_started)
