// Runs the models written by tseq_bench_executor with ONNX Runtime (CPU) and writes the
// timings as Google Benchmark-style JSON, so that benchmarks/report.py can put them beside
// tseq's.   usage: node run_ort.js MODELS_DIR OUT.json [--full]
// The quick set stops where ONNX Runtime's O(n) per-op copies make a single run take minutes
// (k = 10^4 erases, 10^5 appends); --full runs those too.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const LENGTH = 100000;
const PAYLOAD = 16;
const BUDGET_MS = 15000;  // a case slower than this for one run stops its series

async function time(session, feeds, expected) {
  const once = async () => {
    const t0 = process.hrtime.bigint();
    const out = await session.run(feeds);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const len = Number(out.L.data[0]);
    if (len !== expected) throw new Error(`wrong length ${len}, expected ${expected}`);
    return ms;
  };
  const first = await once();  // warm-up (and the budget check)
  if (first > BUDGET_MS) return { ms: first, runs: 1 };
  const runs = [];
  let total = 0;
  while (runs.length < 3 || (total < 500 && runs.length < 50)) {
    const ms = await once();
    runs.push(ms);
    total += ms;
  }
  runs.sort((a, b) => a - b);
  return { ms: runs[Math.floor(runs.length / 2)], runs: runs.length };
}

function scalar(k) { return new ort.Tensor('int64', BigInt64Array.from([BigInt(k)]), []); }

async function main() {
  const [dir, outFile, flag] = process.argv.slice(2);
  const full = flag === '--full';
  if (!dir || !outFile) {
    console.error('usage: node run_ort.js MODELS_DIR OUT.json');
    process.exit(2);
  }
  const opts = { logSeverityLevel: 3, graphOptimizationLevel: 'all', intraOpNumThreads: 1 };
  const results = [];
  const erase = await ort.InferenceSession.create(path.join(dir, 'loop_erase.onnx'), opts);
  const x = new ort.Tensor('float32', new Float32Array(LENGTH * PAYLOAD).fill(1), [LENGTH, PAYLOAD]);
  for (const k of full ? [0, 1000, 10000] : [0, 1000]) {
    const r = await time(erase, { X: x, K: scalar(k) }, LENGTH - k);
    results.push({ name: `ExecutorLoopErase/-/ort/payload:16/n:${k}`, run_type: 'iteration', iterations: r.runs,
                   real_time: r.ms, cpu_time: r.ms, time_unit: 'ms' });
    console.log(`ExecutorLoopErase/-/ort/payload:16/n:${k}  ${r.ms.toFixed(3)} ms (median of ${r.runs})`);
    if (r.ms > BUDGET_MS) break;
  }
  const insert = await ort.InferenceSession.create(path.join(dir, 'loop_insert.onnx'), opts);
  const t = new ort.Tensor('float32', new Float32Array(PAYLOAD).fill(2), [PAYLOAD]);
  for (const k of full ? [1000, 10000, 100000] : [1000, 10000]) {
    const r = await time(insert, { T: t, K: scalar(k) }, k);
    results.push({ name: `ExecutorLoopInsert/-/ort/payload:16/n:${k}`, run_type: 'iteration', iterations: r.runs,
                   real_time: r.ms, cpu_time: r.ms, time_unit: 'ms' });
    console.log(`ExecutorLoopInsert/-/ort/payload:16/n:${k}  ${r.ms.toFixed(3)} ms (median of ${r.runs})`);
    if (r.ms > BUDGET_MS) break;
  }
  // The same append loop fed a 65,536-float tensor (tseq adopts it; ONNX Runtime's
  // SequenceInsert copies it on every append).
  const big = new ort.Tensor('float32', new Float32Array(65536).fill(2), [65536]);
  for (const k of [100, 1000]) {
    const r = await time(insert, { T: big, K: scalar(k) }, k);
    results.push({ name: `ExecutorLoopInsert/adopted/ort/payload:65536/n:${k}`, run_type: 'iteration',
                   iterations: r.runs, real_time: r.ms, cpu_time: r.ms, time_unit: 'ms' });
    console.log(`ExecutorLoopInsert/adopted/ort/payload:65536/n:${k}  ${r.ms.toFixed(3)} ms (median of ${r.runs})`);
    if (r.ms > BUDGET_MS) break;
  }
  const version = require('onnxruntime-node/package.json').version;
  fs.writeFileSync(outFile, JSON.stringify({ context: { ort_version: version }, benchmarks: results }, null, 1));
}

main().catch((e) => { console.error('run_ort.js:', e.message); process.exit(1); });
