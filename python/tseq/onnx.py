"""A small ONNX executor over tseq values (tseq::onnx; docs/onnx.md, docs/python.md).

    session = tseq.onnx.Session("model.onnx", tseq.onnx.SessionOptions.untrusted(),
                                tseq.onnx.LoadOptions.untrusted())
    outputs = session.run({"x": np.zeros(3, np.float32), "seq": [a, b]})
"""

from ._tseq.onnx import LoadOptions, Session, SessionOptions  # noqa: F401

LoadOptions.__module__ = "tseq.onnx"
Session.__module__ = "tseq.onnx"
SessionOptions.__module__ = "tseq.onnx"

__all__ = ["LoadOptions", "Session", "SessionOptions"]
