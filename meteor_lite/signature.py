"""The reproducibility signature: everything that changes the number, in one line (sacreBLEU-style)."""

from __future__ import annotations

from typing import Optional

from .align.modules import REGISTRY
from .config import MeteorConfig
from .errors import ConfigError
from .jarcompat import java_double
from .printable import one_line
from .resources.bundle import Bundle
from .version import __version__

__all__ = ["MODULE_SIG", "make_signature", "reproduces_meteor"]

#: Module names in the signature (the registry's, :mod:`meteor_lite.align.modules`).
MODULE_SIG = {m.name: m.sig for m in REGISTRY}


def _num(x: float) -> str:
    s = java_double(x)
    return s[:-2] if s.endswith(".0") else s


def make_signature(c: MeteorConfig, bundle: Optional[Bundle], tokenizer: str = "meteor") -> str:
    """``meteor-lite|lang:..|<norm>[|ch][|tok:..]|task:..|mods:..|w:..|a:..|b:..|g:..|d:..|beam:..|res:..|v:..``.

    ``ch`` appears only for character-based scoring (Meteor's ``-ch``), ``tok:NAME`` only when the
    tokeniser is not Meteor 1.5's white-space split (``meteor``), so every other signature is unchanged.
    A bundle's tuned task is ``task:NAME@HASH``, HASH the first 8 hex digits of the SHA-256 of its
    parameters (:attr:`meteor_lite.config.TunedTask.short_hash`).  A configuration still waiting for
    its bundle's task (:attr:`~meteor_lite.config.MeteorConfig.pending_task`) has no signature.
    """
    if c.pending_task:
        raise ConfigError(f"task {c.task!r} was not resolved against a bundle: no signature")
    norm = c.norm_label
    if bundle is not None:
        # the bundle's own strings are data: escaped so that the signature (and the report) stays one line
        res = one_line(f"{bundle.name}-{bundle.version}@{(bundle.checksum or 'nochecksum')[:8]}")
    else:
        res = "none"
    parts = [
        "meteor-lite",
        f"lang:{c.lang}",
        norm,
        *(["ch"] if c.char_based else []),
        *([f"tok:{tokenizer}"] if tokenizer != "meteor" else []),
        f"task:{'custom' if c.custom else c.task}" + (f"@{c.tuned_hash}" if c.tuned_hash else ""),
        "mods:" + "+".join(MODULE_SIG[m] for m in c.modules),
        "w:" + ",".join(_num(w) for w in c.weights),
        f"a:{_num(c.alpha)}",
        f"b:{_num(c.beta)}",
        f"g:{_num(c.gamma)}",
        f"d:{_num(c.delta)}",
        f"beam:{c.beam}",
        f"res:{res}",
        f"v:{__version__}",
    ]
    return "|".join(parts)


def reproduces_meteor(signature: str) -> bool:
    """False when the signature's configuration cannot give Meteor 1.5's numbers (scored with no bundle: ``res:none``)."""
    return "|res:none|" not in signature
