// Folding of the element-wise operators, with numpy broadcasting: arithmetic (Add, Sub, Mul, Div;
// on integers overflow-checked, with division truncating toward zero as ONNX Runtime divides),
// Mod (fmod 0: integers, the remainder with the divisor's sign; fmod 1: the dividend's sign),
// comparisons and logic producing bool (Equal, Less, Greater, And, Or, Not), Where, Cast, and
// the unary Abs, Neg, Sqrt, Reciprocal, Exp and Log.
#include <cmath>
#include <limits>

#include "../import_context.hpp"
#include "evaluators.hpp"

namespace nnplan::format::onnx_import::folding {
namespace {

// The broadcast of inputs `inputs` for a result of `dtype`, and a walk that gives each one's
// offset at each index.
struct Broadcast {
  DimList dims;
  std::size_t count = 0;
  StridedWalk walk;
};

Broadcast broadcast_of(FoldArgs& a, std::initializer_list<int> inputs, int dtype) {
  DimList dims;
  bool first = true;
  for (const int i : inputs) {
    dims = first ? a.in(i).dims : a.broadcast({&dims, &a.in(i).dims});
    first = false;
  }
  std::vector<std::vector<std::int64_t>> strides;
  for (const int i : inputs)
    strides.push_back(broadcast_strides(a.in(i).dims, dims));
  const std::size_t n = a.count(dims, dtype);
  std::vector<std::int64_t> offsets(strides.size(), 0);
  return Broadcast{.dims = dims, .count = n, .walk = StridedWalk(dims, strides, offsets)};
}

// Fails unless `v`, a result of data type `dtype`, fits it.
std::int64_t fit(const FoldArgs& a, int dtype, std::int64_t v) {
  if (dtype == kI32 && (v < std::numeric_limits<std::int32_t>::min() ||
                        v > std::numeric_limits<std::int32_t>::max())) {
    a.cx.fail("the int32 result " + str(v) + " overflows int32");
  }
  return v;
}

enum class Arith { add, sub, mul, div };

ConstTensor arithmetic(FoldArgs& a, Arith op) {
  a.cx.allow_attrs({});
  a.cx.require_inputs(2, 2);
  const int dtype = a.same_dtype({0, 1});
  if (dtype == kBool) a.cx.fail("inputs are bool; arithmetic takes numbers");
  Broadcast b = broadcast_of(a, {0, 1}, dtype);
  ConstTensor out = a.make(dtype, b.dims);
  if (dtype == kF32) {
    const std::vector<float>& x = floats_of(a.in(0));
    const std::vector<float>& y = floats_of(a.in(1));
    for (std::size_t i = 0; i < b.count; ++i, b.walk.next()) {
      const float p = x[b.walk.at(0)];
      const float q = y[b.walk.at(1)];
      switch (op) {
        case Arith::add:
          out.floats[i] = p + q;
          break;
        case Arith::sub:
          out.floats[i] = p - q;
          break;
        case Arith::mul:
          out.floats[i] = p * q;
          break;
        case Arith::div:
          out.floats[i] = p / q;
          break;
      }
    }
    return out;
  }
  const std::vector<std::int64_t>& x = a.in(0).ints;
  const std::vector<std::int64_t>& y = a.in(1).ints;
  for (std::size_t i = 0; i < b.count; ++i, b.walk.next()) {
    const std::int64_t p = x[b.walk.at(0)];
    const std::int64_t q = y[b.walk.at(1)];
    std::int64_t r = 0;
    bool overflow = false;
    switch (op) {
      case Arith::add:
        overflow = __builtin_add_overflow(p, q, &r);
        break;
      case Arith::sub:
        overflow = __builtin_sub_overflow(p, q, &r);
        break;
      case Arith::mul:
        overflow = __builtin_mul_overflow(p, q, &r);
        break;
      case Arith::div:
        if (q == 0) a.cx.fail("divides " + str(p) + " by zero");
        overflow = p == std::numeric_limits<std::int64_t>::min() && q == -1;
        if (!overflow) r = p / q;  // C++ truncates toward zero, as ONNX Runtime does
        break;
    }
    if (overflow) {
      static constexpr const char* kSigns[] = {" + ", " - ", " * ", " / "};
      a.cx.fail(str(p) + kSigns[static_cast<int>(op)] + str(q) + " overflows " + dtype_name(dtype));
    }
    out.ints[i] = fit(a, dtype, r);
  }
  return out;
}

// Mod of integers (fmod 0 or 1) or float32 (fmod 1, as ONNX requires and the importer checks).
ConstTensor modulo(FoldArgs& a) {
  a.cx.allow_attrs({"fmod"});
  a.cx.require_inputs(2, 2);
  const std::int64_t fmod = a.cx.attr_int("fmod", 0);
  if (fmod != 0 && fmod != 1) a.cx.fail_attr("fmod", str(fmod), "0 or 1");
  const int dtype = a.same_dtype({0, 1});
  if (dtype == kBool) a.cx.fail("inputs are bool; Mod takes numbers");
  if (dtype == kF32 && fmod == 0) {
    a.cx.fail("fmod = 0 of float32 inputs; ONNX requires fmod = 1 for floating-point inputs");
  }
  Broadcast b = broadcast_of(a, {0, 1}, dtype);
  ConstTensor out = a.make(dtype, b.dims);
  if (dtype == kF32) {
    const std::vector<float>& x = floats_of(a.in(0));
    const std::vector<float>& y = floats_of(a.in(1));
    for (std::size_t i = 0; i < b.count; ++i, b.walk.next())
      out.floats[i] = std::fmod(x[b.walk.at(0)], y[b.walk.at(1)]);
    return out;
  }
  const std::vector<std::int64_t>& x = a.in(0).ints;
  const std::vector<std::int64_t>& y = a.in(1).ints;
  for (std::size_t i = 0; i < b.count; ++i, b.walk.next()) {
    const std::int64_t p = x[b.walk.at(0)];
    const std::int64_t q = y[b.walk.at(1)];
    if (q == 0) a.cx.fail("takes " + str(p) + " modulo zero");
    // INT64_MIN % -1 overflows in C++; its remainder is 0.
    std::int64_t r = q == -1 ? 0 : p % q;
    if (fmod == 0 && r != 0 && (r < 0) != (q < 0)) r += q;
    out.ints[i] = r;
  }
  return out;
}

enum class Compare { equal, less, greater };

ConstTensor compare(FoldArgs& a, Compare op) {
  a.cx.allow_attrs({});
  a.cx.require_inputs(2, 2);
  const int dtype = a.same_dtype({0, 1});
  if (dtype == kBool && op != Compare::equal) a.cx.fail("inputs are bool; it compares numbers");
  Broadcast b = broadcast_of(a, {0, 1}, kBool);
  ConstTensor out = a.make(kBool, b.dims);
  const auto decide = [op](auto p, auto q) {
    switch (op) {
      case Compare::equal:
        return p == q;
      case Compare::less:
        return p < q;
      case Compare::greater:
        return p > q;
    }
    return false;
  };
  if (dtype == kF32) {
    const std::vector<float>& x = floats_of(a.in(0));
    const std::vector<float>& y = floats_of(a.in(1));
    for (std::size_t i = 0; i < b.count; ++i, b.walk.next())
      out.ints[i] = decide(x[b.walk.at(0)], y[b.walk.at(1)]) ? 1 : 0;
  } else {
    const bool boolean = dtype == kBool;
    const std::vector<std::int64_t>& x = a.in(0).ints;
    const std::vector<std::int64_t>& y = a.in(1).ints;
    for (std::size_t i = 0; i < b.count; ++i, b.walk.next()) {
      std::int64_t p = x[b.walk.at(0)];
      std::int64_t q = y[b.walk.at(1)];
      if (boolean) {
        p = p != 0;
        q = q != 0;
      }
      out.ints[i] = decide(p, q) ? 1 : 0;
    }
  }
  return out;
}

void require_bool(const FoldArgs& a, int i) {
  if (a.in(i).dtype != kBool) {
    a.cx.fail("input " + a.quoted(i) + " has data type " + dtype_name(a.in(i).dtype) +
              ", expected bool");
  }
}

ConstTensor logic(FoldArgs& a, bool is_and) {
  a.cx.allow_attrs({});
  a.cx.require_inputs(2, 2);
  require_bool(a, 0);
  require_bool(a, 1);
  Broadcast b = broadcast_of(a, {0, 1}, kBool);
  ConstTensor out = a.make(kBool, b.dims);
  const std::vector<std::int64_t>& x = a.in(0).ints;
  const std::vector<std::int64_t>& y = a.in(1).ints;
  for (std::size_t i = 0; i < b.count; ++i, b.walk.next()) {
    const bool p = x[b.walk.at(0)] != 0;
    const bool q = y[b.walk.at(1)] != 0;
    out.ints[i] = (is_and ? p && q : p || q) ? 1 : 0;
  }
  return out;
}

enum class Unary { abs, neg, sqrt, reciprocal, exp, log };

ConstTensor unary(FoldArgs& a, Unary op) {
  a.cx.allow_attrs({});
  a.cx.require_inputs(1, 1);
  ConstTensor& x = a.in(0);
  const bool integral = is_int(x);
  if (!is_float(x) && !(integral && (op == Unary::abs || op == Unary::neg))) {
    a.cx.fail(
        "input " + a.quoted(0) + " has data type " + dtype_name(x.dtype) +
        (op == Unary::abs || op == Unary::neg ? ", expected a number" : ", expected float32"));
  }
  ConstTensor out = a.make(x.dtype, x.dims);
  if (integral) {
    for (std::size_t i = 0; i < out.ints.size(); ++i) {
      const std::int64_t v = x.ints[i];
      if (v == std::numeric_limits<std::int64_t>::min()) {
        a.cx.fail("the negation of " + str(v) + " overflows int64");
      }
      out.ints[i] = fit(a, x.dtype, op == Unary::neg || v < 0 ? -v : v);
    }
    return out;
  }
  const std::vector<float>& f = floats_of(x);
  for (std::size_t i = 0; i < out.floats.size(); ++i) {
    const float v = f[i];
    switch (op) {
      case Unary::abs:
        out.floats[i] = std::fabs(v);
        break;
      case Unary::neg:
        out.floats[i] = -v;
        break;
      case Unary::sqrt:
        out.floats[i] = std::sqrt(v);
        break;
      case Unary::reciprocal:
        out.floats[i] = 1.0f / v;
        break;
      case Unary::exp:
        out.floats[i] = std::exp(v);
        break;
      case Unary::log:
        out.floats[i] = std::log(v);
        break;
    }
  }
  return out;
}

}  // namespace

ConstTensor fold_add(FoldArgs& a) {
  return arithmetic(a, Arith::add);
}
ConstTensor fold_sub(FoldArgs& a) {
  return arithmetic(a, Arith::sub);
}
ConstTensor fold_mul(FoldArgs& a) {
  return arithmetic(a, Arith::mul);
}
ConstTensor fold_div(FoldArgs& a) {
  return arithmetic(a, Arith::div);
}
ConstTensor fold_mod(FoldArgs& a) {
  return modulo(a);
}
ConstTensor fold_equal(FoldArgs& a) {
  return compare(a, Compare::equal);
}
ConstTensor fold_less(FoldArgs& a) {
  return compare(a, Compare::less);
}
ConstTensor fold_greater(FoldArgs& a) {
  return compare(a, Compare::greater);
}
ConstTensor fold_and(FoldArgs& a) {
  return logic(a, true);
}
ConstTensor fold_or(FoldArgs& a) {
  return logic(a, false);
}

ConstTensor fold_not(FoldArgs& a) {
  a.cx.allow_attrs({});
  a.cx.require_inputs(1, 1);
  require_bool(a, 0);
  ConstTensor out = a.make(kBool, a.in(0).dims);
  for (std::size_t i = 0; i < out.ints.size(); ++i)
    out.ints[i] = a.in(0).ints[i] == 0 ? 1 : 0;
  return out;
}

ConstTensor fold_where(FoldArgs& a) {
  a.cx.allow_attrs({});
  a.cx.require_inputs(3, 3);
  require_bool(a, 0);
  const int dtype = a.same_dtype({1, 2});
  Broadcast b = broadcast_of(a, {0, 1, 2}, dtype);
  ConstTensor out = a.make(dtype, b.dims);
  const std::vector<std::int64_t>& cond = a.in(0).ints;
  if (dtype == kF32) {
    const std::vector<float>& x = floats_of(a.in(1));
    const std::vector<float>& y = floats_of(a.in(2));
    for (std::size_t i = 0; i < b.count; ++i, b.walk.next())
      out.floats[i] = cond[b.walk.at(0)] != 0 ? x[b.walk.at(1)] : y[b.walk.at(2)];
  } else {
    const std::vector<std::int64_t>& x = a.in(1).ints;
    const std::vector<std::int64_t>& y = a.in(2).ints;
    for (std::size_t i = 0; i < b.count; ++i, b.walk.next())
      out.ints[i] = cond[b.walk.at(0)] != 0 ? x[b.walk.at(1)] : y[b.walk.at(2)];
  }
  return out;
}

ConstTensor fold_cast(FoldArgs& a) {
  a.cx.allow_attrs({"to", "saturate"});
  a.cx.require_inputs(1, 1);
  const int to = a.cx.attr_data_type("to");
  if (!foldable_dtype(to)) {
    a.cx.fail_attr("to", dtype_name(to), "float32, int64, int32, bool");
  }
  ConstTensor& x = a.in(0);
  ConstTensor out = a.make(to, x.dims);
  if (is_float(x)) {
    const std::vector<float>& f = floats_of(x);
    for (std::size_t i = 0; i < f.size(); ++i) {
      const float v = f[i];
      if (to == kF32) {
        out.floats[i] = v;
      } else if (to == kBool) {
        out.ints[i] = v != 0.0f ? 1 : 0;
      } else {
        // Exactly representable bounds: -2^63 and 2^63 (or -2^31 and 2^31).
        const double bound = to == kI32 ? 2147483648.0 : 9223372036854775808.0;
        const double t = std::trunc(static_cast<double>(v));
        if (!(t >= -bound && t < bound)) {
          a.cx.unsupported("the float32 value " + str(v) + " of " + a.quoted(0) + " does not fit " +
                           dtype_name(to));
        }
        out.ints[i] = static_cast<std::int64_t>(t);
      }
    }
    return out;
  }
  for (std::size_t i = 0; i < x.ints.size(); ++i) {
    const std::int64_t v = x.dtype == kBool ? (x.ints[i] != 0 ? 1 : 0) : x.ints[i];
    if (to == kF32) {
      out.floats[i] = static_cast<float>(v);
    } else if (to == kBool) {
      out.ints[i] = v != 0 ? 1 : 0;
    } else {
      if (to == kI32 && (v < std::numeric_limits<std::int32_t>::min() ||
                         v > std::numeric_limits<std::int32_t>::max())) {
        a.cx.unsupported("the value " + str(v) + " of " + a.quoted(0) + " does not fit int32");
      }
      out.ints[i] = v;
    }
  }
  return out;
}

ConstTensor fold_abs(FoldArgs& a) {
  return unary(a, Unary::abs);
}
ConstTensor fold_neg(FoldArgs& a) {
  return unary(a, Unary::neg);
}
ConstTensor fold_sqrt(FoldArgs& a) {
  return unary(a, Unary::sqrt);
}
ConstTensor fold_reciprocal(FoldArgs& a) {
  return unary(a, Unary::reciprocal);
}
ConstTensor fold_exp(FoldArgs& a) {
  return unary(a, Unary::exp);
}
ConstTensor fold_log(FoldArgs& a) {
  return unary(a, Unary::log);
}

}  // namespace nnplan::format::onnx_import::folding
