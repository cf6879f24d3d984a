// A consumer's own shared library (think: a runtime's plugin) with tseq linked into it.
#pragma once

/// Builds and edits a sequence with tseq (and, with tseq::onnx, rejects a malformed model);
/// returns 0 when every result is as expected.
int consumer_plugin_check();
