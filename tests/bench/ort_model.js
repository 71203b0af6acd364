// onnxruntime-node CPU timing of one ONNX model on its ONNX test data (test_data_set_0/input_*.pb):
// checks the first output against output_0.pb (PyTorch's values) before timing, then prints one
// JSON line per thread count: {"engine", "threads", "runs", "min_ms", "median_ms"}.
// Session: CPU EP, graphOptimizationLevel 'all', sequential, interOp 1, intraOp = threads.
// Usage: NODE_PATH=/tmp/ortbench/node_modules node ort_model.js MODEL.onnx DATA_DIR [threads...]
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

// TensorProto: dims (1), data_type (2), float_data (4), name (8), raw_data (9). f32 only.
function readTensor(file) {
  const b = fs.readFileSync(file);
  let p = 0;
  const varint = () => {
    let v = 0n, s = 0n;
    for (;;) {
      const x = b[p++];
      v |= BigInt(x & 0x7f) << s;
      if (!(x & 0x80)) return v;
      s += 7n;
    }
  };
  const dims = [];
  let type = 0, raw = null, floats = [], name = '';
  while (p < b.length) {
    const key = Number(varint()), field = key >> 3, wire = key & 7;
    if (wire === 0) {
      const v = varint();
      if (field === 1) dims.push(Number(v));
      else if (field === 2) type = Number(v);
    } else if (wire === 2) {
      const n = Number(varint()), start = p, end = p + n;
      if (field === 1) {  // packed dims
        while (p < end) dims.push(Number(varint()));
      } else if (field === 4) {
        for (let q = start; q < end; q += 4) floats.push(b.readFloatLE(q));
      } else if (field === 8) name = b.toString('utf8', start, end);
      else if (field === 9) raw = b.subarray(start, end);
      p = end;
    } else if (wire === 5) {
      if (field === 4) floats.push(b.readFloatLE(p));
      p += 4;
    } else if (wire === 1) p += 8;
    else throw new Error(`${file}: unsupported protobuf wire type ${wire}`);
  }
  if (type !== 1) throw new Error(`${file}: data_type ${type}, only f32 (1) is read`);
  const data = raw ? new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length)) : Float32Array.from(floats);
  return { name, dims, data };
}

async function main() {
  const [model, dataDir, ...rest] = process.argv.slice(2);
  if (!model || !dataDir) throw new Error('usage: node ort_model.js MODEL.onnx DATA_DIR [threads...]');
  const threads = rest.length ? rest.map((t) => parseInt(t, 10)) : [1, 2];
  const minTime = parseFloat(process.env.MIN_TIME || '1.0');
  const inputs = fs.readdirSync(dataDir).filter((f) => /^input_\d+\.pb$/.test(f)).sort();
  const expected = readTensor(path.join(dataDir, 'output_0.pb'));
  for (const t of threads) {
    const sess = await ort.InferenceSession.create(model, {
      executionProviders: ['cpu'], graphOptimizationLevel: 'all',
      executionMode: 'sequential', intraOpNumThreads: t, interOpNumThreads: 1,
    });
    const feeds = {};
    inputs.forEach((f, i) => {
      const x = readTensor(path.join(dataDir, f));
      feeds[sess.inputNames[i]] = new ort.Tensor('float32', x.data, x.dims);
    });
    const y = (await sess.run(feeds))[sess.outputNames[0]].data;
    let maxErr = 0;
    for (let i = 0; i < expected.data.length; i++) maxErr = Math.max(maxErr, Math.abs(expected.data[i] - y[i]));
    if (!(maxErr < 1e-3) || y.length !== expected.data.length) throw new Error(`max abs error ${maxErr} against output_0.pb`);
    for (let i = 0; i < 20; i++) await sess.run(feeds);  // warm-up
    const ts = [];
    const t0 = process.hrtime.bigint();
    while (ts.length < 2000 && (ts.length < 50 || Number(process.hrtime.bigint() - t0) / 1e9 < minTime)) {
      const a = process.hrtime.bigint();
      await sess.run(feeds);
      ts.push(Number(process.hrtime.bigint() - a) / 1e6);
    }
    ts.sort((a, b) => a - b);
    const n = ts.length, med = n % 2 ? ts[(n - 1) / 2] : 0.5 * (ts[n / 2 - 1] + ts[n / 2]);
    console.log(JSON.stringify({ engine: 'onnxruntime', threads: t, runs: n, min_ms: ts[0], median_ms: med, max_abs_error: maxErr }));
    await sess.release();
  }
}
main().catch((e) => { console.error(String(e)); process.exit(1); });
