"""Argument checking of the public methods and decorators (docs/errors.md).

`@checked` makes a function check its arguments against its annotations
before it runs: a value of the wrong kind raises
`TypeError: argument {i}, '{name}' to {function}: expected {kind}, not
{type}`, the shape primitives use (primitives/arguments.py), instead of an
`AttributeError` from deep inside. Annotations are classes, `A | B`
unions, `None`, or strings naming classes that are imported on first use
(for classes of modules that import this one); `int` never accepts a bool,
nor a value outside `CONTROL_INTS` (the core takes 32-bit counts).
`Annotated[T, "text"]` raises `TypeError("text")` instead, where the API
documents its own message.
"""

import functools
import importlib
import inspect
import types
import typing

# Integer arguments become control values, which the generated C holds in
# `int_fast32_t`: only 32 bits are portable.
CONTROL_INTS = range(-(2**31), 2**31)

# Parameters an argument binds by position (or by name): no *args, **kwargs
# or keyword-only ones.
_PLAIN = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def checked(fn):
    """Checks the annotated parameters of `fn` on every call."""
    signature = inspect.signature(fn)
    positions = {name: k for k, name in enumerate(signature.parameters)}
    name = fn.__name__

    @functools.cache
    def expected():
        return _resolved_annotations(fn, signature)

    @functools.cache
    def positional_checks():
        # (position, name, kinds, message) of each annotated parameter
        annotations = expected()
        return tuple(
            (positions[n], n, *annotations[n]) for n in positions if n in annotations
        )

    bind = argument_binder(signature)
    # the common call: positional arguments only, as many as the signature
    # takes without its *args / **kwargs (None: no such fast path)
    params = list(signature.parameters.values())
    positional = (
        (sum(1 for p in params if p.default is p.empty), len(params))
        if all(p.kind in _PLAIN for p in params)
        else None
    )

    def check(k, arg_name, kinds, message, value):
        if not _is_instance(value, kinds):
            raise TypeError(
                message
                or f"argument {k}, '{arg_name}' to {name}: expected "
                f"{_describe(kinds)}, not {type(value)}"
            )
        if _is_int(value) and value not in CONTROL_INTS:
            raise TypeError(
                f"argument {k}, '{arg_name}' to {name}: expected an int in "
                f"[-2**31, 2**31), not {value}"
            )

    # (position, type) of the arguments that passed the checks by their
    # type alone (not ints, whose range is checked too): a cursor's class,
    # a subclass of the annotation's
    passed = set()

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if positional and not kwargs and positional[0] <= len(args) <= positional[1]:
            for k, arg_name, kinds, message in positional_checks():
                if k >= len(args):
                    break
                value = args[k]
                kind = type(value)
                if (kind in kinds and kind is not int) or (k, kind) in passed:
                    continue  # the usual case, decided without the checks
                check(k, arg_name, kinds, message, value)
                if not isinstance(value, int):
                    passed.add((k, kind))
            return fn(*args)
        arguments = bind(args, kwargs)
        if arguments is None:
            try:
                arguments = signature.bind(*args, **kwargs).arguments.items()
            except TypeError as e:
                raise TypeError(f"{name}: {e}") from None
        annotations = expected()
        for arg_name, value in arguments:
            entry = annotations.get(arg_name)
            if entry is None:
                continue
            kinds, message = entry
            check(positions[arg_name], arg_name, kinds, message, value)
        return fn(*args, **kwargs)

    return wrapper


def argument_binder(signature, defaults=False):
    """A function binding positional and keyword arguments as
    `signature.bind(*args, **kwargs).arguments.items()` does (with
    `defaults`, after `apply_defaults()`), without its cost on every call
    (the functions wrapped run for each cursor step): `(name, value)` pairs
    in parameter order, or None where the arguments need `signature.bind`
    itself (too few or too many, an unknown or repeated keyword, or
    parameters that are not plain positional ones)."""
    params = list(signature.parameters.values())
    if any(p.kind not in _PLAIN for p in params):
        return lambda args, kwargs=None: None
    names = [p.name for p in params]
    keywords = {
        p.name: k
        for k, p in enumerate(params)
        if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    }
    required = sum(1 for p in params if p.default is p.empty)
    tail = tuple(p.default for p in params[required:])
    missing = object()

    def bind(args, kwargs=None):
        if len(args) > len(names):
            return None
        if kwargs:
            values = [*args, *[missing] * (len(names) - len(args))]
            for name, value in kwargs.items():
                k = keywords.get(name, -1)
                if k < len(args):  # unknown, positional-only or given twice
                    return None
                values[k] = value
            if any(v is missing for v in values[:required]):
                return None
            pairs = zip(names, values, strict=True)
            if defaults:
                return [
                    (n, tail[k - required] if v is missing else v)
                    for k, (n, v) in enumerate(pairs)
                ]
            return [(n, v) for n, v in pairs if v is not missing]
        if not required <= len(args):
            return None
        if defaults:
            args = args + tail[len(args) - required :]
        return zip(names, args, strict=False)  # without defaults: the given ones

    return bind


def _resolved_annotations(fn, signature):
    """`{parameter: ((class, ...), message or None)}` for the annotated
    parameters of `fn`."""
    resolved = {}
    for param in signature.parameters.values():
        annotation, message = param.annotation, None
        if annotation is param.empty:
            continue
        if typing.get_origin(annotation) is typing.Annotated:
            annotation, message = typing.get_args(annotation)
        resolved[param.name] = (_classes(annotation, fn.__module__), message)
    return resolved


def _classes(annotation, module):
    """The tuple of classes an annotation accepts."""
    if annotation is None:
        return (type(None),)
    if isinstance(annotation, typing.ForwardRef):
        annotation = annotation.__forward_arg__
    if isinstance(annotation, str):
        return _classes_named(annotation, module)
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is (
        typing.Union
    ):
        return tuple(
            c
            for member in typing.get_args(annotation)
            for c in _classes(member, module)
        )
    return (annotation,)


def _classes_named(text, module):
    """The classes named by `"pkg.mod.Class | None"`, relative names looked up
    in `module`."""
    classes = []
    for part in text.split("|"):
        part = part.strip()
        if part == "None":
            classes.append(type(None))
            continue
        owner, _, attr = part.rpartition(".")
        namespace = importlib.import_module(owner or module)
        classes.append(getattr(namespace, attr))
    return tuple(classes)


def _is_instance(value, kinds):
    if isinstance(value, bool) and bool not in kinds and int in kinds:
        return False
    return isinstance(value, kinds)


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _describe(kinds):
    """`a Cursor or None`."""
    return " or ".join(
        "None" if k is type(None) else _with_article(k.__name__) for k in kinds
    )


def _with_article(name):
    return f"{'an' if name[0].lower() in 'aeiou' else 'a'} {name}"
