/** The signed statement's name inside the PDF (it cannot list its own hash, so verify never matches it against itself). */
export const STATEMENT_ATTACHMENT = 'report.statement.json';

export const LOCKED_PLAN_ATTACHMENT = 'plan.locked.json';
export const MANIFESTS_ATTACHMENT = 'datasets.manifests.json';
export const DEFINITIONS_ATTACHMENT = 'definitions.md';
export const REPRODUCE_ATTACHMENT = 'reproduce.json';
export const INTOTO_ATTACHMENT = 'audit.intoto.json';

/**
 * The attached files that are not data (PDF/A-3 relationship Supplement, besides the statement),
 * each called what it is, in the order the verify screen names them. Every other attachment
 * is a data file, and the data files are exactly those written beside the report
 * (report/index.ts writeExports), so both places give the same count.
 */
export const SUPPLEMENT_ATTACHMENTS: readonly { name: string; what: string }[] = [
  { name: LOCKED_PLAN_ATTACHMENT, what: 'the locked plan' },
  { name: MANIFESTS_ATTACHMENT, what: 'the dataset manifests’ hashes' },
  { name: DEFINITIONS_ATTACHMENT, what: 'the definitions' },
  { name: REPRODUCE_ATTACHMENT, what: 'the reproduce recipe' },
  { name: INTOTO_ATTACHMENT, what: 'the signed attestation' },
];
