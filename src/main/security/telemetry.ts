/**
 * Native libraries that would talk to the network or write to the home folder on their
 * own, and the environment that stops them. onnxruntime-node's native library carries
 * Microsoft's telemetry client: unless ORT_DISABLE_TELEMETRY=1 is in the environment when
 * its first session is created, its threads resolve mobile.events.data.microsoft.com
 * and it writes ~/.cache/Microsoft/DeveloperTools/.onnxruntime/deviceid. A JavaScript
 * socket guard cannot see that (native code never goes through Node's sockets), so
 * every process entry point sets the variable first (./telemetry-off.ts) and the one
 * module that loads onnxruntime-node (src/main/inference/ort.ts) refuses to run without it.
 *
 * This module has no side effect, so importing it never makes the check pass by itself.
 */
export const PRIVACY_ENV: Readonly<Record<string, string>> = Object.freeze({ ORT_DISABLE_TELEMETRY: '1' });

/** The variables of PRIVACY_ENV missing (or set otherwise) in `env`. */
export function missingPrivacyEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  return Object.entries(PRIVACY_ENV)
    .filter(([k, v]) => env[k] !== v)
    .map(([k]) => k);
}

/**
 * Throw when a library with a native telemetry client is loaded in a process (or worker
 * thread) whose entry point did not import ./telemetry-off first.
 */
export function assertTelemetryOff(library: string, env: NodeJS.ProcessEnv = process.env): void {
  const missing = missingPrivacyEnv(env);
  if (missing.length === 0) return;
  throw new Error(
    `${library} was loaded without ${missing.map((k) => `${k}=${PRIVACY_ENV[k]}`).join(', ')} in the environment: ` +
      'its native telemetry would contact the network and write a device id in the home folder. ' +
      "Import 'src/main/security/telemetry-off' first in this process's entry point (or set the variable before starting it).",
  );
}
