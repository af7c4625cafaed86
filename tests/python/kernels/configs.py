"""Configurations shared by the printing tests."""

from __future__ import annotations

from exo2 import config


@config
class TileCfg:
    ld: stride
    alpha: f32
    beta: f64
    flag: bool
    tiles: size
    pos: index
    small: i8
    acc: i32


@config(readwrite=False)
class ConstCfg:
    scale: f16
