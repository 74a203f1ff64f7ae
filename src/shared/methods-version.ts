/**
 * The version of the statistical definitions (METHODS.md) the audit pipelines implement,
 * recorded in each run's results, printed on the report's cover (issue 34.4) and naming the
 * definitions text attached to the report (src/main/report/definitions.ts). Change it
 * whenever a definition changes what a number means (a test, a unit of inference, a
 * default), so that two reports with the same methods version computed the same things.
 */
// "b": FDI's verification measures (EER, GARBE, FDR, DET) added.
export const METHODS_VERSION = 'equivox-methods 2026-12-05b';
