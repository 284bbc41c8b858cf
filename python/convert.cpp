// JSON to Python, once for every command: the dict is the CLI's document, key for key, with
// numeric vectors and matrices as NumPy arrays; and keyword arguments to the typed values the
// commands' options read.
#include <pybind11/numpy.h>

#include <cmath>
#include <cstdint>
#include <optional>

#include "call.hpp"
#include "phasesim/core/error.hpp"

namespace phasesim::python {
namespace {

// A number an array of NumPy holds as the document reads: not a boolean, not NaN or an
// infinity (the document writes null), not an unsigned above int64.
bool is_number(const Json& j) {
  if (j.is_number_float()) return std::isfinite(j.get<double>());
  if (j.is_number_unsigned()) return j.get<std::uint64_t>() <= INT64_MAX;
  return j.is_number_integer();
}

// The common length of the rows when `json` is a non-empty array of non-empty numeric arrays
// of one length (a matrix).
std::optional<std::size_t> matrix_width(const Json& json) {
  if (json.empty() || !json.front().is_array() || json.front().empty()) return std::nullopt;
  const auto width = json.front().size();
  for (const auto& row : json) {
    if (!row.is_array() || row.size() != width) return std::nullopt;
    for (const auto& x : row)
      if (!is_number(x)) return std::nullopt;
  }
  return width;
}

bool all_numbers(const Json& json) {
  if (json.empty()) return false;
  for (const auto& x : json)
    if (!is_number(x)) return false;
  return true;
}

bool all_integers(const Json& json) {
  for (const auto& x : json) {
    if (x.is_array()) {
      if (!all_integers(x)) return false;
    } else if (!x.is_number_integer()) {
      return false;
    }
  }
  return true;
}

// A numeric array of `shape` filled from the numbers of `json` in order (rows flattened).
template <typename T>
py::array_t<T> numeric_array(const Json& json, std::vector<py::ssize_t> shape) {
  py::array_t<T> array(shape);
  T* out = array.mutable_data();
  for (const auto& x : json) {
    if (x.is_array()) {
      for (const auto& y : x) *out++ = y.get<T>();
    } else {
      *out++ = x.get<T>();
    }
  }
  return array;
}

py::object array_to_python(const Json& json) {
  std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(json.size())};
  if (const auto width = matrix_width(json)) {
    shape.push_back(static_cast<py::ssize_t>(*width));
  } else if (!all_numbers(json)) {
    py::list list;
    for (const auto& x : json) list.append(to_python(x));
    return list;
  }
  if (all_integers(json)) return numeric_array<std::int64_t>(json, shape);
  return numeric_array<double>(json, shape);
}

}  // namespace

py::object to_python(const Json& json) {
  switch (json.type()) {
    case Json::value_t::null:
      return py::none();
    case Json::value_t::boolean:
      return py::bool_(json.get<bool>());
    case Json::value_t::number_integer:
      return py::int_(json.get<std::int64_t>());
    case Json::value_t::number_unsigned:
      return py::int_(json.get<std::uint64_t>());
    case Json::value_t::number_float:  // NaN and infinities: null, as the document writes them
      return std::isfinite(json.get<double>()) ? py::object(py::float_(json.get<double>()))
                                               : py::object(py::none());
    case Json::value_t::string:
      return py::str(json.get<std::string>());
    case Json::value_t::array:
      return array_to_python(json);
    case Json::value_t::object: {
      py::dict dict;
      for (const auto& [key, value] : json.items()) dict[py::str(key)] = to_python(value);
      return dict;
    }
    default:
      return py::none();  // binary and discarded values: never in a document
  }
}

namespace {

// An int of any size as JSON: int64, or uint64 above; beyond both, refused as the option's
// text reader refuses it.
Json integer_json(const commands::Option& option, py::handle value) {
  int overflow = 0;
  const auto signed_value = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  if (overflow == 0) return static_cast<std::int64_t>(signed_value);
  if (overflow > 0) {
    const auto unsigned_value = PyLong_AsUnsignedLongLong(value.ptr());
    if (!PyErr_Occurred()) return static_cast<std::uint64_t>(unsigned_value);
    PyErr_Clear();
  }
  const auto rule = option.item_kind() == commands::Kind::seed
                        ? "must be an integer in [0, 2^64 - 1]"
                        : "out of range for this option";
  throw InputError("invalid " + option.flag() + " '" + py::str(value).cast<std::string>() + "' (" +
                   rule + ")");
}

}  // namespace

Json from_python(const commands::Option& option, py::handle value) {
  if (PyBool_Check(value.ptr())) return value.cast<bool>();
  if (PyLong_Check(value.ptr())) return integer_json(option, value);
  // NumPy's arrays and scalars (float32, bool_) as Python's lists and numbers.
  if (py::hasattr(value, "ndim") && py::hasattr(value, "tolist"))
    return from_python(option, value.attr("tolist")());
  if (PyIndex_Check(value.ptr()))
    return integer_json(option, py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr())));
  if (PyFloat_Check(value.ptr())) return value.cast<double>();
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  const auto os = py::module_::import("os");
  if (py::isinstance(value, os.attr("PathLike")))
    return os.attr("fspath")(value).cast<std::string>();
  if (py::isinstance<py::dict>(value)) {
    auto object = Json::object();
    for (const auto& [key, item] : value.cast<py::dict>())
      object[py::str(key).cast<std::string>()] = from_python(option, item);
    return object;
  }
  if (py::isinstance<py::sequence>(value)) {
    auto array = Json::array();
    for (const auto& item : value) array.push_back(from_python(option, item));
    return array;
  }
  return py::repr(value).cast<std::string>();  // refused by the option's reader, by its text
}

}  // namespace phasesim::python
