#!/usr/bin/env node
// `node scripts/ensure-native.mjs node|electron`: see native.mjs.
import { ensureNative } from './native.mjs';

ensureNative(process.argv[2] === 'electron' ? 'electron' : 'node');
