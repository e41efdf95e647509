// Runs many single-model cases through ONNX Runtime in one process (the differential op test).
//
//   node ort_cases.js ORT_MODULE_DIR MANIFEST.json
//
// MANIFEST is a list of {"model": PATH, "inputs": {NAME: FILE.npy}, "out": DIR}. For each case it
// writes DIR/<output>.npy, or DIR/error.txt with ONNX Runtime's message when it refuses the case.
'use strict';
const fs = require('fs');
const path = require('path');
const { readNpy, writeNpy } = require('./ort_run.js');

async function main() {
  const [ortDir, manifest] = process.argv.slice(2);
  const ort = require(path.resolve(ortDir, 'node_modules', 'onnxruntime-node'));
  const cases = JSON.parse(fs.readFileSync(manifest, 'utf8'));
  for (const c of cases) {
    fs.mkdirSync(c.out, { recursive: true });
    try {
      const session = await ort.InferenceSession.create(c.model, { graphOptimizationLevel: 'disabled', intraOpNumThreads: 1, logSeverityLevel: 4 });
      const feeds = {};
      for (const [name, file] of Object.entries(c.inputs)) {
        const t = readNpy(file);
        feeds[name] = new ort.Tensor(t.type, t.data, t.dims);
      }
      const results = await session.run(feeds);
      for (const [name, tensor] of Object.entries(results))
        writeNpy(path.join(c.out, name.replace(/[^A-Za-z0-9._-]/g, '_') + '.npy'), tensor);
    } catch (e) {
      fs.writeFileSync(path.join(c.out, 'error.txt'), String(e.message || e));
    }
  }
}

main().catch(e => { console.error(`ort_cases: ${e.message}`); process.exit(1); });
