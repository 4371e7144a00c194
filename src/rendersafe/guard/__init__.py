"""The second line: what any renderer could fetch or run, escaped without modelling one."""

from .line import may_change, second_line

__all__ = ["may_change", "second_line"]
