// Preloaded with --require (Node runs it in worker threads too, and job processes inherit
// it): require('onnxruntime-node') fails the way it does where its native library cannot
// load (an Intel Mac, a Windows without the VC++ runtime). Used by
// test/unit/inference/no-onnxruntime.test.ts (issue 35 item 1).
/* eslint-disable @typescript-eslint/no-require-imports -- a --require preload must be CommonJS */
'use strict';
const Module = require('node:module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === 'onnxruntime-node' || request.startsWith('onnxruntime-node/bin')) {
    const err = new Error('onnxruntime_binding.node: cannot open shared object file: No such file or directory (stub: test/support/no-onnxruntime.cjs)');
    err.code = 'ERR_DLOPEN_FAILED';
    throw err;
  }
  return resolve.call(this, request, ...rest);
};
