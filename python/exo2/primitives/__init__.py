"""The scheduling primitives: argument processing (`arguments`), the
operation stack of error reports (`operation_stack`), and one module per
group of primitives, each calling the C++ core."""
