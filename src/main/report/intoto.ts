/**
 * An in-toto attestation of the audit (in-toto Statement v1 in a DSSE envelope, signed with
 * the auditor's key): subjects are the report, the models, the dataset manifests, the locked
 * plan and the results (SHA-256); the predicate, of Equivox's own type, carries each
 * section's verdicts and primary tests with their p-values and MDEs, the software and
 * decoder versions and the seeds. Standard in-toto/DSSE tools verify it (docs/archival.md).
 *
 * Two copies: beside the PDF (report.intoto.jsonl, with the report as a subject) and attached
 * inside it (without that subject: a file cannot contain its own hash).
 */
import { createPublicKey, sign as rsaSign, verify as rsaVerify, type KeyObject } from 'node:crypto';
import type { AuditResults } from '../../shared/results';
import { completeness } from '../../shared/completeness';
import { werOverallStatement, werVerdicts } from '../../shared/wer-verdict';
import { unitSeed } from '../stats/seeds';
import { INTOTO_ATTACHMENT } from '../../shared/report-files';

export const INTOTO_STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
export const EQUIVOX_PREDICATE_TYPE = 'https://equivox.org/attestations/audit-verdicts/v1';
export const DSSE_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
export { INTOTO_ATTACHMENT };

export interface Subject {
  name: string;
  digest: { sha256: string };
}
export interface InTotoStatement {
  _type: typeof INTOTO_STATEMENT_TYPE;
  subject: Subject[];
  predicateType: typeof EQUIVOX_PREDICATE_TYPE;
  predicate: Record<string, unknown>;
}
export interface DsseEnvelope {
  payloadType: string;
  payload: string;
  signatures: { keyid: string; sig: string }[];
}

/** DSSE v1 pre-authentication encoding: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body (lengths in bytes, decimal). */
export function pae(payloadType: string, body: Buffer): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `, 'utf8'), type, Buffer.from(` ${body.length} `, 'utf8'), body]);
}

const HEX64 = /^[0-9a-f]{64}$/;

export function attestationSubjects(results: AuditResults, files: { name: string; sha256: string }[]): Subject[] {
  const out: Subject[] = files.map((f) => ({ name: f.name, digest: { sha256: f.sha256 } }));
  if (results.audit.planSha256) out.push({ name: `plan:${results.audit.planId}@${results.audit.planVersion}`, digest: { sha256: results.audit.planSha256 } });
  for (const m of results.models) if (HEX64.test(m.sha256)) out.push({ name: `model:${m.name}`, digest: { sha256: m.sha256 } });
  for (const d of results.datasets) if (d.manifestSha256 && HEX64.test(d.manifestSha256)) out.push({ name: `dataset-manifest:${d.name}`, digest: { sha256: d.manifestSha256 } });
  return out;
}

/** The predicate: what the audit concluded and what it ran with, in numbers (no prose). */
export function auditPredicate(r: AuditResults): Record<string, unknown> {
  const c = completeness(r);
  const p: Record<string, unknown> = {
    audit: { id: r.audit.id, title: r.audit.title, project: r.project.name, planId: r.audit.planId, planVersion: r.audit.planVersion, planSha256: r.audit.planSha256, lockedAt: r.audit.lockedAt, startedAt: r.audit.startedAt, finishedAt: r.audit.finishedAt, deviations: r.audit.deviations.length },
    complete: c.complete,
    sectionsRun: c.ran,
    notRun: c.notRun.map((n) => ({ section: n.section, reason: n.reason })),
    seeds: {
      audit: r.audit.seed,
      ...(r.wer ? { wer: unitSeed(r.audit.seed, `wer/${r.wer.config.groupBy.join('+')}`) } : {}),
    },
    software: {
      equivox: r.equivoxVersion,
      node: r.environment.node,
      onnxruntime: r.environment.onnxruntime,
      platform: `${r.environment.platform} ${r.environment.arch}`,
      decoder: r.environment.decoder === undefined ? undefined : r.environment.decoder === null ? null : { name: 'ffmpeg', version: r.environment.decoder.version, sha256: r.environment.decoder.sha256, source: r.environment.decoder.source },
    },
    models: r.models.map((m) => ({ name: m.name, sha256: m.sha256, provider: m.provider })),
    warnings: r.warnings.length,
  };
  if (r.speat) {
    const s = r.speat;
    const key = s.config.correction;
    p.speat = {
      alpha: s.config.alpha,
      correction: key,
      primaryTest: 'two-sided permutation test of the SpEAT effect size (of speakers where a result\'s unit is speaker, else of clips)',
      results: s.results.map((x) => {
        const pAdj = x.pTwoSidedAdjusted?.[key as keyof typeof x.pTwoSidedAdjusted] ?? null;
        return { test: x.testId, model: x.modelId, effectSize: x.effectSize, pTwoSided: x.pTwoSided ?? null, unit: x.unit ?? 'clip', pAdjusted: pAdj, unlikelyByChance: typeof pAdj === 'number' ? pAdj < s.config.alpha : null, mde: x.mde ? x.mde.d : null, permutations: x.permutations, exact: x.exact };
      }),
    };
  }
  if (r.ser) p.ser = { agreement: r.ser.agreement, primaryTest: 'one-sided binomial test of sign agreement with SpEAT' };
  if (r.wer) {
    const w = r.wer;
    const overall = werOverallStatement(w);
    p.wer = {
      alpha: w.config.alpha,
      normalize: w.config.normalize,
      referenceGroup: w.config.referenceGroup,
      // How the comparisons were chosen before the run (null in results written before it was recorded).
      reference: w.config.reference ?? null,
      comparisons: werVerdicts(w).map((v, i) => ({ group: v.group, referenceGroup: v.referenceGroup, primaryTest: v.test, p: v.pValue, pHolm: v.pAdjusted, unlikelyByChance: v.unlikely, mdeRateRatio: w.comparisons[i]?.mde?.rateRatio ?? null })),
      overall: { unlikelyByChance: overall.unlikely, test: w.overallPrimary?.test ?? null, p: w.overallPrimary?.pValue ?? null },
      groups: Object.fromEntries(Object.entries(w.groups).map(([g, v]) => [g, { wer: v.wer, ci95: v.ci95 }])),
    };
  }
  if (r.fdi) {
    p.fdi = {
      orientation: r.fdi.config.orientation,
      groupings: r.fdi.groupings.map((g) => ({ groupBy: g.groupBy, reference: g.reference ?? null, threshold: g.threshold, fdi: g.fdi, ci95: g.fdiCi95, nullP: g.null?.pValue ?? null, verifierEer: g.verifier?.eer ?? null, verifierInformative: g.verifier?.informative ?? null })),
    };
  }
  return p;
}

export function buildStatement(results: AuditResults, subjects: Subject[]): InTotoStatement {
  return { _type: INTOTO_STATEMENT_TYPE, subject: subjects, predicateType: EQUIVOX_PREDICATE_TYPE, predicate: auditPredicate(results) };
}

/** keyid: the signing certificate's SHA-256 fingerprint (colon-separated upper-case hex, as the report shows it). */
export function signEnvelope(statement: InTotoStatement, key: KeyObject, keyid: string): DsseEnvelope {
  const body = Buffer.from(JSON.stringify(statement), 'utf8');
  const sig = rsaSign('sha256', pae(DSSE_PAYLOAD_TYPE, body), key);
  return { payloadType: DSSE_PAYLOAD_TYPE, payload: body.toString('base64'), signatures: [{ keyid, sig: sig.toString('base64') }] };
}

/** Verify an envelope with a certificate or public key (PEM); returns the statement when the signature holds. */
export function verifyEnvelope(envelope: DsseEnvelope, publicKeyPem: string): { valid: boolean; statement: InTotoStatement | null; problem: string | null } {
  try {
    if (envelope.payloadType !== DSSE_PAYLOAD_TYPE) return { valid: false, statement: null, problem: `the envelope's payloadType is ${JSON.stringify(envelope.payloadType)}, not ${DSSE_PAYLOAD_TYPE}` };
    const body = Buffer.from(envelope.payload, 'base64');
    const key = createPublicKey(publicKeyPem);
    const ok = envelope.signatures.some((s) => rsaVerify('sha256', pae(envelope.payloadType, body), key, Buffer.from(s.sig, 'base64')));
    if (!ok) return { valid: false, statement: null, problem: 'the in-toto envelope’s DSSE signature does not verify with the signer’s certificate' };
    const statement = JSON.parse(body.toString('utf8')) as InTotoStatement;
    if (statement._type !== INTOTO_STATEMENT_TYPE) return { valid: false, statement, problem: `the attestation is not an in-toto Statement v1 (_type ${JSON.stringify(statement._type)})` };
    return { valid: true, statement, problem: null };
  } catch (err) {
    return { valid: false, statement: null, problem: `the in-toto envelope cannot be read: ${(err as Error).message}` };
  }
}
