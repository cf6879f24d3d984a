#pragma once

/// @file
/// Exceptions thrown by tseq. Every message names the operation, the bad value and what
/// would have been valid, e.g.
/// "SequenceErase: position 5 is out of range [-3, 2] for a sequence of 3 tensors".

#include <stdexcept>
#include <string>

namespace tseq {

/// Base of every tseq error; derives from std::runtime_error, so catching std::exception
/// catches it too.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A value of the wrong element type (e.g. inserting an int64 tensor into a float sequence,
/// reading a float tensor as int32, a position tensor that is not int32/int64).
class TypeError : public Error {
 public:
  using Error::Error;
};

/// Shapes that do not fit (element count against dims, concat of mismatched shapes, a split
/// that does not add up, a position tensor with more than one element).
class ShapeError : public Error {
 public:
  using Error::Error;
};

/// A position or axis outside its valid range.
class IndexError : public Error {
 public:
  using Error::Error;
};

/// A result longer than the container's max_size(): a concatenation of two versions whose
/// sizes add up past it (sharing makes such versions cheap to build), e.g.
/// "rrb_vector::operator+: 2^57 + 2^57 elements exceed max_size() ...".
class LengthError : public Error {
 public:
  using Error::Error;
};

/// An operation that reads or writes payload met a tensor whose memory the host cannot read
/// (Device::is_host_readable() is false), e.g.
/// "SplitToSequence: input is on cuda:0; tseq reads only host memory".
class DeviceError : public Error {
 public:
  using Error::Error;
};

}  // namespace tseq
