"""The Procedure methods that start a new procedure rather than derive one
(procedure-and-codegen.md §1): partial_eval, transpose, add_assertion."""


def partial_eval(proc, args, kwargs):
    raise NotImplementedError("partial_eval")


def transpose(proc, arg_cursor):
    raise NotImplementedError("transpose")


def add_assertion(proc, assertion, configs):
    raise NotImplementedError("add_assertion")
