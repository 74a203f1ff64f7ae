/**
 * The version of the statistical definitions (METHODS.md) the audit pipelines implement,
 * recorded in each run's results and printed on the report's cover (issue 34.4). Bump it
 * whenever a definition changes what a number means (a test, a unit of inference, a
 * default), so that two reports with the same methods version computed the same things.
 */
export const METHODS_VERSION = '2026.12-1';
