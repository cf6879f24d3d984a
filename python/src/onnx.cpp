// tseq.onnx: Session over tseq::onnx::Model and Session. Runs release the GIL; on the main
// thread a run goes on a worker thread while the caller waits for it and checks for signals,
// so that Ctrl-C (KeyboardInterrupt) stops it through the run's std::stop_source.

#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <stop_token>
#include <thread>

#include "convert.hpp"
#include "tseq/onnx/executor.hpp"

namespace tseq::python {

namespace {

using onnx::SessionOptions;
using onnx::Value;
using onnx::ValueType;

// Seconds (a float, >= 0; 0: none) as the nanoseconds a limit holds; `what` names the field.
std::chrono::nanoseconds seconds_limit(double seconds, const char* what) {
  if (!(seconds >= 0)) throw Error(std::string(what) + ": " + std::to_string(seconds) + " is not >= 0");
  // Longer than about 292 years is no limit (the nanosecond count would not fit).
  // Any positive limit is at least 1 ns (0 would mean none).
  return seconds >= 9.2e9 ? std::chrono::nanoseconds(0)
         : seconds > 0 ? std::chrono::nanoseconds(std::max<std::int64_t>(1, static_cast<std::int64_t>(seconds * 1e9)))
                       : std::chrono::nanoseconds(0);
}

// SessionOptions with time_limit in seconds (a float); the rest as in C++.
struct Options {
  SessionOptions o;

  [[nodiscard]] double time_limit() const { return std::chrono::duration<double>(o.time_limit).count(); }
  void set_time_limit(double seconds) { o.time_limit = seconds_limit(seconds, "SessionOptions.time_limit"); }
};

// LoadOptions with time_limit in seconds; the rest as in C++ (the initializers' memory
// resource is not exposed: Python models use tseq's default).
struct LoadLimits {
  onnx::LoadOptions o;

  [[nodiscard]] double time_limit() const { return std::chrono::duration<double>(o.time_limit).count(); }
  void set_time_limit(double seconds) { o.time_limit = seconds_limit(seconds, "LoadOptions.time_limit"); }
};

std::int64_t non_negative(std::int64_t v, const char* name, const char* cls = "SessionOptions") {
  if (v < 0) throw Error(std::string(cls) + "." + name + ": " + std::to_string(v) + " is negative");
  return v;
}

py::object to_python(const Value& v) {
  if (v.is_tensor()) return wrap(v.tensor());
  if (v.is_sequence()) return wrap(v.sequence());
  if (!v.optional().has_value()) return py::none();
  return to_python(*v.optional().element);
}

Value from_python(py::handle obj, ValueType::Kind kind, DataType dtype, const std::string& what) {
  if (kind == ValueType::Kind::Sequence) {
    if (is_sequence(obj)) return sequence_of(obj);
    if (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj)) {
      return sequence_from(obj, dtype, what.c_str());
    }
    throw TypeError(what + ": a sequence input takes a tseq.Sequence or a list of tensors, not a " +
                    py::str(py::type::handle_of(obj).attr("__name__")).cast<std::string>());
  }
  return to_tensor(obj, false, what);
}

Value feed_value(py::handle obj, const onnx::ValueInfo& input) {
  const std::string what = "input '" + input.name + "'";
  const ValueType& t = input.type;
  if (t.kind != ValueType::Kind::Optional) {
    if (obj.is_none()) throw TypeError(what + " (" + onnx::to_string(t) + ") was fed None");
    return from_python(obj, t.kind, t.dtype, what);
  }
  if (obj.is_none()) return onnx::OptionalValue{nullptr, t};
  return onnx::OptionalValue{std::make_shared<const Value>(from_python(obj, t.optional_of, t.dtype, what)), t};
}

// The main thread's ident, kept as a number: a Python object in a C++ static would be
// destroyed after the interpreter (a crash at exit).
bool on_main_thread() {
  static const unsigned long main_ident =
      py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
  return main_ident == PyThread_get_thread_ident();
}

class PySession {
 public:
  // The options as pointers (None: nullptr), not std::optional: GCC 12 warns (a false
  // -Wmaybe-uninitialized) when pybind11's std::optional caster copies SessionOptions.
  PySession(py::handle model, const Options* options, const LoadLimits* load_options)
      : model_(load(model, load_options != nullptr ? load_options->o : onnx::LoadOptions{})),
        options_(options != nullptr ? options->o : SessionOptions{}) {}

  [[nodiscard]] py::list inputs() const { return describe(model_.inputs()); }
  [[nodiscard]] py::list outputs() const { return describe(model_.outputs()); }
  [[nodiscard]] int opset() const { return model_.opset(); }
  [[nodiscard]] py::dict stats() const {
    onnx::RunStats st;
    {
      const std::lock_guard<std::mutex> lock(stats_mutex_);  // held briefly, never around a run
      st = stats_;
    }
    py::dict d;
    d["nodes"] = st.nodes;
    d["moved_inputs"] = st.moved_inputs;
    d["shared_inputs"] = st.shared_inputs;
    return d;
  }

  py::dict run(const py::object& feeds) {
    if (!py::hasattr(feeds, "items")) {
      throw TypeError("Session.run: feeds must be a mapping of input name to value, not a " +
                      py::str(py::type::handle_of(feeds).attr("__name__")).cast<std::string>());
    }
    std::vector<std::pair<std::string, Value>> args;
    for (py::handle item : feeds.attr("items")()) {
      if (!py::isinstance<py::tuple>(item) || PyTuple_GET_SIZE(item.ptr()) != 2) {
        throw TypeError("Session.run: feeds.items() must give (name, value) pairs");
      }
      const auto pair = py::reinterpret_borrow<py::tuple>(item);
      const py::handle key = pair[0];
      const py::handle value = pair[1];
      if (!py::isinstance<py::str>(key)) throw TypeError("Session.run: feed names must be str");
      const auto name = key.cast<std::string>();
      const auto& ins = model_.inputs();
      auto it = std::find_if(ins.begin(), ins.end(), [&](const onnx::ValueInfo& i) { return i.name == name; });
      if (it == ins.end()) {
        std::string names;
        for (const auto& i : ins) names += (names.empty() ? "'" : ", '") + i.name + "'";
        throw Error(model_.name() + ": '" + name +
                    "' is not an input of the graph (its inputs: " + (names.empty() ? "none" : names) + ")");
      }
      args.emplace_back(name, feed_value(value, *it));
    }
    std::vector<Value> out = run_unlocked(std::move(args));
    py::dict result;
    const auto& outs = model_.outputs();
    for (std::size_t i = 0; i < out.size() && i < outs.size(); ++i) result[py::str(outs[i].name)] = to_python(out[i]);
    {
      py::gil_scoped_release unlocked;  // tensors adopted from Python take the GIL as they go
      out.clear();
    }
    return result;
  }

 private:
  static onnx::Model load(py::handle model, const onnx::LoadOptions& options) {
    if (PyBytes_Check(model.ptr()) != 0 || PyByteArray_Check(model.ptr()) != 0 ||
        PyMemoryView_Check(model.ptr()) != 0) {
      const auto b = py::reinterpret_steal<py::bytes>(PyBytes_FromObject(model.ptr()));
      if (!b) throw py::error_already_set();
      const std::string bytes = b;
      py::gil_scoped_release unlocked;
      return onnx::Model::parse(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), "model bytes",
                                options);
    }
    const py::object fspath = py::module_::import("os").attr("fspath");
    const auto path = fspath(model).cast<std::string>();
    if (path.find('\0') != std::string::npos) throw py::value_error("Session: the model path holds a NUL byte");
    py::gil_scoped_release unlocked;
    return onnx::Model::load(std::filesystem::path(path), options);
  }

  static py::list describe(const std::vector<onnx::ValueInfo>& v) {
    py::list r;
    for (const auto& i : v) r.append(py::make_tuple(i.name, onnx::to_string(i.type)));
    return r;
  }

  void publish_stats(const onnx::Session& session) {
    const std::lock_guard<std::mutex> lock(stats_mutex_);
    stats_ = session.stats();
  }

  // Marks the thread running this Session while it runs (for the re-entry check).
  struct Running {
    std::atomic<std::thread::id>& on;
    explicit Running(std::atomic<std::thread::id>& o) : on(o) { on.store(std::this_thread::get_id()); }
    Running(const Running&) = delete;
    Running& operator=(const Running&) = delete;
    ~Running() { on.store(std::thread::id()); }
  };

  // Runs without the GIL, one run at a time (a C++ Session is not for concurrent use).
  std::vector<Value> run_unlocked(std::vector<std::pair<std::string, Value>> args) {
    // A signal handler (run while this thread waits for its run) calling run again would wait
    // for the lock this thread holds: refused instead.
    if (running_on_.load() == std::this_thread::get_id()) {
      throw Error(model_.name() +
                  ": Session.run called again on the thread already running this Session (from a "
                  "signal handler?); use another Session");
    }
    if (!on_main_thread()) {
      py::gil_scoped_release unlocked;
      const std::lock_guard<std::mutex> lock(mutex_);
      const Running running(running_on_);
      onnx::Session session(model_, options_);
      auto out = session.run(std::move(args));
      publish_stats(session);
      return out;
    }
    // The main thread: signals are handled here only, between waits of 20 ms.
    std::vector<Value> out;
    std::exception_ptr failure;
    bool done = false;
    std::mutex m;
    std::condition_variable cv;
    PyObject* type = nullptr;
    PyObject* value = nullptr;
    PyObject* trace = nullptr;
    {
      py::gil_scoped_release unlocked;
      const std::lock_guard<std::mutex> lock(mutex_);
      const Running running(running_on_);
      // A stop source per run (a request cannot be withdrawn), and so a Session per run: they
      // are cheap (a shared handle to the model and the options).
      std::stop_source stop;
      SessionOptions o = options_;
      o.stop_token = stop.get_token();
      onnx::Session session(model_, o);
      std::thread worker([&] {
        try {
          out = session.run(std::move(args));
        } catch (...) {
          failure = std::current_exception();
        }
        const std::lock_guard<std::mutex> g(m);
        done = true;
        cv.notify_one();
      });
      std::unique_lock<std::mutex> wait(m);
      while (!cv.wait_for(wait, std::chrono::milliseconds(20), [&] { return done; })) {
        if (type != nullptr) continue;  // interrupted: waiting for the run to stop
        wait.unlock();
        {
          py::gil_scoped_acquire held;
          if (PyErr_CheckSignals() != 0) {
            PyErr_Fetch(&type, &value, &trace);
            stop.request_stop();
          }
        }
        wait.lock();
      }
      wait.unlock();
      worker.join();
      publish_stats(session);
      if (type != nullptr) {
        out.clear();  // the run stopped (or finished) after the signal: its values are dropped
        failure = nullptr;
      }
    }
    if (type != nullptr) {
      PyErr_Restore(type, value, trace);
      throw py::error_already_set();
    }
    if (failure) std::rethrow_exception(failure);
    return out;
  }

  onnx::Model model_;
  SessionOptions options_;  // each run's Session is made with these (and, on the main thread, its stop token)
  onnx::RunStats stats_;    // the last run's, under stats_mutex_
  mutable std::mutex stats_mutex_;
  std::mutex mutex_;  // one run at a time
  std::atomic<std::thread::id> running_on_{};
};

}  // namespace

void bind_onnx(py::module_& m) {
  py::class_<Options>(m, "SessionOptions", R"doc(
Resource limits of a Session (tseq::onnx::SessionOptions; docs/onnx.md). The defaults limit
nothing (a trusted model); SessionOptions.untrusted() gives limits for models nobody trusted.
Keyword arguments set fields: SessionOptions(max_loop_iterations=100, time_limit=0.5).
)doc")
      .def(py::init([](const py::kwargs& limits) {
        py::object o = py::cast(Options{});
        for (auto [k, v] : limits) {
          if (!py::hasattr(o, k)) {
            throw TypeError("SessionOptions: no limit named '" + k.cast<std::string>() +
                            "' (max_loop_iterations, max_tensor_elements, max_tensor_bytes, max_run_bytes, "
                            "max_sequence_length, time_limit)");
          }
          o.attr(k) = v;
        }
        return o.cast<Options>();
      }))
      .def_static(
          "untrusted", [] { return Options{SessionOptions::untrusted()}; },
          "10^7 loop iterations, 2^28 elements and 1 GiB per tensor, 4 GiB of tensors per run, 10^7 tensors per "
          "sequence, 10 minutes per run.")
#define TSEQ_LIMIT(name, doc)                           \
  def_property(                                         \
      #name, [](const Options& o) { return o.o.name; }, \
      [](Options& o, std::int64_t v) { o.o.name = non_negative(v, #name); }, doc)
      .TSEQ_LIMIT(max_loop_iterations, "Iterations one Loop node may run.")
      .TSEQ_LIMIT(max_tensor_elements, "Elements of one tensor an operator may create.")
      .TSEQ_LIMIT(max_tensor_bytes, "Bytes of one tensor an operator may create.")
      .TSEQ_LIMIT(max_run_bytes, "Bytes of all tensors the run creates that are alive at once.")
      .TSEQ_LIMIT(max_sequence_length, "Tensors in one sequence an operator may create.")
#undef TSEQ_LIMIT
      .def_property("time_limit", &Options::time_limit, &Options::set_time_limit,
                    "Seconds one run may take (0: no limit); past it the run raises tseq.RunStopped.")
      .def("__repr__", [](const Options& o) {
        return "tseq.onnx.SessionOptions(max_loop_iterations=" + std::to_string(o.o.max_loop_iterations) +
               ", max_tensor_elements=" + std::to_string(o.o.max_tensor_elements) +
               ", max_tensor_bytes=" + std::to_string(o.o.max_tensor_bytes) +
               ", max_run_bytes=" + std::to_string(o.o.max_run_bytes) +
               ", max_sequence_length=" + std::to_string(o.o.max_sequence_length) +
               ", time_limit=" + std::to_string(o.time_limit()) + ")";
      });

  py::class_<LoadLimits>(m, "LoadOptions", R"doc(
Limits on loading a model (tseq::onnx::LoadOptions; docs/onnx.md, "Running untrusted models").
The defaults bound only what must be (files under 2 GiB, subgraphs 32 deep);
LoadOptions.untrusted() gives limits for models nobody trusted. A path must name a regular
file (a FIFO or a device is refused before it is read). Keyword arguments set fields:
LoadOptions(max_nodes=1000, time_limit=2.0).
)doc")
      .def(py::init([](const py::kwargs& limits) {
        py::object o = py::cast(LoadLimits{});
        for (auto [k, v] : limits) {
          if (!py::hasattr(o, k)) {
            throw TypeError("LoadOptions: no limit named '" + k.cast<std::string>() +
                            "' (max_file_bytes, max_bytes, max_nodes, max_name_bytes, time_limit)");
          }
          o.attr(k) = v;
        }
        return o.cast<LoadLimits>();
      }))
      .def_static(
          "untrusted", [] { return LoadLimits{onnx::LoadOptions::untrusted()}; },
          "1 GiB files, 4 GiB of memory, 10^6 nodes, 4 KiB names, 60 s to load.")
#define TSEQ_LOAD_LIMIT(name, doc)                         \
  def_property(                                            \
      #name, [](const LoadLimits& o) { return o.o.name; }, \
      [](LoadLimits& o, std::int64_t v) { o.o.name = non_negative(v, #name, "LoadOptions"); }, doc)
      .TSEQ_LOAD_LIMIT(max_file_bytes, "Bytes of the model file or buffer, checked before it is read.")
      .TSEQ_LOAD_LIMIT(max_bytes, "Memory the parsed model may take (estimated before parsing).")
      .TSEQ_LOAD_LIMIT(max_nodes, "Nodes in the model, subgraphs included.")
      .TSEQ_LOAD_LIMIT(max_name_bytes, "Bytes of one name (graph, node, value, attribute).")
#undef TSEQ_LOAD_LIMIT
      .def_property("time_limit", &LoadLimits::time_limit, &LoadLimits::set_time_limit,
                    "Seconds loading may take (0: no limit).")
      .def("__repr__", [](const LoadLimits& o) {
        return "tseq.onnx.LoadOptions(max_file_bytes=" + std::to_string(o.o.max_file_bytes) +
               ", max_bytes=" + std::to_string(o.o.max_bytes) + ", max_nodes=" + std::to_string(o.o.max_nodes) +
               ", max_name_bytes=" + std::to_string(o.o.max_name_bytes) +
               ", time_limit=" + std::to_string(o.time_limit()) + ")";
      });

  py::class_<PySession>(m, "Session", R"doc(
Runs an ONNX model with tseq values (tseq::onnx::Session): Session(model, options=None,
load_options=None), model a path (str or os.PathLike) or the serialized bytes. The model is
checked when loaded, within load_options (a LoadOptions; None: its defaults), and any failure
is a tseq.Error naming the node and the problem.

run(feeds) takes a dict of input name to: a numpy array, torch tensor or tseq.Tensor (tensor
inputs, taken without copying); a tseq.Sequence or a list of tensor-likes (sequence inputs);
None (an empty optional). It returns a dict of output name to tseq.Tensor, tseq.Sequence or
None (an empty optional). The GIL is released while the model runs; Ctrl-C stops a run on the
main thread (KeyboardInterrupt). One run at a time per Session: runs from several threads wait
for each other (create a Session per thread to run in parallel).
)doc")
      .def(py::init<py::handle, const Options*, const LoadLimits*>(), py::arg("model"), py::arg("options") = py::none(),
           py::arg("load_options") = py::none())
      .def_property_readonly("inputs", &PySession::inputs, "[(name, type)] of the graph's inputs.")
      .def_property_readonly("outputs", &PySession::outputs, "[(name, type)] of the graph's outputs.")
      .def_property_readonly("opset", &PySession::opset, "The default-domain opset the model imports.")
      .def_property_readonly("stats", &PySession::stats,
                             "Counters of the last run: nodes, moved_inputs, shared_inputs.")
      .def("run", &PySession::run, py::arg("feeds"), "Runs the model: {input name: value} -> {output name: value}.");
}

}  // namespace tseq::python
