"""`channelkit deliver`: reports sent by email and to chat webhooks, exactly once per period.

    from channelkit.reports.deliver import deliver, load_config
    outcomes = deliver(load_config("deliver.toml"), "warehouse.duckdb")

See docs/reports.md ("Delivery") for the file format and a crontab line.
"""

from __future__ import annotations

from channelkit.reports.deliver.config import DeliveryConfig, load_config
from channelkit.reports.deliver.run import deliver
from channelkit.reports.deliver.targets import Outcome

__all__ = ["DeliveryConfig", "Outcome", "deliver", "load_config"]
