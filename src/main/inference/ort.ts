/**
 * The only module that imports onnxruntime-node (a lint rule keeps it so). Its native
 * library reads ORT_DISABLE_TELEMETRY when the first session is created; loading it in
 * a process whose entry point did not turn telemetry off fails here, loudly, before any
 * session can exist (see src/main/security/telemetry.ts).
 */
import { assertTelemetryOff } from '../security/telemetry';

assertTelemetryOff('onnxruntime-node');

// eslint-disable-next-line no-restricted-imports -- this is the one sanctioned import
export * from 'onnxruntime-node';
