/**
 * Test guard: records (and refuses) every attempt to open a network connection or to
 * resolve a name. Load it first: `node --require ./test/support/no-network.cjs ...`.
 *
 * CommonJS and --require on purpose: Node runs --require preloads in every worker
 * thread, including `eval: true` workers (key generation uses one), whereas --import
 * preloads are skipped in eval workers. no-network.mjs loads this file for --import.
 *
 * Each attempt appends one line to the file named by EQUIVOX_NETLOG:
 *   <pid> <thread id> <api> <target>
 * A file, not memory, because worker threads have their own module instances: the
 * guard is loaded again in every worker (workers inherit the parent's execArgv;
 * NODE_OPTIONS carries it into child Node processes too).
 *
 * Nothing is allowed, not even loopback: the offline demo needs no socket at all.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a --require preload must be CommonJS (see above) */
'use strict';
const { appendFileSync } = require('node:fs');
const { syncBuiltinESMExports } = require('node:module');
const { threadId } = require('node:worker_threads');

// Loaded once per thread, whether through the command line, NODE_OPTIONS or both.
const LOADED = Symbol.for("equivox.no-network");
const alreadyLoaded = globalThis[LOADED] === true;
globalThis[LOADED] = true;
const log = process.env.EQUIVOX_NETLOG;

function describe(args) {
  const a = args[0];
  try {
    if (typeof a === 'string') return a;
    if (a instanceof URL) return a.href;
    if (Array.isArray(a)) return describe(a);
    if (a && typeof a === 'object') {
      if (typeof a.url === 'string') return a.url;
      const host = a.host ?? a.hostname ?? a.path ?? '';
      return `${host}${a.port !== undefined ? `:${a.port}` : ''}` || JSON.stringify(Object.keys(a));
    }
    return String(a);
  } catch {
    return '?';
  }
}

function record(api, args) {
  const line = `${process.pid} ${threadId} ${api} ${describe(args).replace(/\s+/g, ' ').slice(0, 200)}\n`;
  if (log) {
    try {
      appendFileSync(log, line);
    } catch {
      // The log must never turn into a crash of its own.
    }
  } else {
    process.stderr.write(`[no-network] ${line}`);
  }
}

function refusal(api) {
  return Object.assign(new Error(`network access (${api}) is disabled by test/support/no-network.mjs`), { code: 'ENETUNREACH' });
}

function guard(target, name, api, { async = false } = {}) {
  if (alreadyLoaded) return;
  const original = target?.[name];
  if (typeof original !== 'function') return;
  const blocked = function (...args) {
    record(api, args);
    if (async) return Promise.reject(refusal(api));
    throw refusal(api);
  };
  Object.defineProperty(blocked, 'name', { value: original.name });
  target[name] = blocked;
}

const net = require('node:net');
const tls = require('node:tls');
const http = require('node:http');
const https = require('node:https');
const http2 = require('node:http2');
const dns = require('node:dns');
const dgram = require('node:dgram');

guard(net.Socket.prototype, 'connect', 'net.Socket.connect');
guard(net, 'connect', 'net.connect');
guard(net, 'createConnection', 'net.createConnection');
guard(tls, 'connect', 'tls.connect');
guard(http, 'request', 'http.request');
guard(http, 'get', 'http.get');
guard(https, 'request', 'https.request');
guard(https, 'get', 'https.get');
guard(http2, 'connect', 'http2.connect');
guard(dgram, 'createSocket', 'dgram.createSocket');
for (const name of ['lookup', 'lookupService', 'resolve', 'resolve4', 'resolve6', 'resolveAny', 'resolveCname', 'resolveMx', 'resolveNs', 'resolveTxt', 'resolveSrv', 'resolvePtr', 'resolveNaptr', 'resolveSoa', 'resolveCaa', 'reverse']) {
  guard(dns, name, `dns.${name}`);
  guard(dns.promises, name, `dns.promises.${name}`, { async: true });
  guard(dns.Resolver?.prototype, name, `dns.Resolver.${name}`);
  guard(dns.promises.Resolver?.prototype, name, `dns.promises.Resolver.${name}`, { async: true });
}
guard(globalThis, 'fetch', 'fetch', { async: true });
if (typeof globalThis.WebSocket === 'function') {
  globalThis.WebSocket = function WebSocket(...args) {
    record('WebSocket', args);
    throw refusal('WebSocket');
  };
}
// ESM named imports of built-ins (import { request } from 'node:http') read these bindings.
syncBuiltinESMExports();

if (process.env.EQUIVOX_NETLOG_LOADED) {
  try {
    appendFileSync(process.env.EQUIVOX_NETLOG_LOADED, `${process.pid} ${threadId}\n`);
  } catch {
    // see above
  }
}
