// Python entry points of the analysis: simplify, and the solver query
// counters that benchmarks read.
#include <pybind11/pybind11.h>

#include "exo2/analysis/queries.hpp"
#include "exo2/analysis/simplify.hpp"
#include "handles.hpp"

namespace py = pybind11;

namespace exo2::bindings {

void bind_analysis(py::module_& m) {
  m.def(
      "simplify",
      [](const ProcHandle& p, bool remove_provably_dead_code) {
        SimplifyOptions options;
        options.remove_provably_dead_code = remove_provably_dead_code;
        return ProcHandle{simplify(p.node, options)};
      },
      py::arg("proc"), py::arg("remove_provably_dead_code") = false,
      "The procedure with control expressions in affine normal form, "
      "constants folded and literal dead code removed.");
  m.def(
      "query_counters",
      [] {
        const QueryCounters c = query_counters();
        py::dict d;
        d["queries"] = c.queries;
        d["cache_hits"] = c.cache_hits;
        d["interval_answers"] = c.interval_answers;
        return d;
      },
      "{'queries': n, 'cache_hits': n, 'interval_answers': n}: queries asked "
      "since the last reset, how many the cache answered, and how many the "
      "variables' intervals answered without the solver.");
  m.def("reset_query_counters", &reset_query_counters,
        "Zeroes the query counters (cached answers are kept).");
}

}  // namespace exo2::bindings
