// Runs an ONNX model through ONNX Runtime's CPU runtime (npm onnxruntime-node): the oracle for
// q8's FP32 and QDQ outputs, and the peer of q8's benchmarks.
//
//   node ort_run.js ORT_MODULE_DIR MODEL OUT_DIR [NAME=FILE.npy ...] [--threads N] [--repeat N]
//                   [--optimization all|disabled]
//
// Writes OUT_DIR/<output>.npy (names made file-safe as q8 does). With --repeat N it also times
// N runs after one warm-up and prints their median as {"ort_ms_per_run": ...} on the last line.
//
// As an oracle (no --repeat, no --optimization) on an x86 CPU without VNNI or AMX, a model holding
// QuantizeLinear runs unoptimized: ONNX Runtime's fused int8 kernels there pair products into int16
// (vpmaddubsw saturates) and are not the QDQ model's arithmetic (a grouped conv off by 0.39 against
// a step of 0.026, where the unfused run and q8 are within 5e-7 of the exact result); unfused, Q,
// DQ and the float ops compute what the model says. Timed runs keep every optimization.
'use strict';
const fs = require('fs');
const path = require('path');

const DTYPES = {
  '<f4': ['float32', Float32Array], '|i1': ['int8', Int8Array], '|u1': ['uint8', Uint8Array],
  '<i4': ['int32', Int32Array], '<i8': ['int64', BigInt64Array], '|b1': ['bool', Uint8Array],
};

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map(s => s.trim()).filter(s => s).map(Number);
  const [type, Ctor] = DTYPES[descr] || (() => { throw new Error(`${file}: unsupported dtype ${descr}`); })();
  const count = shape.reduce((a, b) => a * b, 1);
  const bytes = buf.subarray(start + headerLen, start + headerLen + count * Ctor.BYTES_PER_ELEMENT);
  const data = new Ctor(count);
  new Uint8Array(data.buffer).set(bytes);
  return { type, dims: shape, data: type === 'bool' ? Uint8Array.from(data) : data };
}

function writeNpy(file, tensor) {
  const descr = { float32: '<f4', int8: '|i1', uint8: '|u1', int32: '<i4', int64: '<i8', bool: '|b1' }[tensor.type];
  if (!descr) throw new Error(`output type ${tensor.type} is not supported`);
  const dims = tensor.dims.join(', ') + (tensor.dims.length === 1 ? ',' : '');
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`;
  header += ' '.repeat((64 - ((10 + header.length + 1) % 64)) % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1; pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const data = tensor.data;
  const body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'), body]));
}

// Whether ONNX Runtime's x86 int8 kernels sum exactly here: VNNI or AMX (or not x86 at all).
function int8KernelsExact() {
  let flags;
  try {
    flags = (fs.readFileSync('/proc/cpuinfo', 'latin1').match(/^flags\s*:(.*)$/m) || [])[1];
  } catch (e) {
    return true;
  }
  if (!flags || process.arch !== 'x64') return true;
  const have = new Set(flags.trim().split(/\s+/));
  return have.has('avx512_vnni') || have.has('avx_vnni') || have.has('amx_int8');
}

async function main() {
  const args = process.argv.slice(2);
  let threads = 0, repeat = 0, optimization = '';
  const positional = [];
  for (let i = 0; i < args.length; ++i) {
    if (args[i] === '--threads') threads = Number(args[++i]);
    else if (args[i] === '--repeat') repeat = Number(args[++i]);
    else if (args[i] === '--optimization') optimization = args[++i];
    else positional.push(args[i]);
  }
  const [ortDir, model, outDir, ...inputs] = positional;
  const ort = require(path.resolve(ortDir, 'node_modules', 'onnxruntime-node'));
  if (!optimization) {
    optimization = repeat === 0 && !int8KernelsExact() && fs.readFileSync(model).includes('QuantizeLinear') ? 'disabled' : 'all';
  }
  const options = { graphOptimizationLevel: optimization };
  if (threads > 0) { options.intraOpNumThreads = threads; options.interOpNumThreads = 1; }
  const session = await ort.InferenceSession.create(model, options);
  const feeds = {};
  for (const arg of inputs) {
    const eq = arg.lastIndexOf('=');
    const t = readNpy(arg.slice(eq + 1));
    feeds[arg.slice(0, eq)] = new ort.Tensor(t.type, t.data, t.dims);
  }
  const results = await session.run(feeds);
  fs.mkdirSync(outDir, { recursive: true });
  for (const [name, tensor] of Object.entries(results)) {
    writeNpy(path.join(outDir, name.replace(/[^A-Za-z0-9._-]/g, '_') + '.npy'), tensor);
  }
  if (repeat > 0) {
    const times = [];
    for (let i = 0; i < repeat; ++i) {
      const start = process.hrtime.bigint();
      await session.run(feeds);
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    times.sort((a, b) => a - b);
    console.log(JSON.stringify({ ort_ms_per_run: times[Math.floor(times.length / 2)] }));
  }
}

module.exports = { readNpy, writeNpy };
if (require.main === module) main().catch(e => { console.error(`ort_run: ${e.message}`); process.exit(1); });
