/**
 * Side effect only: turn off the native telemetry of Equivox's dependencies (see
 * ./telemetry.ts) for this process and everything it starts (worker threads copy the
 * environment when they are created; child processes inherit it). Every entry point
 * (CLI, web host, Electron main, benches, test harnesses) imports this first, before
 * anything that could load onnxruntime-node.
 */
import { PRIVACY_ENV } from './telemetry';

Object.assign(process.env, PRIVACY_ENV);
