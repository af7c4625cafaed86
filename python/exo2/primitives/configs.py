"""Configuration primitives (primitives.md §7): bind_config, write_config,
delete_config; and their argument processors Config and ConfigField (§2)."""

from .. import _core
from ..core.configs import Config
from .arguments import (
    _NAME,
    ArgumentProcessor,
    ExprCursorA,
    GapCursorA,
    NewExprA,
    StmtCursorA,
    sched_op,
)
from .results import derived_procedure

__all__ = ["bind_config", "write_config", "delete_config"]


class ConfigA(ArgumentProcessor):
    """A `Config` object."""

    def __call__(self, config, all_args):
        if not isinstance(config, Config):
            self.err("expected a Config object")
        return config


class ConfigFieldA(ArgumentProcessor):
    """The name of a field of the config given as argument `config_arg`."""

    def __init__(self, config_arg="config"):
        self.config_arg = config_arg

    def __call__(self, field, all_args):
        if not isinstance(field, str) or not _NAME.match(field):
            self.err("expected a valid name string")
        config = all_args[self.config_arg]
        if not config.has_field(field):
            self.err(
                f"expected '{field}' to be a field of config '{config.name()}'",
                ValueError,
            )
        return field


@sched_op([ExprCursorA, ConfigA, ConfigFieldA])
def bind_config(proc, var_cursor, config, field):
    """`s[e]` → `config.field = e; s[config.field]`, for a read `e` of a
    scalar data variable or a bool."""
    provenance, visible = _core.bind_config(
        proc._provenance, var_cursor._impl, config.INTERNAL_core(), field
    )
    return derived_procedure(provenance, visible)


@sched_op([StmtCursorA])
def delete_config(proc, stmt_cursor):
    """Deletes a config write whose value is never read."""
    provenance, visible = _core.delete_config(proc._provenance, stmt_cursor._impl)
    return derived_procedure(provenance, visible)


@sched_op([GapCursorA, ConfigA, ConfigFieldA, NewExprA("gap_cursor", "any")])
def write_config(proc, gap_cursor, config, field, rhs):
    """Inserts `config.field = rhs` at the gap (a read, stride expression
    or literal) when the value is never read."""
    provenance, visible = _core.write_config(
        proc._provenance, gap_cursor._impl, config.INTERNAL_core(), field, rhs
    )
    return derived_procedure(provenance, visible)
