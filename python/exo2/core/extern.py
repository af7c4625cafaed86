"""The `Extern` interface: scalar C functions usable in data expressions."""

import inspect


class Extern_Typecheck_Error(Exception):
    """Raised by `Extern.typecheck`; reported as a typechecking error."""

    def __init__(self, msg):
        super().__init__(str(msg))


_EErr = Extern_Typecheck_Error


class Extern:
    """Base of externs; built-ins are in `exo2.libs.externs`.

    The core calls `typecheck(args)` (each arg has a `.type`) and expects the
    result type; the code generator calls `compile` and `globl`.
    """

    def __init__(self, name):
        self._name = name

    def name(self):
        return self._name

    def globl(self, prim_type):
        """C text emitted once per C type the library uses, or `""`."""
        raise NotImplementedError()

    def typecheck(self, args):
        """Result type for typed argument expressions, or `_EErr`."""
        raise NotImplementedError()

    def interpret(self, args):
        """Reference semantics on Python numbers."""
        raise NotImplementedError()

    def compile(self, args, prim_type):
        """C expression applying the extern to compiled arguments."""
        raise NotImplementedError()


def check_real_scalar_args(args, arity, noun="arguments"):
    """The checks of every built-in extern: arity, then real scalars.

    Returns the type of the last argument (all share one precision).
    """
    if len(args) != arity:
        raise _EErr(f"expected {arity} {noun}, got {len(args)}")
    for position, arg in enumerate(args, start=1):
        if not arg.type.is_real_scalar():
            raise _EErr(
                f"expected argument {position} to be a real scalar value, but "
                f"got type {arg.type}"
            )
    return args[-1].type


class TemplateExtern(Extern):
    """An extern built by `@extern(c_template, c_global)` from a function.

    `{param}` in the template is the compiled argument cast to the C type,
    `{ctype}` the C type; the function body is the reference semantics.
    """

    def __init__(self, fn, c_template, c_global):
        params = list(inspect.signature(fn).parameters.values())
        if any(
            p.kind != p.POSITIONAL_OR_KEYWORD or p.default is not p.empty
            for p in params
        ):
            raise TypeError("@extern functions take plain positional parameters only")
        self._params = [p.name for p in params]
        if "ctype" in self._params:
            raise TypeError("@extern parameters may not be named 'ctype'")
        super().__init__(fn.__name__)
        self._fn = fn
        self._c_template = c_template
        self._c_global = c_global
        self._check_templates()

    def _check_templates(self):
        """TypeError now, naming the key, for a template that code
        generation could not fill."""
        keys = ["ctype", *self._params]
        for which, text, values in [
            ("C template", self._c_template, {k: k for k in keys}),
            ("C global", self._c_global, {"ctype": "ctype"}),
        ]:
            try:
                text.format(**values)
            except KeyError as e:
                raise TypeError(
                    f"@extern {self.name()}: the {which} uses the unknown key "
                    f"{{{e.args[0]}}}; the keys are {', '.join(values)}"
                ) from None
            except (ValueError, IndexError, AttributeError) as e:
                raise TypeError(
                    f"@extern {self.name()}: the {which} is not a valid format "
                    f"string ({e}); write '{{{{' and '}}}}' for braces"
                ) from None

    def typecheck(self, args):
        noun = "argument" if len(self._params) == 1 else "arguments"
        check_real_scalar_args(args, len(self._params), noun)
        precise = [a.type for a in args if str(a.type) != "R"]
        return precise[0] if precise else args[0].type

    def compile(self, args, prim_type):
        casts = {
            p: f"({prim_type})({a})" for p, a in zip(self._params, args, strict=False)
        }
        return self._c_template.format(ctype=prim_type, **casts)

    def globl(self, prim_type):
        return self._c_global.format(ctype=prim_type)

    def interpret(self, args):
        result = self._fn(*args)
        if result is None:
            raise NotImplementedError(f"extern {self.name()} has no Python body")
        return result


def extern(c_template, c_global=""):
    """Decorator turning a Python function into an `Extern` [exo2]."""
    if not isinstance(c_template, str):
        raise TypeError("@extern decorator must be @extern(<C template>)")
    if not isinstance(c_global, str):
        raise TypeError("@extern: c_global must be a string of C text")

    def build(fn):
        if not inspect.isfunction(fn):
            raise TypeError("@extern decorator must be applied to a function")
        return TemplateExtern(fn, c_template, c_global)

    return build
